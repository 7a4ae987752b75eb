//! Time limits by class over HTTP (P1): the rules and records are
//! [`crate::time_limits`]'s; everyone signed in reads them, admins change them.

use axum::Json;
use axum::extract::State;
use tidepool_api::limits::ClassLimits;

use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppState};
use crate::time_limits;

pub async fn get(State(state): State<AppState>, _caller: Caller) -> Result<Json<ClassLimits>, ApiError> {
    Ok(Json(time_limits::read(&state.store).await?))
}

/// Changes the named classes' limits; answers every class's.
pub async fn put(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<ClassLimits>,
) -> Result<Json<ClassLimits>, ApiError> {
    Ok(Json(time_limits::write(&state.store, &user, &body, state.now()).await?))
}
