//! Jobs: the submission (`POST /api/jobs`, and `POST /api/jobs/dry-run` for what would
//! happen), the list (`GET /api/jobs`, newest first, a page at a time) and cancelling
//! (`POST /api/jobs/{id}/cancel`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A submission: a spec, or a template (T1) with at most a name, project and tags of its
/// own. Absent fields take the server's defaults (model A100-80G, category training,
/// class normal, topology any, not checkpointable, the node's sandbox).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Submit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A shell command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<u32>,
    /// Admins name the group; everyone else submits for their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The GPU model, e.g. `A100-80G`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `training`, `inference` or `pretraining` (Q2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// `batch`, `experiment`, `normal` or `critical` (Q4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// `any`, `same-node` or `same-nvlink`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    /// The most seconds the job may run; omitted: its class's default. Above the class's
    /// maximum is refused (`GET /api/settings/limits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_s: Option<u64>,
    /// The job saves checkpoints and may be stopped and resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpointable: Option<bool>,
    /// The container image to run in; none: the node's sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Environment variables for the job (no TIDEPOOL_*, no loader variables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Launch this template: its frozen shape, nothing overridden (T1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<i64>,
    /// The project whose priority grant the job runs under (P2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Archive tags (A2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// A job's lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum JobState {
    Pending,
    Running,
    Succeeded,
    Failed,
    TimedOut,
    Cancelled,
}

impl JobState {
    /// Every state, in lifecycle order.
    pub const ALL: [JobState; 6] = [
        JobState::Pending,
        JobState::Running,
        JobState::Succeeded,
        JobState::Failed,
        JobState::TimedOut,
        JobState::Cancelled,
    ];

    /// The state as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Pending => "pending",
            JobState::Running => "running",
            JobState::Succeeded => "succeeded",
            JobState::Failed => "failed",
            JobState::TimedOut => "timed-out",
            JobState::Cancelled => "cancelled",
        }
    }

    /// The state the API spells `s`, if any.
    pub fn parse(s: &str) -> Option<JobState> {
        JobState::ALL.into_iter().find(|j| j.as_str() == s)
    }

    /// The job has ended and will not run again.
    pub fn is_done(self) -> bool {
        !matches!(self, JobState::Pending | JobState::Running)
    }
}

impl fmt::Display for JobState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a submission answers (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Submitted {
    pub id: i64,
    /// Always `pending`: the dispatcher places it on its next cycle.
    pub state: JobState,
}

/// What a cancel answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Cancelled {
    pub id: i64,
    /// Always `cancelled`.
    pub state: JobState,
}

/// One row of the job list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct JobRow {
    pub id: i64,
    pub name: String,
    /// The group it runs for.
    pub group: String,
    pub gpus: i64,
    pub state: JobState,
    /// Why a pending job waits (or why a job ended), in words.
    pub reason: Option<String>,
    /// A pending job's rank in the queue (0 is first).
    pub position: Option<i64>,
    /// Unix seconds.
    pub submitted_at: i64,
    pub class: String,
    pub category: String,
    pub model: String,
    /// The submitter's username.
    pub submitted_by: String,
    /// The template it was launched from.
    pub template: Option<i64>,
    /// The project whose grant it runs under.
    pub project: Option<String>,
    /// When a waiting job could start if running jobs end as expected (Unix seconds).
    pub estimated_start: Option<i64>,
    /// Its time limit, seconds: the one it asked for, else its class's default (P1).
    pub time_limit_s: i64,
}

/// A page of jobs, newest first; `next` goes in `?before=` for the following page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct JobPage {
    pub jobs: Vec<JobRow>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// What a dry run answers (O6): what the dispatcher would do with the job now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DryRun {
    /// `start` or `wait`.
    pub would: String,
    /// Where it would start: node names and GPU indices.
    pub nodes: Vec<(String, Vec<u8>)>,
    /// The grant or the reason, in words.
    pub why: String,
    /// Its rank in the queue (0 is first).
    pub position: u32,
    /// Running jobs that would be stopped this cycle.
    pub preemptions: u64,
    /// When it could start if running jobs end as expected (Unix seconds).
    pub estimated_start: Option<i64>,
}
