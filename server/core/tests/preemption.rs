//! Who yields, and to whom: lent capacity goes back to its lender, critical work preempts
//! lower classes of its own group only, ended loans are reclaimed, young jobs are
//! protected from churn, and the cheapest victims go first. // B1, Q4, P1, D4, R3

mod common;

use common::{preempted, preemption, reason, run};
use tidepool_core::testkit::{AllocBuilder, ClusterBuilder, alloc, cluster, job};
use tidepool_core::{JobId, LoanId, PreemptReason, PriorityClass::*, Reason};

/// Jobs that have run this long may be preempted (stated, not left to the default).
const MIN_RUNTIME: u64 = 120;

/// A cluster whose jobs are protected for `MIN_RUNTIME` seconds.
fn pool() -> ClusterBuilder {
    cluster().config(|c| c.min_runtime_s = MIN_RUNTIME)
}

/// One 8-GPU node. Group a (0) is guaranteed all 8 and lends them to group b (1) on loan 1.
fn lender_and_borrower() -> ClusterBuilder {
    pool().nodes(1, 8).group("a", 8).group("b", 0).loan(1, 0, Some(1), 8)
}

fn borrower(id: u64, mask: u64) -> AllocBuilder {
    alloc(id).group(1).on(0, mask).borrowed(1, mask.count_ones()).started(0)
}

// B1, Q4: the lender's job, within its guarantee and blocked, takes its GPUs back.
#[test]
fn lent_gpus_return_to_the_lender() {
    let snap = lender_and_borrower()
        .running(borrower(10, 0x0F))
        .running(alloc(11).on(0, 0xF0).started(0))
        .pending(job(1).gpus(4))
        .build();
    let plan = run(&snap, 1000);
    assert_eq!(preempted(&plan), vec![10], "only the borrower yields, not the lender's own job");
    assert_eq!(preemption(&plan, 10).reason, PreemptReason::ReturnToLender { for_job: JobId(1) });
    assert_eq!(reason(&plan, 1), &Reason::AwaitingPreemption { victims: 1 });
}

// B1, Q4: the same when part of what the lender needs is already free: the free GPUs
// (which the cycle withholds for the lender's reservation) plus the lent ones suffice.
#[test]
fn lent_gpus_return_even_when_the_lender_already_has_some_free() {
    let snap = lender_and_borrower().running(borrower(10, 0x0F)).pending(job(1).gpus(8)).build();
    let plan = run(&snap, 1000);
    assert_eq!(preempted(&plan), vec![10], "{plan:#?}");
    assert_eq!(reason(&plan, 1), &Reason::AwaitingPreemption { victims: 1 });
}

// B1: a borrower that started less than min_runtime_s ago is protected; the plan asks
// to be run again the moment it becomes preemptible.
#[test]
fn young_borrowers_are_protected_until_min_runtime() {
    // (seconds the borrower has run, preempted?, retry_at)
    let table: [(i64, bool, Option<i64>); 4] =
        [(0, false, Some(1120)), (60, false, Some(1060)), (119, false, Some(1001)), (120, true, None)];
    for (ran, yields, retry_at) in table {
        let snap = lender_and_borrower()
            .running(borrower(10, 0xFF).started(1000 - ran))
            .pending(job(1).gpus(8))
            .build();
        let plan = run(&snap, 1000);
        assert_eq!(!plan.preemptions.is_empty(), yields, "ran {ran}s");
        assert_eq!(plan.retry_at, retry_at, "ran {ran}s");
        if !yields {
            assert!(matches!(reason(&plan, 1), Reason::Reserved { .. }), "ran {ran}s");
        }
    }
}

// P1, B1: who may yield to whom. Node: the victim on GPUs 0-3, an untouchable critical
// job of group b on GPUs 4-7. Both groups are guaranteed 8 (the pool is overcommitted),
// so job 1 (group a, 4 GPUs) is always within its guarantee.
#[test]
fn critical_jobs_preempt_lower_classes_of_their_own_group_only() {
    type Row = (
        &'static str,
        u32,
        tidepool_core::PriorityClass,
        bool,
        tidepool_core::PriorityClass,
        Option<PreemptReason>,
    );
    let higher = Some(PreemptReason::HigherClass { for_job: JobId(1) });
    let lender = Some(PreemptReason::ReturnToLender { for_job: JobId(1) });
    let table: [Row; 7] = [
        // (why, victim group, victim class, victim borrows, job class, expected)
        ("critical over own normal", 0, Normal, false, Critical, higher.clone()),
        ("critical over own batch", 0, Batch, false, Critical, higher),
        ("critical never over own critical", 0, Critical, false, Critical, None),
        ("only critical preempts by class", 0, Batch, false, Normal, None),
        ("never another group's guaranteed job", 1, Batch, false, Critical, None),
        ("another group's borrower returns GPUs", 1, Critical, true, Normal, lender.clone()),
        ("... to a critical job too", 1, Batch, true, Critical, lender),
    ];
    for (why, group, class, borrows, job_class, expect) in table {
        let mut victim = alloc(20).group(group).class(class).on(0, 0x0F).started(0);
        if borrows {
            victim = victim.borrowed(1, 4);
        }
        let snap = pool()
            .nodes(1, 8)
            .group("a", 8)
            .group("b", 8)
            .loan(1, 0, Some(1), 8)
            .running(victim)
            .running(alloc(99).group(1).class(Critical).on(0, 0xF0).started(0))
            .pending(job(1).class(job_class).gpus(4))
            .build();
        let plan = run(&snap, 1000);
        let got: Vec<(u64, PreemptReason)> =
            plan.preemptions.iter().map(|p| (p.job.0, p.reason.clone())).collect();
        assert_eq!(got, expect.into_iter().map(|r| (20, r)).collect::<Vec<_>>(), "{why}");
    }
}

// R3, D4: among equally entitled victims the reclaim order takes borrowers first, then
// the one that loses the least work since its last checkpoint. Two 4-GPU nodes; job 1
// (group a, critical, 4 GPUs) needs one of the two victims.
#[test]
fn reclaim_prefers_the_least_work_at_risk() {
    let at = 3600;
    let table: [(&str, AllocBuilder, AllocBuilder, u64); 4] = [
        (
            "checkpointed 10s ago beats never checkpointed (though it started earlier)",
            borrower(10, 0x0F).checkpoint(at - 10),
            alloc(11).group(1).on(1, 0x0F).borrowed(1, 4).started(1000),
            10,
        ),
        (
            "a job that cannot checkpoint loses everything since it started",
            borrower(10, 0x0F).not_checkpointable().checkpoint(at - 10),
            alloc(11).group(1).on(1, 0x0F).borrowed(1, 4).started(1000),
            11,
        ),
        (
            "a borrower before the lender's own lower-class job",
            borrower(10, 0x0F).class(Critical),
            alloc(11).class(Batch).on(1, 0x0F).started(at - 200),
            10,
        ),
        (
            "the lowest class first among borrowers",
            borrower(10, 0x0F).class(Normal).started(at - 200),
            alloc(11).group(1).class(Batch).on(1, 0x0F).borrowed(1, 4).started(0),
            11,
        ),
    ];
    for (why, a, b, victim) in table {
        let snap = pool()
            .nodes(2, 4)
            .group("a", 8)
            .group("b", 0)
            .loan(1, 0, Some(1), 8)
            .running(a)
            .running(b)
            .pending(job(1).class(Critical).gpus(4))
            .build();
        let plan = run(&snap, at);
        assert_eq!(preempted(&plan), vec![victim], "{why}");
    }
}

// B1: when a loan ends, jobs still running on it give the GPUs back, however young;
// jobs on a live loan and jobs already stopping are left alone.
#[test]
fn jobs_on_an_ended_loan_are_reclaimed() {
    let snap = |started: i64| {
        pool()
            .nodes(1, 8)
            .group("a", 8)
            .group("b", 0)
            .loan_until(1, 0, Some(1), 4, 500)
            .loan(2, 0, Some(1), 4)
            .running(alloc(10).group(1).on(0, 0b0011).borrowed(1, 2).started(started))
            .running(alloc(11).group(1).on(0, 0b1100).borrowed(2, 2).started(0))
            .running(alloc(12).group(1).on(0, 0b11_0000).borrowed(1, 2).started(0).draining_for(77))
            .build()
    };
    // (now, when job 10 started, expected victims)
    let table: [(i64, i64, Vec<u64>); 4] =
        [(499, 0, vec![]), (500, 0, vec![10]), (1000, 0, vec![10]), (1000, 990, vec![10])];
    for (now, started, victims) in table {
        let plan = run(&snap(started), now);
        assert_eq!(preempted(&plan), victims, "now {now}, started {started}");
        for p in &plan.preemptions {
            assert_eq!(p.reason, PreemptReason::LoanEnded { loan: LoanId(1) });
        }
    }
}

// P1: one victim is never promised to two jobs, and max_preemptors bounds how many
// blocked jobs pick victims in one cycle.
#[test]
fn victims_are_chosen_once_and_preemptors_are_bounded() {
    let base = |max: usize| {
        lender_and_borrower()
            .config(move |c| c.max_preemptors = max)
            .running(borrower(10, 0x0F))
            .running(borrower(11, 0xF0))
            .pending(job(1).gpus(4))
            .pending(job(2).gpus(4).at(1))
            .build()
    };
    let plan = run(&base(32), 1000);
    let mut victims = preempted(&plan);
    victims.sort_unstable();
    assert_eq!(victims, vec![10, 11]);
    assert_eq!(reason(&plan, 1), &Reason::AwaitingPreemption { victims: 1 });
    assert_eq!(reason(&plan, 2), &Reason::AwaitingPreemption { victims: 1 });

    let plan = run(&base(1), 1000);
    assert_eq!(plan.preemptions.len(), 1);
    assert_eq!(reason(&plan, 1), &Reason::AwaitingPreemption { victims: 1 });
    assert!(!matches!(reason(&plan, 2), Reason::AwaitingPreemption { .. }));
}

// P1: a critical job of a group whose guarantee is all in use by its own batch work
// does not wait for that work to end: the batch jobs yield, only as many as needed,
// and another group's guaranteed work is never touched.
#[test]
fn critical_work_over_quota_makes_its_own_lower_classes_yield() {
    // (group of the batch jobs, critical job's GPUs, expected victims)
    let table: [(u32, u32, Vec<u64>, &str); 3] = [
        (0, 4, vec![10], "one 4-GPU batch job frees enough"),
        (0, 8, vec![10, 11], "both batch jobs yield for 8 GPUs"),
        (1, 4, vec![12], "group b's batch work is not group a's to take: a's own normal job yields"),
    ];
    for (owner, gpus, victims, rule) in table {
        let snap = pool()
            .nodes(2, 8)
            .group("a", 8)
            .group("b", 8)
            .running(alloc(10).group(owner).class(Batch).on(0, 0x0F).started(0))
            .running(alloc(11).group(owner).class(Batch).on(0, 0xF0).started(0))
            .running(alloc(12).group(1 - owner).class(Normal).on(1, 0xFF).started(0))
            .pending(job(1).class(Critical).gpus(gpus))
            .build();
        let plan = run(&snap, 1000);
        assert_eq!(preempted(&plan), victims, "{rule}");
        for v in &victims {
            assert_eq!(
                preemption(&plan, *v).reason,
                PreemptReason::HigherClass { for_job: JobId(1) },
                "{rule}"
            );
        }
        assert_eq!(reason(&plan, 1), &Reason::AwaitingPreemption { victims: victims.len() as u32 }, "{rule}");
    }
}

// B1: lent capacity comes back from the lender's own borrowers first, even when the
// reclaim order would rather stop another lender's borrower.
#[test]
fn a_lender_takes_back_from_its_own_borrowers_first() {
    // Groups a (0) and c (2) lend to b (1); b runs one job on each loan, on one node each.
    let snap = pool()
        .nodes(2, 8)
        .group("a", 8)
        .group("b", 0)
        .group("c", 8)
        .loan(1, 0, Some(1), 8)
        .loan(3, 2, Some(1), 8)
        // On a's loan: 1000 s of work at risk, so the reclaim order would spare it.
        .running(alloc(10).group(1).on(0, 0xFF).started(0).borrowed(1, 8))
        // On c's loan: checkpointed a second ago, the reclaim order's first choice.
        .running(alloc(30).group(1).on(1, 0xFF).started(500).checkpoint(999).borrowed(3, 8))
        .pending(job(1).gpus(8))
        .build();
    let plan = run(&snap, 1000);
    assert_eq!(preempted(&plan), vec![10], "a reclaims from the job on its own loan: {plan:#?}");
    assert_eq!(preemption(&plan, 10).reason, PreemptReason::ReturnToLender { for_job: JobId(1) });
}
