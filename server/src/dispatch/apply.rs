//! Writing a cycle's decisions: placements, preemptions, and every held job's reason
//! and queue rank, with their events, in ONE transaction that first re-checks the lease.

use std::collections::HashSet;

use sqlx::{AssertSqlSafe, Row};
use tidepool_core::{Plan, PreemptReason, Snapshot};

use crate::dispatch::load::Ids;
use crate::dispatch::{DispatchError, Lease};
use crate::jobs::waits;
use crate::policy::PolicyEvent;
use crate::policy::desk::event_row;
use crate::store::Store;
use crate::store::events::{EventDetail, stored};
use crate::store::params::Params;
use tidepool_api::records::{PlacedSlot, Preemption};

/// Rows per multi-row statement (well under both engines' parameter limits).
const BATCH: usize = 1000;

/// A preemption's reason as the records keep it (job and loan ids are the records').
fn preemption(reason: &PreemptReason) -> Preemption {
    let (kind, for_job, loan) = match reason {
        PreemptReason::ReturnToLender { for_job } => ("return-to-lender", Some(for_job.0 as i64), None),
        PreemptReason::HigherClass { for_job } => ("higher-class", Some(for_job.0 as i64), None),
        PreemptReason::LoanEnded { loan } => ("loan-ended", None, Some(loan.0 as i64)),
        PreemptReason::OverGuarantee { .. } => ("over-guarantee", None, None),
        PreemptReason::OverBudget { .. } => ("over-budget", None, None),
        PreemptReason::TimeShare { for_job, .. } => ("time-share", Some(for_job.0 as i64), None),
    };
    Preemption { kind: kind.into(), for_job, loan }
}

const EVENT_POLICY: &str = "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES ($1, $2, NULL, 'dispatcher', $3, $4, $5)";
const EVENT: &str = "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES ($1, $2, $3, 'dispatcher', $4, $5, $6)";

/// What one cycle decided, on what.
pub struct Decisions<'a> {
    pub snap: &'a Snapshot,
    pub ids: &'a Ids,
    pub plan: &'a Plan,
    pub policy_events: &'a [PolicyEvent],
}

/// Writes the decisions; answers how many waiting jobs' reason or rank was rewritten.
pub async fn write(
    store: &Store,
    lease: &Lease,
    epoch: i64,
    now: i64,
    d: Decisions<'_>,
) -> Result<usize, DispatchError> {
    let Decisions { snap, ids, plan, policy_events } = d;
    let mut tx = store.begin().await?;
    // Fencing: a decision carrying a stale epoch is refused (nothing below is written).
    let decided = !(plan.placements.is_empty() && plan.preemptions.is_empty());
    if !lease.fence(&mut tx, epoch, now, decided).await? {
        return Err(DispatchError::NotLeader(format!("epoch {epoch} is stale")));
    }
    for p in &plan.preemptions {
        let a = &snap.running[p.running_index as usize];
        let rows = &ids.running[p.running_index as usize];
        if a.slots.iter().any(|s| ids.agent_nodes[s.node.0 as usize]) {
            // An agent stops it: SIGTERM, time to checkpoint, SIGKILL. The GPUs stay held
            // (and the preemptor waits) until the agent confirms the stop.
            let drain_for = match p.reason {
                PreemptReason::ReturnToLender { for_job }
                | PreemptReason::HigherClass { for_job }
                | PreemptReason::TimeShare { for_job, .. } => for_job.0,
                // Nobody waits for these GPUs: the job drains for its own boundary.
                PreemptReason::LoanEnded { .. }
                | PreemptReason::OverGuarantee { .. }
                | PreemptReason::OverBudget { .. } => a.job.0,
            };
            for row in rows {
                sqlx::query(
                    "UPDATE allocations SET stop_reason = 'preempted', stop_requested_at = $1, \
                     stop_requested_ms = $2, drain_for = $3 WHERE id = $4 AND stop_requested_at IS NULL",
                )
                .bind(now)
                .bind(crate::unix_now_ms())
                .bind(drain_for as i64)
                .bind(row)
                .execute(&mut *tx)
                .await?;
            }
        } else {
            // No agent to wait for: the GPUs return at once.
            for row in rows {
                sqlx::query("UPDATE allocations SET ended_at = $1 WHERE id = $2")
                    .bind(now)
                    .bind(row)
                    .execute(&mut *tx)
                    .await?;
            }
            let held = (now - a.started_at).max(0) * i64::from(a.gpu_count());
            sqlx::query(
                "UPDATE jobs SET state = 'pending', queued_at = $1, attained_gpu_s = attained_gpu_s + $2 WHERE id = $3",
            )
            .bind(now)
            .bind(held)
            .bind(a.job.0 as i64)
            .execute(&mut *tx)
            .await?;
        }
        let message = format!("job {} preempted: {}", a.job.0, p.reason);
        let detail =
            stored(&EventDetail { preempted: Some(preemption(&p.reason)), ..EventDetail::default() });
        sqlx::query(EVENT)
            .bind(now)
            .bind("preempted")
            .bind(a.job.0 as i64)
            .bind(plan.policy_for(a.group))
            .bind(message)
            .bind(detail)
            .execute(&mut *tx)
            .await?;
    }
    // Placements in batches: one UPDATE … RETURNING per batch, and multi-row INSERTs for
    // allocations and events. Three statements per job made 20,000 placements take
    // seconds; a job cancelled since the snapshot was read is not started.
    for batch in plan.placements.chunks(BATCH) {
        let sql = format!(
            "UPDATE jobs SET state = 'running', reason = NULL, wait_kind = NULL, queue_rank = NULL, estimated_start = NULL, \
             segments = segments + 1 WHERE state = 'pending' AND id IN ({}) RETURNING id",
            Params::new(store.engine).list(batch.len())
        );
        let mut update = sqlx::query(AssertSqlSafe(sql));
        for p in batch {
            update = update.bind(p.job.0 as i64);
        }
        let started: HashSet<i64> =
            update.fetch_all(&mut *tx).await?.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>()?;
        if !started.is_empty() {
            // Their waits end now (D2).
            let mut params = Params::new(store.engine);
            let sql = format!(
                "UPDATE job_waits SET until = {} WHERE until IS NULL AND job_id IN ({})",
                params.one(),
                params.list(started.len())
            );
            let mut close = sqlx::query(AssertSqlSafe(sql)).bind(now);
            for job in &started {
                close = close.bind(*job);
            }
            close.execute(&mut *tx).await?;
        }
        let mut allocations: Vec<(i64, i64, i64, String)> = Vec::new();
        let mut events: Vec<(i64, String, String, &str)> = Vec::new();
        for p in batch.iter().filter(|p| started.contains(&(p.job.0 as i64))) {
            let job = p.job.0 as i64;
            let borrowed = serde_json::to_string(&p.borrowed).unwrap_or_else(|_| "[]".into());
            let mut where_ = Vec::new();
            let mut slots = Vec::new();
            for s in &p.slots {
                let (node, name) = (ids.nodes[s.node.0 as usize], &snap.nodes[s.node.0 as usize].name);
                allocations.push((job, node, s.gpus as i64, borrowed.clone()));
                where_.push(format!("{name} GPUs {:#x}", s.gpus));
                slots.push(PlacedSlot { node, node_name: name.clone(), gpu_mask: s.gpus as i64 });
            }
            let message = format!("job {job} placed on {}: {}", where_.join(", "), p.basis());
            let policy = plan.policy_for(snap.pending[p.pending_index as usize].group);
            let detail = stored(&EventDetail { slots: Some(slots), ..EventDetail::default() });
            events.push((job, message, detail, policy));
        }
        for rows in allocations.chunks(BATCH) {
            let sql = format!(
                "INSERT INTO allocations (job_id, node_id, gpu_mask, borrowed, epoch, started_at) VALUES {}",
                Params::new(store.engine).rows(rows.len(), 6)
            );
            let mut insert = sqlx::query(AssertSqlSafe(sql));
            for (job, node, mask, borrowed) in rows {
                insert =
                    insert.bind(*job).bind(*node).bind(*mask).bind(borrowed.clone()).bind(epoch).bind(now);
            }
            insert.execute(&mut *tx).await?;
        }
        for rows in events.chunks(BATCH) {
            let sql = format!(
                "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES {}",
                Params::new(store.engine).rows(rows.len(), 7)
            );
            let mut insert = sqlx::query(AssertSqlSafe(sql));
            for (job, message, detail, policy) in rows {
                insert = insert
                    .bind(now)
                    .bind("placed")
                    .bind(*job)
                    .bind("dispatcher")
                    .bind(policy.to_string())
                    .bind(message.clone())
                    .bind(detail.clone());
            }
            insert.execute(&mut *tx).await?;
        }
    }
    // Only what changed: a deep, quiet queue costs no writes. A job's place is counted
    // from its rank when read, so jobs starting ahead of it change nothing here
    // (`dispatch::rank`); what changed is written in batches, one statement per 1,000 jobs.
    let held: Vec<Option<i64>> =
        plan.holds.iter().map(|h| ids.shown[h.pending_index as usize].rank).collect();
    let ranks = super::rank::ranks(&held);
    let mut shown_rows = Vec::new();
    for (h, rank) in plan.holds.iter().zip(ranks) {
        let reason = h.reason.to_string();
        // The backfill reservation's time, for the job that holds one.
        let estimate = plan.reservations.iter().find(|r| r.job == h.job).map(|r| r.start_at);
        let shown = &ids.shown[h.pending_index as usize];
        let kind = h.reason.wait_kind();
        let job = h.job.0 as i64;
        if shown.wait_kind.as_deref() != Some(kind) {
            waits::turn(&mut tx, job, kind, &reason, now).await?;
        } else if shown.reason.as_deref() == Some(reason.as_str())
            && shown.rank == Some(rank)
            && shown.estimate == estimate
        {
            continue;
        }
        shown_rows.push((job, reason, rank, estimate, kind));
    }
    let rewritten = shown_rows.len();
    for rows in shown_rows.chunks(BATCH) {
        // VALUES' columns are column1… on both engines; the casts type a column whose
        // every row is NULL (no reservation) for PostgreSQL.
        let sql = format!(
            "UPDATE jobs SET reason = v.column2, queue_rank = CAST(v.column3 AS BIGINT), \
             estimated_start = CAST(v.column4 AS BIGINT), wait_kind = v.column5 \
             FROM (VALUES {}) AS v WHERE jobs.id = v.column1 AND jobs.state = 'pending'",
            Params::new(store.engine).rows(rows.len(), 5)
        );
        let mut update = sqlx::query(AssertSqlSafe(sql));
        for (job, reason, rank, estimate, kind) in rows {
            update = update.bind(*job).bind(reason.clone()).bind(*rank).bind(*estimate).bind(*kind);
        }
        update.execute(&mut *tx).await?;
    }
    // What the policy modules did this cycle: faults, fallbacks, shadow differences (O1, O2).
    for e in policy_events {
        let (kind, message, detail) = event_row(e);
        sqlx::query(EVENT_POLICY)
            .bind(now)
            .bind(kind)
            .bind(&plan.policy)
            .bind(message)
            .bind(detail)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(rewritten)
}
