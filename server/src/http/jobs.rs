//! Submitting, dry-running, listing and cancelling jobs over HTTP. The rules are the
//! domain's (`crate::jobs`): members act for their own group (and cancel their own
//! jobs), managers for their group, admins anywhere (Q6).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use tidepool_api::jobs::{Cancelled, DryRun, JobPage, Submit, Submitted};

use crate::http::auth::Caller;
use crate::http::page::Listing;
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::jobs::{self, list::JobFilter};

pub async fn submit(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<Submit>,
) -> Result<(StatusCode, Json<Submitted>), ApiError> {
    let submitted = jobs::submit::submit(&state.store, &state.bounds, &user, body, state.now()).await?;
    state.wake.submitted();
    Ok((StatusCode::CREATED, Json(submitted)))
}

/// Jobs, newest first, a page at a time (`next` goes in `before`).
pub async fn list(
    State(state): State<AppState>,
    Caller(user): Caller,
    Listing(filter, page): Listing<JobFilter>,
) -> Result<Json<JobPage>, ApiError> {
    Ok(Json(jobs::list::list(&state.store, &user, &filter, &page).await?))
}

pub async fn cancel(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Cancelled>, ApiError> {
    let cancelled = jobs::cancel::cancel(&state.store, &user, id, state.now()).await?;
    state.wake.changed();
    state.fleet.bump();
    Ok(Json(cancelled))
}

/// What would happen to this job if it were submitted now (O6); nothing is written.
pub async fn dry_run(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<Submit>,
) -> Result<Json<DryRun>, ApiError> {
    let policies = state.policies.policies.clone();
    Ok(Json(jobs::dry_run::dry_run(&state.store, &state.bounds, policies, &user, body, state.now()).await?))
}
