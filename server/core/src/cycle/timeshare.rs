//! Time-sharing among checkpointable jobs: when a job of a group and class cannot start,
//! a running job of the same group and class that has already received more GPU time
//! (a later queue of Tiresias' discretized least-attained-service) yields its GPUs and
//! resumes later from its checkpoint.
//!
//! Bounded four ways, so no one is stopped without end: only checkpointable jobs yield;
//! a job yields at most `max_per_day` times a day (counting every preemption); a job
//! that had already received `protect_after_gpu_s` when its run began is not stopped at
//! all; and a job that has waited `starve_factor` times as long as it has run (or
//! `starve_after_s`, if set) claims as if it were new, so long jobs that keep being
//! passed over get their turn back. A segment also runs at least `quantum_s` first, so a
//! claimant is not stopped again before it has made progress. With `order_by_queue` the
//! waiting line itself is ordered by queue (see `policy_calls::priority_order`), so the
//! GPUs a claimant frees go to it and not to an older job that has already had much GPU
//! time; with `fifo_in_later_queues`, a stopped job keeps its place among those that
//! have had GPU time (first submitted first) instead of going to the back.

use crate::model::{Allocation, Job, Time};
use crate::reason::PreemptReason;
use crate::snapshot::TimeShare;

/// Why `victim` should give `job` a turn, if it should (protection by time aside: see
/// [`protected_for_s`]).
pub(crate) fn turn(ts: &TimeShare, job: &Job, victim: &Allocation, now: Time) -> Option<PreemptReason> {
    let peer = victim.group == job.group && victim.class == job.class && victim.model == job.model;
    if !peer || !victim.checkpointable || victim.draining_for.is_some() {
        return None;
    }
    if victim.preemptions_today >= ts.max_per_day {
        return None;
    }
    if ts.protect_after_gpu_s > 0 && victim.attained_gpu_s >= ts.protect_after_gpu_s {
        return None;
    }
    let attained = victim.attained_gpu_s_at(now);
    (ts.claim_queue(job, now) < ts.queue(attained)).then_some(PreemptReason::TimeShare {
        for_job: job.id,
        attained_gpu_s: attained,
        for_attained_gpu_s: job.attained_gpu_s,
    })
}

/// How long a segment runs before time-sharing may stop it: the cycle's minimum runtime,
/// or the quantum if longer.
pub(crate) fn protected_for_s(ts: &TimeShare, min_runtime_s: u64) -> u64 {
    min_runtime_s.max(ts.quantum_s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PriorityClass;
    use crate::testkit::{alloc, job};

    fn ts() -> TimeShare {
        TimeShare {
            thresholds_gpu_s: vec![3600, 36_000],
            max_per_day: 2,
            starve_after_s: 7200,
            starve_factor: 0,
            order_by_queue: false,
            quantum_s: 0,
            protect_after_gpu_s: 0,
            fifo_in_later_queues: false,
        }
    }

    #[test]
    fn queues_split_at_the_thresholds() {
        let ts = ts();
        assert_eq!([0, 3599, 3600, 35_999, 36_000, u64::MAX].map(|a| ts.queue(a)), [0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn a_newer_job_takes_a_turn_from_a_long_runner_of_its_own_group_and_class() {
        // 8 GPUs for 1000 s: 8000 GPU-seconds, queue 1; the new job is in queue 0.
        let victim = alloc(1).on(0, 0xff).build();
        let new = job(2).gpus(8).queued_at(900).build();
        let why = turn(&ts(), &new, &victim, 1000).expect("a turn");
        assert_eq!(
            why,
            PreemptReason::TimeShare { for_job: new.id, attained_gpu_s: 8000, for_attained_gpu_s: 0 }
        );
        assert!(why.to_string().contains("2.2 GPU-hours, job 2 only 0.0"), "{why}");
        // A peer in the same queue is never stopped: first come, first served within it.
        assert_eq!(turn(&ts(), &new, &victim, 400), None);
    }

    #[test]
    fn never_across_groups_classes_or_for_jobs_that_cannot_checkpoint() {
        let new = job(2).gpus(8).queued_at(900).build();
        let long = || alloc(1).on(0, 0xff);
        assert_eq!(turn(&ts(), &new, &long().not_checkpointable().build(), 1000), None);
        assert_eq!(turn(&ts(), &new, &long().group(1).build(), 1000), None);
        assert_eq!(turn(&ts(), &new, &long().class(PriorityClass::Batch).build(), 1000), None);
    }

    #[test]
    fn the_daily_cap_and_the_starvation_guard_bound_it() {
        let mut victim = alloc(1).on(0, 0xff).build();
        victim.attained_gpu_s = 40_000; // queue 2
        let mut old = job(2).gpus(8).queued_at(900).build();
        old.attained_gpu_s = 4000; // queue 1: may claim from queue 2
        assert!(turn(&ts(), &old, &victim, 1000).is_some());
        victim.preemptions_today = 2;
        assert_eq!(turn(&ts(), &old, &victim, 1000), None, "stopped twice today already");
        victim.preemptions_today = 0;
        // A long-served job that has waited past the guard claims as a new one would.
        victim.attained_gpu_s = 0; // 8000 at t=1000: queue 1, like `old`
        assert_eq!(turn(&ts(), &old, &victim, 1000), None);
        old.queued_at = 1000 - 7200;
        assert!(turn(&ts(), &old, &victim, 1000).is_some(), "a starving job is promoted");
        // A job that had 10 GPU-hours when its run began is no longer stopped.
        let protect = TimeShare { protect_after_gpu_s: 36_000, ..ts() };
        victim.attained_gpu_s = 36_000;
        assert_eq!(turn(&protect, &old, &victim, 1000), None);
        victim.attained_gpu_s = 35_999;
        assert!(turn(&protect, &old, &victim, 1000).is_some());
    }

    #[test]
    fn the_relative_guard_weighs_waiting_against_the_jobs_own_run() {
        let ts = TimeShare { starve_after_s: 0, starve_factor: 4, ..ts() };
        // 8 GPUs, 4000 GPU-seconds received: it ran 500 s, so 2000 s of waiting promote it.
        let mut old = job(2).gpus(8).queued_at(0).build();
        old.attained_gpu_s = 4000;
        assert!(!ts.starving(&old, 1999));
        assert_eq!(ts.claim_queue(&old, 1999), 1);
        assert!(ts.starving(&old, 2000));
        assert_eq!(ts.claim_queue(&old, 2000), 0);
        // A job that has never run is in the first queue already; no guard is needed.
        let new = job(3).gpus(8).queued_at(0).build();
        assert!(!ts.starving(&new, 1_000_000));
        // Without either guard nobody is promoted.
        let off = TimeShare { starve_after_s: 0, starve_factor: 0, ..ts };
        assert!(!off.starving(&old, 1_000_000));
    }
}
