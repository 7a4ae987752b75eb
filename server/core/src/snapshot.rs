//! The input of one dispatch cycle: everything plan() may look at, owned by the caller.

use serde::{Deserialize, Serialize};

use crate::model::{Allocation, Group, Job, Node, Time};
use crate::quota::{Ledger, Loan, Quota};

/// Knobs of the dispatch cycle that are not policy decisions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleConfig {
    /// Let lower jobs start ahead of a blocked higher one when that cannot delay the
    /// higher job's reserved start (EASY backfill). Off means strict first-come-first-served.
    pub backfill: bool,
    /// Time limit assumed for planning where a job has none.
    pub default_time_limit_s: u64,
    /// A job that started less than this long ago is not preempted (avoids churn).
    pub min_runtime_s: u64,
    /// Most blocked jobs that may pick preemption victims in one cycle (bounds the cost).
    pub max_preemptors: usize,
    /// Time-sharing among checkpointable jobs of one group and class; `None`: off.
    #[serde(default)]
    pub timeshare: Option<TimeShare>,
}

/// Time-sharing (Tiresias' discretized least-attained-service): jobs fall into queues by
/// the GPU-seconds they have received; a waiting job may stop a running checkpointable
/// job of its own group and class that sits in a later queue. Within a queue, first come
/// first served: nobody is stopped for a peer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeShare {
    /// Ascending GPU-second bounds between queues: a job that has received `a` GPU-seconds
    /// is in queue `count(bound <= a)`.
    pub thresholds_gpu_s: Vec<u64>,
    /// A job preempted this often in the last 24 hours is not stopped by time-sharing.
    pub max_per_day: u32,
    /// Starvation guard: a job waiting this long claims as if it were in the first queue
    /// (0: no absolute guard).
    pub starve_after_s: u64,
    /// Starvation guard relative to the job's own service (Tiresias' STARVELIMIT): a job
    /// that has waited `starve_factor` times as long as it has run so far claims as if it
    /// were in the first queue (0: no relative guard).
    #[serde(default)]
    pub starve_factor: u64,
    /// Queue the whole waiting line by time-sharing queue first (critical jobs still
    /// first), the priority policy's order only within a queue: a job that has had
    /// little GPU time starts before one that has had much, and the GPUs a claimant
    /// frees go to it rather than to an older job of a later queue.
    #[serde(default)]
    pub order_by_queue: bool,
    /// A segment runs at least this long before time-sharing may stop it (on top of the
    /// minimum runtime), so a resumed job makes progress before it can yield again.
    pub quantum_s: u64,
    /// A job that had received this many GPU-seconds when its current run began is not
    /// stopped by time-sharing (0: no bound). Long jobs are then stopped only early in
    /// their life: in a group with more work than GPUs, a long job stopped again and
    /// again would otherwise wait behind every newer job until the backlog clears.
    #[serde(default)]
    pub protect_after_gpu_s: u64,
    /// With `order_by_queue`, jobs of the later queues (those that have had GPU time,
    /// mostly ones time-sharing stopped) wait first submitted first: a stop does not send
    /// a job to the back of the line. The first queue keeps the priority policy's order.
    #[serde(default)]
    pub fifo_in_later_queues: bool,
}

impl Default for TimeShare {
    fn default() -> Self {
        // Chosen on the Philly trace (`tidepool simulate --table`, issue 15): queues at 4
        // and 40 GPU-hours; an absolute guard made long jobs stop each other back and
        // forth once the backlog passed it, so only the guard relative to a job's own run;
        // a 6-hour quantum lets each turn pay for its restart. Protection after 150
        // GPU-hours and first-submitted-first in the later queues make it win on every
        // Philly group alone on 64 GPUs (it wins from 125 to 200 GPU-hours; 150 also keeps
        // every group's p99 wait at or below the default's).
        TimeShare {
            thresholds_gpu_s: vec![4 * 3600, 40 * 3600],
            max_per_day: 4,
            starve_after_s: 0,
            starve_factor: 16,
            order_by_queue: true,
            quantum_s: 6 * 3600,
            protect_after_gpu_s: 150 * 3600,
            fifo_in_later_queues: true,
        }
    }
}

impl TimeShare {
    /// The queue of a job that has received `attained_gpu_s`.
    pub fn queue(&self, attained_gpu_s: u64) -> usize {
        self.thresholds_gpu_s.iter().take_while(|&&t| t <= attained_gpu_s).count()
    }

    /// Whether waiting `job` has waited long enough, by either guard, to claim as if new.
    pub fn starving(&self, job: &Job, now: Time) -> bool {
        let waited = (now - job.queued_at).max(0) as u64;
        let ran_s = job.attained_gpu_s / u64::from(job.gpus.max(1));
        (self.starve_after_s > 0 && waited >= self.starve_after_s)
            || (self.starve_factor > 0 && ran_s > 0 && waited >= self.starve_factor.saturating_mul(ran_s))
    }

    /// The queue waiting `job` claims from: its own, or the first when starving.
    pub fn claim_queue(&self, job: &Job, now: Time) -> usize {
        if self.starving(job, now) { 0 } else { self.queue(job.attained_gpu_s) }
    }
}

impl Default for CycleConfig {
    fn default() -> Self {
        CycleConfig {
            backfill: true,
            default_time_limit_s: 24 * 3600,
            min_runtime_s: 600,
            max_preemptors: 32,
            // Off: the simulator's `timeshare` policy turns on `TimeShare::default()`; the
            // server's dispatcher will once the measurements favour it.
            timeshare: None,
        }
    }
}

/// The state a cycle plans on. Vectors are indexed by the ids of [`crate::model`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub models: Vec<String>,
    pub groups: Vec<crate::model::Group>,
    pub nodes: Vec<Node>,
    pub quotas: Vec<Quota>,
    /// Approved loans; ended ones are reclaimed by the cycle.
    pub loans: Vec<Loan>,
    pub running: Vec<Allocation>,
    pub pending: Vec<Job>,
    pub config: CycleConfig,
}

impl Snapshot {
    /// Accounting of running allocations against quotas and loans, as of `now`.
    pub fn ledger(&self, now: Time) -> Ledger {
        Ledger::new(
            self.groups.len(),
            self.models.len(),
            &self.quotas,
            &self.loans,
            &self.running,
            now,
            self.config.default_time_limit_s,
        )
    }

    pub fn group(&self, id: crate::model::GroupId) -> &Group {
        &self.groups[id.0 as usize]
    }

    /// The limit a job is planned with: its own, else the configured default.
    pub fn time_limit_s(&self, job: &Job) -> u64 {
        job.time_limit_s.unwrap_or(self.config.default_time_limit_s)
    }

    /// GPU-hours a run of `job` may cost (GPUs × planned limit), held against budgets (Q3).
    pub fn expected_gpu_h(&self, job: &Job) -> f64 {
        f64::from(job.gpus) * self.time_limit_s(job) as f64 / 3600.0
    }
}
