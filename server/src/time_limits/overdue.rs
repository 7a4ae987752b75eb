//! The server's stop at a time limit (P1) where no agent stops the job: on a node without
//! an agent nothing else ever ends an allocation, so each cycle the leader ends those past
//! their job's limit — the job `timed-out`, its GPUs free at once (R1), an event saying who
//! held what for how long (R3). Nodes with an agent are left to it: it stops the process
//! (SIGTERM, the grace period, SIGKILL) and reports `timed-out` itself.

use std::collections::HashSet;

use sqlx::Row;

use crate::fleet::finish::{Ending, OPEN_COLUMNS, Open, end_segment};
use crate::store::Store;
use crate::time_limits::LIMIT_OF_JOB;

/// Ends every running job on a node without an agent whose segment has reached its limit
/// by `now`; returns how many jobs it ended.
pub async fn end_overdue(store: &Store, now: i64) -> Result<usize, sqlx::Error> {
    let sql = format!(
        "SELECT {OPEN_COLUMNS}, n.name, {LIMIT_OF_JOB} FROM allocations a JOIN jobs j ON j.id = a.job_id \
         JOIN nodes n ON n.id = a.node_id WHERE a.ended_at IS NULL AND NOT n.agent AND j.state = 'running' \
         AND a.started_at + {LIMIT_OF_JOB} <= $1 ORDER BY a.id"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now).fetch_all(&store.pool).await?;
    // A gang's rows share one job: ending the first ends them all.
    let mut ended = HashSet::new();
    for r in &rows {
        let open = Open::read(r)?;
        let (node, limit): (String, i64) = (r.try_get(11)?, r.try_get(12)?);
        if !ended.insert(open.job) {
            continue;
        }
        let mut tx = store.begin().await?;
        end_segment(&mut tx, &node, &open, Ending::TimeLimit(limit), now).await?;
        tx.commit().await?;
        tracing::info!(job = open.job, node = %node, limit_s = limit, "ended at its time limit (no agent)");
    }
    Ok(ended.len())
}
