//! The reviews' tables as text (like the report's, in `tables`): what the page shows and
//! what "Download CSV" saves, built from the typed reviews.

use tidepool_api::reviews::{IdleReview, QuotaReview, RulesReview, TemplateReview};

use crate::scale::duration;
use crate::tables::{Table, hours};
use crate::week::civil_from_days;

fn table(id: &'static str, title: &'static str, header: &[&str], rows: Vec<Vec<String>>) -> Table {
    Table { id, title, header: header.iter().map(|h| h.to_string()).collect(), rows }
}

/// Unix seconds as `2026-11-24 14:05` (UTC).
pub fn utc(t: i64) -> String {
    let (y, m, d) = civil_from_days(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    format!("{y}-{m:02}-{d:02} {:02}:{:02}", s / 3600, s % 3600 / 60)
}

fn pct(share: f64) -> String {
    format!("{:.0}", share * 100.0)
}

pub fn quotas(q: &QuotaReview) -> Table {
    let head = [
        "group",
        "model",
        "category",
        "guaranteed",
        "held p50",
        "held p95",
        "borrowed GPU-hours",
        "lent GPU-hours",
        "wait p95",
        "suggested",
        "why",
    ];
    let rows = q
        .lines
        .iter()
        .map(|l| {
            let suggested = l.suggested.map_or_else(|| "keep".to_string(), |s| s.to_string());
            let (held_p50, held_p95) = (format!("{:.1}", l.held_p50), format!("{:.1}", l.held_p95));
            let (group, model, category) = (l.group.clone(), l.model.clone(), l.category.clone());
            let (borrowed, lent) = (hours(l.borrowed_gpu_hours), hours(l.lent_gpu_hours));
            vec![
                group,
                model,
                category,
                l.guaranteed.to_string(),
                held_p50,
                held_p95,
                borrowed,
                lent,
                duration(l.wait_p95_s),
                suggested,
                l.why.clone(),
            ]
        })
        .collect();
    table("quotas", "Quotas", &head, rows)
}

pub fn idle(v: &IdleReview) -> Table {
    let head = [
        "group",
        "held GPU-hours",
        "idle GPU-hours",
        "idle %",
        "idle reclaims",
        "unused guarantee (GPUs)",
        "suggestion",
    ];
    let rows = v
        .lines
        .iter()
        .map(|l| {
            let unused = format!("{:.1}", l.unused_guarantee_avg);
            vec![
                l.group.clone(),
                hours(l.held_gpu_hours),
                hours(l.idle_gpu_hours),
                pct(l.idle_share),
                l.idle_reclaims.to_string(),
                unused,
                l.suggestion.clone(),
            ]
        })
        .collect();
    table("idle", "Idle capacity", &head, rows)
}

pub fn templates(v: &TemplateReview) -> Table {
    let rows = v
        .stale
        .iter()
        .map(|t| {
            let last = t.last_launch.map(utc).unwrap_or_else(|| "never".into());
            vec![t.name.clone(), t.group.clone(), t.created_by.clone(), t.launches.to_string(), last]
        })
        .collect();
    table(
        "templates",
        "Templates not launched this quarter",
        &["template", "group", "created by", "launches", "last launch (UTC)"],
        rows,
    )
}

pub fn rules(v: &RulesReview) -> Table {
    let head = [
        "when (UTC)",
        "kind",
        "what",
        "why",
        "by",
        "approved by",
        "p95 wait before",
        "p95 wait after",
        "idle % before",
        "idle % after",
    ];
    let rows = v
        .entries
        .iter()
        .map(|e| {
            let approved = e.approved_by.clone().unwrap_or_default();
            let (wb, wa) = (duration(e.before.wait_p95_s), duration(e.after.wait_p95_s));
            let (ib, ia) = (pct(e.before.idle_share), pct(e.after.idle_share));
            vec![
                utc(e.at),
                e.kind.clone(),
                e.what.clone(),
                e.why.clone(),
                e.by.clone(),
                approved,
                wb,
                wa,
                ib,
                ia,
            ]
        })
        .collect();
    table("rules", "Rules changed this year", &head, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidepool_api::reviews::{Effect, QuotaReviewLine, RuleChange};

    #[test]
    fn times_are_utc_minutes() {
        assert_eq!(utc(0), "1970-01-01 00:00");
        assert_eq!(utc(1_795_000_000), "2026-11-18 11:06");
    }

    #[test]
    fn quota_and_rule_rows_read_as_on_screen() {
        let line = QuotaReviewLine {
            group: "vision".into(),
            model: "A100-80G".into(),
            category: "training".into(),
            guaranteed: 16,
            held_p50: 12.0,
            held_p95: 22.25,
            borrowed_gpu_hours: 192.0,
            lent_gpu_hours: 0.0,
            wait_p95_s: 7200.0,
            suggested: Some(20),
            why: "held above, often".into(),
        };
        let q = QuotaReview { month: "2026-11".into(), lines: vec![line] };
        let t = quotas(&q);
        assert_eq!(
            t.rows[0],
            [
                "vision",
                "A100-80G",
                "training",
                "16",
                "12.0",
                "22.2",
                "192.0",
                "0.0",
                "2.0 h",
                "20",
                "held above, often"
            ]
        );
        assert!(t.csv().ends_with(",20,\"held above, often\"\r\n"));
        let effect = |w, i| Effect { wait_p95_s: w, idle_share: i, gpu_hours: 0.0 };
        let e = RuleChange {
            at: 0,
            kind: "quota".into(),
            what: "vision 12 -> 16".into(),
            why: "deadline".into(),
            by: "admin".into(),
            approved_by: None,
            before: effect(9000.0, 0.1),
            after: effect(4000.0, 0.12),
        };
        let r = rules(&RulesReview { year: 2026, entries: vec![e] });
        assert_eq!(
            r.rows[0],
            [
                "1970-01-01 00:00",
                "quota",
                "vision 12 -> 16",
                "deadline",
                "admin",
                "",
                "2.5 h",
                "1.1 h",
                "10",
                "12"
            ]
        );
    }
}
