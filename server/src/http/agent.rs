//! The node agents' routes, authenticated by a node token (not a user's): registering a
//! node's GPUs and the sync (see `crate::fleet`). Admins issue, list and revoke node
//! tokens; a token is checked on every request, against the server's clock, so a revoked
//! or expired one is refused at once (finding 5 of issue 10).

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::Row;

use crate::fleet::protocol::{Orders, Register, Registered, Report};
use crate::fleet::sync::Ctx;
use crate::http::auth::Caller;
use crate::http::scope::{require_admin, text};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::policy::runtime::sha256_hex;
use crate::store::events::record;
use crate::store::tokens::{NewNodeToken, NodeTokenInfo};

/// The largest report an agent may send. An agent's report holds at most four chunks of
/// 32 KiB of output, which JSON escaping of control characters can make six times larger:
/// ordinary output must never meet this limit (finding 3).
pub const MAX_REPORT_BYTES: usize = 4 * 1024 * 1024;
/// The longest expiry an admin may give a token: ten years.
const MAX_EXPIRES_IN_S: i64 = 10 * 365 * 86_400;
/// `last_used_at` is brought up to date at most this often by syncs (registration always).
const USE_RESOLUTION_S: i64 = 60;

/// The node an agent's token lets it act as, and the token.
pub struct NodeCaller {
    pub node: String,
    pub token_id: i64,
    /// The pool the admin put the node in with this token.
    pub pool: Option<String>,
    pub last_used_at: Option<i64>,
}

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
        let row = sqlx::query(
            "SELECT id, node_name, pool, last_used_at, expires_at, revoked_at FROM node_tokens \
             WHERE token_sha256 = $1",
        )
        .bind(sha256_hex(token.as_bytes()))
        .fetch_optional(&state.store.pool)
        .await?;
        let row = row.ok_or_else(|| ApiError::Unauthorized("not a valid node token".into()))?;
        let now = state.now();
        if row.try_get::<Option<i64>, _>(5)?.is_some() {
            return Err(ApiError::Unauthorized(
                "this node token was revoked: ask an admin for a new one".into(),
            ));
        }
        if row.try_get::<Option<i64>, _>(4)?.is_some_and(|at| at <= now) {
            return Err(ApiError::Unauthorized(
                "this node token has expired: ask an admin for a new one".into(),
            ));
        }
        let caller = NodeCaller {
            token_id: row.try_get(0)?,
            node: row.try_get(1)?,
            pool: row.try_get(2)?,
            last_used_at: row.try_get(3)?,
        };
        // Registration records the first use; syncs keep it roughly current, cheaply.
        if caller.last_used_at.is_some_and(|at| now - at >= USE_RESOLUTION_S) {
            sqlx::query("UPDATE node_tokens SET last_used_at = $1 WHERE id = $2")
                .bind(now)
                .bind(caller.token_id)
                .execute(&state.store.pool)
                .await?;
        }
        Ok(caller)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    node: String,
    /// The pool the node goes to when it registers with this token.
    #[serde(default)]
    pool: Option<String>,
    /// Refused this many seconds from now; omitted: no expiry.
    #[serde(default)]
    expires_in_s: Option<i64>,
}

/// A token just issued: the only time it is shown.
#[derive(Serialize)]
pub struct IssuedToken {
    pub id: i64,
    pub node: String,
    pub pool: Option<String>,
    pub expires_at: Option<i64>,
    pub token: String,
}

/// Issues a token for the node named; shown once, only its hash is kept.
pub async fn issue_token(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewToken>,
) -> Result<(StatusCode, Json<IssuedToken>), ApiError> {
    require_admin(&user, "issue node tokens")?;
    let now = state.now();
    let new = NewNodeToken {
        node: text(&body.node, "node", 128)?.to_string(),
        pool: body.pool.as_deref().map(|p| text(p, "pool", 64).map(str::to_string)).transpose()?,
        expires_at: match body.expires_in_s {
            Some(s) if !(1..=MAX_EXPIRES_IN_S).contains(&s) => {
                return Err(ApiError::Unprocessable(format!(
                    "expires_in_s is 1 to {MAX_EXPIRES_IN_S} seconds, or omitted for no expiry"
                )));
            }
            s => s.map(|s| now + s),
        },
    };
    let (id, token) = state.store.issue_node_token_with(&new, &user.username, now).await?;
    let issued = IssuedToken { id, node: new.node, pool: new.pool, expires_at: new.expires_at, token };
    Ok((StatusCode::CREATED, Json(issued)))
}

#[derive(Serialize)]
pub struct TokenList {
    pub tokens: Vec<NodeTokenInfo>,
}

/// Every node token with its node, pool, expiry and use; never the token itself.
pub async fn list_tokens(
    State(state): State<AppState>,
    Caller(user): Caller,
) -> Result<Json<TokenList>, ApiError> {
    require_admin(&user, "list node tokens")?;
    Ok(Json(TokenList { tokens: state.store.node_tokens().await? }))
}

/// Revokes a token: its agent is refused from its next request on.
pub async fn revoke_token(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<NodeTokenInfo>, ApiError> {
    require_admin(&user, "revoke node tokens")?;
    match state.store.revoke_node_token(id, &user.username, state.now()).await? {
        Some(t) => Ok(Json(t)),
        None => Err(ApiError::NotFound(format!("no node token {id}"))),
    }
}

/// The pool a registration puts the node in. The pool is an admin's choice: a token that
/// names one puts the node there on its first use; after that, and for a token that names
/// none, the node stays where it is (an admin moves it, never its agent). Only a new node
/// whose token names no pool joins the pool its agent asks for, else "default".
fn pool_for(caller: &NodeCaller, current: Option<String>, asked: Option<&str>) -> Result<String, ApiError> {
    let fresh = caller.last_used_at.is_none();
    let pool = match (current, &caller.pool) {
        (None, Some(p)) => p.clone(),
        (Some(_), Some(p)) if fresh => p.clone(),
        (Some(c), _) => c,
        (None, None) => return Ok(asked.unwrap_or("default").to_string()),
    };
    match asked {
        Some(a) if a != pool => Err(ApiError::Forbidden(format!(
            "node {} is in pool {pool}, an admin's choice: its agent cannot move it to {a} \
             (an admin moves a node, or issues a token that names its pool)",
            caller.node
        ))),
        _ => Ok(pool),
    }
}

/// An agent registers (or re-registers) its node and GPUs.
pub async fn register(
    State(state): State<AppState>,
    caller: NodeCaller,
    AppJson(body): AppJson<Register>,
) -> Result<Json<Registered>, ApiError> {
    let name = caller.node.clone();
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
    let asked = body.pool.as_deref().map(|p| text(p, "pool", 64)).transpose()?;
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
    let current =
        sqlx::query("SELECT pool FROM nodes WHERE name = $1").bind(&name).fetch_optional(&mut *tx).await?;
    let current = current.map(|r| r.try_get::<String, _>(0)).transpose()?;
    let pool = pool_for(&caller, current, asked)?;
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
    record(
        &mut tx,
        now,
        "node-registered",
        None,
        &format!("agent {name}"),
        &message,
        &json!({ "node": node_id, "pool": pool, "token": caller.token_id }),
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
    caller: NodeCaller,
    AppJson(report): AppJson<Report>,
) -> Result<Json<Orders>, ApiError> {
    let cx = Ctx { store: &state.store, fleet: &state.fleet, wake: &state.wake, now: state.now() };
    Ok(Json(crate::fleet::sync::sync(cx, &caller.node, report).await?))
}
