//! Lost nodes: an agent that stops syncing for `lost_after_s` takes its node out of
//! service, and the jobs on it go back to the queue to resume elsewhere (D4). When the
//! agent returns, its first sync puts the node back, and reconciliation stops whatever
//! it still runs that the records have moved on from.

use sqlx::Row;

use crate::fleet::FleetConfig;
use crate::fleet::finish::{Ending, OPEN_COLUMNS, Open, end_segment};
use crate::store::Store;

/// Marks lost nodes and requeues their jobs; returns how many nodes were lost.
pub async fn lost_nodes(store: &Store, config: &FleetConfig, now: i64) -> Result<usize, sqlx::Error> {
    let lost = sqlx::query(
        "SELECT id, name FROM nodes WHERE agent AND lost_at IS NULL AND last_seen_at IS NOT NULL AND last_seen_at < $1",
    )
    .bind(now - config.lost_after_s)
    .fetch_all(&store.pool)
    .await?;
    for r in &lost {
        let (id, name): (i64, String) = (r.try_get(0)?, r.try_get(1)?);
        let mut tx = store.pool.begin().await?;
        sqlx::query("UPDATE nodes SET healthy = FALSE, lost_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let sql = format!(
            "SELECT {OPEN_COLUMNS} FROM allocations a JOIN jobs j ON j.id = a.job_id \
             WHERE a.node_id = $1 AND a.ended_at IS NULL ORDER BY a.id"
        );
        let open: Vec<Open> = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(Open::read)
            .collect::<Result<_, _>>()?;
        for a in &open {
            end_segment(&mut tx, &name, a, Ending::NodeLost, now).await?;
        }
        sqlx::query(
            "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) \
             VALUES ($1, 'node-lost', NULL, 'dispatcher', NULL, $2, '{}')",
        )
        .bind(now)
        .bind(format!(
            "node {name} sent no heartbeat for {} s: out of service, {} jobs requeued",
            config.lost_after_s,
            open.len()
        ))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
    }
    Ok(lost.len())
}
