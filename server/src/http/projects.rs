//! Projects and their priority grants (P2) over HTTP: the rules and records are
//! [`crate::projects`]'s. Jobs above `normal` need such a grant; the dispatcher warns
//! the owners before a grant lapses and plans a lapsed grant's jobs at `normal`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use tidepool_api::projects::{NewProject, ProjectCreated, ProjectPage, Renew, Renewed};

use crate::http::auth::Caller;
use crate::http::page::{Listing, NoFilters};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::projects;

/// Projects, oldest first, a page at a time (`next` goes in `after`).
pub async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<ProjectPage>, ApiError> {
    Ok(Json(projects::list(&state.store, &page, state.now()).await?))
}

pub async fn create(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewProject>,
) -> Result<(StatusCode, Json<ProjectCreated>), ApiError> {
    let created = projects::grant(&state.store, &user, &body, state.now()).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

pub async fn renew(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Renew>,
) -> Result<Json<Renewed>, ApiError> {
    Ok(Json(projects::renew(&state.store, &user, id, body.expires_at, state.now()).await?))
}
