//! Running recorded jobs through a policy set on the simulator's engine: the cluster as
//! the dispatcher sees it now (nodes, groups, quotas, loans), the server's cycle settings,
//! and each job arriving when it was submitted with the work it really did.

use std::sync::Arc;

use tidepool_core::checkpoint::Checkpointing;
use tidepool_core::{GroupId, Snapshot};

use crate::policy::{Kind, Module, WasmPolicies};
use crate::replay::figures::Went;
use crate::replay::history::Recorded;
use crate::sim::{Engine, SimJob};

/// The simulator's defaults for checkpointing jobs (`tidepool simulate`).
const CHECKPOINTS: Checkpointing = Checkpointing { interval_s: 1800, restart_overhead_s: 60 };

/// The jobs the engine replays (by their place in the history) and those left out, with why.
pub struct Replayable {
    pub picked: Vec<usize>,
    pub sim: Vec<SimJob>,
    pub left_out: Vec<String>,
}

/// The snapshot a replay starts from: the cluster of today's records, nothing running or
/// waiting, no recent usage.
pub fn empty_cluster(mut snap: Snapshot) -> Snapshot {
    snap.running.clear();
    snap.pending.clear();
    for g in &mut snap.groups {
        g.recent_gpu_h = 0.0;
    }
    snap.config = crate::dispatch::served_config();
    snap
}

/// Chooses each job's work: what it ran when it finished or was cancelled while running,
/// its time limit (else the default one) when it had not finished by the period's end.
pub fn replayable(snap: &Snapshot, jobs: &[Recorded]) -> Replayable {
    let capacity: u32 = snap.nodes.iter().filter(|n| n.healthy).map(|n| u32::from(n.gpus)).sum();
    let default_limit = snap.config.default_time_limit_s;
    let mut out = Replayable { picked: Vec::new(), sim: Vec::new(), left_out: Vec::new() };
    for (i, j) in jobs.iter().enumerate() {
        let Some(group) = snap.groups.iter().position(|g| g.name == j.group) else { continue };
        let work_s = match (j.finished_at, j.state.as_str()) {
            (Some(_), _) => j.run_s,
            (None, "cancelled") if j.segments == 0 => {
                out.left_out.push(format!("job {}: cancelled before it ran", j.id));
                continue;
            }
            (None, "cancelled") => j.run_s,
            (None, _) => j.time_limit_s.unwrap_or(default_limit),
        };
        if j.gpus > capacity {
            out.left_out.push(format!("job {}: {} GPUs, more than the cluster's {capacity}", j.id, j.gpus));
            continue;
        }
        out.picked.push(i);
        out.sim.push(SimJob { group: GroupId(group as u32), arrival: j.submitted_at, work_s, gpus: j.gpus });
    }
    out
}

/// A policy set: the active version of each kind, with `over` in place of theirs.
pub fn policy_set(
    runtime: Arc<crate::policy::Runtime>,
    active: &[Arc<Module>],
    over: &[Arc<Module>],
) -> WasmPolicies {
    let policies = WasmPolicies::new(runtime);
    for m in active.iter().filter(|a| !over.iter().any(|o| o.kind == a.kind)) {
        policies.activate(m.clone());
    }
    for m in over {
        policies.activate(m.clone());
    }
    policies
}

/// Runs the replayable jobs through `policies`; one entry per job of `jobs` (those left
/// out did not run).
pub fn simulate(
    snap: &Snapshot,
    policies: &WasmPolicies,
    jobs: &[Recorded],
    replayable: &Replayable,
) -> Vec<Went> {
    let checkpoints = if jobs.iter().any(|j| j.checkpointable) {
        CHECKPOINTS
    } else {
        Checkpointing { interval_s: 0, restart_overhead_s: 0 }
    };
    let mut engine = Engine::new(snap.clone(), policies, checkpoints, replayable.sim.clone());
    engine.run();
    let mut went = vec![Went::default(); jobs.len()];
    for (&i, o) in replayable.picked.iter().zip(&engine.outcomes) {
        went[i] = Went { finished_at: o.finished_at, run_s: o.run_s, preemptions: o.preemptions };
    }
    went
}

/// The kinds `modules` cover, named for a label ("priority 1a2b3c4d5e6f").
pub fn label(modules: &[Arc<Module>]) -> String {
    if modules.is_empty() {
        return "built-in".into();
    }
    modules
        .iter()
        .map(|m| format!("{} {}", Kind::name(m.kind), &m.sha256[..12.min(m.sha256.len())]))
        .collect::<Vec<_>>()
        .join(", ")
}
