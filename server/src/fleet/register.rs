//! An agent registers (or re-registers) its node and GPUs, as its token allows: the
//! node is the token's, and its pool an admin's choice (finding 5 of issue 10). The
//! registration records the token's first use and is an event; the caller wakes the
//! dispatcher.

use sqlx::Row;

use crate::fleet::FleetConfig;
use crate::fleet::protocol::{Register, Registered};
use crate::fleet::tokens::NodeCaller;
use crate::input::{Invalid, text};
use crate::store::events::{EventDetail, record};
use crate::store::{Store, StoreError};

/// Why a registration is refused.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// The agent asked for another pool than the one an admin chose.
    #[error(
        "node {node} is in pool {pool}, an admin's choice: its agent cannot move it to {asked} \
         (an admin moves a node, or issues a token that names its pool)"
    )]
    PoolFixed { node: String, pool: String, asked: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(RegisterError);

/// The pool a registration puts the node in. The pool is an admin's choice: a token that
/// names one puts the node there on its first use; after that, and for a token that names
/// none, the node stays where it is (an admin moves it, never its agent). Only a new node
/// whose token names no pool joins the pool its agent asks for, else "default".
fn pool_for(
    caller: &NodeCaller,
    current: Option<String>,
    asked: Option<&str>,
) -> Result<String, RegisterError> {
    let fresh = caller.last_used_at.is_none();
    let pool = match (current, &caller.pool) {
        (None, Some(p)) => p.clone(),
        (Some(_), Some(p)) if fresh => p.clone(),
        (Some(c), _) => c,
        (None, None) => return Ok(asked.unwrap_or("default").to_string()),
    };
    match asked {
        Some(a) if a != pool => {
            Err(RegisterError::PoolFixed { node: caller.node.clone(), pool, asked: a.to_string() })
        }
        _ => Ok(pool),
    }
}

/// A node reports 1 to 64 GPUs of one model, indexed 0, 1, 2, … in order; its model.
fn model_of(body: &Register) -> Result<String, Invalid> {
    let n = body.gpus.len();
    if n == 0 || n > 64 || body.gpus.iter().enumerate().any(|(i, g)| usize::from(g.index) != i) {
        return Err(Invalid("a node reports 1 to 64 GPUs, indexed 0, 1, 2, … in order".into()));
    }
    let model = text(&body.gpus[0].model, "model", 64)?.to_string();
    if body.gpus.iter().any(|g| g.model != model) {
        return Err(Invalid("a node's GPUs are all of one model".into()));
    }
    Ok(model)
}

/// Registers `caller`'s node with the GPUs `body` lists, at `now`.
pub async fn register(
    store: &Store,
    config: &FleetConfig,
    caller: &NodeCaller,
    body: &Register,
    now: i64,
) -> Result<Registered, RegisterError> {
    let name = caller.node.clone();
    let n = body.gpus.len();
    let model = model_of(body)?;
    let asked = body.pool.as_deref().map(|p| text(p, "pool", 64)).transpose()?;
    let mut tx = store.begin().await?;
    let current =
        sqlx::query("SELECT pool FROM nodes WHERE name = $1").bind(&name).fetch_optional(&mut *tx).await?;
    let current = current.map(|r| r.try_get::<String, _>(0)).transpose()?;
    let pool = pool_for(caller, current, asked)?;
    sqlx::query("UPDATE node_tokens SET last_used_at = $1 WHERE id = $2")
        .bind(now)
        .bind(caller.token_id)
        .execute(&mut *tx)
        .await?;
    let row = sqlx::query(
        "INSERT INTO nodes (name, pool, model, gpus, nvlink_group, healthy, created_at, agent, last_seen_at) \
         VALUES ($1, $2, $3, $4, $4, TRUE, $5, TRUE, $5) \
         ON CONFLICT (name) DO UPDATE SET pool = $2, model = $3, gpus = $4, \
         agent = TRUE, last_seen_at = $5 RETURNING id",
    )
    .bind(&name)
    .bind(&pool)
    .bind(&model)
    .bind(n as i64)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    let node_id: i64 = row.try_get(0)?;
    sqlx::query("DELETE FROM node_gpus WHERE node_id = $1").bind(node_id).execute(&mut *tx).await?;
    for g in &body.gpus {
        sqlx::query(
            "INSERT INTO node_gpus (node_id, idx, uuid, util_pct, memory_used_mb, memory_total_mb, updated_at) \
             VALUES ($1, $2, $3, 0, 0, $4, $5)",
        )
        .bind(node_id)
        .bind(i64::from(g.index))
        .bind(text(&g.uuid, "uuid", 128)?)
        .bind(g.memory_total_mb.min(i64::MAX as u64) as i64)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    let message = format!("node {name} registered {n} × {model} in pool {pool}");
    let detail = EventDetail {
        node: Some(node_id),
        pool: Some(pool.to_string()),
        token: Some(caller.token_id),
        ..EventDetail::default()
    };
    record(&mut tx, now, "node-registered", None, &format!("agent {name}"), &message, &detail).await?;
    tx.commit().await?;
    Ok(Registered {
        node_id,
        name,
        grace_s: config.grace_s,
        wait_max_s: config.wait_max_s,
        lost_after_s: config.lost_after_s.max(1) as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(pool: Option<&str>, used: bool) -> NodeCaller {
        NodeCaller {
            node: "gpu-01".into(),
            token_id: 1,
            pool: pool.map(str::to_string),
            last_used_at: used.then_some(5),
        }
    }

    #[test]
    fn a_token_that_names_a_pool_places_the_node_there_on_first_use_only() {
        assert_eq!(pool_for(&caller(Some("east"), false), Some("west".into()), None).unwrap(), "east");
        assert_eq!(pool_for(&caller(Some("east"), true), Some("west".into()), None).unwrap(), "west");
        assert_eq!(pool_for(&caller(Some("east"), false), None, None).unwrap(), "east");
    }

    #[test]
    fn an_agent_picks_the_pool_of_a_new_node_only_and_never_moves_one() {
        assert_eq!(pool_for(&caller(None, false), None, Some("lab")).unwrap(), "lab");
        assert_eq!(pool_for(&caller(None, false), None, None).unwrap(), "default");
        let moved = pool_for(&caller(None, true), Some("west".into()), Some("lab"));
        assert!(matches!(moved, Err(RegisterError::PoolFixed { .. })));
        assert_eq!(pool_for(&caller(None, true), Some("west".into()), Some("west")).unwrap(), "west");
    }
}
