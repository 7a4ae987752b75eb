//! Preemption planning: which running jobs yield, and for whom.
//!
//! Who may be preempted is a rule of the cycle, not of the policy:
//! - a job within its group's guarantee may take back GPUs from other groups' borrowers
//!   (lent capacity returns to the lender, B1/Q4);
//! - a critical job may preempt lower classes of its own group (P1).
//!
//! Nobody else's guaranteed work is ever touched, and a job younger than the minimum
//! runtime is protected from churn. The reclaim policy only orders the candidates.

use crate::cycle::free::FreeMap;
use crate::cycle::placement::{Shape, gang, pick_in_node};
use crate::model::{Allocation, Job, NodeId, PriorityClass, Slot, Time, Topology};
use crate::reason::PreemptReason;
use crate::snapshot::Snapshot;

/// Running allocations in the order the reclaim policy would preempt them.
pub(crate) struct Candidates {
    order: Vec<u32>,
    taken: Vec<bool>,
}

impl Candidates {
    /// `already`: allocations this cycle stops anyway (ended loans).
    pub fn new(snap: &Snapshot, scores: &[i64], already: &[crate::cycle::Preemption]) -> Candidates {
        let mut order: Vec<u32> = (0..snap.running.len() as u32).collect();
        // Ties: the most recently started first (least sunk time), then job id.
        order.sort_unstable_by_key(|&i| {
            let a = &snap.running[i as usize];
            (scores[i as usize], std::cmp::Reverse(a.started_at), a.job)
        });
        let mut taken = vec![false; snap.running.len()];
        for p in already {
            taken[p.running_index as usize] = true;
        }
        Candidates { order, taken }
    }
}

/// Why `victim` may yield to `job`, if it may.
pub(crate) fn entitlement(job: &Job, within_guarantee: bool, victim: &Allocation) -> Option<PreemptReason> {
    if victim.model != job.model || victim.draining_for.is_some() {
        return None;
    }
    if within_guarantee && victim.group != job.group && !victim.borrowed.is_empty() {
        return Some(PreemptReason::ReturnToLender { for_job: job.id });
    }
    if job.class == PriorityClass::Critical && victim.group == job.group && victim.class < job.class {
        return Some(PreemptReason::HigherClass { for_job: job.id });
    }
    None
}

/// The victims chosen for one blocked job and the GPUs it will get.
pub(crate) struct Choice {
    pub victims: Vec<(u32, PreemptReason)>,
    pub slots: Vec<Slot>,
}

/// Picks the fewest, cheapest victims that make `job` placeable, scanning candidates in
/// policy order. `Err(Some(t))`: victims exist but are protected until `t`.
pub(crate) fn choose(
    snap: &Snapshot,
    free: &FreeMap,
    candidates: &mut Candidates,
    job: &Job,
    within_guarantee: bool,
    now: Time,
    largest_node: u32,
) -> Result<Choice, Option<Time>> {
    let shape = Shape::of(job);
    let single_node = shape.gpus <= largest_node;
    let min_runtime = snap.config.min_runtime_s as Time;
    let mut protected_until: Option<Time> = None;
    let mut picked: Vec<(u32, PreemptReason)> = Vec::new();
    let mut freed: Vec<(NodeId, u64)> = Vec::new();
    let mut total = free.total.get(shape.model.0 as usize).copied().unwrap_or(0);

    for &i in &candidates.order {
        if candidates.taken[i as usize] {
            continue;
        }
        let victim = &snap.running[i as usize];
        let Some(reason) = entitlement(job, within_guarantee, victim) else { continue };
        if victim.started_at + min_runtime > now {
            let until = victim.started_at + min_runtime;
            protected_until = Some(protected_until.map_or(until, |t| t.min(until)));
            continue;
        }
        picked.push((i, reason));
        for s in &victim.slots {
            add(&mut freed, s.node, s.gpus);
            total += s.gpus.count_ones();
        }
        if single_node {
            for s in &victim.slots {
                let n = s.node.0 as usize;
                let usable = free.free[n] | mask_of(&freed, s.node);
                if pick_in_node(&snap.nodes[n], usable, shape.gpus, shape.topology).is_some() {
                    return Ok(finish_on_node(snap, free, candidates, picked, s.node, shape));
                }
            }
        }
        if shape.topology == Topology::Any && total >= shape.gpus {
            return Ok(finish_gang(snap, free, candidates, picked, shape));
        }
    }
    Err(protected_until)
}

fn add(freed: &mut Vec<(NodeId, u64)>, node: NodeId, gpus: u64) {
    match freed.iter_mut().find(|(n, _)| *n == node) {
        Some((_, m)) => *m |= gpus,
        None => freed.push((node, gpus)),
    }
}

fn mask_of(freed: &[(NodeId, u64)], node: NodeId) -> u64 {
    freed.iter().filter(|(n, _)| *n == node).fold(0, |m, (_, g)| m | g)
}

fn on_node(a: &Allocation, node: NodeId) -> u64 {
    a.slots.iter().filter(|s| s.node == node).fold(0, |m, s| m | s.gpus)
}

/// Keeps only victims on `node`, then drops the most protected ones that turn out not
/// to be needed.
fn finish_on_node(
    snap: &Snapshot,
    free: &FreeMap,
    candidates: &mut Candidates,
    picked: Vec<(u32, PreemptReason)>,
    node: NodeId,
    shape: Shape,
) -> Choice {
    let n = &snap.nodes[node.0 as usize];
    let mut kept: Vec<(u32, PreemptReason)> =
        picked.into_iter().filter(|(i, _)| on_node(&snap.running[*i as usize], node) != 0).collect();
    let usable = |kept: &[(u32, PreemptReason)]| {
        kept.iter()
            .fold(free.free[node.0 as usize], |m, (i, _)| m | on_node(&snap.running[*i as usize], node))
    };
    for k in (0..kept.len()).rev() {
        let mut without = kept.clone();
        without.remove(k);
        if pick_in_node(n, usable(&without), shape.gpus, shape.topology).is_some() {
            kept = without;
        }
    }
    let gpus = pick_in_node(n, usable(&kept), shape.gpus, shape.topology).expect("checked above");
    for (i, _) in &kept {
        candidates.taken[*i as usize] = true;
    }
    Choice { victims: kept, slots: vec![Slot { node, gpus }] }
}

fn finish_gang(
    snap: &Snapshot,
    free: &FreeMap,
    candidates: &mut Candidates,
    mut picked: Vec<(u32, PreemptReason)>,
    shape: Shape,
) -> Choice {
    let free_total = free.total.get(shape.model.0 as usize).copied().unwrap_or(0);
    let gpus_of = |p: &[(u32, PreemptReason)]| -> u32 {
        p.iter().map(|(i, _)| snap.running[*i as usize].gpu_count()).sum::<u32>() + free_total
    };
    for k in (0..picked.len()).rev() {
        let n = snap.running[picked[k].0 as usize].gpu_count();
        if gpus_of(&picked) - n >= shape.gpus {
            picked.remove(k);
        }
    }
    let mut usable: Vec<(NodeId, u64)> = Vec::new();
    for (i, _) in &picked {
        for s in &snap.running[*i as usize].slots {
            add(&mut usable, s.node, s.gpus);
        }
    }
    for n in free.most_free(shape.model) {
        add(&mut usable, n, free.free[n.0 as usize]);
    }
    usable.sort_by_key(|&(n, m)| (std::cmp::Reverse(m.count_ones()), n));
    let slots = gang(&snap.nodes, usable.into_iter(), shape.gpus);
    for (i, _) in &picked {
        candidates.taken[*i as usize] = true;
    }
    Choice { victims: picked, slots }
}
