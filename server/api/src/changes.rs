//! Configuration changes under two-person review (B2): an admin proposes a quota
//! (`PUT /api/quotas`), a second admin applies or rejects it (`/api/changes/{id}/…`);
//! the list (`GET /api/changes`) is newest first, a page at a time.

use serde::{Deserialize, Serialize};

/// Proposing a group's quota for one model and category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QuotaChange {
    pub group: String,
    /// The GPU model; the server's default is A100-80G.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `training`, `inference` or `pretraining`.
    pub category: String,
    /// GPUs the group is guaranteed.
    pub guaranteed: u32,
    /// The most GPUs it may borrow beyond its guarantee; omitted: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrow_limit: Option<u32>,
    /// The most of its guarantee others may borrow; omitted: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lend_limit: Option<u32>,
    /// The monthly budget in GPU-hours; omitted: no budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_gpu_h: Option<f64>,
    /// Why, for the reviewer (1-500 characters).
    pub why: String,
}

/// The quota a change would set, as the change list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QuotaSetting {
    pub group: String,
    pub model: String,
    pub category: String,
    pub guaranteed: u32,
    pub borrow_limit: Option<u32>,
    pub lend_limit: Option<u32>,
    pub budget_gpu_h: Option<f64>,
}

/// One proposed change and its review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub id: i64,
    /// What it changes: `quota`.
    pub kind: String,
    /// What it does and why, in words.
    pub summary: String,
    /// The setting it applies.
    pub change: QuotaSetting,
    /// `proposed`, `applied` or `rejected`.
    pub state: String,
    pub proposed_by: String,
    /// Unix seconds.
    pub proposed_at: i64,
    pub reviewed_by: Option<String>,
    pub reviewed_at: Option<i64>,
    pub review_note: Option<String>,
}

/// A page of changes; `next` goes in `?before=`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChangePage {
    pub changes: Vec<Change>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// What proposing a change answers (202: it waits for a second admin).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChangeProposed {
    /// The change's id.
    pub change: i64,
    /// Always `proposed`.
    pub state: String,
    pub summary: String,
}

/// A review: applying or rejecting a change, with a note.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// 1-500 characters.
    pub note: String,
}

/// What a review answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChangeReviewed {
    pub change: i64,
    /// `applied` or `rejected`.
    pub state: String,
}
