//! Choosing preemption victims: which running jobs yield, and for whom.
//!
//! Who may be preempted is a rule of the cycle, not of the policy:
//! - a job within its group's guarantee may take back GPUs from other groups' borrowers
//!   (lent capacity returns to the lender, B1/Q4);
//! - a critical job may preempt lower classes of its own group (P1), even when its group
//!   has used up its guarantee: those GPUs then come back to the group's quota;
//! - with time-sharing on, a job may stop a checkpointable peer (same group and class)
//!   that has received more GPU time ([`super::timeshare`]).
//!
//! Nobody else's guaranteed work is ever touched, and a job younger than the minimum
//! runtime is protected from churn. The reclaim policy only orders the candidates.

use std::collections::BTreeMap;

use crate::cycle::free::FreeMap;
use crate::cycle::placement::{Shape, gang, pick_in_node};
use crate::cycle::timeshare;
use crate::model::{Allocation, Job, LoanId, NodeId, PriorityClass, Slot, Time, Topology};
use crate::reason::PreemptReason;
use crate::snapshot::Snapshot;

/// What a blocked job may claim from running jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// Admitted within its guarantee: borrowers give back, and if critical, lower classes
    /// of its own group yield.
    Guarantee,
    /// A critical job over its group's quota: only its own group's lower classes yield,
    /// and they must free at least `shortfall` GPUs of the group's guarantee.
    OwnLowerClasses { shortfall: u32 },
    /// Admitted beyond its guarantee (on a loan): only time-sharing peers of its own
    /// group and class yield.
    TimeShare,
    /// Over its group's quota: only time-sharing peers yield, and they must free at least
    /// `shortfall` GPUs of the group's guarantee (their GPUs come back to the quota).
    TimeShareOwn { shortfall: u32 },
}

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

    /// Running allocations, first to leave first.
    pub fn order(&self) -> &[u32] {
        &self.order
    }
}

/// Why `victim` may yield to `job`, if it may.
pub(crate) fn entitlement(
    snap: &Snapshot,
    job: &Job,
    claim: Claim,
    victim: &Allocation,
    now: Time,
) -> Option<PreemptReason> {
    if victim.model != job.model || victim.draining_for.is_some() {
        return None;
    }
    if matches!(claim, Claim::TimeShare | Claim::TimeShareOwn { .. }) {
        return snap.config.timeshare.as_ref().and_then(|ts| timeshare::turn(ts, job, victim, now));
    }
    if claim == Claim::Guarantee && victim.group != job.group && !victim.borrowed.is_empty() {
        return Some(PreemptReason::ReturnToLender { for_job: job.id });
    }
    if job.class == PriorityClass::Critical && victim.group == job.group && victim.class < job.class {
        return Some(PreemptReason::HigherClass { for_job: job.id });
    }
    if claim == Claim::Guarantee {
        return snap.config.timeshare.as_ref().and_then(|ts| timeshare::turn(ts, job, victim, now));
    }
    None
}

/// The victims chosen for one blocked job and the GPUs it will get.
pub(crate) struct Choice {
    pub victims: Vec<(u32, PreemptReason)>,
    pub slots: Vec<Slot>,
}

/// Picks the fewest, cheapest victims that make `job` placeable (and, for a critical
/// job over quota, bring its group back under its guarantee), scanning candidates in
/// policy order. A lender takes its GPUs back from its own borrowers first, then from
/// other borrowers. `Err(Some(t))`: more victims exist but are protected until `t`.
pub(crate) fn choose(
    snap: &Snapshot,
    free: &FreeMap,
    candidates: &mut Candidates,
    job: &Job,
    claim: Claim,
    now: Time,
    largest_node: u32,
) -> Result<Choice, Option<Time>> {
    if claim == Claim::Guarantee {
        let own_loans: Vec<LoanId> =
            snap.loans.iter().filter(|l| l.lender == job.group).map(|l| l.id).collect();
        let borrows_ours = |a: &Allocation| a.borrowed.iter().any(|b| own_loans.contains(&b.loan));
        if !own_loans.is_empty()
            && let Ok(choice) = scan(snap, free, candidates, job, claim, now, largest_node, borrows_ours)
        {
            return Ok(choice);
        }
    }
    scan(snap, free, candidates, job, claim, now, largest_node, |_| true)
}

/// One pass of [`choose`] over the candidates `only` admits.
#[allow(clippy::too_many_arguments)]
fn scan(
    snap: &Snapshot,
    free: &FreeMap,
    candidates: &mut Candidates,
    job: &Job,
    claim: Claim,
    now: Time,
    largest_node: u32,
    only: impl Fn(&Allocation) -> bool,
) -> Result<Choice, Option<Time>> {
    let search = Search { snap, free, shape: Shape::of(job), claim };
    let shortfall = match claim {
        Claim::Guarantee | Claim::TimeShare => 0,
        Claim::OwnLowerClasses { shortfall } | Claim::TimeShareOwn { shortfall } => shortfall,
    };
    let mut protected_until: Option<Time> = None;
    let mut picked: Vec<(u32, PreemptReason)> = Vec::new();
    // Running sums, so each pick costs only the nodes it touches.
    let mut freed: BTreeMap<NodeId, u64> = BTreeMap::new();
    let mut own = 0u32;
    let mut gang_total = free.total.get(search.shape.model.0 as usize).copied().unwrap_or(0);
    let mut target: Option<Target> = None;
    for &i in &candidates.order {
        if candidates.taken[i as usize] {
            continue;
        }
        let victim = &snap.running[i as usize];
        if !only(victim) {
            continue;
        }
        let Some(reason) = entitlement(snap, job, claim, victim, now) else { continue };
        let guard = match (&reason, &snap.config.timeshare) {
            (PreemptReason::TimeShare { .. }, Some(ts)) => {
                timeshare::protected_for_s(ts, snap.config.min_runtime_s)
            }
            _ => snap.config.min_runtime_s,
        } as Time;
        if victim.started_at + guard > now {
            let until = victim.started_at + guard;
            protected_until = Some(protected_until.map_or(until, |t| t.min(until)));
            continue;
        }
        picked.push((i, reason));
        own += victim.gpu_count() - victim.borrowed_gpus();
        gang_total += victim.gpu_count();
        for s in &victim.slots {
            *freed.entry(s.node).or_default() |= s.gpus;
        }
        if target.is_none() && search.shape.gpus <= largest_node {
            target = victim
                .slots
                .iter()
                .map(|s| s.node)
                .find(|&n| {
                    let usable = free.free[n.0 as usize] | freed[&n];
                    search.fits(n, usable)
                })
                .map(Target::Node);
        }
        if target.is_none() && search.shape.topology == Topology::Any && gang_total >= search.shape.gpus {
            target = Some(Target::Gang);
        }
        if let Some(target) = target
            && own >= shortfall
        {
            // Victims elsewhere only count towards the group's quota.
            if let (Target::Node(n), Claim::Guarantee | Claim::TimeShare) = (target, claim) {
                picked.retain(|(i, _)| snap.running[*i as usize].slots.iter().any(|s| s.node == n));
            }
            // Drop the most protected victims that turn out not to be needed.
            for k in (0..picked.len()).rev() {
                let mut without = picked.clone();
                without.remove(k);
                if search.satisfies(&without, target) {
                    picked = without;
                }
            }
            let slots = search.slots(&picked, target);
            for (i, _) in &picked {
                candidates.taken[*i as usize] = true;
            }
            return Ok(Choice { victims: picked, slots });
        }
    }
    Err(protected_until)
}

/// Where the job will go once its victims stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Node(NodeId),
    Gang,
}

struct Search<'a> {
    snap: &'a Snapshot,
    free: &'a FreeMap,
    shape: Shape,
    claim: Claim,
}

impl Search<'_> {
    fn alloc(&self, i: u32) -> &Allocation {
        &self.snap.running[i as usize]
    }

    fn quota_met(&self, picked: &[(u32, PreemptReason)]) -> bool {
        match self.claim {
            Claim::Guarantee | Claim::TimeShare => true,
            Claim::OwnLowerClasses { shortfall } | Claim::TimeShareOwn { shortfall } => {
                let own: u32 = picked
                    .iter()
                    .map(|(i, _)| {
                        let a = self.alloc(*i);
                        a.gpu_count() - a.borrowed_gpus()
                    })
                    .sum();
                own >= shortfall
            }
        }
    }

    fn usable_on(&self, picked: &[(u32, PreemptReason)], node: NodeId) -> u64 {
        let on_node = |a: &Allocation| a.slots.iter().filter(|s| s.node == node).fold(0, |m, s| m | s.gpus);
        picked.iter().fold(self.free.free[node.0 as usize], |m, (i, _)| m | on_node(self.alloc(*i)))
    }

    fn fits(&self, node: NodeId, usable: u64) -> bool {
        let n = &self.snap.nodes[node.0 as usize];
        pick_in_node(n, usable, self.shape.gpus, self.shape.topology).is_some()
    }

    fn gang_total(&self, picked: &[(u32, PreemptReason)]) -> u32 {
        let free = self.free.total.get(self.shape.model.0 as usize).copied().unwrap_or(0);
        free + picked.iter().map(|(i, _)| self.alloc(*i).gpu_count()).sum::<u32>()
    }

    fn satisfies(&self, picked: &[(u32, PreemptReason)], target: Target) -> bool {
        self.quota_met(picked)
            && match target {
                Target::Node(n) => self.fits(n, self.usable_on(picked, n)),
                Target::Gang => self.gang_total(picked) >= self.shape.gpus,
            }
    }

    fn slots(&self, picked: &[(u32, PreemptReason)], target: Target) -> Vec<Slot> {
        match target {
            Target::Node(node) => {
                let n = &self.snap.nodes[node.0 as usize];
                let usable = self.usable_on(picked, node);
                let gpus = pick_in_node(n, usable, self.shape.gpus, self.shape.topology).expect("checked");
                vec![Slot { node, gpus }]
            }
            Target::Gang => {
                let mut usable: Vec<(NodeId, u64)> = Vec::new();
                let mut add = |node: NodeId, gpus: u64| match usable.iter_mut().find(|(n, _)| *n == node) {
                    Some((_, m)) => *m |= gpus,
                    None => usable.push((node, gpus)),
                };
                for (i, _) in picked {
                    for s in &self.alloc(*i).slots {
                        add(s.node, s.gpus);
                    }
                }
                for n in self.free.most_free(self.shape.model) {
                    add(n, self.free.free[n.0 as usize]);
                }
                usable.sort_by_key(|&(n, m)| (std::cmp::Reverse(m.count_ones()), n));
                gang(&self.snap.nodes, usable.into_iter(), self.shape.gpus)
            }
        }
    }
}
