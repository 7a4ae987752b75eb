//! The hourly roll-up (issue 12, V4): every UTC hour from `usage_rollup.rolled_until` to
//! the last finished hour is closed into `usage_hours`, a day of hours per transaction,
//! from the records themselves: allocations' spans (held), the agents' samples (busy,
//! idle), first placements (started, with their waits) and finished jobs. Re-running
//! changes nothing: a batch replaces its hours and moves `rolled_until` only from the
//! value it read. Samples older than [`KEEP_SAMPLES_S`] are pruned once rolled.
//!
//! A job counts where its first allocation ran when it starts and where its last ran when
//! it finishes; a job that never held GPUs (cancelled while queued) is in no hour.

use std::collections::BTreeMap;

use sqlx::{AnyConnection, Row};
use tidepool_core::usage::{Figures, HOUR, held_by_hour, hour_of};

use crate::store::params::Params;
use crate::store::{Engine, Store};
use crate::usage::UsageError;

/// Hours closed per transaction.
const BATCH_HOURS: i64 = 24;
/// Samples are kept this long after their hour (then only the roll-up has them).
pub const KEEP_SAMPLES_S: i64 = 35 * 86_400;
/// Rows per INSERT statement (12 binds each: under every engine's limit).
const ROWS_PER_INSERT: usize = 400;

/// A row's key: hour, group, pool, model, category.
pub type Key = (i64, i64, String, String, String);

/// What one roll-up did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RollUp {
    pub hours: i64,
    pub rows: usize,
    pub rolled_until: i64,
}

/// Closes every finished hour not yet rolled up, as of `now`.
pub async fn roll_up(store: &Store, now: i64) -> Result<RollUp, UsageError> {
    let end = hour_of(now);
    let mut until = super::rolled_until(store).await?;
    if until == 0 {
        // A fresh history starts at the first allocation's hour.
        let row = sqlx::query("SELECT MIN(started_at) FROM allocations").fetch_one(&store.pool).await?;
        until = row.try_get::<Option<i64>, _>(0)?.map(hour_of).unwrap_or(end).min(end);
        sqlx::query("UPDATE usage_rollup SET rolled_until = $1 WHERE id = 1 AND rolled_until = 0")
            .bind(until)
            .execute(&store.pool)
            .await?;
    }
    let mut done = RollUp { rolled_until: until, ..RollUp::default() };
    while until < end {
        let to = (until + BATCH_HOURS * HOUR).min(end);
        let mut tx = store.begin().await?;
        let rows = figures(&mut tx, until, to).await?;
        sqlx::query("DELETE FROM usage_hours WHERE hour >= $1 AND hour < $2")
            .bind(until)
            .bind(to)
            .execute(&mut *tx)
            .await?;
        write(&mut tx, store.engine, &rows).await?;
        let moved =
            sqlx::query("UPDATE usage_rollup SET rolled_until = $1 WHERE id = 1 AND rolled_until = $2")
                .bind(to)
                .bind(until)
                .execute(&mut *tx)
                .await?;
        if moved.rows_affected() != 1 {
            // Another server rolled these hours meanwhile: its rows stand.
            tx.rollback().await?;
            return Ok(done);
        }
        tx.commit().await?;
        done.hours += (to - until) / HOUR;
        done.rows += rows.len();
        until = to;
        done.rolled_until = to;
    }
    sqlx::query("DELETE FROM usage_samples WHERE hour < $1")
        .bind(until - KEEP_SAMPLES_S)
        .execute(&store.pool)
        .await?;
    Ok(done)
}

/// The figures of the hours in `[from, to)`, from the records.
pub async fn figures(
    tx: &mut AnyConnection,
    from: i64,
    to: i64,
) -> Result<BTreeMap<Key, Figures>, sqlx::Error> {
    let mut out: BTreeMap<Key, Figures> = BTreeMap::new();
    let key = |r: &sqlx::any::AnyRow, hour: i64, first: usize| -> Result<Key, sqlx::Error> {
        Ok((hour, r.try_get(first)?, r.try_get(first + 1)?, r.try_get(first + 2)?, r.try_get(first + 3)?))
    };
    const WHO: &str = "j.group_id, n.pool, n.model, j.category";
    // Held: every allocation overlapping the window, clipped to it.
    let held = format!(
        "SELECT a.started_at, a.ended_at, a.gpu_mask, {WHO} FROM allocations a \
         JOIN jobs j ON j.id = a.job_id JOIN nodes n ON n.id = a.node_id \
         WHERE a.started_at < $2 AND (a.ended_at IS NULL OR a.ended_at > $1)"
    );
    for r in sqlx::query(sqlx::AssertSqlSafe(held)).bind(from).bind(to).fetch_all(&mut *tx).await? {
        let gpus = i64::from((r.try_get::<i64, _>(2)? as u64).count_ones());
        for (hour, gpu_s) in held_by_hour(r.try_get(0)?, r.try_get(1)?, gpus, from, to) {
            out.entry(key(&r, hour, 3)?).or_default().held_gpu_s += gpu_s;
        }
    }
    // Samples: summed per hour and key.
    let samples = format!(
        "SELECT s.hour, {WHO}, CAST(SUM(s.sampled_gpu_s) AS BIGINT), CAST(SUM(s.util_pct_gpu_s) AS BIGINT), \
         CAST(SUM(s.idle_gpu_s) AS BIGINT) FROM usage_samples s JOIN allocations a ON a.id = s.allocation_id \
         JOIN jobs j ON j.id = a.job_id JOIN nodes n ON n.id = a.node_id \
         WHERE s.hour >= $1 AND s.hour < $2 GROUP BY s.hour, {WHO}"
    );
    for r in sqlx::query(sqlx::AssertSqlSafe(samples)).bind(from).bind(to).fetch_all(&mut *tx).await? {
        let f = out.entry(key(&r, r.try_get(0)?, 1)?).or_default();
        f.sampled_gpu_s += r.try_get::<i64, _>(5)?;
        f.util_pct_gpu_s += r.try_get::<i64, _>(6)?;
        f.idle_gpu_s += r.try_get::<i64, _>(7)?;
    }
    // Started: a job's first allocation (the lowest id among its earliest).
    let started = format!(
        "SELECT a.started_at, a.started_at - j.submitted_at, {WHO} FROM allocations a \
         JOIN jobs j ON j.id = a.job_id JOIN nodes n ON n.id = a.node_id \
         WHERE a.started_at >= $1 AND a.started_at < $2 AND NOT EXISTS (SELECT 1 FROM allocations p \
         WHERE p.job_id = a.job_id AND (p.started_at < a.started_at OR (p.started_at = a.started_at AND p.id < a.id)))"
    );
    for r in sqlx::query(sqlx::AssertSqlSafe(started)).bind(from).bind(to).fetch_all(&mut *tx).await? {
        let f = out.entry(key(&r, hour_of(r.try_get(0)?), 2)?).or_default();
        f.jobs_started += 1;
        f.wait_s += r.try_get::<i64, _>(1)?.max(0);
    }
    // Finished: where the job's last allocation ran. The last allocations are found for
    // the window's finished jobs first: a join on a correlated MAX let PostgreSQL pair
    // every job with every allocation (a day of 82,648 took 353 s).
    let finished = format!(
        "SELECT j.finished_at, {WHO} FROM jobs j \
         JOIN (SELECT job_id, MAX(id) AS last FROM allocations WHERE job_id IN \
           (SELECT id FROM jobs WHERE finished_at >= $1 AND finished_at < $2) GROUP BY job_id) l ON l.job_id = j.id \
         JOIN allocations a ON a.id = l.last \
         JOIN nodes n ON n.id = a.node_id WHERE j.finished_at >= $1 AND j.finished_at < $2"
    );
    for r in sqlx::query(sqlx::AssertSqlSafe(finished)).bind(from).bind(to).fetch_all(&mut *tx).await? {
        out.entry(key(&r, hour_of(r.try_get(0)?), 1)?).or_default().jobs_finished += 1;
    }
    Ok(out)
}

/// Inserts `rows` into `usage_hours`, several rows a statement.
pub async fn write(
    tx: &mut AnyConnection,
    engine: Engine,
    rows: &BTreeMap<Key, Figures>,
) -> Result<(), sqlx::Error> {
    let rows: Vec<(&Key, &Figures)> = rows.iter().collect();
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let sql = format!(
            "INSERT INTO usage_hours (hour, group_id, pool, model, category, held_gpu_s, sampled_gpu_s, \
             util_pct_gpu_s, idle_gpu_s, jobs_started, jobs_finished, wait_s) VALUES {}",
            Params::new(engine).rows(chunk.len(), 12)
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for ((hour, group, pool, model, category), f) in chunk {
            q = q.bind(*hour).bind(*group).bind(pool.as_str()).bind(model.as_str()).bind(category.as_str());
            q = q.bind(f.held_gpu_s).bind(f.sampled_gpu_s).bind(f.util_pct_gpu_s).bind(f.idle_gpu_s);
            q = q.bind(f.jobs_started).bind(f.jobs_finished).bind(f.wait_s);
        }
        q.execute(&mut *tx).await?;
    }
    Ok(())
}
