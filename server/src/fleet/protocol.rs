//! What agents and the server say to each other, over JSON on HTTP. An agent registers
//! its GPUs once, then syncs: it reports utilisation, what runs and what finished; the
//! server answers with what to start and what to stop. Every assignment carries a
//! fencing token (the dispatcher's epoch and the allocation id): reports with a stale
//! one are refused. Reports are idempotent: a retried report changes nothing twice.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One GPU as the agent found it.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GpuInfo {
    pub index: u8,
    pub uuid: String,
    pub model: String,
    pub memory_total_mb: u64,
}

/// An agent registering its node: the pool it asks for and every GPU it found.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Register {
    /// The pool to join; omitted: the node's current pool, or "default".
    pub pool: Option<String>,
    pub gpus: Vec<GpuInfo>,
}

/// What registering answers: the node's id and the timings the agent keeps to.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Registered {
    pub node_id: i64,
    pub name: String,
    /// Seconds an agent gives a job between SIGTERM and SIGKILL when it is not told otherwise.
    pub grace_s: u64,
    /// The longest a sync may wait for news.
    pub wait_max_s: u64,
    /// An agent that has not synced for this long stops its jobs on its own (self-fencing):
    /// the server requeues a lost node's jobs only after this and the grace period have
    /// passed, so a job never runs in two places at once.
    #[serde(default)]
    pub lost_after_s: u64,
}

/// One GPU's utilisation now.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GpuSample {
    pub index: u8,
    pub util_pct: u8,
    pub memory_used_mb: u64,
}

/// The fencing token of an assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fence {
    pub allocation: i64,
    pub epoch: i64,
}

/// How a job's process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// It exited by itself (see the exit code).
    Exited,
    /// It ran past its time limit and was stopped.
    TimedOut,
    /// It was stopped as the server asked.
    Stopped,
    /// The agent restarted and killed what it had left running.
    Abandoned,
    /// The command could not be started.
    FailedToStart,
}

/// An assignment whose process ended, and how.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Finished {
    #[serde(flatten)]
    pub fence: Fence,
    pub outcome: Outcome,
    pub exit_code: Option<i32>,
    /// Milliseconds from SIGTERM to the process group's exit (the grace it used).
    pub grace_used_ms: Option<u64>,
}

/// Output of an assignment's process, in order.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogChunk {
    #[serde(flatten)]
    pub fence: Fence,
    /// Where the chunk starts in the allocation's output, in bytes as the agent read
    /// them: a retried chunk is recorded once.
    #[serde(default)]
    pub offset: u64,
    pub text: String,
}

/// A sync: what the node holds and did since the last one.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    #[serde(default)]
    pub gpus: Vec<GpuSample>,
    /// Every assignment whose process runs now.
    #[serde(default)]
    pub running: Vec<Fence>,
    #[serde(default)]
    pub finished: Vec<Finished>,
    #[serde(default)]
    pub logs: Vec<LogChunk>,
    /// Wait up to this many seconds for something to do before answering.
    #[serde(default)]
    pub wait_s: u64,
}

/// Run this.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Assignment {
    #[serde(flatten)]
    pub fence: Fence,
    pub job: i64,
    pub name: String,
    pub command: String,
    /// GPU indices on this node.
    pub gpus: Vec<u8>,
    pub time_limit_s: Option<u64>,
    /// A later segment of an interrupted job: resume from the checkpoint (D4).
    pub resume: bool,
    /// The job's checkpoint folder, relative to the agent's checkpoint root.
    pub checkpoint: String,
    pub env: BTreeMap<String, String>,
    /// The container image to run it in (spec or template); `None`: the node's sandbox.
    #[serde(default)]
    pub image: Option<String>,
    /// The job's group and submitter, for a site's mapping to local accounts.
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub user: Option<String>,
}

/// Stop this: SIGTERM, `grace_s`, SIGKILL.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Stop {
    #[serde(flatten)]
    pub fence: Fence,
    pub reason: String,
    pub grace_s: u64,
}

/// A report the server did not take, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Refusal {
    pub allocation: i64,
    pub reason: String,
}

/// What a sync answers: what to start, what to stop, and the reports refused.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Orders {
    pub start: Vec<Assignment>,
    pub stop: Vec<Stop>,
    pub refused: Vec<Refusal>,
}
