//! A replay's comparison as one table (what the policies page and the promotion approval
//! show): a row per figure, a column each for what happened, the active version and the
//! candidate, so the admin who approves reads the difference at a glance.

use std::collections::BTreeSet;

use tidepool_api::replays::{Replay, ReplayFigures};

use crate::review_tables::utc;
use crate::tables::Table;

fn secs(s: f64) -> String {
    format!("{s:.0} s")
}

/// A figure of finished jobs; a dash where none finished (no figure, rather than 0 s).
fn finished(f: &ReplayFigures, seconds: f64) -> String {
    if f.finished == 0 { "—".into() } else { secs(seconds) }
}

/// The comparison's rows under the header `figure | what happened | active | candidate`.
pub fn comparison(r: &Replay) -> Table {
    let runs = [&r.actual, &r.active, &r.candidate];
    let row = |name: String, f: &dyn Fn(&ReplayFigures) -> String| {
        std::iter::once(name).chain(runs.iter().map(|x| f(x))).collect::<Vec<_>>()
    };
    let mut rows = vec![
        row("jobs finished".into(), &|f| f.finished.to_string()),
        row("avg JCT".into(), &|f| finished(f, f.avg_jct_s)),
        row("avg wait".into(), &|f| finished(f, f.avg_wait_s)),
        row("p50 wait".into(), &|f| finished(f, f.p50_wait_s)),
        row("p99 wait".into(), &|f| finished(f, f.p99_wait_s)),
        row("preemptions".into(), &|f| f.preemptions.to_string()),
    ];
    // Every group and class finished in any run (a job may finish in one of them only).
    let kinds: BTreeSet<(&str, &str)> =
        runs.iter().flat_map(|f| f.waits.iter().map(|w| (w.group.as_str(), w.class.as_str()))).collect();
    for (g, c) in kinds {
        rows.push(row(format!("{g} {c} wait p50 / p99"), &|f| {
            f.waits
                .iter()
                .find(|x| x.group == g && x.class == c)
                .map_or("—".into(), |x| format!("{} / {}", secs(x.p50_wait_s), secs(x.p99_wait_s)))
        }));
    }
    for s in &r.candidate.shares {
        let g = s.group.as_str();
        let budget = s.budget_gpu_h.map_or(String::new(), |b| format!(", budget {b:.0} GPU-h"));
        let name = format!("{g} share (guarantee {:.0}%{budget})", s.guaranteed_share * 100.0);
        rows.push(row(name, &|f| {
            f.shares
                .iter()
                .find(|x| x.group == g)
                .map_or("—".into(), |x| format!("{:.0}% ({:.1} GPU-h)", x.share * 100.0, x.gpu_h))
        }));
    }
    Table {
        id: "replay",
        title: "Replay",
        header: ["figure", r.actual.label.as_str(), r.active.label.as_str(), r.candidate.label.as_str()]
            .iter()
            .map(|h| h.to_string())
            .collect(),
        rows,
    }
}

/// One line above the table: the period, the jobs, who ran it and when.
pub fn caption(r: &Replay) -> String {
    let left = if r.left_out.is_empty() { String::new() } else { format!(", {} left out", r.left_out.len()) };
    format!(
        "{} jobs submitted {} .. {} UTC{left}; replayed by {} at {}",
        r.jobs,
        utc(r.since),
        utc(r.until),
        r.requested_by,
        utc(r.at)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidepool_api::replays::{ReplayShare, ReplayWaits};

    fn run(label: &str, p50: f64) -> ReplayFigures {
        ReplayFigures {
            label: label.into(),
            finished: 5,
            avg_jct_s: 6.8,
            avg_wait_s: 4.0,
            p50_wait_s: p50,
            p99_wait_s: 8.0,
            preemptions: 0,
            waits: vec![ReplayWaits {
                group: "speech".into(),
                class: "normal".into(),
                finished: 2,
                p50_wait_s: p50,
                p99_wait_s: 8.0,
            }],
            shares: vec![ReplayShare {
                group: "speech".into(),
                gpu_h: 0.5,
                share: 0.25,
                guaranteed_share: 0.5,
                budget_gpu_h: Some(100.0),
            }],
        }
    }

    #[test]
    fn a_row_per_figure_a_column_per_run() {
        let r = Replay {
            id: 1,
            sha256: "ab".repeat(32),
            with: Vec::new(),
            since: 0,
            until: 86_400,
            requested_by: "admin".into(),
            at: 86_400,
            jobs: 5,
            left_out: Vec::new(),
            actual: run("what happened", 7.0),
            active: run("active: built-in", 7.0),
            candidate: run("candidate: priority abab", 2.0),
        };
        let t = comparison(&r);
        assert_eq!(t.header, ["figure", "what happened", "active: built-in", "candidate: priority abab"]);
        assert_eq!(t.rows[3], ["p50 wait", "7 s", "7 s", "2 s"]);
        assert_eq!(t.rows[6], ["speech normal wait p50 / p99", "7 s / 8 s", "7 s / 8 s", "2 s / 8 s"]);
        assert_eq!(t.rows[7][0], "speech share (guarantee 50%, budget 100 GPU-h)");
        assert_eq!(t.rows[7][3], "25% (0.5 GPU-h)");
        assert_eq!(
            caption(&r),
            "5 jobs submitted 1970-01-01 00:00 .. 1970-01-02 00:00 UTC; replayed by admin at 1970-01-02 00:00"
        );
    }
}
