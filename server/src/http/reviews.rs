//! The reviews over HTTP (Q5, R5, T3, the yearly rules): the rules and records are [`crate::reviews`]'s.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use tidepool_api::reviews::{
    IdleReview, ProposeSuggestions, QuotaReview, RulesReview, SuggestionsProposed, TemplateReview,
};

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

/// `?quarter=2026-Q4`; none: this quarter.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuarterQuery {
    pub quarter: Option<String>,
}

pub async fn templates(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<QuarterQuery>,
) -> Result<Json<TemplateReview>, ApiError> {
    Ok(Json(reviews::template_review(&state.store, &user, q.quarter.as_deref(), state.now()).await?))
}

/// `?year=2026`; none: this year.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct YearQuery {
    pub year: Option<i64>,
}

pub async fn rules(
    State(state): State<AppState>,
    Caller(_user): Caller,
    AppQuery(q): AppQuery<YearQuery>,
) -> Result<Json<RulesReview>, ApiError> {
    Ok(Json(reviews::rules_review(&state.store, q.year, state.now()).await?))
}
