//! Writing a cycle's decisions: placements, preemptions, and every held job's reason
//! and position, with their events, in ONE transaction that first re-checks the lease.

use tidepool_core::{Plan, Snapshot};

use crate::dispatch::load::Ids;
use crate::dispatch::{DispatchError, Lease};
use crate::store::Store;

const EVENT: &str = "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES ($1, $2, $3, 'dispatcher', $4, $5, $6)";

pub async fn write(
    store: &Store,
    lease: &Lease,
    epoch: i64,
    now: i64,
    snap: &Snapshot,
    ids: &Ids,
    plan: &Plan,
) -> Result<(), DispatchError> {
    let mut tx = store.pool.begin().await?;
    // Fencing: a decision carrying a stale epoch is refused (nothing below is written).
    let fenced =
        sqlx::query("UPDATE leader_lease SET expires_at = $1 WHERE id = 1 AND holder = $2 AND epoch = $3")
            .bind(now + lease.ttl_s)
            .bind(&lease.holder)
            .bind(epoch)
            .execute(&mut *tx)
            .await?;
    if fenced.rows_affected() != 1 {
        return Err(DispatchError::NotLeader(format!("epoch {epoch} is stale")));
    }
    for p in &plan.preemptions {
        let a = &snap.running[p.running_index as usize];
        for row in &ids.running[p.running_index as usize] {
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
        let message = format!("job {} preempted: {}", a.job.0, p.reason);
        let detail = serde_json::to_string(&p.reason).unwrap_or_default();
        sqlx::query(EVENT)
            .bind(now)
            .bind("preempted")
            .bind(a.job.0 as i64)
            .bind(&plan.policy)
            .bind(message)
            .bind(detail)
            .execute(&mut *tx)
            .await?;
    }
    for p in &plan.placements {
        let job = p.job.0 as i64;
        // A job cancelled since the snapshot was read is not started.
        let started = sqlx::query(
            "UPDATE jobs SET state = 'running', reason = NULL, position = NULL WHERE id = $1 AND state = 'pending'",
        )
        .bind(job)
        .execute(&mut *tx)
        .await?;
        if started.rows_affected() != 1 {
            continue;
        }
        let borrowed = serde_json::to_string(&p.borrowed).unwrap_or_else(|_| "[]".into());
        let mut where_ = Vec::new();
        for s in &p.slots {
            sqlx::query(
                "INSERT INTO allocations (job_id, node_id, gpu_mask, borrowed, epoch, started_at, ended_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, NULL)",
            )
            .bind(job)
            .bind(ids.nodes[s.node.0 as usize])
            .bind(s.gpus as i64)
            .bind(&borrowed)
            .bind(epoch)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            where_.push(format!("{} GPUs {:#x}", snap.nodes[s.node.0 as usize].name, s.gpus));
        }
        let message = format!("job {job} placed on {}: {}", where_.join(", "), p.basis());
        let detail = serde_json::to_string(&p.slots).unwrap_or_default();
        sqlx::query(EVENT)
            .bind(now)
            .bind("placed")
            .bind(job)
            .bind(&plan.policy)
            .bind(message)
            .bind(detail)
            .execute(&mut *tx)
            .await?;
    }
    for h in &plan.holds {
        sqlx::query("UPDATE jobs SET reason = $1, position = $2 WHERE id = $3 AND state = 'pending'")
            .bind(h.reason.to_string())
            .bind(i64::from(h.position))
            .bind(h.job.0 as i64)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}
