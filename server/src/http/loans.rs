//! Loans between groups (B1) over HTTP: the rules and records are [`crate::loans`]'s;
//! these handlers read the request, call it, and wake the dispatcher after a change that
//! lends or takes back GPUs.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use tidepool_api::loans::{Decision, LoanChanged, LoanPage, NewLoan};

use crate::http::auth::Caller;
use crate::http::page::{Listing, NoFilters};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::loans::{self, LenderAct};

/// Loans, newest first, a page at a time (`next` goes in `before`).
pub async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<LoanPage>, ApiError> {
    Ok(Json(loans::list(&state.store, &page, state.now()).await?))
}

/// A request (201, `requested`) or, from the lender's manager, an offer (201, `active`).
pub async fn create(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewLoan>,
) -> Result<(StatusCode, Json<LoanChanged>), ApiError> {
    let loan = loans::create(&state.store, &user, &body, state.now()).await?;
    // An offer lends at once; a request waits for the lender's manager.
    if loan.state == "active" {
        state.wake.changed();
    }
    Ok((StatusCode::CREATED, Json(loan)))
}

/// The lender's decision on loan `id`.
async fn decide(
    state: &AppState,
    user: &crate::store::users::User,
    id: i64,
    act: LenderAct,
    note: &str,
) -> Result<Json<LoanChanged>, ApiError> {
    let loan = loans::decide(&state.store, user, id, act, note, state.now()).await?;
    state.wake.changed();
    Ok(Json(loan))
}

pub async fn approve(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Decision>,
) -> Result<Json<LoanChanged>, ApiError> {
    decide(&state, &user, id, LenderAct::Approve, &body.note).await
}

pub async fn reject(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Decision>,
) -> Result<Json<LoanChanged>, ApiError> {
    decide(&state, &user, id, LenderAct::Reject, &body.note).await
}

/// The borrower gives the GPUs back early.
pub async fn give_back(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<LoanChanged>, ApiError> {
    let loan = loans::give_back(&state.store, &user, id, state.now()).await?;
    state.wake.changed();
    Ok(Json(loan))
}

/// The lender takes the GPUs back before the end.
pub async fn reclaim(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Decision>,
) -> Result<Json<LoanChanged>, ApiError> {
    decide(&state, &user, id, LenderAct::Reclaim, &body.note).await
}
