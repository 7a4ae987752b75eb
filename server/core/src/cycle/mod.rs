//! The dispatch cycle, `plan()`: the same function the live dispatcher, the simulator
//! and the tests drive. Its steps follow DESIGN.md "The dispatch cycle":
//!
//! 1. Views of the snapshot: free GPUs, capacity per model, the quota ledger; loans that
//!    have ended are reclaimed, and groups outside a hard boundary (a cut guarantee, a
//!    budget their running jobs would overrun) are brought back inside.
//! 2. Priority: ONE policy call scores the queue; ties by submission time, then id.
//! 3. Quota: ONE policy call gives a verdict per job that could ever run (infeasible
//!    jobs are held without taking quota); every admission is re-checked against the
//!    ledger, so a faulty policy can never exceed a quota.
//! 4. Placement in priority order, topology-aware and all-or-nothing; the highest blocked
//!    job of each GPU model gets a reservation, and lower jobs backfill only where they
//!    cannot delay it.
//! 5. Preemption: blocked jobs entitled to GPUs (within guarantee; critical, also over
//!    quota against its own group's lower classes; with time-sharing, against peers of
//!    their group and class that have received more GPU time) pick victims in the
//!    reclaim policy's order (ONE call, made only when needed).
//!
//! Every pending job leaves the cycle either placed or held with a [`Reason`].

mod boundaries;
mod free;
mod outcome;
mod placement;
mod placer;
mod policy_calls;
mod preemption;
mod reserve;
mod timeshare;
mod victims;

pub use outcome::{Hold, Placement, Plan, Preemption};
pub use reserve::Reservation;

use crate::model::{JobId, PriorityClass, Time};
use crate::policy::{Policies, Verdict};
use crate::reason::{PreemptReason, Reason};
use crate::snapshot::Snapshot;
use free::ModelCaps;
use placer::Placer;
use policy_calls::{checked_verdicts, priority_order, reclaim_scores};
use preemption::Blocked;
use victims::{Candidates, Claim};

/// Runs one dispatch cycle over `snap` at time `now`.
pub fn plan(snap: &Snapshot, now: Time, policies: &dyn Policies) -> Plan {
    let mut out =
        Plan { policy: policies.version(), policy_by_group: policies.versions_by_group(), ..Plan::default() };

    // 1. Views.
    let caps = ModelCaps::new(snap);
    let ledger = snap.ledger(now);
    reclaim_ended_loans(snap, now, &mut out);
    let mut faults = Vec::new();
    let reclaim_order = || {
        let scores = reclaim_scores(snap, now, policies, &mut faults);
        Candidates::new(snap, &scores, &[]).order().to_vec()
    };
    boundaries::bring_inside(snap, now, &ledger, reclaim_order, &mut out.preemptions);
    out.policy_faults.append(&mut faults);
    // Jobs whose victims are still stopping wait for them rather than pick more.
    let draining_for: Vec<(JobId, u32)> = {
        let mut v: Vec<JobId> = snap.running.iter().filter_map(|a| a.draining_for).collect();
        v.sort_unstable();
        v.chunk_by(|a, b| a == b).map(|c| (c[0], c.len() as u32)).collect()
    };

    // 2. Priority.
    policies.begin_cycle(snap, now);
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
    let mut placer = Placer::new(snap, &caps, now);
    let mut blocked: Vec<Blocked> = Vec::new();
    let mut fifo_head: Option<JobId> = None;
    for (position, &i) in order.iter().enumerate() {
        let job = &snap.pending[i as usize];
        let position = position as u32;
        let verdict = if feasible(i) { verdicts.next() } else { None };
        let mut hold = |reason| out.holds.push(Hold { job: job.id, pending_index: i, position, reason });
        if let Some(head) = fifo_head {
            hold(Reason::QueuedBehind { job: head });
            continue;
        }
        let Some(verdict) = verdict else {
            hold(Reason::Infeasible { requested: job.gpus, largest: caps.largest(job.model, job.topology) });
            continue;
        };
        if let Ok(k) = draining_for.binary_search_by_key(&job.id, |d| d.0) {
            hold(Reason::AwaitingPreemption { victims: draining_for[k].1 });
            continue;
        }
        let borrowed = match verdict {
            Verdict::Admit { borrowed } => borrowed,
            Verdict::Hold(reason) => {
                if !snap.config.backfill {
                    fifo_head = Some(job.id);
                }
                // A critical job over quota may still make its own lower classes yield.
                let over_quota = matches!(reason, Reason::OverQuota { .. });
                let shortfall = job.gpus.saturating_sub(ledger.own_headroom(job).unwrap_or(0));
                if job.class == PriorityClass::Critical && over_quota {
                    let claim = Some(Claim::OwnLowerClasses { shortfall });
                    blocked.push(Blocked { index: i, position, claim, reason });
                } else if over_quota && snap.config.timeshare.is_some() {
                    // A peer that has had more GPU time may give its share of the quota back.
                    let claim = Some(Claim::TimeShareOwn { shortfall });
                    blocked.push(Blocked { index: i, position, claim, reason });
                } else {
                    hold(reason);
                }
                continue;
            }
        };
        match placer.place(job) {
            Ok((slots, backfilled)) => out.placements.push(Placement {
                job: job.id,
                pending_index: i,
                position,
                slots,
                borrowed,
                backfilled,
            }),
            Err(reason) => {
                if !snap.config.backfill {
                    fifo_head = Some(job.id);
                }
                let within_guarantee = borrowed.is_empty();
                let claim = if within_guarantee || job.class == PriorityClass::Critical {
                    Some(Claim::Guarantee)
                } else {
                    snap.config.timeshare.is_some().then_some(Claim::TimeShare)
                };
                blocked.push(Blocked { index: i, position, claim, reason });
            }
        }
    }
    let (mut free, reservations, withheld) = placer.finish();
    out.reservations = reservations;

    // 5. Preemption.
    let step = preemption::Step { snap, now, policies, caps: &caps, withheld: &withheld };
    step.run(&mut free, blocked, &mut out);
    policies.end_cycle();
    out.holds.sort_unstable_by_key(|h| h.position);
    out
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
