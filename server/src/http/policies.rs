//! Policy modules through the API (O1, A3, B2): upload and its validation report, shadow,
//! canary and promotion (each approved by a second admin), rollback; everyone signed in
//! reads the versions. The rules are `crate::policy::{manage, shown}`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use tidepool_api::policies::{
    CanaryRequest, CanaryRequested, PolicyApproval, PolicyList, PolicyMoved, PromotionRequested, Rollback,
    RolledBack, Uploaded,
};

use crate::http::auth::Caller;
use crate::http::{ApiError, AppBytes, AppJson, AppPath, AppQuery, AppState};
use crate::policy::{manage, shown};

pub use crate::policy::manage::MAX_MODULE_BYTES;

pub async fn list(State(state): State<AppState>, _caller: Caller) -> Result<Json<PolicyList>, ApiError> {
    Ok(Json(shown::list(&state.policies).await))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadQuery {
    /// The change that produced this version (A3).
    note: String,
}

/// Uploads a module (the body is the component's bytes) and returns its validation report.
pub async fn upload(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<UploadQuery>,
    AppBytes(body): AppBytes,
) -> Result<(StatusCode, Json<Uploaded>), ApiError> {
    let report = manage::upload(&state.policies, &state.store, &user, &q.note, &body, state.now()).await?;
    Ok((StatusCode::CREATED, Json(report)))
}

pub async fn shadow(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
) -> Result<Json<PolicyMoved>, ApiError> {
    Ok(Json(manage::shadow(&state.policies, &state.store, &user, &sha, state.now()).await?))
}

/// First step of a canary: an admin asks; a second admin approves (B2).
pub async fn canary(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
    AppJson(body): AppJson<CanaryRequest>,
) -> Result<(StatusCode, Json<CanaryRequested>), ApiError> {
    let asked = manage::canary(&state.policies, &state.store, &user, &sha, &body, state.now()).await?;
    Ok((StatusCode::ACCEPTED, Json(asked)))
}

/// First step of promotion: an admin asks.
pub async fn promote(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
) -> Result<(StatusCode, Json<PromotionRequested>), ApiError> {
    let asked = manage::promote(&state.policies, &state.store, &user, &sha, state.now()).await?;
    Ok((StatusCode::ACCEPTED, Json(asked)))
}

/// Second step: an admin who neither asked nor wrote the version approves (B2).
pub async fn approve(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
    AppJson(body): AppJson<PolicyApproval>,
) -> Result<Json<PolicyMoved>, ApiError> {
    let moved = manage::approve(&state.policies, &state.store, &user, &sha, &body, state.now()).await?;
    state.wake.changed();
    Ok(Json(moved))
}

/// Back to the version active before, in one call.
pub async fn rollback(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<Rollback>,
) -> Result<Json<RolledBack>, ApiError> {
    let back = manage::rollback(&state.policies, &state.store, &user, &body, state.now()).await?;
    state.wake.changed();
    Ok(Json(back))
}
