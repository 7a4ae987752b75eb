//! Lost nodes, in two steps so that a job never runs in two places at once (finding 4).
//! An agent that stops syncing for `lost_after_s` takes its node out of service at once:
//! nothing new is placed there. Its agent, cut off, stops its jobs on its own once
//! `lost_after_s` has passed since it sent its last sync that got through (self-fencing:
//! SIGTERM, the grace period, SIGKILL). Only after that deadline, with a margin for clocks
//! that count whole seconds, does the server requeue the node's jobs to resume elsewhere
//! (D4). When the agent returns, its first sync puts the node back, and reconciliation
//! stops whatever it still runs that the records have moved on from.

use sqlx::Row;

use crate::fleet::FleetConfig;
use crate::fleet::finish::{Ending, end_segment, open_on};
use crate::store::Store;
use crate::store::events::{EventDetail, record};

/// Seconds past the agent's own fence deadline (`lost_after_s` + grace) before the server
/// requeues: `last_seen_at` is a whole second, and the agent kills on a 100 ms tick.
pub const FENCE_MARGIN_S: i64 = 2;

/// When a node last seen at `last_seen` has its jobs requeued.
pub fn requeue_at(config: &FleetConfig, last_seen: i64) -> i64 {
    last_seen + config.lost_after_s + config.grace_s as i64 + FENCE_MARGIN_S
}

/// Marks lost nodes out of service and requeues the jobs of those past their agent's
/// fence deadline; returns how many nodes were newly lost.
pub async fn lost_nodes(store: &Store, config: &FleetConfig, now: i64) -> Result<usize, sqlx::Error> {
    let lost = sqlx::query(
        "SELECT id, name, last_seen_at FROM nodes \
         WHERE agent AND lost_at IS NULL AND last_seen_at IS NOT NULL AND last_seen_at < $1",
    )
    .bind(now - config.lost_after_s)
    .fetch_all(&store.pool)
    .await?;
    for r in &lost {
        let (id, name, seen): (i64, String, i64) = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        let mut tx = store.begin().await?;
        sqlx::query("UPDATE nodes SET healthy = FALSE, lost_at = $1 WHERE id = $2 AND lost_at IS NULL")
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let open = open_on(&mut tx, id).await?;
        let message = format!(
            "node {name} sent no heartbeat for {} s: out of service; its agent stops its {} jobs itself, \
             and they are requeued at {} unless it comes back first",
            config.lost_after_s,
            open.len(),
            requeue_at(config, seen)
        );
        record(&mut tx, now, "node-lost", None, "dispatcher", &message, &EventDetail::default()).await?;
        tx.commit().await?;
    }
    requeue_fenced(store, config, now).await?;
    Ok(lost.len())
}

/// Requeues the jobs still open on lost nodes whose agents have fenced themselves by now.
async fn requeue_fenced(store: &Store, config: &FleetConfig, now: i64) -> Result<(), sqlx::Error> {
    let past = now - config.lost_after_s - config.grace_s as i64 - FENCE_MARGIN_S;
    let nodes = sqlx::query(
        "SELECT n.id, n.name FROM nodes n WHERE n.agent AND n.lost_at IS NOT NULL AND n.last_seen_at < $1 \
         AND EXISTS (SELECT 1 FROM allocations a WHERE a.node_id = n.id AND a.ended_at IS NULL)",
    )
    .bind(past)
    .fetch_all(&store.pool)
    .await?;
    for r in &nodes {
        let (id, name): (i64, String) = (r.try_get(0)?, r.try_get(1)?);
        let mut tx = store.begin().await?;
        for a in &open_on(&mut tx, id).await? {
            end_segment(&mut tx, &name, a, Ending::NodeLost, now).await?;
        }
        tx.commit().await?;
    }
    Ok(())
}
