//! `GET /api/jobs/{id}/log`: what a job printed, for its own group and admins, in byte
//! ranges, followable (`crate::jobs::logs` holds the rules and the wait).

use axum::extract::State;
use axum::{Extension, Json};
use tidepool_api::logs::LogRange;

use crate::http::auth::Caller;
use crate::http::run_to_end::CallerGone;
use crate::http::{ApiError, AppPath, AppQuery, AppState};
use crate::jobs::logs::{self, LogAsk};

pub async fn log(
    State(state): State<AppState>,
    Caller(user): Caller,
    gone: Option<Extension<CallerGone>>,
    AppPath(id): AppPath<i64>,
    AppQuery(ask): AppQuery<LogAsk>,
) -> Result<Json<LogRange>, ApiError> {
    let read = logs::read(&state.store, &state.fleet, &user, id, &ask);
    // A read writes nothing: it may stop wherever it is once nobody waits for it.
    let Some(Extension(gone)) = gone else { return Ok(Json(read.await?)) };
    tokio::select! {
        range = read => Ok(Json(range?)),
        () = gone.wait() => Err(ApiError::NotFound("nobody waits for this log any more".into())),
    }
}
