//! The yearly review of the rules: every policy transition and every applied quota change
//! of the organisation's local year, with its reason, who made it and who approved it,
//! and its measured effect: the four weeks before against the four weeks after (GPU-hours
//! held and idle share from the hourly roll-up, the p95 wait of the jobs first placed in
//! the span), organisation-wide for a policy, the group's for a quota.
//!
//! Who: a policy reaches canary or active only on a second person's approval (B2), and
//! the records keep the approver as the transition's actor; the version's author is the
//! one who made the change. Other transitions are their actor's alone. A quota change is
//! its proposer's, approved by its reviewer.

use sqlx::Row;
use tidepool_api::changes::QuotaSetting;
use tidepool_api::reviews::{Effect, RuleChange, RulesReview};
use tidepool_core::report::spread;

use super::{ReviewError, month_bounds};
use crate::input::Invalid;
use crate::settings;
use crate::store::Store;

/// Four weeks, the span an effect is measured over on each side of a change.
pub const SPAN_S: i64 = 28 * 86_400;

/// The figures of `[start, end)` for group `group` (0: everyone).
pub async fn effect(store: &Store, group: i64, start: i64, end: i64) -> Result<Effect, sqlx::Error> {
    let row = sqlx::query(
        "SELECT CAST(COALESCE(SUM(held_gpu_s), 0) AS BIGINT), CAST(COALESCE(SUM(idle_gpu_s), 0) AS BIGINT) \
         FROM usage_hours WHERE hour >= $1 AND hour < $2 AND ($3 = 0 OR group_id = $3)",
    )
    .bind(start)
    .bind(end)
    .bind(group)
    .fetch_one(&store.pool)
    .await?;
    let (held, idle): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
    let waits = sqlx::query(
        "SELECT MIN(a.started_at) - j.submitted_at FROM jobs j JOIN allocations a ON a.job_id = j.id \
         WHERE ($1 = 0 OR j.group_id = $1) GROUP BY j.id, j.submitted_at \
         HAVING MIN(a.started_at) >= $2 AND MIN(a.started_at) < $3",
    )
    .bind(group)
    .bind(start)
    .bind(end)
    .fetch_all(&store.pool)
    .await?
    .iter()
    .map(|r| r.try_get::<i64, _>(0).map(|w| w.max(0) as f64))
    .collect::<Result<Vec<_>, _>>()?;
    Ok(Effect {
        wait_p95_s: spread(&waits).p95,
        idle_share: if held > 0 { idle as f64 / held as f64 } else { 0.0 },
        gpu_hours: held as f64 / 3600.0,
    })
}

/// The reason a quota change's summary carries: `… GPU-h (why)`.
fn quota_reason(summary: &str) -> String {
    match summary.split_once(" GPU-h (") {
        Some((_, why)) => why.strip_suffix(')').unwrap_or(why).to_string(),
        None => summary.to_string(),
    }
}

/// The rule changes of local year `year` (none: this year), oldest first.
pub async fn rules_review(store: &Store, year: Option<i64>, now: i64) -> Result<RulesReview, ReviewError> {
    let zone = settings::zone_of(&settings::read(store).await?);
    let year = match year {
        Some(y) if (1970..=9999).contains(&y) => y,
        Some(y) => return Err(Invalid(format!("year must be between 1970 and 9999, not {y}")).into()),
        None => zone.month_of(now).2[..4].parse().unwrap_or(1970),
    };
    let (start, _, _) = month_bounds(&zone, Some(&format!("{year}-01")), now)?;
    let (_, end, _) = month_bounds(&zone, Some(&format!("{year}-12")), now)?;

    // Each change, with the group its effect is measured on (0: everyone); effects later.
    let zero = Effect { wait_p95_s: 0.0, idle_share: 0.0, gpu_hours: 0.0 };
    let entry = |at, kind: &str, what, why, by, approved_by| RuleChange {
        at,
        kind: kind.into(),
        what,
        why,
        by,
        approved_by,
        before: zero.clone(),
        after: zero.clone(),
    };
    let mut found: Vec<(RuleChange, i64)> = Vec::new();
    let rows = sqlx::query(
        "SELECT t.at, t.state, t.actor, t.note, v.sha256, COALESCE(v.kind, 'unloadable'), v.author, v.note \
         FROM policy_transitions t JOIN policy_versions v ON v.sha256 = t.sha256 \
         WHERE t.at >= $1 AND t.at < $2 ORDER BY t.at, t.id LIMIT 10000",
    )
    .bind(start)
    .bind(end)
    .fetch_all(&store.pool)
    .await?;
    for r in rows {
        let (state, actor, note, sha, kind, author, version_note): (
            String,
            String,
            String,
            String,
            String,
            String,
            String,
        ) = (
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get(3)?,
            r.try_get(4)?,
            r.try_get(5)?,
            r.try_get(6)?,
            r.try_get(7)?,
        );
        let approved = matches!(state.as_str(), "active" | "canary");
        let (by, approved_by) = if approved { (author, Some(actor)) } else { (actor, None) };
        let why = if note.is_empty() { version_note } else { note };
        let what = format!("{kind} {} {state}", &sha[..sha.len().min(12)]);
        found.push((entry(r.try_get(0)?, "policy", what, why, by, approved_by), 0));
    }

    let rows = sqlx::query(
        "SELECT c.reviewed_at, c.summary, c.payload, c.proposed_by, c.reviewed_by FROM changes c \
         WHERE c.kind = 'quota' AND c.state = 'applied' AND c.reviewed_at >= $1 AND c.reviewed_at < $2 \
         ORDER BY c.reviewed_at, c.id LIMIT 10000",
    )
    .bind(start)
    .bind(end)
    .fetch_all(&store.pool)
    .await?;
    for r in rows {
        let (at, summary, payload): (i64, String, String) = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        let Ok(q) = serde_json::from_str::<QuotaSetting>(&payload) else {
            tracing::error!(
                at,
                "an applied quota change's setting does not read; left out of the rules review"
            );
            continue;
        };
        let group = sqlx::query("SELECT id FROM groups WHERE name = $1")
            .bind(&q.group)
            .fetch_optional(&store.pool)
            .await?
            .map(|g| g.try_get::<i64, _>(0))
            .transpose()?
            .unwrap_or(-1);
        let budget = q.budget_gpu_h.map_or("none".into(), |b| format!("{b:.0} GPU-h"));
        let what =
            format!("{} {} {}: guarantee {}, budget {budget}", q.group, q.model, q.category, q.guaranteed);
        found.push((entry(at, "quota", what, quota_reason(&summary), r.try_get(3)?, r.try_get(4)?), group));
    }
    found.sort_by_key(|f| f.0.at);

    let mut entries = Vec::with_capacity(found.len());
    for (mut change, group) in found {
        change.before = effect(store, group, change.at - SPAN_S, change.at).await?;
        change.after = effect(store, group, change.at, change.at + SPAN_S).await?;
        entries.push(change);
    }
    Ok(RulesReview { year, entries })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_quota_change_reason_is_read_from_its_summary() {
        let s = "vision A100-80G training: guarantee 12 GPUs, budget none GPU-h (jobs waited (a lot))";
        assert_eq!(super::quota_reason(s), "jobs waited (a lot)");
        assert_eq!(super::quota_reason("odd"), "odd");
    }
}
