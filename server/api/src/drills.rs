//! Failover drills (issue 14, O3): `tidepool drill failover` kills the dispatching server
//! with standbys waiting and records what it measured, so "drilled" has a date and a
//! figure. `GET /api/drills` lists them for admins, newest first.

use serde::{Deserialize, Serialize};

/// One leader killed, and what followed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DrillRound {
    /// 1, 2, … in the drill.
    pub round: u32,
    /// Milliseconds from the SIGKILL to the first cycle of the new leader.
    pub takeover_ms: i64,
    /// Jobs the API acknowledged (2xx) between the kill and that cycle.
    pub submitted_in_gap: u32,
    /// Jobs the API acknowledged in the round.
    pub acknowledged: u32,
    /// Jobs started on two nodes, or with two allocations: must be 0.
    pub written_twice: u32,
    /// Acknowledged jobs missing from the records or never run: must be 0.
    pub lost: u32,
    /// The killed leader came back as a standby and a write with its old epoch was refused.
    pub old_leader_fenced: bool,
}

/// One drill as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Drill {
    pub id: i64,
    /// `failover`.
    pub kind: String,
    /// Unix seconds (UTC).
    pub started_at: i64,
    pub finished_at: i64,
    /// Server processes on the database.
    pub servers: u32,
    /// Every round: nothing written twice, nothing lost, the old leader fenced.
    pub passed: bool,
    pub takeover_median_ms: i64,
    pub takeover_max_ms: i64,
    pub rounds: Vec<DrillRound>,
}

/// `GET /api/drills`: the drills, newest first (the last hundred).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DrillList {
    pub drills: Vec<Drill>,
}
