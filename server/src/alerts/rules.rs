//! What the alert rules read (O2): the conditions true at `now`, found from what the
//! records already hold — budgets against the month's spend (Q3), grants near their
//! expiry (P2), lost nodes, the event log's policy faults, open circuits and idle
//! notices and reclaims, this hour's waits against the roll-up's four weeks, and idle
//! held GPUs per pool. The judgement itself (thresholds, keys, audiences) is the core's.

use std::collections::HashMap;

use sqlx::Row;
use tidepool_core::alerts::{self as rule, Condition};

use super::{AlertError, Evaluator};
use crate::calendar::{civil_from_days, month_start};
use crate::store::Store;
use crate::store::events::read as read_detail;

/// Event kinds that are alerts by themselves.
const EVENT_KINDS: &str = "'policy-fault', 'policy-circuit-open', 'idle-notice', 'idle-reclaim'";

/// Events younger than this are read again each evaluation: an event written in a
/// transaction that commits late (its id lower than one already read) is not missed.
const EVENT_SETTLE_S: i64 = 120;

/// Every condition true at `now`.
pub async fn find(store: &Store, evaluator: &Evaluator, now: i64) -> Result<Vec<Condition>, AlertError> {
    let mut found = budgets(store, now).await?;
    found.extend(grants(store, now).await?);
    found.extend(lost_nodes(store).await?);
    found.extend(events(store, now).await?);
    found.extend(waits(store, evaluator, now).await?);
    found.extend(idle_pools(store, evaluator.config.pool_idle_after_s, now).await?);
    Ok(found)
}

async fn budgets(store: &Store, now: i64) -> Result<Vec<Condition>, AlertError> {
    let spent = store.spent_this_month(now, true).await?;
    let (y, m, _) = civil_from_days(month_start(now).div_euclid(86_400));
    let month = format!("{y}-{m:02}");
    let rows = sqlx::query(
        "SELECT q.id, q.group_id, g.name, q.model, q.category, q.budget_gpu_h FROM quotas q \
         JOIN groups g ON g.id = q.group_id WHERE q.budget_gpu_h IS NOT NULL ORDER BY q.id",
    )
    .fetch_all(&store.pool)
    .await?;
    let mut out = Vec::new();
    for r in rows {
        let (quota, group, name, model, category): (i64, i64, String, String, String) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?);
        let budget: f64 = r.try_get(5)?;
        let used = spent.get(&(group, model.clone(), category.clone())).copied().unwrap_or(0.0);
        let label = format!("{name} {model} {category}");
        out.extend(rule::budget(quota, group, &label, &month, used, budget));
    }
    Ok(out)
}

async fn grants(store: &Store, now: i64) -> Result<Vec<Condition>, AlertError> {
    // A lapsing `normal` grant changes nothing: its jobs run at normal either way.
    let rows = sqlx::query(
        "SELECT id, group_id, name, class, expires_at FROM projects \
         WHERE expires_at > $1 AND expires_at <= $2 AND class <> 'normal' ORDER BY id",
    )
    .bind(now)
    .bind(now + rule::GRANT_WARN_S)
    .fetch_all(&store.pool)
    .await?;
    let mut out = Vec::new();
    for r in rows {
        let (id, group, name, class, expires): (i64, i64, String, String, i64) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?);
        out.extend(rule::grant_lapsing(id, group, &name, &class, expires, now));
    }
    Ok(out)
}

async fn lost_nodes(store: &Store) -> Result<Vec<Condition>, AlertError> {
    let rows = sqlx::query("SELECT id, name, lost_at FROM nodes WHERE lost_at IS NOT NULL ORDER BY id")
        .fetch_all(&store.pool)
        .await?;
    rows.iter()
        .map(|r| Ok(rule::node_lost(r.try_get(0)?, &r.try_get::<String, _>(1)?, r.try_get(2)?)))
        .collect()
}

/// The log's alerting events of the last [`rule::EVENT_LINGER_S`], read from the cursor on;
/// the cursor then moves past the events old enough to have settled.
async fn events(store: &Store, now: i64) -> Result<Vec<Condition>, AlertError> {
    let cursor: i64 = sqlx::query("SELECT last_event_id FROM alert_cursor WHERE id = 1")
        .fetch_one(&store.pool)
        .await?
        .try_get(0)?;
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT e.id, e.at, e.kind, e.job_id, e.message, e.detail, j.group_id FROM events e \
         LEFT JOIN jobs j ON j.id = e.job_id WHERE e.kind IN ({EVENT_KINDS}) AND e.id > $1 ORDER BY e.id"
    )))
    .bind(cursor)
    .fetch_all(&store.pool)
    .await?;
    let mut out = Vec::new();
    let mut settled = cursor;
    for r in rows {
        let (id, at, kind): (i64, i64, String) = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        if at < now - EVENT_SETTLE_S {
            settled = settled.max(id);
        }
        if at < now - rule::EVENT_LINGER_S {
            continue;
        }
        let job: Option<i64> = r.try_get(3)?;
        let subject = match (job, read_detail(&r.try_get::<String, _>(5)?).policy) {
            (Some(job), _) => format!("job {job}"),
            (None, Some(p)) => {
                let sha = p.sha256.unwrap_or_default();
                format!("{} policy {}", p.kind, sha.get(..12).unwrap_or(&sha))
            }
            (None, None) => kind.clone(),
        };
        let message: String = r.try_get(4)?;
        if let Some(mut c) = rule::from_event(&kind, &subject, r.try_get(6)?, &message) {
            // An event's alert was last true when the event happened, not now.
            c.at = Some(at);
            out.push(c);
        }
    }
    if settled > cursor {
        sqlx::query("UPDATE alert_cursor SET last_event_id = $1 WHERE id = 1")
            .bind(settled)
            .execute(&store.pool)
            .await?;
    }
    Ok(out)
}

/// Each group's waits this hour against its mean wait over the four weeks before (the
/// roll-up's sums, read once an hour).
async fn waits(store: &Store, evaluator: &Evaluator, now: i64) -> Result<Vec<Condition>, AlertError> {
    let hour = now - now.rem_euclid(3600);
    let baseline = evaluator.baseline(store, hour).await?;
    if baseline.is_empty() {
        return Ok(Vec::new());
    }
    // First placements this hour, and jobs that joined the queue today and still wait.
    let started = sqlx::query(
        "SELECT j.group_id, MIN(a.started_at) - j.submitted_at FROM allocations a JOIN jobs j ON j.id = a.job_id \
         WHERE a.started_at >= $1 AND NOT EXISTS (SELECT 1 FROM allocations b WHERE b.job_id = j.id AND b.started_at < $1) \
         GROUP BY j.id, j.group_id, j.submitted_at",
    )
    .bind(hour)
    .fetch_all(&store.pool)
    .await?;
    let waiting =
        sqlx::query("SELECT group_id, $1 - queued_at FROM jobs WHERE state = 'pending' AND queued_at >= $2")
            .bind(now)
            .bind(now - 86_400)
            .fetch_all(&store.pool)
            .await?;
    let mut now_waits: HashMap<i64, Vec<f64>> = HashMap::new();
    for r in started.iter().chain(&waiting) {
        now_waits.entry(r.try_get(0)?).or_default().push(r.try_get::<i64, _>(1)?.max(0) as f64);
    }
    let mut out = Vec::new();
    for (group, waits) in now_waits {
        if let Some((name, mean, jobs)) = baseline.get(&group) {
            out.extend(rule::wait_spike(group, name, &waits, *mean, *jobs));
        }
    }
    Ok(out)
}

/// Group → (name, mean wait in seconds, jobs started) over the four weeks before `hour`.
pub(super) async fn read_baseline(store: &Store, hour: i64) -> Result<super::Baseline, AlertError> {
    let rows = sqlx::query(
        "SELECT u.group_id, g.name, CAST(SUM(u.wait_s) AS BIGINT), CAST(SUM(u.jobs_started) AS BIGINT) \
         FROM usage_hours u JOIN groups g ON g.id = u.group_id WHERE u.hour >= $1 AND u.hour < $2 \
         GROUP BY u.group_id, g.name",
    )
    .bind(hour - 28 * 86_400)
    .bind(hour)
    .fetch_all(&store.pool)
    .await?;
    let mut out = HashMap::new();
    for r in rows {
        let (group, name, wait, jobs): (i64, String, i64, i64) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?);
        if jobs > 0 {
            out.insert(group, (name, wait as f64 / jobs as f64, jobs));
        }
    }
    Ok(out)
}

/// Per pool, GPUs held and those whose allocation has been idle past the threshold.
async fn idle_pools(store: &Store, idle_after_s: i64, now: i64) -> Result<Vec<Condition>, AlertError> {
    let rows = sqlx::query(
        "SELECT n.pool, a.gpu_mask, a.idle_since FROM allocations a JOIN nodes n ON n.id = a.node_id \
         WHERE a.ended_at IS NULL ORDER BY n.pool",
    )
    .fetch_all(&store.pool)
    .await?;
    let mut pools: Vec<(String, i64, i64)> = Vec::new();
    for r in rows {
        let pool: String = r.try_get(0)?;
        let gpus = i64::from((r.try_get::<i64, _>(1)? as u64).count_ones());
        let idle = r.try_get::<Option<i64>, _>(2)?.is_some_and(|since| now - since >= idle_after_s);
        match pools.last_mut() {
            Some((p, held, idle_gpus)) if *p == pool => {
                *held += gpus;
                *idle_gpus += if idle { gpus } else { 0 };
            }
            _ => pools.push((pool, gpus, if idle { gpus } else { 0 })),
        }
    }
    Ok(pools
        .iter()
        .filter_map(|(pool, held, idle)| rule::pool_idle(pool, *held, *idle, idle_after_s))
        .collect())
}
