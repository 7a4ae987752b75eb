//! Loans between groups (B1, `GET/POST /api/loans`): a group asks another for GPUs, the
//! lender's manager approves or rejects; the borrower may return a loan early and the
//! lender may reclaim it.

use serde::{Deserialize, Serialize};

/// One loan and its decisions, newest first in the list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Loan {
    pub id: i64,
    pub lender: String,
    /// None: an open offer from the lender.
    pub borrower: Option<String>,
    pub model: String,
    pub gpus: i64,
    /// Unix seconds.
    pub ends_at: i64,
    /// `requested`, `active`, `rejected`, `returned`, `reclaimed`, or `expired` (an
    /// active loan past its end).
    pub state: String,
    /// Why it was asked for.
    pub why: String,
    pub requested_by: String,
    pub requested_at: i64,
    pub decided_by: Option<String>,
    pub decided_at: Option<i64>,
    /// The decision's note.
    pub decision: Option<String>,
    pub ended_by: Option<String>,
    pub ended_at: Option<i64>,
}

/// A page of loans; `next` goes in `?before=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoanPage {
    pub loans: Vec<Loan>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// Asking a group for GPUs (or, as the lender's manager, offering them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewLoan {
    /// The group that lends.
    pub lender: String,
    /// Omitted: the caller's own group asks (or, for the lender's manager, an open offer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrower: Option<String>,
    /// The GPU model; the server's default is A100-80G.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub gpus: u32,
    /// When it ends (Unix seconds, within a year).
    pub ends_at: i64,
    /// Why, for the lender's manager.
    pub why: String,
}

/// A decision on a loan, with its reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Decision {
    pub note: String,
}

/// What creating a loan or deciding on one answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoanChanged {
    pub id: i64,
    /// The loan's new state.
    pub state: String,
}
