//! What everyone signed in may see (V1, V3, D2, D3, Q1): the global occupancy view, each
//! job's dispatch receipt and the quotas with their use. The reads are the domain's
//! (`crate::fleet::occupancy`, `crate::jobs::receipt`, `crate::quota_use`).

use axum::Json;
use axum::extract::State;
use tidepool_api::nodes::NodesView;
use tidepool_api::quotas::QuotasView;
use tidepool_api::receipt::Receipt;

use crate::fleet::occupancy;
use crate::http::auth::Caller;
use crate::http::{ApiError, AppPath, AppState};
use crate::jobs::receipt;
use crate::quota_use;

/// Pools → nodes → GPUs, with who holds each GPU, since when and until when (V1, V2).
pub async fn nodes(State(state): State<AppState>, _caller: Caller) -> Result<Json<NodesView>, ApiError> {
    Ok(Json(occupancy::nodes(&state.store).await?))
}

/// A job's dispatch receipt (D3); env values only for its group and admins.
pub async fn receipt(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Receipt>, ApiError> {
    Ok(Json(receipt::receipt(&state.store, &user, id).await?))
}

/// Every quota row with what its group uses of it now and has spent this month (Q1–Q3).
pub async fn quotas(State(state): State<AppState>, _caller: Caller) -> Result<Json<QuotasView>, ApiError> {
    Ok(Json(quota_use::quotas(&state.store, state.now()).await?))
}
