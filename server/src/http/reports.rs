//! The weekly report over HTTP (A5): the rules and records are [`crate::reports`]'s.
//! `weekly.csv` answers the same report as CSV sections (text/csv).

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use serde::Deserialize;
use tidepool_api::reports::{FrozenWeeks, WeeklyReport};

use crate::http::auth::Caller;
use crate::http::{ApiError, AppQuery, AppState};
use crate::reports;

/// `?group=&week=`: none of either, the organisation's current week.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeekQuery {
    pub group: Option<String>,
    pub week: Option<String>,
}

async fn report(
    state: &AppState,
    user: &crate::store::users::User,
    q: &WeekQuery,
) -> Result<WeeklyReport, ApiError> {
    let scope = reports::scope_for(&state.store, user, q.group.as_deref()).await?;
    Ok(reports::weekly(&state.store, &scope, q.week.as_deref(), state.now()).await?)
}

pub async fn weekly(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<WeekQuery>,
) -> Result<Json<WeeklyReport>, ApiError> {
    Ok(Json(report(&state, &user, &q).await?))
}

pub async fn weekly_csv(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<WeekQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let r = report(&state, &user, &q).await?;
    let name = format!("tidepool-{}-{}.csv", r.group.as_deref().unwrap_or("organisation"), r.week);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        reports::to_csv(&r),
    ))
}

pub async fn list(
    State(state): State<AppState>,
    Caller(user): Caller,
) -> Result<Json<FrozenWeeks>, ApiError> {
    Ok(Json(reports::list(&state.store, &user).await?))
}
