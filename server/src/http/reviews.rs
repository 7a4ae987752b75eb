//! The monthly reviews over HTTP (Q5, R5): the rules and records are [`crate::reviews`]'s.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use tidepool_api::reviews::{IdleReview, ProposeSuggestions, QuotaReview, SuggestionsProposed};

use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppQuery, AppState};
use crate::reviews;

/// `?month=2026-11`; none: this month.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonthQuery {
    pub month: Option<String>,
}

pub async fn quotas(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<MonthQuery>,
) -> Result<Json<QuotaReview>, ApiError> {
    Ok(Json(reviews::quota_review(&state.store, &user, q.month.as_deref(), state.now()).await?))
}

/// 202: each suggestion is a quota change awaiting a second admin.
pub async fn propose(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<ProposeSuggestions>,
) -> Result<(StatusCode, Json<SuggestionsProposed>), ApiError> {
    let made = reviews::propose(&state.store, &user, &body.month, state.now()).await?;
    Ok((StatusCode::ACCEPTED, Json(made)))
}

pub async fn idle(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<MonthQuery>,
) -> Result<Json<IdleReview>, ApiError> {
    Ok(Json(reviews::idle(&state.store, &user, q.month.as_deref(), state.now()).await?))
}
