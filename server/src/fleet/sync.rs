//! One sync: an agent's report becomes records (heartbeat, utilisation, finished
//! segments, logs), what it runs is reconciled with what the records say it should run
//! (V1), idle allocations get a notice and then are reclaimed (R2), and the answer says
//! what to start and stop. With nothing to say, the answer waits (long poll) until the
//! dispatcher decides something or `wait_s` passes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use sqlx::Row;

use crate::fleet::finish::{Ending, Open, end_segment, open_on};
use crate::fleet::protocol::{Assignment, Fence, Orders, Refusal, Report, Stop};
use crate::fleet::{Fleet, FleetConfig};
use crate::fleet::{indices, logs};
use crate::store::events::{EventDetail, record, stored};
use crate::store::params::Params;
use crate::store::{Store, StoreError};
use crate::time_limits::LIMIT_OF_JOB;

const MAX_ITEMS: usize = 1024;

/// Why a sync is refused whole.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The report lists more than a node could (the caller's mistake).
    #[error("a report lists at most 64 GPUs and 1024 of each item")]
    TooLarge,
    /// The node must register before it syncs.
    #[error("node {0} has not registered: register first")]
    NotRegistered(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(SyncError);

/// What a sync works with: the records, the fleet's settings and news, and the
/// dispatcher's wake-up, with the time of the sync.
pub struct Ctx<'a> {
    pub store: &'a Store,
    pub fleet: &'a Fleet,
    /// Wakes the dispatcher when the report changed what it plans with.
    pub wake: &'a crate::dispatch::wake::Wake,
    pub now: i64,
}

/// Counts only: a report that lists more than this is refused whole (422). What a job
/// printed never refuses a report: each chunk is checked on its own (finding 3).
fn check(report: &Report) -> Result<(), SyncError> {
    if report.gpus.len() > 64
        || report.running.len() > MAX_ITEMS
        || report.finished.len() > MAX_ITEMS
        || report.logs.len() > MAX_ITEMS
    {
        return Err(SyncError::TooLarge);
    }
    Ok(())
}

pub async fn sync(cx: Ctx<'_>, node: &str, report: Report) -> Result<Orders, SyncError> {
    let handling = crate::metrics::AGENT_SYNC.time();
    check(&report)?;
    let Ctx { store, fleet, wake, now } = cx;
    // Subscribed before reading, so a decision made meanwhile still wakes the wait.
    let mut news = fleet.watch();
    let row = sqlx::query(
        "SELECT id, CAST(CASE WHEN agent THEN 1 ELSE 0 END AS BIGINT), \
         CAST(CASE WHEN lost_at IS NULL THEN 0 ELSE 1 END AS BIGINT) FROM nodes WHERE name = $1",
    )
    .bind(node)
    .fetch_optional(&store.pool)
    .await?;
    let (node_id, was_lost): (i64, bool) = match row {
        Some(r) if r.try_get::<i64, _>(1)? == 1 => (r.try_get(0)?, r.try_get::<i64, _>(2)? == 1),
        _ => return Err(SyncError::NotRegistered(node.to_string())),
    };
    let config = &fleet.config;
    let mut refused = Vec::new();
    let mut reconcile_stops = Vec::new();
    // A node back from being lost is in service again: the dispatcher should hear of it.
    let mut changed = was_lost;

    let mut tx = store.begin().await?;
    // The heartbeat; a lost node's return puts it back in service (an admin's own
    // out-of-service mark, with no `lost_at`, stays).
    sqlx::query(
        "UPDATE nodes SET last_seen_at = $1, healthy = CASE WHEN lost_at IS NULL THEN healthy ELSE TRUE END, \
         lost_at = NULL WHERE id = $2",
    )
    .bind(now)
    .bind(node_id)
    .execute(&mut *tx)
    .await?;
    // Every GPU's sample in one statement: one per GPU cost a round trip each, every sync.
    if !report.gpus.is_empty() {
        let mut p = Params::new(store.engine);
        let sql = format!(
            "UPDATE node_gpus SET util_pct = CAST(v.column2 AS BIGINT), memory_used_mb = CAST(v.column3 AS BIGINT), \
             updated_at = {} FROM (VALUES {}) AS v WHERE node_gpus.node_id = {} AND node_gpus.idx = v.column1",
            p.one(),
            p.rows(report.gpus.len(), 3),
            p.one()
        );
        let mut update = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now);
        for g in &report.gpus {
            update = update
                .bind(i64::from(g.index))
                .bind(i64::from(g.util_pct.min(100)))
                .bind(g.memory_used_mb.min(i64::MAX as u64) as i64);
        }
        update.bind(node_id).execute(&mut *tx).await?;
    }
    let mut open = open_on(&mut tx, node_id).await?;

    // Finished segments; a retried report of one already recorded changes nothing.
    for f in &report.finished {
        match open.iter().position(|a| a.id == f.fence.allocation) {
            Some(k) if open[k].epoch == f.fence.epoch => {
                let a = open.remove(k);
                end_segment(&mut tx, node, &a, Ending::Reported(f), now).await?;
                changed = true;
            }
            Some(k) => refused.push(stale(f.fence, open[k].epoch)),
            None => {
                if let Some(r) = known(&mut tx, node_id, f.fence).await? {
                    refused.push(r);
                }
            }
        }
    }
    // Logs: each chunk on its own; a bad one is cut or refused, never the report.
    let mut logged = false;
    for l in &report.logs {
        if let Some(r) = known(&mut tx, node_id, l.fence).await? {
            refused.push(r);
            continue;
        }
        let (text, cut) = logs::clean(&l.text);
        if cut > 0 {
            let reason = format!(
                "log chunk at offset {} was {} bytes: kept the first {} (at most {} a chunk)",
                l.offset,
                text.len() + cut,
                text.len(),
                logs::MAX_CHUNK_BYTES
            );
            refused.push(Refusal { allocation: l.fence.allocation, reason });
        }
        let offset = l.offset.min(i64::MAX as u64) as i64;
        let appended =
            logs::append(&mut tx, l.fence.allocation, offset, &text, config.log_cap_bytes, now).await?;
        logged |= matches!(appended, logs::Appended::Kept(n) if n > 0);
    }

    // Reconciliation (V1): what the agent runs against what the records say it should.
    let running: HashSet<i64> = report.running.iter().map(|r| r.allocation).collect();
    let mut acked = Vec::new();
    for r in &report.running {
        match open.iter().find(|a| a.id == r.allocation) {
            Some(a) if a.epoch == r.epoch => {
                if a.acked_at.is_none() {
                    acked.push(a.id);
                }
            }
            _ => {
                let reason = "not yours: the records hold no such running assignment".to_string();
                reconcile_stops.push(Stop { fence: *r, reason, grace_s: config.grace_s });
            }
        }
    }
    // The agent runs what it was given: acknowledged in one statement.
    if !acked.is_empty() {
        let mut p = Params::new(store.engine);
        let sql =
            format!("UPDATE allocations SET acked_at = {} WHERE id IN ({})", p.one(), p.list(acked.len()));
        let mut update = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now);
        for id in &acked {
            update = update.bind(*id);
        }
        update.execute(&mut *tx).await?;
    }
    // Each difference is recorded once (V1), however many syncs it takes the agent to stop it.
    let strays: Vec<i64> = reconcile_stops.iter().map(|s| s.fence.allocation).collect();
    for a in fleet.new_strays(node, &strays) {
        sqlx::query(
            "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) \
             SELECT $1, 'reconcile', (SELECT job_id FROM allocations WHERE id = $2), $3, NULL, $4, $5",
        )
        .bind(now)
        .bind(a)
        .bind(format!("agent {node}"))
        .bind(format!("node {node} runs assignment {a}, which the records do not give it: told to stop it"))
        .bind(stored(&EventDetail {
            allocation: Some(a),
            node_name: Some(node.to_string()),
            ..EventDetail::default()
        }))
        .execute(&mut *tx)
        .await?;
    }
    let missing: Vec<Open> =
        open.iter().filter(|a| a.acked_at.is_some() && !running.contains(&a.id)).cloned().collect();
    for a in &missing {
        end_segment(&mut tx, node, a, Ending::Missing, now).await?;
        changed = true;
    }
    open.retain(|a| !missing.iter().any(|m| m.id == a.id));

    // Idle reclaim (R2): all of an allocation's GPUs below the threshold for a while.
    let util: HashMap<u8, i64> = report.gpus.iter().map(|g| (g.index, i64::from(g.util_pct))).collect();
    for a in open.iter().filter(|a| a.acked_at.is_some() && a.stop_reason.is_none()) {
        let gpus = indices(a.gpu_mask);
        let idle = !util.is_empty()
            && gpus.iter().all(|i| util.get(i).is_some_and(|u| *u < config.idle_threshold_pct));
        changed |= idle_step(&mut tx, node, a, idle, now, config).await?;
    }
    // Usage history (R2, V4): the GPU-seconds since each live allocation's last sample.
    crate::usage::sample::record(
        &mut tx,
        node_id,
        &util,
        config.idle_threshold_pct,
        config.lost_after_s,
        now,
    )
    .await?;
    tx.commit().await?;
    if logged {
        fleet.logged();
    }
    if changed {
        wake.changed();
        fleet.bump();
    }

    let mut orders = orders(store, config, node_id).await?;
    drop(handling); // the long-poll wait below is the agent's choice, not the server's work
    let waited = report.wait_s.min(config.wait_max_s);
    if orders.start.is_empty()
        && orders.stop.is_empty()
        && reconcile_stops.is_empty()
        && waited > 0
        && !changed
    {
        let _ = tokio::time::timeout(Duration::from_secs(waited), news.changed()).await;
        orders = self::orders(store, config, node_id).await?;
    }
    orders.stop.extend(reconcile_stops);
    orders.refused = refused;
    Ok(orders)
}

fn stale(fence: Fence, current: i64) -> Refusal {
    Refusal {
        allocation: fence.allocation,
        reason: format!("stale fencing token: epoch {} for an assignment of epoch {current}", fence.epoch),
    }
}

/// `None` if `fence` names an allocation of this node with this epoch (open or ended:
/// a retry is fine); otherwise why it is refused.
async fn known(
    tx: &mut sqlx::AnyConnection,
    node_id: i64,
    fence: Fence,
) -> Result<Option<Refusal>, sqlx::Error> {
    let row = sqlx::query("SELECT node_id, epoch FROM allocations WHERE id = $1")
        .bind(fence.allocation)
        .fetch_optional(&mut *tx)
        .await?;
    Ok(match row {
        Some(r) if r.try_get::<i64, _>(0)? == node_id => {
            let epoch: i64 = r.try_get(1)?;
            (epoch != fence.epoch).then(|| stale(fence, epoch))
        }
        _ => Some(Refusal { allocation: fence.allocation, reason: "no such assignment on this node".into() }),
    })
}

/// One step of an allocation's idle clock; true when it asked for the allocation's stop.
async fn idle_step(
    tx: &mut sqlx::AnyConnection,
    node: &str,
    a: &Open,
    idle: bool,
    now: i64,
    config: &FleetConfig,
) -> Result<bool, sqlx::Error> {
    let set = |sql: &'static str| sqlx::query(sql).bind(now).bind(a.id);
    match (idle, a.idle_since, a.idle_notice_at) {
        (false, None, _) => {}
        (false, Some(_), _) => {
            sqlx::query("UPDATE allocations SET idle_since = NULL, idle_notice_at = NULL WHERE id = $1")
                .bind(a.id)
                .execute(&mut *tx)
                .await?;
        }
        (true, None, _) => {
            set("UPDATE allocations SET idle_since = $1 WHERE id = $2").execute(&mut *tx).await?;
        }
        (true, Some(since), None) if now - since >= config.idle_after_s => {
            set("UPDATE allocations SET idle_notice_at = $1 WHERE id = $2").execute(&mut *tx).await?;
            let message = format!(
                "job {} has left its {} GPUs on {node} idle since {since}: they are reclaimed in {} s unless it resumes work",
                a.job,
                a.gpus(),
                config.idle_notice_s
            );
            record(
                tx,
                now,
                "idle-notice",
                Some(a.job),
                &format!("agent {node}"),
                &message,
                &EventDetail::default(),
            )
            .await?;
        }
        (true, Some(since), Some(notice)) if now - notice >= config.idle_notice_s => {
            sqlx::query(
                "UPDATE allocations SET stop_reason = 'idle', stop_requested_at = $1, stop_requested_ms = $2 WHERE id = $3",
            )
            .bind(now)
            .bind(crate::unix_now_ms())
            .bind(a.id)
            .execute(&mut *tx)
            .await?;
            let message = format!(
                "job {} reclaimed: it held {} GPUs on {node} for {} s, idle for the last {} s (R2, R3)",
                a.job,
                a.gpus(),
                now - a.started_at,
                now - since
            );
            record(
                tx,
                now,
                "idle-reclaim",
                Some(a.job),
                &format!("agent {node}"),
                &message,
                &EventDetail::default(),
            )
            .await?;
            return Ok(true);
        }
        _ => {}
    }
    Ok(false)
}

/// What this node should start (assigned, not yet running) and stop (asked to stop).
pub async fn orders(store: &Store, config: &FleetConfig, node_id: i64) -> Result<Orders, SyncError> {
    // A job from before limits existed runs under its class's maximum (P1).
    let sql = format!(
        "SELECT a.id, a.epoch, a.job_id, a.gpu_mask, a.stop_reason, a.stop_requested_at, a.acked_at, j.name, \
         j.command, {LIMIT_OF_JOB}, j.segments, t.env, j.env, COALESCE(j.image, t.image), g.name, u.username \
         FROM allocations a JOIN jobs j ON j.id = a.job_id \
         LEFT JOIN templates t ON t.id = j.template_id LEFT JOIN groups g ON g.id = j.group_id \
         LEFT JOIN users u ON u.id = j.submitted_by WHERE a.node_id = $1 AND a.ended_at IS NULL ORDER BY a.id"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(node_id).fetch_all(&store.pool).await?;
    let mut orders = Orders::default();
    for r in rows {
        let fence = Fence { allocation: r.try_get(0)?, epoch: r.try_get(1)? };
        let job: i64 = r.try_get(2)?;
        if r.try_get::<Option<i64>, _>(5)?.is_some() {
            let reason = r.try_get::<Option<String>, _>(4)?.unwrap_or_default();
            orders.stop.push(Stop { fence, reason, grace_s: config.grace_s });
        } else if r.try_get::<Option<i64>, _>(6)?.is_none() {
            // The template's env, overlaid with the job's own (a NULL column: none).
            let mut env = env_of(r.try_get(11)?);
            env.extend(env_of(r.try_get(12)?));
            let image = r.try_get::<Option<String>, _>(13)?.filter(|i| !i.trim().is_empty());
            orders.start.push(Assignment {
                fence,
                job,
                name: r.try_get(7)?,
                command: r.try_get(8)?,
                gpus: indices(r.try_get::<i64, _>(3)? as u64),
                time_limit_s: r.try_get::<Option<i64>, _>(9)?.map(|t| t.max(1) as u64),
                resume: r.try_get::<i64, _>(10)? > 1,
                checkpoint: format!("job-{job}"),
                env,
                image,
                group: r.try_get(14)?,
                user: r.try_get(15)?,
            });
        }
    }
    Ok(orders)
}

/// A JSON object of environment variables; anything else is none.
fn env_of(column: Option<String>) -> BTreeMap<String, String> {
    column.and_then(|e| serde_json::from_str(&e).ok()).unwrap_or_default()
}
