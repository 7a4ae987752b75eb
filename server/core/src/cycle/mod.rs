//! The dispatch cycle, `plan()`: the same function the live dispatcher, the simulator
//! and the tests drive. Its steps follow DESIGN.md "The dispatch cycle":
//!
//! 1. Views of the snapshot: free GPUs, capacity per model, the quota ledger; loans that
//!    have ended are reclaimed.
//! 2. Priority: ONE policy call scores the queue; ties by submission time, then id.
//! 3. Quota: ONE policy call gives a verdict per job that could ever run (infeasible
//!    jobs are held without taking quota); every admission is re-checked against the
//!    ledger, so a faulty policy can never exceed a quota.
//! 4. Placement in priority order, topology-aware and all-or-nothing; the highest blocked
//!    job gets a reservation, and lower jobs backfill only where they cannot delay it.
//! 5. Preemption: blocked jobs entitled to GPUs (within guarantee, or critical) pick
//!    victims in the reclaim policy's order (ONE call, made only when needed).
//!
//! Every pending job leaves the cycle either placed or held with a [`Reason`].

mod free;
mod outcome;
mod placement;
mod preempt;
mod reserve;

pub use outcome::{Hold, Placement, Plan, Preemption};
pub use reserve::Reservation;

use std::cmp::Reverse;

use crate::model::{JobId, Time};
use crate::policy::{NativePolicies, Policies, Verdict};
use crate::reason::{PreemptReason, Reason};
use crate::snapshot::Snapshot;
use free::{FreeMap, ModelCaps};
use placement::{Shape, place};
use preempt::Candidates;
use reserve::Withheld;

/// A job that could not be placed in step 4, revisited in step 5.
struct Blocked {
    index: u32,
    position: u32,
    within_guarantee: bool,
    reason: Reason,
}

/// Runs one dispatch cycle over `snap` at time `now`.
pub fn plan(snap: &Snapshot, now: Time, policies: &dyn Policies) -> Plan {
    let mut out = Plan { policy: policies.version(), ..Plan::default() };

    // 1. Views.
    let mut free = FreeMap::new(snap);
    let caps = ModelCaps::new(snap);
    let ledger = snap.ledger(now);
    reclaim_ended_loans(snap, now, &mut out);
    // Jobs whose victims are still stopping wait for them rather than pick more.
    let draining_for: Vec<(JobId, u32)> = {
        let mut v: Vec<JobId> = snap.running.iter().filter_map(|a| a.draining_for).collect();
        v.sort_unstable();
        v.chunk_by(|a, b| a == b).map(|c| (c[0], c.len() as u32)).collect()
    };

    // 2. Priority.
    let order = priority_order(snap, now, policies, &mut out.policy_faults);

    // 3. Quota, for the jobs that could ever run: a job that can never fit the pool
    // must not take its group's quota and keep the group's other jobs waiting.
    let feasible = |i: u32| {
        let job = &snap.pending[i as usize];
        job.gpus > 0 && job.gpus <= caps.largest(job.model, job.topology)
    };
    let admissible: Vec<u32> = order.iter().copied().filter(|&i| feasible(i)).collect();
    let mut verdicts =
        checked_verdicts(snap, now, policies, &admissible, &ledger, &mut out.policy_faults).into_iter();

    // 4. Placement, reservation and backfill.
    let mut blocked: Vec<Blocked> = Vec::new();
    let mut reservation: Option<(Reservation, Withheld)> = None;
    let mut fifo_head: Option<JobId> = None;
    for (position, &i) in order.iter().enumerate() {
        let job = &snap.pending[i as usize];
        let position = position as u32;
        let shape = Shape::of(job);
        let verdict = if feasible(i) { verdicts.next() } else { None };
        let mut hold = |reason| out.holds.push(Hold { job: job.id, pending_index: i, position, reason });
        if let Some(head) = fifo_head {
            hold(Reason::QueuedBehind { job: head });
            continue;
        }
        let Some(verdict) = verdict else {
            let largest = caps.largest(shape.model, shape.topology);
            hold(Reason::Infeasible { requested: job.gpus, largest });
            continue;
        };
        let borrowed = match verdict {
            Verdict::Admit { borrowed } => borrowed,
            Verdict::Hold(reason) => {
                hold(reason);
                fifo_head = (!snap.config.backfill).then_some(job.id);
                continue;
            }
        };
        if let Ok(k) = draining_for.binary_search_by_key(&job.id, |d| d.0) {
            hold(Reason::AwaitingPreemption { victims: draining_for[k].1 });
            continue;
        }
        let largest_node = caps.largest_node(shape.model);
        let mut slots = place(&snap.nodes, &free, shape, largest_node);
        let ends_by = now + snap.time_limit_s(job) as Time;
        if slots.is_none()
            && let Some((r, withheld)) = reservation.as_mut()
            && ends_by <= r.start_at
        {
            slots = withheld.place_short(&mut free, snap, shape);
        }
        if let Some(slots) = slots {
            for s in &slots {
                free.take(&snap.nodes, s.node, s.gpus);
            }
            let backfilled = reservation.is_some();
            out.placements.push(Placement {
                job: job.id,
                pending_index: i,
                position,
                slots,
                borrowed,
                backfilled,
            });
            continue;
        }
        let free_now = free.total.get(shape.model.0 as usize).copied().unwrap_or(0);
        let reason = match reservation.as_ref() {
            Some((r, w)) if w.would_fit(&free, snap, shape) => {
                Reason::WouldDelay { job: r.job, start_at: r.start_at }
            }
            None if snap.config.backfill => {
                match reserve::reserve(snap, &free, job.id, shape, now, largest_node) {
                    Some(r) => {
                        let withheld = Withheld::take_from(&mut free, snap, &r);
                        let reason = Reason::Reserved { start_at: r.start_at };
                        reservation = Some((r, withheld));
                        reason
                    }
                    None => waiting(shape.gpus, free_now),
                }
            }
            _ => waiting(shape.gpus, free_now),
        };
        if !snap.config.backfill {
            fifo_head = Some(job.id);
        }
        blocked.push(Blocked { index: i, position, within_guarantee: borrowed.is_empty(), reason });
    }
    // The GPUs withheld for the reserved job stay withheld from everyone but that job.
    let withheld = reservation.map(|(r, w)| {
        let reserved = (r.job, w);
        out.reservation = Some(r);
        reserved
    });

    // 5. Preemption.
    preempt_for_blocked(snap, now, policies, &caps, &mut free, withheld.as_ref(), blocked, &mut out);
    out.holds.sort_unstable_by_key(|h| h.position);
    out
}

fn waiting(requested: u32, free: u32) -> Reason {
    if free >= requested {
        Reason::Fragmented { requested, free }
    } else {
        Reason::NoCapacity { requested, free }
    }
}

/// Jobs running on a loan that has ended (or been withdrawn) give the GPUs back.
fn reclaim_ended_loans(snap: &Snapshot, now: Time, out: &mut Plan) {
    for (i, a) in snap.running.iter().enumerate() {
        if a.draining_for.is_some() {
            continue;
        }
        let ended =
            a.borrowed.iter().find(|b| !snap.loans.iter().any(|l| l.id == b.loan && l.is_active(now)));
        if let Some(b) = ended {
            let reason = PreemptReason::LoanEnded { loan: b.loan };
            out.preemptions.push(Preemption { job: a.job, running_index: i as u32, reason });
        }
    }
}

fn priority_order(snap: &Snapshot, now: Time, policies: &dyn Policies, faults: &mut Vec<String>) -> Vec<u32> {
    let mut scores = policies.priority(snap, now);
    if scores.len() != snap.pending.len() {
        faults.push(format!(
            "priority policy returned {} scores for {} jobs; the built-in policy answered",
            scores.len(),
            snap.pending.len()
        ));
        scores = NativePolicies::default().priority(snap, now);
    }
    let mut keys: Vec<(Reverse<i64>, Time, JobId, u32)> = snap
        .pending
        .iter()
        .zip(&scores)
        .enumerate()
        .map(|(i, (j, &s))| (Reverse(s), j.submitted_at, j.id, i as u32))
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|k| k.3).collect()
}

fn checked_verdicts(
    snap: &Snapshot,
    now: Time,
    policies: &dyn Policies,
    order: &[u32],
    ledger: &crate::quota::Ledger,
    faults: &mut Vec<String>,
) -> Vec<Verdict> {
    let mut verdicts = policies.quota(snap, now, order, ledger);
    if verdicts.len() != order.len() {
        faults.push(format!(
            "quota policy returned {} verdicts for {} jobs; the built-in policy answered",
            verdicts.len(),
            order.len()
        ));
        verdicts = NativePolicies::default().quota(snap, now, order, ledger);
    }
    let mut check = ledger.clone();
    for (v, &i) in verdicts.iter_mut().zip(order) {
        let job = &snap.pending[i as usize];
        if let Verdict::Admit { borrowed } = v {
            let expected_gpu_h = f64::from(job.gpus) * snap.time_limit_s(job) as f64 / 3600.0;
            if let Err(refusal) = check.admit(job, borrowed, expected_gpu_h) {
                *v = Verdict::Hold(Reason::from_refusal(refusal, job.gpus));
            }
        }
    }
    verdicts
}

#[allow(clippy::too_many_arguments)]
fn preempt_for_blocked(
    snap: &Snapshot,
    now: Time,
    policies: &dyn Policies,
    caps: &ModelCaps,
    free: &mut FreeMap,
    withheld: Option<&(JobId, Withheld)>,
    blocked: Vec<Blocked>,
    out: &mut Plan,
) {
    let mut candidates: Option<Candidates> = None;
    let mut tried = 0;
    for b in blocked {
        let job = &snap.pending[b.index as usize];
        let entitled = b.within_guarantee || job.class == crate::model::PriorityClass::Critical;
        let mut reason = b.reason;
        if entitled && tried < snap.config.max_preemptors && !snap.running.is_empty() {
            tried += 1;
            let candidates = candidates.get_or_insert_with(|| {
                let mut scores = policies.reclaim(snap, now);
                if scores.len() != snap.running.len() {
                    out.policy_faults.push(format!(
                        "reclaim policy returned {} scores for {} allocations; the built-in policy answered",
                        scores.len(),
                        snap.running.len()
                    ));
                    scores = NativePolicies::default().reclaim(snap, now);
                }
                Candidates::new(snap, &scores, &out.preemptions)
            });
            // The reserved job's withheld GPUs are its own: it counts them when it picks
            // victims (a lender with half of what it needs free reclaims the other half).
            let own_withheld = withheld.filter(|(j, _)| *j == job.id).map(|(_, w)| w.slots.as_slice());
            for s in own_withheld.unwrap_or_default() {
                free.give(&snap.nodes, s.node, s.gpus);
            }
            let largest_node = caps.largest_node(job.model);
            match preempt::choose(snap, free, candidates, job, b.within_guarantee, now, largest_node) {
                Ok(choice) => {
                    for s in &choice.slots {
                        free.take(&snap.nodes, s.node, s.gpus & free.free[s.node.0 as usize]);
                    }
                    reason = Reason::AwaitingPreemption { victims: choice.victims.len() as u32 };
                    for (v, why) in choice.victims {
                        let victim = &snap.running[v as usize];
                        out.preemptions.push(Preemption { job: victim.job, running_index: v, reason: why });
                    }
                }
                Err(Some(until)) => out.retry_at = Some(out.retry_at.map_or(until, |t| t.min(until))),
                Err(None) => {}
            }
            for s in own_withheld.unwrap_or_default() {
                free.take(&snap.nodes, s.node, s.gpus);
            }
        }
        out.holds.push(Hold { job: job.id, pending_index: b.index, position: b.position, reason });
    }
}
