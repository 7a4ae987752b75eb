//! Loans between groups (B1) as rules and records: a group asks another for GPUs, and
//! nothing runs on them until the lender's manager approves; a lender's manager may also
//! offer their own group's GPUs outright. An admin's loan is a request like any other: the
//! lender's manager, or a second admin, approves it — never the admin who asked. A loan ends when it expires, when the borrower returns it, or
//! when the lender reclaims it; the dispatcher then gives the GPUs back. Every decision
//! is an event with its reason (A4). The caller wakes the dispatcher after a change that
//! lends or takes back GPUs.

use sqlx::Row;
use sqlx::any::AnyRow;
use tidepool_api::loans::{Loan, LoanChanged, LoanPage, NewLoan};

use crate::access::{AccessError, acting_group, belongs, group_named, require_manager};
use crate::input::{Invalid, text};
use crate::jobs::spec::DEFAULT_MODEL;
use crate::store::events::{EventDetail, record};
use crate::store::listing::{Filters, Keyed, Order, Page};
use crate::store::users::{Role, User};
use crate::store::{Store, StoreError};

/// The longest a loan may run: a year.
const LONGEST_S: i64 = 366 * 86_400;

/// Why a loan was not made or moved.
#[derive(Debug, thiserror::Error)]
pub enum LoanError {
    #[error("no loan {0}")]
    NoSuchLoan(i64),
    /// Someone decided first, or the loan ended: the request came too late.
    #[error("loan {id} is not {expected}")]
    MovedOn { id: i64, expected: &'static str },
    #[error("only the borrowing group returns a loan")]
    NotBorrower,
    #[error("a group does not borrow from itself")]
    OwnGroup,
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(LoanError);

/// What a lender's manager (or an admin) decides on a loan, with a note.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LenderAct {
    /// A request becomes active: the borrower's jobs may run on the GPUs.
    Approve,
    /// A request is refused.
    Reject,
    /// An active loan ends early: the lender needs its GPUs.
    Reclaim,
}

impl LenderAct {
    /// The state it moves from, the state it moves to, and what the refusal says the
    /// manager alone may do.
    fn moves(self) -> (&'static str, &'static str, &'static str) {
        match self {
            LenderAct::Approve => ("requested", "active", "approve the group's loans"),
            LenderAct::Reject => ("requested", "rejected", "reject the group's loans"),
            LenderAct::Reclaim => ("active", "reclaimed", "reclaim the group's loans"),
        }
    }
}

impl Keyed for Loan {
    fn key(&self) -> i64 {
        self.id
    }
}

/// The state a reader sees: an active loan past its end lends nothing, so it shows as
/// `expired` rather than `active` (the record keeps `active` until someone ends it).
pub fn as_seen(state: String, ends_at: i64, now: i64) -> String {
    if state == "active" && ends_at <= now { "expired".into() } else { state }
}

fn loan_of(row: &AnyRow, now: i64) -> Result<Loan, sqlx::Error> {
    let ends_at = row.try_get(5)?;
    Ok(Loan {
        id: row.try_get(0)?,
        lender: row.try_get(1)?,
        borrower: row.try_get(2)?,
        model: row.try_get(3)?,
        gpus: row.try_get(4)?,
        ends_at,
        state: as_seen(row.try_get(6)?, ends_at, now),
        why: row.try_get(7)?,
        requested_by: row.try_get(8)?,
        requested_at: row.try_get(9)?,
        decided_by: row.try_get(10)?,
        decided_at: row.try_get(11)?,
        decision: row.try_get(12)?,
        ended_by: row.try_get(13)?,
        ended_at: row.try_get(14)?,
    })
}

/// Loans, newest first, a page at a time (`next` goes in `before`), as seen at `now`.
pub async fn list(store: &Store, page: &Page, now: i64) -> Result<LoanPage, StoreError> {
    let mut filters = Filters::default();
    filters.page("l.id", page);
    let sql = format!(
        "SELECT l.id, lg.name, bg.name, l.model, l.gpus, l.ends_at, l.state, l.why, l.requested_by, \
         l.requested_at, l.decided_by, l.decided_at, l.decision, l.ended_by, l.ended_at \
         FROM loans l JOIN groups lg ON lg.id = l.lender_id LEFT JOIN groups bg ON bg.id = l.borrower_id{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("l.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&store.pool).await?;
    let loans = rows.iter().map(|r| loan_of(r, now)).collect::<Result<Vec<_>, _>>()?;
    let (loans, next) = page.finish(loans);
    Ok(LoanPage { loans, next })
}

/// A request for GPUs from `user`'s group (admins name the borrower), or, when `user` is
/// the lender's own manager, an offer: active at once, to the named group or to anyone.
/// An admin's loan is a request: the lender approves what is lent (B1).
pub async fn create(store: &Store, user: &User, body: &NewLoan, now: i64) -> Result<LoanChanged, LoanError> {
    let lender = group_named(store, &body.lender).await?;
    let why = text(&body.why, "why", 500)?;
    let model = text(body.model.as_deref().unwrap_or(DEFAULT_MODEL), "model", 64)?;
    if body.ends_at <= now || body.ends_at > now + LONGEST_S {
        return Err(Invalid("ends_at must be in the future, within a year".into()).into());
    }
    if !(1..=4096).contains(&body.gpus) {
        return Err(Invalid("gpus must be between 1 and 4096".into()).into());
    }
    // The lender's own manager offers: approved by the act of offering.
    let offer = user.role == Role::Manager && user.group_id == Some(lender);
    let borrower = match (&body.borrower, offer) {
        (None, true) => None,
        (Some(name), true) => Some(group_named(store, name).await?),
        (named, false) => Some(acting_group(store, user, named.as_deref()).await?),
    };
    if borrower == Some(lender) {
        return Err(LoanError::OwnGroup);
    }
    let (state, decided_by, decided_at) =
        if offer { ("active", Some(user.username.as_str()), Some(now)) } else { ("requested", None, None) };
    let mut tx = store.begin().await?;
    let row = sqlx::query(
        "INSERT INTO loans (lender_id, borrower_id, model, gpus, ends_at, state, why, requested_by, requested_at, \
         decided_by, decided_at, decision) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL) RETURNING id",
    )
    .bind(lender)
    .bind(borrower)
    .bind(model)
    .bind(i64::from(body.gpus))
    .bind(body.ends_at)
    .bind(state)
    .bind(why)
    .bind(&user.username)
    .bind(now)
    .bind(decided_by)
    .bind(decided_at)
    .fetch_one(&mut *tx)
    .await?;
    let id: i64 = row.try_get(0)?;
    let (who, gpus, lender_name) = (&user.username, body.gpus, &body.lender);
    let (kind, message) = if offer {
        ("loan-offered", format!("{who} offered {gpus} {model} GPUs of {lender_name}: {why}"))
    } else {
        let other = body.borrower.as_ref().map(|b| format!(" for {b}")).unwrap_or_default();
        ("loan-requested", format!("{who} asked {lender_name} for {gpus} {model} GPUs{other}: {why}"))
    };
    record(
        &mut tx,
        now,
        kind,
        None,
        who,
        &message,
        &EventDetail { loan: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(LoanChanged { id, state: state.into() })
}

/// A loan's lender, borrower, and who asked for it.
async fn parties(store: &Store, id: i64) -> Result<(i64, Option<i64>, String), LoanError> {
    let row = sqlx::query("SELECT lender_id, borrower_id, requested_by FROM loans WHERE id = $1")
        .bind(id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or(LoanError::NoSuchLoan(id))?;
    Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))
}

/// The lender's decision `act` on loan `id`, with its reason; only the lender's manager
/// or an admin takes it, and no one approves their own request (an admin's loan needs the
/// lender's manager or a second admin).
pub async fn decide(
    store: &Store,
    user: &User,
    id: i64,
    act: LenderAct,
    note: &str,
    now: i64,
) -> Result<LoanChanged, LoanError> {
    let (from, to, what) = act.moves();
    let (lender, _, asked_by) = parties(store, id).await?;
    require_manager(user, lender, what)?;
    if act == LenderAct::Approve && asked_by == user.username {
        return Err(AccessError::Denied(
            "you asked for this loan: the lender's manager or another admin approves it".into(),
        )
        .into());
    }
    let note = text(note, "note", 500)?;
    transition(store, id, (from, to), &user.username, note, now).await
}

/// The borrower gives the GPUs back early.
pub async fn give_back(store: &Store, user: &User, id: i64, now: i64) -> Result<LoanChanged, LoanError> {
    let (_, borrower, _) = parties(store, id).await?;
    if !borrower.is_some_and(|b| belongs(user, b)) {
        return Err(LoanError::NotBorrower);
    }
    transition(store, id, ("active", "returned"), &user.username, "returned by the borrower", now).await
}

/// Moves loan `id` from one state to the next, recording who and why; refused if it has
/// moved on meanwhile (the update is conditional on the state, so two managers deciding
/// at once cannot both win).
async fn transition(
    store: &Store,
    id: i64,
    (from, to): (&'static str, &str),
    actor: &str,
    note: &str,
    now: i64,
) -> Result<LoanChanged, LoanError> {
    let mut tx = store.begin().await?;
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
        return Err(LoanError::MovedOn { id, expected: from });
    }
    let message = format!("{actor}: loan {id} {to}: {note}");
    record(
        &mut tx,
        now,
        &format!("loan-{to}"),
        None,
        actor,
        &message,
        &EventDetail { loan: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(LoanChanged { id, state: to.into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_active_loan_past_its_end_reads_as_expired_and_nothing_else_changes() {
        assert_eq!(as_seen("active".into(), 100, 100), "expired");
        assert_eq!(as_seen("active".into(), 101, 100), "active");
        assert_eq!(as_seen("returned".into(), 50, 100), "returned");
        assert_eq!(as_seen("requested".into(), 50, 100), "requested");
    }
}
