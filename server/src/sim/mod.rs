//! `tidepool simulate`: replays a job trace through the core's `plan()` on a virtual
//! clock, either as today's practice (each group alone on its own nodes, first come
//! first served) or as one shared pool with quotas, borrowing and reclaim.

mod cluster;
mod engine;
pub mod report;
pub mod table;
pub mod time;
pub mod trace;

pub use cluster::{GroupSpec, resolve_groups};
pub use engine::{Engine, JobOutcome, SimJob};
pub use report::{GroupReport, Report};

use tidepool_core::checkpoint::Checkpointing;
use tidepool_core::{CycleConfig, GroupId, Policies};

/// How the cluster is shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Each group alone on its guaranteed nodes (today's practice).
    Silo,
    /// One pool: guarantees as quotas, borrowing of idle capacity, reclaim.
    Pooled,
}

/// Which built-in policy set decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyChoice {
    /// Class, aging, least attained service; backfill.
    Default,
    /// First come, first served; no backfill.
    Fifo,
    /// The default with time-sharing among checkpointable jobs (the server's default
    /// cycle settings): a job that has received less GPU time may take a turn from a
    /// peer of its group and class that has received more.
    Timeshare,
}

/// Everything one simulation run needs, already validated.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub groups: Vec<GroupSpec>,
    pub gpus_per_node: u8,
    pub mode: Mode,
    pub policy: PolicyChoice,
    pub checkpointing: Checkpointing,
    /// Backfill, minimum runtime and the other knobs of the cycle.
    pub cycle: CycleConfig,
}

impl PolicyChoice {
    /// The built-in policy set for this choice.
    pub fn native(self) -> tidepool_core::NativePolicies {
        match self {
            PolicyChoice::Default | PolicyChoice::Timeshare => tidepool_core::NativePolicies::default(),
            PolicyChoice::Fifo => tidepool_core::NativePolicies::fifo(),
        }
    }
}

/// Runs the jobs (group index, arrival, work, GPUs) through `policies` and reports.
pub fn simulate(config: &SimConfig, policies: &dyn Policies, jobs: Vec<SimJob>, skipped: u64) -> Report {
    let mut records = Vec::with_capacity(jobs.len());
    let mut busy_gpu_s = 0u128;
    let mut preemptions = 0u64;
    let mut unschedulable = 0u64;
    let partitions: Vec<Vec<GroupId>> = match config.mode {
        Mode::Silo => (0..config.groups.len() as u32).map(|g| vec![GroupId(g)]).collect(),
        Mode::Pooled => vec![(0..config.groups.len() as u32).map(GroupId).collect()],
    };
    for members in partitions {
        let snap = cluster::snapshot(config, &members);
        let capacity: u32 = snap.nodes.iter().map(|n| u32::from(n.gpus)).sum();
        // Jobs of this partition, renumbered into its own group ids.
        let mut part: Vec<SimJob> = Vec::new();
        for j in jobs.iter().filter(|j| members.contains(&j.group)) {
            if j.gpus > capacity {
                unschedulable += 1;
                continue;
            }
            let local = members.iter().position(|g| *g == j.group).expect("member") as u32;
            part.push(SimJob { group: GroupId(local), ..j.clone() });
        }
        let mut engine = Engine::new(snap, policies, config.checkpointing, part);
        engine.run();
        busy_gpu_s += engine.busy_gpu_s;
        for (job, outcome) in engine.jobs().iter().zip(&engine.outcomes) {
            preemptions += u64::from(outcome.preemptions);
            records.push((members[job.group.0 as usize], job.clone(), outcome.clone()));
        }
    }
    let capacity_gpus: u64 =
        config.groups.iter().map(|g| u64::from(g.nodes) * u64::from(config.gpus_per_node)).sum();
    report::build(config, &records, skipped, unschedulable, busy_gpu_s, preemptions, capacity_gpus)
}
