//! `GET /api/jobs/{id}/log`: what a job printed, for its own group and admins, in byte
//! ranges, followable (`crate::jobs::logs` holds the rules and the wait).

use axum::Json;
use axum::extract::State;
use tidepool_api::logs::LogRange;

use crate::http::auth::Caller;
use crate::http::{ApiError, AppPath, AppQuery, AppState};
use crate::jobs::logs::{self, LogAsk};

pub async fn log(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppQuery(ask): AppQuery<LogAsk>,
) -> Result<Json<LogRange>, ApiError> {
    Ok(Json(logs::read(&state.store, &state.fleet, &user, id, &ask).await?))
}
