//! The organisation's settings over HTTP (A5): the rules and records are
//! [`crate::settings`]'s; everyone signed in reads them, admins replace them.

use axum::Json;
use axum::extract::State;
use tidepool_api::settings::OrgSettings;

use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppState};
use crate::settings;

pub async fn get(State(state): State<AppState>, _caller: Caller) -> Result<Json<OrgSettings>, ApiError> {
    Ok(Json(settings::read(&state.store).await?))
}

/// Replaces the settings; answers them as stored.
pub async fn put(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<OrgSettings>,
) -> Result<Json<OrgSettings>, ApiError> {
    Ok(Json(settings::write(&state.store, &user, &body, state.now()).await?))
}
