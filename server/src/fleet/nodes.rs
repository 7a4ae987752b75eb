//! Node records as admins keep them (V1): adding a node by hand (agents register theirs,
//! `fleet::register`), moving one to a pool, taking it out of service and back. A node's
//! GPUs are counted from its record; each change is an event. The caller wakes the
//! dispatcher: the capacity it plans with changed.

use sqlx::Row;
use tidepool_api::fleet::{NewNode, NodeAdded, NodeEdit, NodeEdited};

use crate::access::{AccessError, require_admin};
use crate::input::{Invalid, text};
use crate::store::events::{EventDetail, record};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// Why a node was not added or edited.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("no node {0}")]
    NoSuchNode(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(NodeError);

/// A node has 1 to 64 GPUs, in NVLink domains of equal size; none named: one domain.
fn nvlink_domain(gpus: u8, nvlink_group: Option<u8>) -> Result<u8, Invalid> {
    if !(1..=64).contains(&gpus) {
        return Err(Invalid("a node has 1 to 64 GPUs".into()));
    }
    let domain = nvlink_group.unwrap_or(gpus);
    if domain == 0 || !gpus.is_multiple_of(domain) {
        return Err(Invalid("nvlink_group must divide the node's GPUs".into()));
    }
    Ok(domain)
}

/// An admin adds a node at `now`.
pub async fn add(store: &Store, user: &User, body: &NewNode, now: i64) -> Result<NodeAdded, NodeError> {
    require_admin(user, "add nodes")?;
    let name = text(&body.name, "name", 128)?;
    let pool = text(&body.pool, "pool", 64)?;
    let model = text(&body.model, "model", 64)?;
    let domain = nvlink_domain(body.gpus, body.nvlink_group)?;
    let mut tx = store.begin().await?;
    let row = sqlx::query(
        "INSERT INTO nodes (name, pool, model, gpus, nvlink_group, healthy, created_at) \
         VALUES ($1, $2, $3, $4, $5, TRUE, $6) RETURNING id",
    )
    .bind(name)
    .bind(pool)
    .bind(model)
    .bind(i64::from(body.gpus))
    .bind(i64::from(domain))
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    let id: i64 = row.try_get(0)?;
    let message = format!("{} added node {name} ({} × {model}) to pool {pool}", user.username, body.gpus);
    record(
        &mut tx,
        now,
        "node-added",
        None,
        &user.username,
        &message,
        &EventDetail { node: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(NodeAdded { id, name: name.to_string() })
}

/// An admin moves node `id` to a pool, or takes it out of service (its running jobs are
/// left to finish) or back.
pub async fn edit(
    store: &Store,
    user: &User,
    id: i64,
    body: &NodeEdit,
    now: i64,
) -> Result<NodeEdited, NodeError> {
    require_admin(user, "edit nodes")?;
    if body.pool.is_none() && body.healthy.is_none() {
        return Err(Invalid("give pool or healthy".into()).into());
    }
    let pool = body.pool.as_deref().map(|p| text(p, "pool", 64)).transpose()?;
    let mut tx = store.begin().await?;
    let done = sqlx::query(
        "UPDATE nodes SET pool = COALESCE($1, pool), healthy = COALESCE($2, healthy) WHERE id = $3",
    )
    .bind(pool)
    .bind(body.healthy)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(NodeError::NoSuchNode(id));
    }
    let message = format!(
        "{} edited node {id}:{}{}",
        user.username,
        pool.map(|p| format!(" pool {p}")).unwrap_or_default(),
        body.healthy.map(|h| format!(" healthy {h}")).unwrap_or_default()
    );
    record(
        &mut tx,
        now,
        "node-edited",
        None,
        &user.username,
        &message,
        &EventDetail { node: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(NodeEdited { id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvlink_domains_divide_a_node_of_one_to_sixty_four_gpus() {
        assert_eq!(nvlink_domain(8, None).unwrap(), 8);
        assert_eq!(nvlink_domain(8, Some(4)).unwrap(), 4);
        assert!(nvlink_domain(8, Some(3)).is_err());
        assert!(nvlink_domain(8, Some(0)).is_err());
        assert!(nvlink_domain(0, None).is_err());
        assert!(nvlink_domain(65, None).is_err());
    }
}
