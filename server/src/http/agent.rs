//! The node agents' routes, authenticated by a node token (not a user's): registering a
//! node's GPUs and the sync; and the admins' routes that issue, list and revoke node
//! tokens. The rules are `crate::fleet::{tokens, register, sync}`.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use tidepool_api::fleet::{IssuedNodeToken, NewNodeToken, NodeToken, NodeTokenList};

use crate::fleet::protocol::{Orders, Register, Registered, Report};
use crate::fleet::sync::Ctx;
use crate::fleet::tokens::{self, NodeCaller};
use crate::fleet::{register, sync};
use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppPath, AppState, ClientCertificate};

/// The largest report an agent may send. An agent's report holds at most four chunks of
/// 32 KiB of output, which JSON escaping of control characters can make six times larger:
/// ordinary output must never meet this limit (finding 3).
pub const MAX_REPORT_BYTES: usize = 4 * 1024 * 1024;

/// An agent's request names its node by its token, checked on every request.
impl FromRequestParts<AppState> for NodeCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        // Mutual TLS (`serve --tls-client-ca`): a verified client certificate first.
        if let Some(refused) = parts.extensions.get::<ClientCertificate>().and_then(|c| c.refusal()) {
            return Err(ApiError::Unauthorized(refused));
        }
        let token = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .ok_or_else(|| {
                ApiError::Unauthorized("an agent sends `Authorization: Bearer <node token>`".into())
            })?;
        Ok(tokens::authenticate(&state.store, token, state.now()).await?)
    }
}

/// Issues a token for the node named; shown once, only its hash is kept.
pub async fn issue_token(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewNodeToken>,
) -> Result<(StatusCode, Json<IssuedNodeToken>), ApiError> {
    Ok((StatusCode::CREATED, Json(tokens::issue(&state.store, &user, &body, state.now()).await?)))
}

/// Every node token with its node, pool, expiry and use; never the token itself.
pub async fn list_tokens(
    State(state): State<AppState>,
    Caller(user): Caller,
) -> Result<Json<NodeTokenList>, ApiError> {
    Ok(Json(tokens::list(&state.store, &user).await?))
}

/// Revokes a token: its agent is refused from its next request on.
pub async fn revoke_token(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<NodeToken>, ApiError> {
    Ok(Json(tokens::revoke(&state.store, &user, id, state.now()).await?))
}

/// An agent registers (or re-registers) its node and GPUs.
pub async fn register(
    State(state): State<AppState>,
    caller: NodeCaller,
    AppJson(body): AppJson<Register>,
) -> Result<Json<Registered>, ApiError> {
    let registered =
        register::register(&state.store, &state.fleet.config, &caller, &body, state.now()).await?;
    state.wake.changed();
    Ok(Json(registered))
}

pub async fn sync(
    State(state): State<AppState>,
    caller: NodeCaller,
    AppJson(report): AppJson<Report>,
) -> Result<Json<Orders>, ApiError> {
    let cx = Ctx { store: &state.store, fleet: &state.fleet, wake: &state.wake, now: state.now() };
    Ok(Json(sync::sync(cx, &caller.node, report).await?))
}
