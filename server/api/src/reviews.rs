//! The periodic reviews (`GET /api/reviews/{quotas,idle,templates,rules}`): the monthly
//! quota review (Q5) with suggested changes an admin turns into proposals for the second
//! person (B2); the monthly idle review (R5); the quarterly template review (T3); the
//! yearly review of the rules (every policy version and quota change of the year).

use serde::{Deserialize, Serialize};

/// The monthly quota review: each quota's guarantee against what its group held.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QuotaReview {
    /// `2026-11`.
    pub month: String,
    pub lines: Vec<QuotaReviewLine>,
}

/// One quota in the review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QuotaReviewLine {
    pub group: String,
    pub model: String,
    pub category: String,
    pub guaranteed: i64,
    /// GPUs held, hourly median and 95th percentile over the month.
    pub held_p50: f64,
    pub held_p95: f64,
    pub borrowed_gpu_hours: f64,
    pub lent_gpu_hours: f64,
    /// The p95 wait of the group's jobs of this model and category, seconds.
    pub wait_p95_s: f64,
    /// The guarantee the figures suggest; none: keep it.
    pub suggested: Option<i64>,
    /// Why, in words.
    pub why: String,
}

/// Turning a review's suggestions into proposals (`POST /api/reviews/quotas/propose`);
/// each becomes a quota change awaiting a second admin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProposeSuggestions {
    /// `2026-11`.
    pub month: String,
}

/// The proposals made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SuggestionsProposed {
    /// The ids of the quota changes now awaiting review.
    pub changes: Vec<i64>,
}

/// The monthly idle review: GPUs held but idle, per group (R5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IdleReview {
    pub month: String,
    pub lines: Vec<IdleReviewLine>,
}

/// One group's idle capacity in the month.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IdleReviewLine {
    pub group: String,
    pub held_gpu_hours: f64,
    pub idle_gpu_hours: f64,
    /// Idle over held.
    pub idle_share: f64,
    pub idle_reclaims: i64,
    /// Guaranteed GPUs it left unused on average, which others could borrow.
    pub unused_guarantee_avg: f64,
    /// What to do, in words.
    pub suggestion: String,
}

/// The quarterly template review (T3): templates not launched in the quarter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateReview {
    /// `2026-Q4`.
    pub quarter: String,
    pub stale: Vec<StaleTemplate>,
}

/// A template nobody launched this quarter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StaleTemplate {
    pub id: i64,
    pub name: String,
    pub group: String,
    pub created_by: String,
    /// Launches ever, and the last one (Unix seconds).
    pub launches: i64,
    pub last_launch: Option<i64>,
}

/// The yearly review of the rules: every policy version and quota change of the year,
/// with its reason and its measured effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RulesReview {
    pub year: i64,
    pub entries: Vec<RuleChange>,
}

/// One rule change of the year.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RuleChange {
    /// Unix seconds.
    pub at: i64,
    /// `policy` or `quota`.
    pub kind: String,
    /// What changed, in words (`priority a1b2c3 promoted`, `vision A100-80G training 8 -> 12`).
    pub what: String,
    pub why: String,
    pub by: String,
    pub approved_by: Option<String>,
    /// The four weeks before and after: p95 wait (s) and idle share, organisation-wide
    /// for a policy, the group's for a quota.
    pub before: Effect,
    pub after: Effect,
}

/// Figures over four weeks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Effect {
    pub wait_p95_s: f64,
    pub idle_share: f64,
    pub gpu_hours: f64,
}
