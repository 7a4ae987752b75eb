//! The signed-in user, accounts and groups over HTTP (signing in and out: `signin`); the
//! rules and records are [`crate::accounts`]'s.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use tidepool_api::auth::User;
use tidepool_api::groups::{Group, GroupPage};
use tidepool_api::users::{NewGroup, NewUser, UserCreated, UserPage};

use crate::accounts;
use crate::http::auth::Caller;
use crate::http::page::{Listing, NoFilters};
use crate::http::{ApiError, AppJson, AppState};

pub async fn me(Caller(user): Caller) -> Json<User> {
    Json(user)
}

/// Every group, oldest first, a page at a time (finding 8).
pub async fn groups(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<GroupPage>, ApiError> {
    Ok(Json(accounts::groups(&state.store, &page).await?))
}

pub async fn create_group(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewGroup>,
) -> Result<(StatusCode, Json<Group>), ApiError> {
    let group = accounts::create_group(&state.store, &user, &body, state.now()).await?;
    Ok((StatusCode::CREATED, Json(group)))
}

/// Everyone's username, role and group: who holds what is team-visible (V3). Oldest
/// first, a page at a time (`next` goes in `after`).
pub async fn users(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<UserPage>, ApiError> {
    Ok(Json(accounts::users(&state.store, &page).await?))
}

pub async fn create_user(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewUser>,
) -> Result<(StatusCode, Json<UserCreated>), ApiError> {
    let created = accounts::create_user(&state.store, &user, &body, state.now()).await?;
    Ok((StatusCode::CREATED, Json(created)))
}
