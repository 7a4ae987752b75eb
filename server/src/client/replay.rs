//! `tidepool replay --since 30d --priority v.wasm`: uploads the candidate modules, asks the
//! server to replay them over the recorded period, and prints the comparison with the
//! active versions and with what happened (O1, A3).

use std::collections::BTreeSet;
use std::path::PathBuf;

use tidepool_api::Uploaded;
use tidepool_api::replays::{Replay, ReplayFigures, ReplayRequest};

use crate::cli::ClientOpts;
use crate::client::http::{Api, query};
use crate::client::table::{table, utc};
use crate::client::{Failure, Outcome, print};

/// Uploads `modules` (by kind; at least one), then replays the first over the period.
pub async fn replay(
    opts: &ClientOpts,
    since: &str,
    until: Option<&str>,
    modules: &[(&str, &Option<PathBuf>)],
) -> Outcome {
    let given: Vec<(&str, &PathBuf)> =
        modules.iter().filter_map(|(k, f)| f.as_ref().map(|f| (*k, f))).collect();
    if given.is_empty() {
        return Err(Failure::Usage("name a candidate: --priority, --quota or --reclaim FILE.wasm".into()));
    }
    let mut files = Vec::with_capacity(given.len());
    for (kind, file) in &given {
        let bytes = std::fs::read(file).map_err(|e| Failure::Usage(format!("{}: {e}", file.display())))?;
        files.push((*kind, file, bytes));
    }
    let mut api = Api::signed_in(opts)?;
    let mut shas = Vec::with_capacity(files.len());
    for (kind, file, bytes) in files {
        let note = format!(
            "replay candidate {}",
            file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into())
        );
        let path = format!("/api/policies?{}", query(&[("note", note)]));
        let up: Uploaded = api.post_bytes(&path, bytes).await?;
        let got = up.kind.map_or("unreadable", |k| crate::policy::Kind::from(k).name());
        if got != kind {
            return Err(Failure::Usage(format!("{}: a {got} policy, given as --{kind}", file.display())));
        }
        shas.push(up.sha256);
    }
    let body = ReplayRequest { since: since.into(), until: until.map(Into::into), with: shas[1..].to_vec() };
    let replay: Replay = api.post(&format!("/api/policies/{}/replays", shas[0]), Some(&body)).await?;
    print(opts, &replay, text)
}

/// Seconds of finished jobs; a dash where none finished (no figure, rather than 0).
fn finished(f: &ReplayFigures, seconds: f64) -> String {
    if f.finished == 0 { "—".into() } else { format!("{seconds:.0}") }
}

/// The comparison for people: the summary, waits by group and class, shares and budgets.
pub fn text(r: &Replay) -> String {
    let runs = [&r.actual, &r.active, &r.candidate];
    let mut out = format!(
        "replay #{} of {} over {} .. {}: {} jobs ({} left out)\n\n",
        r.id,
        &r.sha256[..12.min(r.sha256.len())],
        utc(r.since),
        utc(r.until),
        r.jobs,
        r.left_out.len()
    );
    let row = |name: &str, f: &dyn Fn(&ReplayFigures) -> String| {
        std::iter::once(name.to_string()).chain(runs.iter().map(|x| f(x))).collect::<Vec<_>>()
    };
    let headers: Vec<&str> = std::iter::once("").chain(runs.iter().map(|x| x.label.as_str())).collect();
    out += &table(
        &headers,
        &[
            row("finished", &|f| f.finished.to_string()),
            row("avg JCT s", &|f| finished(f, f.avg_jct_s)),
            row("avg wait s", &|f| finished(f, f.avg_wait_s)),
            row("p50 wait s", &|f| finished(f, f.p50_wait_s)),
            row("p99 wait s", &|f| finished(f, f.p99_wait_s)),
            row("preemptions", &|f| f.preemptions.to_string()),
        ],
    );
    out += "\nwaits by group and class, p50 / p99 s\n";
    // Every group and class finished in any of the three runs (a job may finish in one only).
    let kinds: BTreeSet<(&str, &str)> =
        runs.iter().flat_map(|f| f.waits.iter().map(|w| (w.group.as_str(), w.class.as_str()))).collect();
    let waits: Vec<Vec<String>> = kinds
        .into_iter()
        .map(|(group, class)| {
            let cell = |f: &ReplayFigures| {
                f.waits
                    .iter()
                    .find(|x| x.group == group && x.class == class)
                    .map_or("—".into(), |x| format!("{:.0} / {:.0}", x.p50_wait_s, x.p99_wait_s))
            };
            vec![group.into(), class.into(), cell(&r.actual), cell(&r.active), cell(&r.candidate)]
        })
        .collect();
    out += &table(&["GROUP", "CLASS", "WHAT HAPPENED", "ACTIVE", "CANDIDATE"], &waits);
    out += "\nGPU-hours, share of the pool against the guarantee's share (budget)\n";
    let shares: Vec<Vec<String>> = r
        .candidate
        .shares
        .iter()
        .map(|s| {
            let cell = |f: &ReplayFigures| {
                f.shares
                    .iter()
                    .find(|x| x.group == s.group)
                    .map_or("—".into(), |x| format!("{:.1} h, {:.0}%", x.gpu_h, x.share * 100.0))
            };
            let budget = s.budget_gpu_h.map_or("none".into(), |b| format!("{b:.0} h"));
            vec![
                s.group.clone(),
                format!("{:.0}%", s.guaranteed_share * 100.0),
                budget,
                cell(&r.actual),
                cell(&r.active),
                cell(&r.candidate),
            ]
        })
        .collect();
    out += &table(&["GROUP", "GUARANTEE", "BUDGET", "WHAT HAPPENED", "ACTIVE", "CANDIDATE"], &shares);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for why in &r.left_out {
        out += &format!("left out: {why}\n");
    }
    out
}
