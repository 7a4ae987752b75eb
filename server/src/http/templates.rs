//! Templates (T1–T3) over HTTP: the rules and records are [`crate::templates`]'s. A
//! frozen job shape one click launches; another group uses it only once the owner's
//! manager granted it (T2); stale ones are retired, and usage counts show which to keep (T3).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use tidepool_api::templates::{
    NewTemplate, TemplateCreated, TemplateGrant, TemplateGranted, TemplatePage, TemplateRetire,
    TemplateRetired,
};

use crate::http::auth::Caller;
use crate::http::page::Listing;
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::templates;

/// The list's own filter (unknown ones refused).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only active templates unused for this many days: the retirement review (T3).
    stale_days: Option<u32>,
}

/// Templates, oldest first, a page at a time (`next` goes in `after`), with their usage
/// and grants; env values only for the owning group and admins.
pub async fn list(
    State(state): State<AppState>,
    Caller(user): Caller,
    Listing(q, page): Listing<ListQuery>,
) -> Result<Json<TemplatePage>, ApiError> {
    Ok(Json(templates::list(&state.store, &user, q.stale_days, &page, state.now()).await?))
}

pub async fn create(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewTemplate>,
) -> Result<(StatusCode, Json<TemplateCreated>), ApiError> {
    let created = templates::create(&state.store, &state.bounds, &user, &body, state.now()).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

pub async fn grant(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<TemplateGrant>,
) -> Result<(StatusCode, Json<TemplateGranted>), ApiError> {
    let granted = templates::grant(&state.store, &user, id, &body.group, state.now()).await?;
    Ok((StatusCode::CREATED, Json(granted)))
}

pub async fn retire(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<TemplateRetire>,
) -> Result<Json<TemplateRetired>, ApiError> {
    Ok(Json(templates::retire(&state.store, &user, id, &body.reason, state.now()).await?))
}
