//! Lost nodes: an agent that stops syncing for `lost_after_s` takes its node out of
//! service, and the jobs on it go back to the queue to resume elsewhere (D4). When the
//! agent returns, its first sync puts the node back, and reconciliation stops whatever
//! it still runs that the records have moved on from.

use sqlx::Row;

use crate::fleet::FleetConfig;
use crate::fleet::finish::{Ending, end_segment, open_on};
use crate::store::Store;
use crate::store::events::record;

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
        let open = open_on(&mut tx, id).await?;
        for a in &open {
            end_segment(&mut tx, &name, a, Ending::NodeLost, now).await?;
        }
        let message = format!(
            "node {name} sent no heartbeat for {} s: out of service, {} jobs requeued",
            config.lost_after_s,
            open.len()
        );
        record(&mut tx, now, "node-lost", None, "dispatcher", &message, &serde_json::json!({})).await?;
        tx.commit().await?;
    }
    Ok(lost.len())
}
