//! The records: the event log (`GET /api/events`, D2) and the archive of finished jobs
//! by group, year and tag (`GET /api/archive`, A2), both newest first, a page at a time.

use serde::{Deserialize, Serialize};

/// One entry of the event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoggedEvent {
    pub id: i64,
    /// Unix seconds.
    pub at: i64,
    /// `submitted`, `placed`, `loan-approved`, `change-applied`, `node-registered`…
    pub kind: String,
    /// The job it is about, if any.
    pub job: Option<i64>,
    /// Who acted: a user, an agent, or the dispatcher.
    pub actor: Option<String>,
    /// The policy version that decided, when a policy did.
    pub policy: Option<String>,
    /// What happened, in words.
    pub message: String,
    /// Machine-readable particulars; their keys depend on the kind (`job`, `loan`,
    /// `node`, `template`, `change`…).
    pub detail: serde_json::Map<String, serde_json::Value>,
}

/// A page of events; `next` goes in `?before=`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EventPage {
    pub events: Vec<LoggedEvent>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// A finished job in the archive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ArchivedJob {
    pub id: i64,
    pub name: String,
    pub group: String,
    /// `succeeded`, `failed`, `timed-out` or `cancelled`.
    pub state: String,
    pub class: String,
    pub category: String,
    pub gpus: i64,
    pub model: String,
    /// Unix seconds.
    pub submitted_at: i64,
    pub finished_at: Option<i64>,
    /// GPU-seconds it used.
    pub gpu_s: i64,
    /// Its archive tags, in order.
    pub tags: Vec<String>,
}

/// A page of the archive; `next` goes in `?before=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ArchivePage {
    pub jobs: Vec<ArchivedJob>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}
