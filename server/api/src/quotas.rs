//! Quotas (`GET /api/quotas`): each group's guarantee per model and category, with what
//! it uses now and has spent this month (Q1: over- and under-use visible to everyone;
//! Q2 by category; Q3 budget).

use serde::{Deserialize, Serialize};

/// Every quota row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QuotasView {
    pub quotas: Vec<Quota>,
}

/// One group's quota for one model and category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Quota {
    pub group: String,
    pub group_id: i64,
    pub model: String,
    pub category: String,
    /// GPUs the group is guaranteed.
    pub guaranteed: i64,
    /// The most GPUs it may borrow beyond its guarantee; none: no limit.
    pub borrow_limit: Option<i64>,
    /// The most of its guarantee others may borrow; none: no limit.
    pub lend_limit: Option<i64>,
    /// The monthly budget in GPU-hours; none: no budget.
    pub budget_gpu_h: Option<f64>,
    /// GPUs its running jobs hold now.
    pub running_gpus: i64,
    /// GPUs held beyond the guarantee (borrowed).
    pub over_guarantee: i64,
    /// Guaranteed GPUs it leaves unused (lent to others meanwhile).
    pub idle_guarantee: i64,
    /// GPU-hours spent this month.
    pub spent_gpu_h: f64,
    /// The share of the budget spent; none without a budget.
    pub budget_used: Option<f64>,
}
