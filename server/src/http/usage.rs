//! `GET /api/usage?from=&to=&group=&pool=` (V4): the busy/idle curves; the figures and
//! who may see them are [`crate::usage::curves`]'s.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use tidepool_api::usage::UsageCurves;

use crate::http::auth::Caller;
use crate::http::{ApiError, AppQuery, AppState};
use crate::usage::curves::{self, Ask};

/// The query (unknown parameters refused).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageQuery {
    from: Option<i64>,
    to: Option<i64>,
    group: Option<String>,
    pool: Option<String>,
}

pub async fn usage(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<UsageQuery>,
) -> Result<Json<UsageCurves>, ApiError> {
    let ask = Ask { from: q.from, to: q.to, group: q.group.as_deref(), pool: q.pool.as_deref() };
    Ok(Json(curves::curves(&state.store, &user, &ask).await?))
}
