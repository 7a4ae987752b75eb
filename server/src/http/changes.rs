//! Configuration changes under two-person review (B2) over HTTP: the rules and records
//! are [`crate::changes`]'s. A proposal answers 202 (it waits for a second admin); an
//! applied quota wakes the dispatcher.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use tidepool_api::changes::{ChangePage, ChangeProposed, ChangeReviewed, QuotaChange, Review};

use crate::changes;
use crate::http::auth::Caller;
use crate::http::page::{Listing, NoFilters};
use crate::http::{ApiError, AppJson, AppPath, AppState};

/// Changes, newest first, a page at a time (`next` goes in `before`).
pub async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<ChangePage>, ApiError> {
    Ok(Json(changes::list(&state.store, &page).await?))
}

/// `PUT /api/quotas`: proposes a quota change; nothing changes until a second admin applies it.
pub async fn propose_quota(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<QuotaChange>,
) -> Result<(StatusCode, Json<ChangeProposed>), ApiError> {
    let proposed = changes::propose_quota(&state.store, &user, &body, state.now()).await?;
    Ok((StatusCode::ACCEPTED, Json(proposed)))
}

pub async fn approve(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Review>,
) -> Result<Json<ChangeReviewed>, ApiError> {
    let applied = changes::apply(&state.store, &user, id, &body.note, state.now()).await?;
    state.wake.changed();
    Ok(Json(applied))
}

pub async fn reject(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Review>,
) -> Result<Json<ChangeReviewed>, ApiError> {
    Ok(Json(changes::reject(&state.store, &user, id, &body.note, state.now()).await?))
}
