//! Loans between groups (B1): a group asks another for GPUs; nothing runs on them until
//! the lender's manager approves. A lender's manager may also offer GPUs outright. A loan
//! ends when it expires, when the borrower returns it, or when the lender reclaims it;
//! the dispatcher then gives the GPUs back (and a lender's own work takes them back
//! at any time). Every decision is an event with its reason (A4).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::http::auth::Caller;
use crate::http::page::{Filters, Listing, NoFilters, Order};
use crate::http::rows::{Col, objects};
use crate::http::scope::{acting_group, belongs, group_named, manages, require_manager, text};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::store::events::record;

const LONGEST_S: i64 = 366 * 86_400;

/// Loans, newest first, a page at a time (`next` goes in `before`).
pub async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<Value>, ApiError> {
    let mut filters = Filters::default();
    filters.page("l.id", &page);
    let sql = format!(
        "SELECT l.id, lg.name, bg.name, l.model, l.gpus, l.ends_at, l.state, l.why, l.requested_by, \
         l.requested_at, l.decided_by, l.decided_at, l.decision, l.ended_by, l.ended_at \
         FROM loans l JOIN groups lg ON lg.id = l.lender_id LEFT JOIN groups bg ON bg.id = l.borrower_id{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("l.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&state.store.pool).await?;
    let loans = objects(
        &rows,
        &[
            ("id", Col::Int),
            ("lender", Col::Text),
            ("borrower", Col::OptText),
            ("model", Col::Text),
            ("gpus", Col::Int),
            ("ends_at", Col::Int),
            ("state", Col::Text),
            ("why", Col::Text),
            ("requested_by", Col::Text),
            ("requested_at", Col::Int),
            ("decided_by", Col::OptText),
            ("decided_at", Col::OptInt),
            ("decision", Col::OptText),
            ("ended_by", Col::OptText),
            ("ended_at", Col::OptInt),
        ],
    )?;
    let (mut loans, next) = page.finish(loans);
    let now = state.now();
    for l in &mut loans {
        // An active loan past its end lends nothing: say so rather than "active".
        if l["state"] == "active" && l["ends_at"].as_i64().is_some_and(|e| e <= now) {
            l["state"] = json!("expired");
        }
    }
    Ok(Json(json!({ "loans": loans, "next": next })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewLoan {
    lender: String,
    /// Omitted: the caller's own group asks (or, for the lender's manager, an open offer).
    borrower: Option<String>,
    #[serde(default = "a100")]
    model: String,
    gpus: u32,
    ends_at: i64,
    why: String,
}

fn a100() -> String {
    "A100-80G".into()
}

pub async fn create(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewLoan>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let lender = group_named(&state.store, &body.lender).await?;
    let why = text(&body.why, "why", 500)?;
    text(&body.model, "model", 64)?;
    let now = state.now();
    if body.ends_at <= now || body.ends_at > now + LONGEST_S {
        return Err(ApiError::Unprocessable("ends_at must be in the future, within a year".into()));
    }
    if !(1..=4096).contains(&body.gpus) {
        return Err(ApiError::Unprocessable("gpus must be between 1 and 4096".into()));
    }
    // The lender's manager offers: approved by the act of offering.
    let offer = manages(&user, lender) && (user.group_id == Some(lender) || body.borrower.is_some());
    let borrower = match (&body.borrower, offer) {
        (None, true) => None,
        (Some(name), true) => Some(group_named(&state.store, name).await?),
        (named, false) => Some(acting_group(&state.store, &user, named.as_deref()).await?),
    };
    if borrower == Some(lender) {
        return Err(ApiError::Unprocessable("a group does not borrow from itself".into()));
    }
    let (loan_state, decided_by, decided_at) =
        if offer { ("active", Some(user.username.as_str()), Some(now)) } else { ("requested", None, None) };
    let mut tx = state.store.pool.begin().await?;
    let row = sqlx::query(
        "INSERT INTO loans (lender_id, borrower_id, model, gpus, ends_at, state, why, requested_by, requested_at, \
         decided_by, decided_at, decision) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL) RETURNING id",
    )
    .bind(lender)
    .bind(borrower)
    .bind(&body.model)
    .bind(i64::from(body.gpus))
    .bind(body.ends_at)
    .bind(loan_state)
    .bind(why)
    .bind(&user.username)
    .bind(now)
    .bind(decided_by)
    .bind(decided_at)
    .fetch_one(&mut *tx)
    .await?;
    let id: i64 = row.try_get(0)?;
    let (kind, message) = if offer {
        (
            "loan-offered",
            format!("{} offered {} {} GPUs of {}: {why}", user.username, body.gpus, body.model, body.lender),
        )
    } else {
        (
            "loan-requested",
            format!("{} asked {} for {} {} GPUs: {why}", user.username, body.lender, body.gpus, body.model),
        )
    };
    record(&mut tx, now, kind, None, &user.username, &message, &json!({ "loan": id })).await?;
    tx.commit().await?;
    if offer {
        state.wake.notify_one();
    }
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "state": loan_state }))))
}

/// A loan's lender, borrower and state.
async fn loan(state: &AppState, id: i64) -> Result<(i64, Option<i64>, String), ApiError> {
    let row = sqlx::query("SELECT lender_id, borrower_id, state FROM loans WHERE id = $1")
        .bind(id)
        .fetch_optional(&state.store.pool)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no loan {id}")))?;
    Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    note: String,
}

/// Moves loan `id` from `from` to `to`, recording who and why; 409 if it has moved on.
async fn transition(
    state: &AppState,
    id: i64,
    from: &str,
    to: &str,
    actor: &str,
    note: &str,
) -> Result<Json<Value>, ApiError> {
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
    let sql = if from == "requested" {
        "UPDATE loans SET state = $1, decided_by = $2, decided_at = $3, decision = $4 WHERE id = $5 AND state = $6"
    } else {
        "UPDATE loans SET state = $1, ended_by = $2, ended_at = $3, decision = COALESCE(decision, $4) \
         WHERE id = $5 AND state = $6"
    };
    let done = sqlx::query(sql)
        .bind(to)
        .bind(actor)
        .bind(now)
        .bind(note)
        .bind(id)
        .bind(from)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        return Err(ApiError::Conflict(format!("loan {id} is not {from}")));
    }
    let message = format!("{actor}: loan {id} {to}: {note}");
    record(&mut tx, now, &format!("loan-{to}"), None, actor, &message, &json!({ "loan": id })).await?;
    tx.commit().await?;
    state.wake.notify_one();
    Ok(Json(json!({ "id": id, "state": to })))
}

/// A decision only the lender's manager (or an admin) takes, with its reason.
async fn lender_decides(
    state: &AppState,
    user: &crate::store::users::User,
    id: i64,
    note: &str,
    (from, to, what): (&str, &str, &str),
) -> Result<Json<Value>, ApiError> {
    let (lender, _, _) = loan(state, id).await?;
    require_manager(user, lender, what)?;
    let note = text(note, "note", 500)?;
    transition(state, id, from, to, &user.username, note).await
}

pub async fn approve(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Decision>,
) -> Result<Json<Value>, ApiError> {
    lender_decides(&state, &user, id, &body.note, ("requested", "active", "approve the group's loans")).await
}

pub async fn reject(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Decision>,
) -> Result<Json<Value>, ApiError> {
    lender_decides(&state, &user, id, &body.note, ("requested", "rejected", "reject the group's loans")).await
}

/// The borrower gives the GPUs back early.
pub async fn give_back(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Value>, ApiError> {
    let (_, borrower, _) = loan(&state, id).await?;
    if !borrower.is_some_and(|b| belongs(&user, b)) {
        return Err(ApiError::Forbidden("only the borrowing group returns a loan".into()));
    }
    transition(&state, id, "active", "returned", &user.username, "returned by the borrower").await
}

/// The lender takes the GPUs back before the end.
pub async fn reclaim(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Decision>,
) -> Result<Json<Value>, ApiError> {
    lender_decides(&state, &user, id, &body.note, ("active", "reclaimed", "reclaim the group's loans")).await
}
