//! Pools and nodes (V1, V2) over HTTP: the capacity map everyone reads and the node
//! records only admins edit (`crate::fleet::{occupancy, nodes}` hold the rules).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use tidepool_api::fleet::{NewNode, NodeAdded, NodeEdit, NodeEdited};
use tidepool_api::nodes::PoolsView;

use crate::fleet::{nodes, occupancy};
use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppPath, AppState};

/// Capacity per pool: surplus or tight, with the GPUs pending jobs ask for (V2).
pub async fn pools(State(state): State<AppState>, _caller: Caller) -> Result<Json<PoolsView>, ApiError> {
    Ok(Json(occupancy::pools(&state.store).await?))
}

pub async fn add_node(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewNode>,
) -> Result<(StatusCode, Json<NodeAdded>), ApiError> {
    let added = nodes::add(&state.store, &user, &body, state.now()).await?;
    state.wake.changed();
    Ok((StatusCode::CREATED, Json(added)))
}

pub async fn edit_node(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<NodeEdit>,
) -> Result<Json<NodeEdited>, ApiError> {
    let edited = nodes::edit(&state.store, &user, id, &body, state.now()).await?;
    state.wake.changed();
    Ok(Json(edited))
}
