//! Failover drills over HTTP (O3): the records are [`crate::drill::record`]'s; admins read them.

use axum::Json;
use axum::extract::State;
use tidepool_api::drills::DrillList;

use crate::drill::record;
use crate::http::auth::Caller;
use crate::http::{ApiError, AppState};

pub async fn list(State(state): State<AppState>, Caller(user): Caller) -> Result<Json<DrillList>, ApiError> {
    Ok(Json(DrillList { drills: record::list(&state.store, &user).await? }))
}
