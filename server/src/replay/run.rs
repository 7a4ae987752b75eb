//! Running recorded jobs through a policy set on the simulator's engine: the cluster as
//! the dispatcher sees it now (nodes, groups, quotas, loans of the period's main GPU
//! model), the server's cycle settings,
//! and each job arriving when it was submitted with the work it really did.

use std::collections::BTreeMap;
use std::sync::Arc;

use tidepool_core::checkpoint::Checkpointing;
use tidepool_core::{GroupId, ModelId, Snapshot};

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

/// A group's guarantee and monthly budget on the replayed model, summed over its quotas.
#[derive(Clone, Debug, Default)]
pub struct Entitlement {
    pub guaranteed: u64,
    pub budget_gpu_h: Option<f64>,
}

/// The GPU model most of the period's jobs asked for (the first of equals): the replay
/// covers one model, as the simulator's engine does.
pub fn main_model(jobs: &[Recorded]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for j in jobs {
        match counts.iter_mut().find(|(m, _)| *m == j.model) {
            Some((_, n)) => *n += 1,
            None => counts.push((&j.model, 1)),
        }
    }
    let most = counts.iter().map(|c| c.1).max().unwrap_or(0);
    counts.iter().find(|c| c.1 == most).map_or_else(String::new, |c| c.0.to_string())
}

/// The snapshot a replay starts from: today's nodes, quotas and loans of `model` (as the
/// engine's only model), the server's cycle settings, nothing running or waiting, no
/// recent usage and nothing spent of the budgets.
pub fn empty_cluster(mut snap: Snapshot, model: &str) -> Snapshot {
    let keep = snap.models.iter().position(|m| m == model).map(|i| ModelId(i as u16));
    snap.nodes.retain(|n| Some(n.model) == keep);
    snap.quotas.retain(|q| Some(q.model) == keep);
    snap.loans.retain(|l| Some(l.model) == keep);
    for n in &mut snap.nodes {
        n.model = ModelId(0);
    }
    for q in &mut snap.quotas {
        q.model = ModelId(0);
        q.spent_gpu_h = 0.0;
    }
    for l in &mut snap.loans {
        l.model = ModelId(0);
    }
    snap.models = vec![model.to_string()];
    snap.running.clear();
    snap.pending.clear();
    for g in &mut snap.groups {
        g.recent_gpu_h = 0.0;
    }
    snap.config = crate::dispatch::served_config();
    snap
}

/// Each group's guarantee and budget on the replayed model, by name.
pub fn entitlements(snap: &Snapshot) -> BTreeMap<String, Entitlement> {
    let mut out: BTreeMap<String, Entitlement> =
        snap.groups.iter().map(|g| (g.name.clone(), Entitlement::default())).collect();
    for q in &snap.quotas {
        let e = out.entry(snap.groups[q.group.0 as usize].name.clone()).or_default();
        e.guaranteed += u64::from(q.guaranteed);
        if let Some(b) = q.budget_gpu_h {
            e.budget_gpu_h = Some(e.budget_gpu_h.unwrap_or(0.0) + b);
        }
    }
    out
}

/// Chooses each job's work: what it ran when it finished or was cancelled while running,
/// its time limit (else the default one) when it had not finished by the period's end.
pub fn replayable(snap: &Snapshot, jobs: &[Recorded]) -> Replayable {
    let capacity: u32 = snap.nodes.iter().filter(|n| n.healthy).map(|n| u32::from(n.gpus)).sum();
    let default_limit = snap.config.default_time_limit_s;
    let mut out = Replayable { picked: Vec::new(), sim: Vec::new(), left_out: Vec::new() };
    for (i, j) in jobs.iter().enumerate() {
        let Some(group) = snap.groups.iter().position(|g| g.name == j.group) else { continue };
        if snap.models.first() != Some(&j.model) {
            out.left_out
                .push(format!("job {}: {} GPUs; this replay covers {}", j.id, j.model, snap.models[0]));
            continue;
        }
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
