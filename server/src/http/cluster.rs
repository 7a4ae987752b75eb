//! Pools and nodes (V1, V2): the capacity map everyone reads, and the node records only
//! admins edit. A node's GPUs are counted from its record; agents (which register nodes
//! themselves) keep those records current.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::http::auth::Caller;
use crate::http::scope::{require_admin, text};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::store::events::record;

/// A pool is tight when less than this share of its healthy GPUs is free.
const TIGHT_BELOW: f64 = 0.125;

#[derive(Default)]
struct PoolFigures {
    nodes: i64,
    healthy_nodes: i64,
    gpus: i64,
    held: i64,
    models: Vec<String>,
}

/// Capacity per pool: GPUs, held, free, and whether the pool has surplus or is tight,
/// with the GPUs pending jobs ask for on the pool's models (V2).
pub async fn pools(State(state): State<AppState>, _caller: Caller) -> Result<Json<Value>, ApiError> {
    let pool = &state.store.pool;
    let mut pools: BTreeMap<String, PoolFigures> = BTreeMap::new();
    for r in sqlx::query(
        "SELECT pool, model, gpus, CAST(CASE WHEN healthy THEN 1 ELSE 0 END AS BIGINT) FROM nodes",
    )
    .fetch_all(pool)
    .await?
    {
        let p = pools.entry(r.try_get(0)?).or_default();
        let model: String = r.try_get(1)?;
        let healthy = r.try_get::<i64, _>(3)? != 0;
        p.nodes += 1;
        if healthy {
            p.healthy_nodes += 1;
            p.gpus += r.try_get::<i64, _>(2)?;
        }
        if !p.models.contains(&model) {
            p.models.push(model);
        }
    }
    for r in sqlx::query("SELECT n.pool, a.gpu_mask FROM allocations a JOIN nodes n ON n.id = a.node_id WHERE a.ended_at IS NULL")
        .fetch_all(pool)
        .await?
    {
        let mask = r.try_get::<i64, _>(1)? as u64;
        pools.entry(r.try_get(0)?).or_default().held += i64::from(mask.count_ones());
    }
    let mut pending: BTreeMap<String, i64> = BTreeMap::new();
    for r in
        sqlx::query("SELECT model, COALESCE(SUM(gpus), 0) FROM jobs WHERE state = 'pending' GROUP BY model")
            .fetch_all(pool)
            .await?
    {
        pending.insert(r.try_get(0)?, r.try_get(1)?);
    }
    let out: Vec<Value> = pools
        .into_iter()
        .map(|(name, p)| {
            let free = (p.gpus - p.held).max(0);
            let waiting: i64 = p.models.iter().filter_map(|m| pending.get(m)).sum();
            let tight = p.gpus == 0 || (free as f64) < TIGHT_BELOW * p.gpus as f64 || waiting > free;
            json!({
                "pool": name,
                "nodes": p.nodes,
                "healthy_nodes": p.healthy_nodes,
                "models": p.models,
                "gpus": p.gpus,
                "held": p.held,
                "free": free,
                "pending_gpus": waiting,
                "status": if tight { "tight" } else { "surplus" },
            })
        })
        .collect();
    Ok(Json(json!({ "pools": out })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewNode {
    name: String,
    pool: String,
    model: String,
    gpus: u8,
    /// GPUs per NVLink domain; omitted: the whole node is one domain.
    nvlink_group: Option<u8>,
}

pub async fn add_node(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewNode>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_admin(&user, "add nodes")?;
    let name = text(&body.name, "name", 128)?;
    let pool = text(&body.pool, "pool", 64)?;
    let model = text(&body.model, "model", 64)?;
    if !(1..=64).contains(&body.gpus) {
        return Err(ApiError::Unprocessable("a node has 1 to 64 GPUs".into()));
    }
    let domain = body.nvlink_group.unwrap_or(body.gpus);
    if domain == 0 || body.gpus % domain != 0 {
        return Err(ApiError::Unprocessable("nvlink_group must divide the node's GPUs".into()));
    }
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
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
    record(&mut tx, now, "node-added", None, &user.username, &message, &json!({ "node": id })).await?;
    tx.commit().await?;
    state.wake.notify_one();
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "name": name }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeEdit {
    pool: Option<String>,
    /// false: the node offers no GPUs (maintenance); its running jobs are left to finish.
    healthy: Option<bool>,
}

pub async fn edit_node(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<NodeEdit>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "edit nodes")?;
    if body.pool.is_none() && body.healthy.is_none() {
        return Err(ApiError::Unprocessable("give pool or healthy".into()));
    }
    let pool = body.pool.as_deref().map(|p| text(p, "pool", 64)).transpose()?;
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
    let done = sqlx::query(
        "UPDATE nodes SET pool = COALESCE($1, pool), healthy = COALESCE($2, healthy) WHERE id = $3",
    )
    .bind(pool)
    .bind(body.healthy)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(ApiError::NotFound(format!("no node {id}")));
    }
    let message = format!(
        "{} edited node {id}:{}{}",
        user.username,
        pool.map(|p| format!(" pool {p}")).unwrap_or_default(),
        body.healthy.map(|h| format!(" healthy {h}")).unwrap_or_default()
    );
    record(&mut tx, now, "node-edited", None, &user.username, &message, &json!({ "node": id })).await?;
    tx.commit().await?;
    state.wake.notify_one();
    Ok(Json(json!({ "id": id })))
}
