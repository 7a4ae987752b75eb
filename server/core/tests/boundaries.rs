//! Budgets that never overspend and hard boundaries (Q3, Q4), by example and over many
//! random cycles: a budget reserves what running jobs may still use, so a second job the
//! budget cannot cover waits; a budget passed (an admin lowered it) or a guarantee cut
//! sends jobs away, chosen in the reclaim order, until the group is back inside.

mod common;

use common::{placed, preempted, preemption, reason, run};
use tidepool_core::testkit::{alloc, cluster, job};
use tidepool_core::*;

// Q3: budget 20 GPU-hours; two 8-GPU jobs of 2 hours each, one admitted per cycle. The
// first reserves its 16 GPU-hours while it runs, so the second (16 more) waits.
#[test]
fn a_running_jobs_remaining_cost_holds_the_next_job() {
    let budget = |q: &mut Quota| q.budget_gpu_h = Some(20.0);
    let first =
        cluster().nodes(2, 8).group("a", 16).quota(0, budget).pending(job(1).gpus(8).limit(7200)).build();
    let plan = run(&first, 0);
    placed(&plan, 1);
    // The next cycle, a minute later: job 1 runs (spent 8 GPU-minutes), job 2 arrives.
    let second = cluster()
        .nodes(2, 8)
        .group("a", 16)
        .quota(0, |q| {
            q.budget_gpu_h = Some(20.0);
            q.spent_gpu_h = 8.0 / 60.0;
        })
        .running(alloc(1).on(0, 0xff).started(0).limit(7200))
        .pending(job(2).gpus(8).limit(7200).at(30))
        .build();
    let plan = run(&second, 60);
    match reason(&plan, 2) {
        Reason::BudgetExhausted { budget_gpu_h, spent_gpu_h, needed_gpu_h } => {
            assert_eq!(*budget_gpu_h, 20.0);
            assert!((spent_gpu_h - 16.0).abs() < 1e-9, "spent and held: {spent_gpu_h}");
            assert_eq!(*needed_gpu_h, 16.0);
        }
        other => panic!("job 2 should wait on the budget: {other:?}"),
    }
    assert!(plan.preemptions.is_empty(), "job 1 stays inside the budget: {plan:#?}");
}

// Q3: an admin lowered the budget below what running jobs hold: the jobs that leave are
// picked in the reclaim order (least work since a checkpoint, then newest) until the rest
// fits; none more.
#[test]
fn a_budget_passed_stops_just_enough_jobs_least_work_at_risk_first() {
    let snap = cluster()
        .nodes(2, 8)
        .group("a", 16)
        .quota(0, |q| {
            q.budget_gpu_h = Some(10.0);
            q.spent_gpu_h = 2.0;
        })
        // 4 GPUs x 1 h left each = 4 GPU-h each; spent 2 + 12 = 14 > 10: one must go.
        .running(alloc(1).on(0, 0x0f).started(0).limit(7200).checkpoint(3000))
        .running(alloc(2).on(0, 0xf0).started(600).limit(6600).checkpoint(3500))
        .running(alloc(3).on(1, 0x0f).started(1200).limit(6000).checkpoint(3590))
        .build();
    let plan = run(&snap, 3600);
    assert_eq!(preempted(&plan), vec![3], "{plan:#?}");
    match &preemption(&plan, 3).reason {
        PreemptReason::OverBudget { budget_gpu_h, committed_gpu_h } => {
            assert_eq!((*budget_gpu_h, *committed_gpu_h), (10.0, 14.0));
        }
        other => panic!("{other:?}"),
    }
}

// Q4: a guarantee cut from 16 to 8 while the group holds 12 of its own GPUs: 4 must come
// back, from jobs on its own guarantee (a borrowing job frees none of it), newest first.
#[test]
fn a_cut_guarantee_sends_back_the_excess_in_one_cycle() {
    let snap = cluster()
        .nodes(3, 8)
        .group("a", 8)
        .group("b", 8)
        .loan(1, 1, Some(0), 4)
        .running(alloc(1).on(0, 0xff).started(0))
        .running(alloc(2).on(1, 0x0f).started(100))
        .running(alloc(3).on(1, 0xf0).started(200).borrowed(1, 4))
        .build();
    let plan = run(&snap, 5000);
    assert_eq!(preempted(&plan), vec![2], "{plan:#?}");
    assert_eq!(preemption(&plan, 2).reason, PreemptReason::OverGuarantee { guaranteed: 8, held: 12 });
    // Inside its boundary, nobody moves.
    let inside = cluster().nodes(2, 8).group("a", 12).running(alloc(1).on(0, 0xff).started(0)).build();
    assert!(run(&inside, 5000).preemptions.is_empty());
}

/// xorshift64: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x % n.max(1)
    }
}

/// A running job in the small simulation: its allocation, when it would end by itself,
/// and when a stop asked of it takes effect (its next checkpoint).
struct Run {
    a: Allocation,
    ends_at: Time,
    stops_at: Option<Time>,
}

// Q3: over many random cycles (arrivals, runs ending early or at their limit, an admin
// lowering the budget mid-month to no less than what is spent), spend never passes the
// budget by more than the checkpoint interval of the jobs asked to stop for it.
#[test]
fn spend_never_passes_the_budget_by_more_than_one_checkpoint_interval() {
    const CYCLE: Time = 300;
    for seed in 1..=200u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let checkpoint = 60 + rng.below(600) as Time;
        let mut budget = 20.0 + rng.below(200) as f64;
        let (mut spent, mut allowance) = (0.0f64, 0.0f64);
        let mut runs: Vec<Run> = Vec::new();
        let mut pending: Vec<Job> = Vec::new();
        let mut next_id = 1u64;
        for cycle in 0..200 {
            let now = cycle * CYCLE;
            for _ in 0..rng.below(3) {
                let limit = 600 + rng.below(4 * 3600);
                let gpus = 1 + rng.below(8) as u32;
                pending.push(job(next_id).gpus(gpus).limit(limit).at(now).build());
                next_id += 1;
            }
            if cycle == 100 && rng.below(2) == 0 {
                budget = (spent + 1.0).max(budget / 2.0);
            }
            let mut b = cluster().nodes(4, 8).group("a", 32).quota(0, |q| {
                q.budget_gpu_h = Some(budget);
                q.spent_gpu_h = spent;
            });
            b = b.config(|c| c.min_runtime_s = 0);
            let mut snap = b.build();
            snap.running = runs.iter().map(|r| r.a.clone()).collect();
            snap.pending = pending.clone();
            let plan = run(&snap, now);
            for p in &plan.preemptions {
                let r = &mut runs[p.running_index as usize];
                r.a.draining_for = Some(r.a.job);
                let at = now + checkpoint;
                r.stops_at = Some(at);
                if matches!(p.reason, PreemptReason::OverBudget { .. }) {
                    allowance += f64::from(r.a.gpu_count()) * checkpoint as f64 / 3600.0;
                }
            }
            for p in &plan.placements {
                let j = &snap.pending[p.pending_index as usize];
                let limit = j.time_limit_s.unwrap();
                runs.push(Run {
                    a: Allocation {
                        job: j.id,
                        group: j.group,
                        category: j.category,
                        class: j.class,
                        model: j.model,
                        slots: p.slots.clone(),
                        started_at: now,
                        time_limit_s: Some(limit),
                        checkpointable: true,
                        last_checkpoint_at: None,
                        borrowed: p.borrowed.clone(),
                        draining_for: None,
                        attained_gpu_s: 0,
                        preemptions_today: 0,
                    },
                    ends_at: now + 60 + rng.below(limit) as Time,
                    stops_at: None,
                });
            }
            let placed: Vec<JobId> = plan.placements.iter().map(|p| p.job).collect();
            pending.retain(|j| !placed.contains(&j.id));
            // The next CYCLE seconds: each job runs to its own end, its stop or its limit.
            let until = now + CYCLE;
            runs.retain(|r| {
                let limit_end = r.a.started_at + r.a.time_limit_s.unwrap() as Time;
                let end = r.ends_at.min(limit_end).min(r.stops_at.unwrap_or(Time::MAX));
                let from = now.max(r.a.started_at);
                spent += f64::from(r.a.gpu_count()) * (end.min(until) - from).max(0) as f64 / 3600.0;
                end > until
            });
            assert!(
                spent <= budget + allowance + 1e-6,
                "seed {seed}, cycle {cycle}: spent {spent:.3} of {budget:.3} (+{allowance:.3} allowed)"
            );
        }
    }
}
