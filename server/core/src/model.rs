//! Domain types: the cluster (pools, nodes, GPUs), who asks for it (groups, jobs) and
//! what they hold (allocations). Ids are dense indices where the snapshot owns a table,
//! so the dispatch cycle can use plain vectors instead of maps.

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch. The core never reads a clock: callers pass `now`.
pub type Time = i64;

/// Index into [`crate::Snapshot::groups`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GroupId(pub u32);

/// Index into [`crate::Snapshot::models`] (e.g. "A100-80G").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ModelId(pub u16);

/// Index into [`crate::Snapshot::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(pub u32);

/// A job's stable identity; survives preemption and resume (D4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct JobId(pub u64);

/// A loan's stable identity (B1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LoanId(pub u64);

/// Usage category a quota is split by (Q2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Training,
    Inference,
    Pretraining,
}

impl Category {
    pub const ALL: [Category; 3] = [Category::Training, Category::Inference, Category::Pretraining];

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Priority class (P1). Declared lowest first so that `Ord` ranks critical highest.
/// Batch sits below experiment because batch work exists to fill troughs (D5), while
/// experiments are short and someone is waiting for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PriorityClass {
    Batch,
    Experiment,
    Normal,
    Critical,
}

/// How a multi-GPU job may be spread (T1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Topology {
    /// Pack as tightly as possible (one NVLink domain, else one node), else spread as a gang.
    #[default]
    Any,
    /// All GPUs on one node.
    SameNode,
    /// All GPUs inside one NVLink domain of one node.
    SameNvlink,
}

/// A physical machine with up to 64 GPUs of one model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub name: String,
    /// Pool (region) the node belongs to; used by views and reports, not by placement.
    pub pool: String,
    pub model: ModelId,
    /// Number of GPUs; GPU `i` is bit `i` of every mask.
    pub gpus: u8,
    /// NVLink domains as GPU masks. Empty means the whole node is one domain.
    pub nvlink_domains: Vec<u64>,
    /// Unhealthy nodes offer no free GPUs (their allocations are requeued by the server).
    pub healthy: bool,
}

impl Node {
    pub fn all_gpus(&self) -> u64 {
        if self.gpus >= 64 { u64::MAX } else { (1u64 << self.gpus) - 1 }
    }

    /// The node's NVLink domains, with the implicit single domain made explicit.
    pub fn domains(&self) -> impl Iterator<Item = u64> + '_ {
        let whole = (self.nvlink_domains.is_empty()).then(|| self.all_gpus());
        self.nvlink_domains.iter().copied().chain(whole)
    }
}

/// A research group: the unit quotas, loans and reports are kept by.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub name: String,
    /// GPU-hours used recently, decayed with a half-life; kept by whoever drives the
    /// cycle (server or simulator), read by fair-share policies.
    #[serde(default)]
    pub recent_gpu_h: f64,
}

impl Group {
    pub fn named(name: impl Into<String>) -> Group {
        Group { name: name.into(), recent_gpu_h: 0.0 }
    }
}

/// A job waiting to run (new, or requeued after preemption).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: JobId,
    pub group: GroupId,
    pub category: Category,
    pub class: PriorityClass,
    pub gpus: u32,
    pub model: ModelId,
    pub topology: Topology,
    /// Wall-clock limit per run; `None` uses the configured default for planning.
    pub time_limit_s: Option<u64>,
    pub checkpointable: bool,
    pub submitted_at: Time,
    /// When the job last entered the queue (submission, or its last interruption).
    pub queued_at: Time,
    /// GPU-seconds this job has already received (least-attained-service ordering).
    pub attained_gpu_s: u64,
}

/// Where a job's GPUs are on one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    pub node: NodeId,
    /// Bit `i` set: GPU `i` of the node.
    pub gpus: u64,
}

/// Part of a job's GPUs counted against another group's guarantee under a loan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Borrow {
    pub loan: LoanId,
    pub gpus: u32,
}

/// A running job and the GPUs it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Allocation {
    pub job: JobId,
    pub group: GroupId,
    pub category: Category,
    pub class: PriorityClass,
    pub model: ModelId,
    pub slots: Vec<Slot>,
    pub started_at: Time,
    pub time_limit_s: Option<u64>,
    pub checkpointable: bool,
    /// Last checkpoint the job reported (or the simulator modelled); `None` if none yet.
    pub last_checkpoint_at: Option<Time>,
    /// GPUs counted against lenders' guarantees; the rest count against the group's own.
    pub borrowed: Vec<Borrow>,
    /// Set while the job is being stopped (grace period): its GPUs are already promised.
    pub draining_for: Option<JobId>,
    /// GPU-seconds the job received before this segment (time-sharing ranks by it).
    #[serde(default)]
    pub attained_gpu_s: u64,
    /// Times the job was preempted (for any reason) in the last 24 hours: time-sharing
    /// stops a job at most `TimeShare::max_per_day` times a day.
    #[serde(default)]
    pub preemptions_today: u32,
}

impl Allocation {
    pub fn gpu_count(&self) -> u32 {
        self.slots.iter().map(|s| s.gpus.count_ones()).sum()
    }

    pub fn borrowed_gpus(&self) -> u32 {
        self.borrowed.iter().map(|b| b.gpus).sum()
    }

    /// When the planner expects the GPUs back: the time limit, or the default estimate.
    /// A job past its estimate may end at any moment, so it is expected `now`.
    pub fn expected_end(&self, now: Time, default_limit_s: u64) -> Time {
        let limit = self.time_limit_s.unwrap_or(default_limit_s);
        (self.started_at + limit as Time).max(now)
    }

    /// GPU-hours it may still use: its GPUs × the rest of its time limit (Q3).
    pub fn remaining_gpu_h(&self, now: Time, default_limit_s: u64) -> f64 {
        let left = self.expected_end(now, default_limit_s) - now;
        f64::from(self.gpu_count()) * left as f64 / 3600.0
    }

    /// GPU-seconds received so far: before this segment and in it.
    pub fn attained_gpu_s_at(&self, now: Time) -> u64 {
        self.attained_gpu_s + (now - self.started_at).max(0) as u64 * u64::from(self.gpu_count())
    }

    /// GPU-seconds of work preemption would throw away now (work since the last checkpoint).
    pub fn work_at_risk_gpu_s(&self, now: Time) -> u64 {
        let since = match (self.checkpointable, self.last_checkpoint_at) {
            (true, Some(at)) => at.max(self.started_at),
            _ => self.started_at,
        };
        (now - since).max(0) as u64 * u64::from(self.gpu_count())
    }
}
