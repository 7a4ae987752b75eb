//! Replays of a policy version over the recorded past (O1, A3), stored with the version
//! for the admin who approves its promotion. The rules are `crate::replay`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use tidepool_api::replays::{Replay, ReplayList, ReplayRequest};

use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::replay;

/// Runs the replay (seconds for a month of a busy cluster) and answers its comparison.
pub async fn start(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
    AppJson(body): AppJson<ReplayRequest>,
) -> Result<(StatusCode, Json<Replay>), ApiError> {
    let replay = replay::start(&state.policies, &state.store, &user, &sha, &body, state.now()).await?;
    Ok((StatusCode::CREATED, Json(replay)))
}

pub async fn list(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
) -> Result<Json<ReplayList>, ApiError> {
    Ok(Json(replay::list(&state.policies, &state.store, &user, &sha).await?))
}
