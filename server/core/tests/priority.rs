//! Priority: critical first, new experiments start promptly (least attained service),
//! and aging means no job waits behind newer ones forever. // P1, D1, D5

mod common;

use tidepool_core::policy::NativePriority;
use tidepool_core::testkit::{cluster, job};
use tidepool_core::{
    Job, Ledger, NativePolicies, Plan, Policies, PriorityClass, PriorityClass::*, Snapshot, Time, Verdict,
    plan,
};

const HOUR: i64 = 3600;

/// Job ids in the cycle's priority order (placed and held alike).
fn order(plan: &Plan) -> Vec<u64> {
    let mut ranked: Vec<(u32, u64)> = plan.placements.iter().map(|p| (p.position, p.job.0)).collect();
    ranked.extend(plan.holds.iter().map(|h| (h.position, h.job.0)));
    ranked.sort_unstable();
    ranked.into_iter().map(|(_, j)| j).collect()
}

/// Jobs submitted at `now` (nobody has waited), on a pool with no GPUs: every job is held,
/// and the holds keep their queue positions.
fn fresh_queue(jobs: Vec<tidepool_core::testkit::JobBuilder>) -> Snapshot {
    let mut c = cluster().group("a", 1000);
    for j in jobs {
        c = c.pending(j);
    }
    c.build()
}

// P1: critical first; experiments before batch (batch exists to fill troughs, D5).
#[test]
fn classes_rank_critical_normal_experiment_batch() {
    let snap = fresh_queue(vec![
        job(1).class(Batch),
        job(2).class(Experiment),
        job(3).class(Critical),
        job(4).class(Normal),
    ]);
    assert_eq!(order(&common::run(&snap, 0)), vec![3, 4, 2, 1]);
}

// P1: within a class and wait, the job that has had the least GPU time goes first, so a
// new experiment starts ahead of one that has run for days; ties: submission, then id.
#[test]
fn least_attained_service_then_submission_then_id() {
    let snap = fresh_queue(vec![
        job(1).attained(8 * 24 * 3600),
        job(2).attained(0).at(5),
        job(3).attained(0).at(5),
        job(4).attained(0).at(1),
        job(5).attained(600),
    ]);
    assert_eq!(order(&common::run(&snap, 10)), vec![4, 2, 3, 5, 1]);
}

// P1: no starvation. An old job that has already had a lot of GPU time (so least
// attained service ranks it last) faces two new jobs every ten minutes on a one-GPU
// pool that runs one job per cycle. New jobs win at first; once the old job has waited
// one aging step longer than all of them, it starts.
#[test]
fn an_old_heavy_job_eventually_runs_ahead_of_a_stream_of_new_jobs() {
    let policy = NativePriority::default();
    let old = job(1).attained(10_000_000).at(0).build();
    let mut pending = vec![old];
    let mut next_id = 2;
    for cycle in 0..100 {
        let now = cycle * 600;
        for _ in 0..2 {
            pending.push(job(next_id).at(now).build());
            next_id += 1;
        }
        let mut snap = cluster().nodes(1, 1).group("a", 1000).build();
        snap.pending = pending.clone();
        let plan = common::run(&snap, now);
        assert_eq!(plan.placements.len(), 1, "one GPU, one job per cycle");
        let started = plan.placements[0].job.0;
        if started == 1 {
            assert_eq!(now, policy.aging_step_s as i64, "the old job starts after one aging step");
            return;
        }
        assert!(now < policy.aging_step_s as i64, "the old job waited past its aging step at t={now}");
        pending.retain(|j| j.id.0 != started);
    }
    panic!("the old job never started");
}

// P1, D5: a waiting job climbs one class per promote_after_s (up to normal) and ages one
// level per aging_step_s, so it overtakes newer jobs; critical work always stays first.
#[test]
fn waiting_jobs_are_promoted_and_aged_but_never_past_critical() {
    let p = NativePriority::default();
    let score = |class: PriorityClass, waited: i64, attained: u64| {
        let j: Job = job(1).class(class).attained(attained).at(0).build();
        p.score(&j, waited)
    };
    // (old job's class, how long it has waited, the new job's class, old ahead?)
    let table: [(PriorityClass, i64, PriorityClass, bool); 9] = [
        (Batch, 12 * HOUR - 1, Experiment, false),
        (Batch, 12 * HOUR, Experiment, true),
        (Batch, 24 * HOUR - 1, Normal, false),
        (Batch, 24 * HOUR, Normal, true),
        (Experiment, 12 * HOUR, Normal, true),
        (Normal, HOUR - 1, Normal, false),
        (Normal, HOUR, Normal, true),
        (Normal, 1000 * HOUR, Critical, false),
        (Batch, 1000 * HOUR, Critical, false),
    ];
    for (old_class, waited, new_class, ahead) in table {
        // The old job has had a month of GPU time; the new one none.
        let old = score(old_class, waited, 30 * 24 * 3600);
        let new = score(new_class, 0, 0);
        assert_eq!(old > new, ahead, "{old_class:?} after {waited}s vs new {new_class:?}");
    }
}

// D1: the FIFO rule (today's practice, kept for comparison) ignores class and service.
#[test]
fn fifo_orders_by_submission_only() {
    let snap = fresh_queue(vec![
        job(1).class(Batch).at(3),
        job(2).class(Critical).at(7),
        job(3).attained(1 << 30).at(1),
    ]);
    assert_eq!(order(&plan(&snap, 10, &NativePolicies::fifo())), vec![3, 1, 2]);
}

// D3, O2: a priority policy that answers for the wrong number of jobs is replaced by the
// built-in one for this cycle, and the fault is reported.
#[test]
fn a_malformed_priority_answer_falls_back_to_the_built_in_policy() {
    struct Short;
    impl Policies for Short {
        fn priority(&self, _: &Snapshot, _: Time) -> Vec<i64> {
            vec![1]
        }
        fn quota(&self, snap: &Snapshot, now: Time, order: &[u32], ledger: &Ledger) -> Vec<Verdict> {
            NativePolicies::default().quota(snap, now, order, ledger)
        }
        fn reclaim(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
            NativePolicies::default().reclaim(snap, now)
        }
        fn version(&self) -> String {
            "test/short".into()
        }
    }
    let snap = fresh_queue(vec![job(1).class(Batch), job(2).class(Critical)]);
    let plan = plan(&snap, 0, &Short);
    assert_eq!(order(&plan), vec![2, 1]);
    assert_eq!(plan.policy_faults.len(), 1, "{:?}", plan.policy_faults);
    assert!(plan.policy_faults[0].contains("1 scores for 2 jobs"));
}
