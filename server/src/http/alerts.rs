//! Alerts over HTTP (O2): one's inbox with its unread count, marking read and
//! acknowledging, and the alert webhook's setting (admins). The rules and records are
//! [`crate::alerts`]'s.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use tidepool_api::alerts::{Alert, AlertSettings, Inbox};

use crate::alerts::{inbox, settings};
use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppPath, AppQuery, AppState};

/// `?unread=true`: only the alerts not read yet.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InboxQuery {
    #[serde(default)]
    pub unread: bool,
}

pub async fn list(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<InboxQuery>,
) -> Result<Json<Inbox>, ApiError> {
    Ok(Json(inbox::list(&state.store, &user, q.unread).await?))
}

pub async fn read(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Alert>, ApiError> {
    Ok(Json(inbox::read(&state.store, &user, id, state.now()).await?))
}

pub async fn acknowledge(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Alert>, ApiError> {
    Ok(Json(inbox::acknowledge(&state.store, &user, id, state.now()).await?))
}

pub async fn get_settings(
    State(state): State<AppState>,
    Caller(user): Caller,
) -> Result<Json<AlertSettings>, ApiError> {
    Ok(Json(settings::get(&state.store, &user).await?))
}

pub async fn put_settings(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<AlertSettings>,
) -> Result<Json<AlertSettings>, ApiError> {
    Ok(Json(settings::write(&state.store, &user, &body, state.now()).await?))
}
