//! A job's dispatch receipt (`GET /api/jobs/{id}`, D3): what ran where, when, granted by
//! which policy version and why, from the event log (D2).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::jobs::JobState;

/// The receipt: the job now, and every event about it, oldest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub id: i64,
    pub name: String,
    pub group: String,
    pub gpus: i64,
    pub state: JobState,
    /// Why it waits (or ended), in words.
    pub reason: Option<String>,
    /// A pending job's rank in the queue (0 is first).
    pub position: Option<i64>,
    /// Unix seconds.
    pub submitted_at: i64,
    /// When a waiting job could start (Unix seconds).
    pub estimated_start: Option<i64>,
    /// Its time limit, seconds: the one it asked for, else its class's default (P1).
    pub time_limit_s: i64,
    /// The container image it runs in; none: the node's sandbox.
    pub image: Option<String>,
    /// Its environment; values are masked for anyone outside its group but admins.
    pub env: BTreeMap<String, String>,
    /// What happened to it, oldest first.
    pub events: Vec<Event>,
    /// Why it waited, span by span, oldest first (D2): the timeline of its waits.
    #[serde(default)]
    pub waits: Vec<WaitSpan>,
}

/// One span of a job's wait during which its reason stayed of one kind (D2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WaitSpan {
    /// `quota`, `borrowing`, `budget`, `capacity`, `order`, `infeasible` or `policy`.
    pub kind: String,
    /// The kind in words.
    pub label: String,
    /// The reason as the dispatcher first gave it in this span.
    pub reason: String,
    /// Unix seconds.
    pub since: i64,
    /// Unix seconds; none while the job still waits for this.
    pub until: Option<i64>,
}

/// One event of a job's history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// Unix seconds.
    pub at: i64,
    /// `submitted`, `started`, `preempted`, `finished`, `cancelled`…
    pub kind: String,
    /// Who acted: a user, or the dispatcher.
    pub actor: Option<String>,
    /// The policy version that decided, when a policy did.
    pub policy: Option<String>,
    /// What happened and why, in words (a start names its node and GPUs).
    pub message: String,
}
