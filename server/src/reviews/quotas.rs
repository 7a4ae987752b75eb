//! The monthly quota review (Q5) and idle review (R5). A guarantee is suggested down to
//! the held p95 (rounded up) when the group's p95 stayed below half of it, and up to the
//! p95 when the group held above its guarantee at p95 and its jobs waited over an hour
//! at p95; otherwise it is kept.

use std::collections::HashMap;

use sqlx::Row;
use tidepool_api::changes::QuotaChange;
use tidepool_api::reviews::{IdleReview, IdleReviewLine, QuotaReview, QuotaReviewLine, SuggestionsProposed};
use tidepool_core::report::{hours, overlap, spread};

use super::{ReviewError, month_bounds};
use crate::access::require_admin;
use crate::settings;
use crate::store::Store;
use crate::store::users::{Role, User};

/// A wait this long at p95 says the guarantee is too small.
const LONG_WAIT_S: f64 = 3600.0;

/// The suggested guarantee and why, from the month's held p95 and wait p95.
pub fn suggest(guaranteed: i64, held_p95: f64, wait_p95_s: f64) -> (Option<i64>, String) {
    let p95 = held_p95.ceil() as i64;
    if guaranteed > 0 && held_p95 < guaranteed as f64 / 2.0 {
        (
            Some(p95),
            format!("held at most {p95} GPUs 95 % of the hours, under half the guarantee of {guaranteed}"),
        )
    } else if p95 > guaranteed && wait_p95_s > LONG_WAIT_S {
        (
            Some(p95),
            format!(
                "held {p95} GPUs at p95, above the guarantee of {guaranteed}, and jobs waited {:.0} min at p95",
                wait_p95_s / 60.0
            ),
        )
    } else {
        (None, "the guarantee fits the month's use".into())
    }
}

/// Only `user`'s group unless an admin.
pub(super) fn only(user: &User) -> i64 {
    if user.role == Role::Admin { 0 } else { user.group_id.unwrap_or(-1) }
}

/// (group, model, category) -> held GPU-seconds per hour of the month.
async fn held(
    store: &Store,
    group: i64,
    start: i64,
    end: i64,
) -> Result<HashMap<(i64, String, String), Vec<i64>>, sqlx::Error> {
    let slots = ((end - start + 3599) / 3600) as usize;
    let rows = sqlx::query(
        "SELECT hour, group_id, model, category, CAST(SUM(held_gpu_s) AS BIGINT) FROM usage_hours \
         WHERE hour >= $1 AND hour < $2 AND ($3 = 0 OR group_id = $3) GROUP BY hour, group_id, model, category",
    )
    .bind(start)
    .bind(end)
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    let mut out: HashMap<(i64, String, String), Vec<i64>> = HashMap::new();
    for r in &rows {
        let i = ((r.try_get::<i64, _>(0)? - start) / 3600) as usize;
        let series =
            out.entry((r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)).or_insert_with(|| vec![0; slots]);
        if i < slots {
            series[i] += r.try_get::<i64, _>(4)?;
        }
    }
    Ok(out)
}

/// The quota review of `month` (default: this month).
pub async fn quota_review(
    store: &Store,
    user: &User,
    month: Option<&str>,
    now: i64,
) -> Result<QuotaReview, ReviewError> {
    let zone = settings::zone_of(&settings::read(store).await?);
    let (start, end, month) = month_bounds(&zone, month, now)?;
    let group = only(user);
    let series = held(store, group, start, end).await?;
    let slots = ((end - start + 3599) / 3600) as usize;
    let quotas = sqlx::query(
        "SELECT q.group_id, g.name, q.model, q.category, q.guaranteed FROM quotas q JOIN groups g ON g.id = q.group_id \
         WHERE ($1 = 0 OR q.group_id = $1) ORDER BY g.name, q.model, q.category",
    )
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    let loans = sqlx::query(
        "SELECT lender_id, borrower_id, model, gpus, decided_at, ends_at, ended_at FROM loans \
         WHERE state IN ('active', 'returned', 'reclaimed') AND decided_at IS NOT NULL AND decided_at < $1",
    )
    .bind(end)
    .fetch_all(&store.pool)
    .await?;
    let mut lines = Vec::new();
    for q in &quotas {
        let (gid, name, model, category, guaranteed): (i64, String, String, String, i64) =
            (q.try_get(0)?, q.try_get(1)?, q.try_get(2)?, q.try_get(3)?, q.try_get(4)?);
        let gpus: Vec<f64> = series
            .get(&(gid, model.clone(), category.clone()))
            .map_or_else(|| vec![0.0; slots], |s| s.iter().map(|v| *v as f64 / 3600.0).collect());
        let s = spread(&gpus);
        let (mut lent, mut borrowed) = (0.0, 0.0);
        for l in &loans {
            let (lender, borrower, m): (i64, Option<i64>, String) =
                (l.try_get(0)?, l.try_get(1)?, l.try_get(2)?);
            if m != model {
                continue;
            }
            let (n, from, ends, ended): (i64, i64, i64, Option<i64>) =
                (l.try_get(3)?, l.try_get(4)?, l.try_get(5)?, l.try_get(6)?);
            let gh = hours(n * overlap(from, ended.map_or(ends, |e| e.min(ends)), start, end));
            if lender == gid {
                lent += gh;
            }
            if borrower == Some(gid) {
                borrowed += gh;
            }
        }
        let waits = sqlx::query(
            "SELECT MIN(a.started_at) - j.submitted_at FROM jobs j JOIN allocations a ON a.job_id = j.id \
             WHERE j.group_id = $1 AND j.model = $2 AND j.category = $3 GROUP BY j.id, j.submitted_at \
             HAVING MIN(a.started_at) >= $4 AND MIN(a.started_at) < $5",
        )
        .bind(gid)
        .bind(&model)
        .bind(&category)
        .bind(start)
        .bind(end)
        .fetch_all(&store.pool)
        .await?;
        let waits: Vec<f64> = waits
            .iter()
            .map(|r| r.try_get::<i64, _>(0).map(|w| w.max(0) as f64))
            .collect::<Result<_, _>>()?;
        let wait_p95_s = spread(&waits).p95;
        let (suggested, why) = suggest(guaranteed, s.p95, wait_p95_s);
        lines.push(QuotaReviewLine {
            group: name,
            model,
            category,
            guaranteed,
            held_p50: s.p50,
            held_p95: s.p95,
            borrowed_gpu_hours: borrowed,
            lent_gpu_hours: lent,
            wait_p95_s,
            suggested,
            why,
        });
    }
    Ok(QuotaReview { month, lines })
}

/// Each suggestion of `month`'s review becomes a quota change awaiting a second admin (B2),
/// keeping the quota's other settings.
pub async fn propose(
    store: &Store,
    user: &User,
    month: &str,
    now: i64,
) -> Result<SuggestionsProposed, ReviewError> {
    require_admin(user, "propose the review's quota changes")?;
    let review = quota_review(store, user, Some(month), now).await?;
    let mut changes = Vec::new();
    for line in review.lines.iter().filter(|l| l.suggested.is_some()) {
        let row = sqlx::query(
            "SELECT q.borrow_limit, q.lend_limit, q.budget_gpu_h FROM quotas q JOIN groups g ON g.id = q.group_id \
             WHERE g.name = $1 AND q.model = $2 AND q.category = $3",
        )
        .bind(&line.group)
        .bind(&line.model)
        .bind(&line.category)
        .fetch_one(&store.pool)
        .await?;
        let limit = |v: Option<i64>| v.map(|v| v.clamp(0, i64::from(u32::MAX)) as u32);
        let body = QuotaChange {
            group: line.group.clone(),
            model: Some(line.model.clone()),
            category: line.category.clone(),
            guaranteed: line.suggested.unwrap_or(line.guaranteed).clamp(0, i64::from(u32::MAX)) as u32,
            borrow_limit: limit(row.try_get(0)?),
            lend_limit: limit(row.try_get(1)?),
            budget_gpu_h: row.try_get(2)?,
            why: format!("quota review {month}: {}", line.why).chars().take(500).collect(),
        };
        changes.push(crate::changes::propose_quota(store, user, &body, now).await?.change);
    }
    Ok(SuggestionsProposed { changes })
}

/// The idle review of `month`: held and idle GPU-hours per group, its idle reclaims, and
/// the guaranteed GPUs it left unused on average (which others could borrow).
pub async fn idle(
    store: &Store,
    user: &User,
    month: Option<&str>,
    now: i64,
) -> Result<IdleReview, ReviewError> {
    let zone = settings::zone_of(&settings::read(store).await?);
    let (start, end, month) = month_bounds(&zone, month, now)?;
    let group = only(user);
    let rows = sqlx::query(
        "SELECT g.id, g.name, \
         (SELECT CAST(COALESCE(SUM(u.held_gpu_s), 0) AS BIGINT) FROM usage_hours u WHERE u.group_id = g.id AND u.hour >= $1 AND u.hour < $2), \
         (SELECT CAST(COALESCE(SUM(u.idle_gpu_s), 0) AS BIGINT) FROM usage_hours u WHERE u.group_id = g.id AND u.hour >= $1 AND u.hour < $2), \
         (SELECT COUNT(*) FROM events e JOIN jobs j ON j.id = e.job_id WHERE j.group_id = g.id AND e.kind = 'idle-reclaim' AND e.at >= $1 AND e.at < $2), \
         (SELECT CAST(COALESCE(SUM(q.guaranteed), 0) AS BIGINT) FROM quotas q WHERE q.group_id = g.id) \
         FROM groups g WHERE ($3 = 0 OR g.id = $3) ORDER BY g.name",
    )
    .bind(start)
    .bind(end)
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    let month_hours = (end - start) as f64 / 3600.0;
    let mut lines = Vec::new();
    for r in &rows {
        let (held, idle, reclaims, guaranteed): (i64, i64, i64, i64) =
            (r.try_get(2)?, r.try_get(3)?, r.try_get(4)?, r.try_get(5)?);
        let held_h = hours(held);
        let idle_share = if held > 0 { idle as f64 / held as f64 } else { 0.0 };
        // Held GPUs on average over the month, against the guarantee.
        let unused = (guaranteed as f64 - held_h / month_hours).max(0.0);
        let suggestion = if idle_share > 0.25 {
            format!(
                "{:.0} % of the GPU-hours held sat idle: ask owners to release GPUs or shorten idle reclaim",
                idle_share * 100.0
            )
        } else if unused >= 1.0 {
            format!(
                "{unused:.1} guaranteed GPUs unused on average: offer them as a loan or lower the guarantee"
            )
        } else {
            "no idle capacity worth moving".into()
        };
        lines.push(IdleReviewLine {
            group: r.try_get(1)?,
            held_gpu_hours: held_h,
            idle_gpu_hours: hours(idle),
            idle_share,
            idle_reclaims: reclaims,
            unused_guarantee_avg: unused,
            suggestion,
        });
    }
    Ok(IdleReview { month, lines })
}

#[cfg(test)]
mod tests {
    use super::suggest;

    #[test]
    fn suggestions_follow_the_held_p95_and_the_waits() {
        assert_eq!(suggest(16, 3.2, 0.0).0, Some(4));
        assert_eq!(suggest(8, 11.5, 7200.0).0, Some(12));
        assert_eq!(suggest(8, 11.5, 60.0).0, None);
        assert_eq!(suggest(8, 6.0, 0.0).0, None);
    }
}
