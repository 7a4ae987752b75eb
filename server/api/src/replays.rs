//! Replays (`/api/policies/{sha256}/replays`, O1, A3): a version run over the
//! organisation's own recorded submissions of a period on the simulator's core, beside the
//! active version and what really happened. Stored with the version, so the admin who
//! approves its promotion reads the comparison.

use serde::{Deserialize, Serialize};

/// Start a replay of a version over a period.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    /// Start of the period: `30d` or `12h` before now, a date (`2026-05-01`), a date-time
    /// or Unix seconds.
    pub since: String,
    /// End of the period (same forms); none: now.
    #[serde(default)]
    pub until: Option<String>,
    /// Other uploaded versions (of other kinds) replayed together with this one.
    #[serde(default)]
    pub with: Vec<String>,
}

/// Waits of one group's jobs of one class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayWaits {
    pub group: String,
    pub class: String,
    /// Jobs of the period that finished (waits are of finished jobs).
    pub finished: u64,
    pub p50_wait_s: f64,
    pub p99_wait_s: f64,
}

/// One group's use of the pool against its guarantee (fairness) and its budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayShare {
    pub group: String,
    /// GPU-hours its jobs held.
    pub gpu_h: f64,
    /// Its part of all GPU-hours held, 0..1.
    pub share: f64,
    /// Its guarantee's part of all guarantees, 0..1.
    pub guaranteed_share: f64,
    /// Its monthly GPU-hour budgets summed; none: no budget.
    pub budget_gpu_h: Option<f64>,
}

/// The figures of one way the period went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayFigures {
    /// "what happened", "active …" or "candidate …".
    pub label: String,
    pub finished: u64,
    pub avg_jct_s: f64,
    pub avg_wait_s: f64,
    pub p50_wait_s: f64,
    pub p99_wait_s: f64,
    pub preemptions: u64,
    pub waits: Vec<ReplayWaits>,
    pub shares: Vec<ReplayShare>,
}

/// A stored comparison: the candidate against the active version and what happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Replay {
    pub id: i64,
    /// The version replayed.
    pub sha256: String,
    /// The other versions replayed with it.
    pub with: Vec<String>,
    /// The period, Unix seconds, `until` excluded.
    pub since: i64,
    pub until: i64,
    pub requested_by: String,
    pub at: i64,
    /// Jobs submitted in the period and replayed.
    pub jobs: u64,
    /// Jobs left out, each with why (larger than the cluster, never ran).
    pub left_out: Vec<String>,
    pub actual: ReplayFigures,
    pub active: ReplayFigures,
    pub candidate: ReplayFigures,
}

/// A version's replays, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayList {
    pub replays: Vec<Replay>,
}
