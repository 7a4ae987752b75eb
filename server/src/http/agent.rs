//! The node agents' routes, authenticated by a node token (not a user's): registering a
//! node's GPUs and the sync (see `crate::fleet`). Admins issue node tokens; everyone
//! signed in reads a job's log.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::fleet::protocol::{Orders, Register, Registered, Report};
use crate::http::auth::Caller;
use crate::http::scope::{require_admin, text};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::policy::runtime::sha256_hex;
use crate::store::events::record;

/// The node an agent's token lets it act as.
pub struct NodeCaller(pub String);

impl FromRequestParts<AppState> for NodeCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let token = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .ok_or_else(|| {
                ApiError::Unauthorized("an agent sends `Authorization: Bearer <node token>`".into())
            })?;
        let row =
            sqlx::query("SELECT node_name FROM node_tokens WHERE token_sha256 = $1 AND revoked_at IS NULL")
                .bind(sha256_hex(token.as_bytes()))
                .fetch_optional(&state.store.pool)
                .await?;
        let row = row.ok_or_else(|| ApiError::Unauthorized("not a valid node token".into()))?;
        Ok(NodeCaller(row.try_get(0)?))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    node: String,
}

/// Issues a token for the node named; shown once, only its hash is kept.
pub async fn issue_token(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewToken>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_admin(&user, "issue node tokens")?;
    let node = text(&body.node, "node", 128)?;
    let token = state.store.issue_node_token(node, &user.username, state.now()).await?;
    Ok((StatusCode::CREATED, Json(json!({ "node": node, "token": token }))))
}

/// An agent registers (or re-registers) its node and GPUs.
pub async fn register(
    State(state): State<AppState>,
    NodeCaller(name): NodeCaller,
    AppJson(body): AppJson<Register>,
) -> Result<Json<Registered>, ApiError> {
    let n = body.gpus.len();
    if n == 0 || n > 64 || body.gpus.iter().enumerate().any(|(i, g)| usize::from(g.index) != i) {
        return Err(ApiError::Unprocessable(
            "a node reports 1 to 64 GPUs, indexed 0, 1, 2, … in order".into(),
        ));
    }
    let model = text(&body.gpus[0].model, "model", 64)?.to_string();
    if body.gpus.iter().any(|g| g.model != model) {
        return Err(ApiError::Unprocessable("a node's GPUs are all of one model".into()));
    }
    let pool = body.pool.as_deref().map(|p| text(p, "pool", 64)).transpose()?;
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
    let row = sqlx::query(
        "INSERT INTO nodes (name, pool, model, gpus, nvlink_group, healthy, created_at, agent, last_seen_at) \
         VALUES ($1, COALESCE($2, 'default'), $3, $4, $4, TRUE, $5, TRUE, $5) \
         ON CONFLICT (name) DO UPDATE SET pool = COALESCE($2, nodes.pool), model = $3, gpus = $4, \
         agent = TRUE, last_seen_at = $5 RETURNING id",
    )
    .bind(&name)
    .bind(pool)
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
    let message = format!("node {name} registered {n} × {model}");
    record(
        &mut tx,
        now,
        "node-registered",
        None,
        &format!("agent {name}"),
        &message,
        &json!({ "node": node_id }),
    )
    .await?;
    tx.commit().await?;
    state.wake.notify_one();
    let config = &state.fleet.config;
    Ok(Json(Registered {
        node_id,
        name,
        grace_s: config.grace_s,
        wait_max_s: config.wait_max_s,
        lost_after_s: config.lost_after_s.max(1) as u64,
    }))
}

pub async fn sync(
    State(state): State<AppState>,
    NodeCaller(name): NodeCaller,
    AppJson(report): AppJson<Report>,
) -> Result<Json<Orders>, ApiError> {
    Ok(Json(crate::fleet::sync::sync(&state, &name, report).await?))
}

/// What a job's command printed, in order, as its agents sent it.
pub async fn log(
    State(state): State<AppState>,
    _caller: Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Value>, ApiError> {
    let exists =
        sqlx::query("SELECT id FROM jobs WHERE id = $1").bind(id).fetch_optional(&state.store.pool).await?;
    if exists.is_none() {
        return Err(ApiError::NotFound(format!("no job {id}")));
    }
    let rows = sqlx::query("SELECT chunk FROM job_logs WHERE job_id = $1 ORDER BY id")
        .bind(id)
        .fetch_all(&state.store.pool)
        .await?;
    let log: String = rows.iter().map(|r| r.try_get::<String, _>(0)).collect::<Result<_, _>>()?;
    Ok(Json(json!({ "job": id, "log": log })))
}
