//! The weekly report (`GET /api/reports/weekly?group=&week=`, A5, O4): what one group —
//! or, without `group`, the organisation — used in one ISO week of the organisation's
//! time zone, what it cost, how long its jobs waited and why, what it lent and borrowed,
//! and how the week compares with the one before. A finished week is frozen (A2): its
//! `frozen_at` is set and later edits to the records no longer change it.

use serde::{Deserialize, Serialize};

/// One week's report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WeeklyReport {
    /// ISO week, `2026-W48`.
    pub week: String,
    /// The group reported on; none: the whole organisation.
    pub group: Option<String>,
    /// The organisation's time zone the week was cut in (IANA name).
    pub time_zone: String,
    /// The week's first and past-the-last second (Unix seconds, UTC).
    pub starts_at: i64,
    pub ends_at: i64,
    /// When the finished week was frozen; none while it is under way.
    pub frozen_at: Option<i64>,
    /// What `cost` is counted in (`EUR`).
    pub currency: String,
    pub totals: Totals,
    /// GPU-hours and cost by model and category.
    pub usage: Vec<UsageLine>,
    /// GPU-hours by local day and category, Monday first (the stacked chart).
    pub days: Vec<DayUsage>,
    /// Each quota's guarantee against its use over the week (Q1, Q5).
    pub guarantees: Vec<GuaranteeUse>,
    /// Waits of the jobs first placed this week, by class (D1).
    pub waits: Vec<WaitStats>,
    /// Why jobs waited, most frequent first (D2).
    pub wait_reasons: Vec<ReasonCount>,
    /// Loans lent and borrowed over the week (B1).
    pub loans: LoanFlows,
    pub interruptions: Interruptions,
    pub outcomes: Outcomes,
    /// Each budgeted quota's month: spent so far and the forecast to month end (Q3).
    pub budgets: Vec<BudgetBurn>,
    /// The three busiest and the three idlest local hours of the week.
    pub busiest_hours: Vec<HourFigure>,
    pub idlest_hours: Vec<HourFigure>,
    /// The change against the previous week; none when there is no previous week.
    pub previous: Option<WeekChange>,
}

/// The week's totals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Totals {
    /// GPU-hours held.
    pub gpu_hours: f64,
    /// GPU-hours the held GPUs were busy (utilisation-weighted, from the agents' samples).
    pub busy_gpu_hours: f64,
    /// GPU-hours held while below the idle threshold (R2).
    pub idle_gpu_hours: f64,
    pub cost: f64,
    pub jobs_started: i64,
    pub jobs_finished: i64,
}

/// One model and category's use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UsageLine {
    pub model: String,
    pub category: String,
    pub gpu_hours: f64,
    pub busy_gpu_hours: f64,
    pub idle_gpu_hours: f64,
    /// The price per GPU-hour the cost was counted at; none: the model has no price.
    pub price_per_gpu_hour: Option<f64>,
    pub cost: f64,
}

/// One local day's GPU-hours by category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DayUsage {
    /// The local date, `2026-11-23`.
    pub date: String,
    pub training: f64,
    pub inference: f64,
    pub pretraining: f64,
}

/// A quota's guarantee against what the group held.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GuaranteeUse {
    pub group: String,
    pub model: String,
    pub category: String,
    /// GPUs guaranteed.
    pub guaranteed: i64,
    /// GPU-hours the guarantee covers over the week (guaranteed x hours; for a week under
    /// way, the hours so far).
    pub guaranteed_gpu_hours: f64,
    pub used_gpu_hours: f64,
    /// Used over guaranteed: above 1, over the guarantee (borrowed); below, under.
    pub use_ratio: Option<f64>,
    /// GPUs held: hourly average, median and 95th percentile.
    pub held_avg: f64,
    pub held_p50: f64,
    pub held_p95: f64,
}

/// Waits of one class's jobs, in seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WaitStats {
    pub class: String,
    pub jobs: i64,
    pub avg_s: f64,
    pub p50_s: f64,
    pub p95_s: f64,
}

/// A kind of reason jobs waited for in the week (D2): how many jobs waited for it, and
/// for how long in all within the week.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReasonCount {
    /// The kind in words ("over the group's quota, no loan available").
    pub reason: String,
    pub jobs: i64,
    /// Seconds waited for it within the week, all jobs together.
    #[serde(default)]
    pub wait_s: i64,
}

/// GPU-hours lent to and borrowed from other groups.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoanFlows {
    pub lent_gpu_hours: f64,
    pub borrowed_gpu_hours: f64,
    /// Per loan active during the week.
    pub loans: Vec<LoanUse>,
}

/// One loan's share of the week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoanUse {
    pub id: i64,
    pub lender: String,
    /// None: an open offer.
    pub borrower: Option<String>,
    pub model: String,
    pub gpus: i64,
    /// GPUs x hours the loan was active within the week.
    pub gpu_hours: f64,
}

/// Jobs stopped before their end by the dispatcher.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Interruptions {
    /// Preempted for a more urgent job or a lender's own work (R3).
    pub preemptions: i64,
    /// Reclaimed because their GPUs sat idle (R2).
    pub idle_reclaims: i64,
    /// GPU-hours freed by idle reclaims: the reclaimed GPUs x the time left to the week's
    /// end or the job's time limit, whichever came first.
    pub reclaimed_gpu_hours: f64,
}

/// How the jobs that finished this week ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Outcomes {
    pub succeeded: i64,
    pub failed: i64,
    pub timed_out: i64,
    pub cancelled: i64,
}

/// A budgeted quota's month (Q3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BudgetBurn {
    pub group: String,
    pub model: String,
    pub category: String,
    /// The month, `2026-11`.
    pub month: String,
    pub budget_gpu_hours: f64,
    /// Spent from the month's start to the week's end (or now, for the current week).
    pub spent_gpu_hours: f64,
    /// At the month's pace so far, what it will have spent at the month's end.
    pub forecast_gpu_hours: f64,
}

/// One local hour of the week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HourFigure {
    /// Local time, `2026-11-24 14:00`.
    pub local: String,
    /// GPUs held on average over the hour.
    pub gpus_held: f64,
    /// Average utilisation of the held GPUs, percent.
    pub util_pct: f64,
}

/// This week against the previous one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WeekChange {
    pub week: String,
    pub gpu_hours: f64,
    pub cost: f64,
    pub idle_gpu_hours: f64,
    /// The p95 wait over all classes, seconds.
    pub wait_p95_s: f64,
    /// This week's p95 wait over all classes, for the comparison.
    pub this_wait_p95_s: f64,
    /// This week is under way: the figures above are the previous week's first hours, as
    /// many as this week has had, so the change compares like with like.
    #[serde(default)]
    pub elapsed_only: bool,
}

/// The frozen weeks there are (`GET /api/reports`), newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FrozenWeeks {
    pub weeks: Vec<FrozenWeek>,
}

/// One frozen report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FrozenWeek {
    pub week: String,
    /// None: the organisation's.
    pub group: Option<String>,
    pub frozen_at: i64,
    /// Deliveries that went out (email and webhook) and those that failed.
    pub delivered: i64,
    pub failed: i64,
}
