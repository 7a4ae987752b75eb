//! Time-sharing among checkpointable jobs (issue 15): a waiting job of a group and class
//! takes a turn from a running peer that has received more GPU time, within the bounds
//! that keep anyone from starving. P1, D4, R3

mod common;

use common::{preempted, preemption, reason, run};
use tidepool_core::testkit::{ClusterBuilder, alloc, cluster, job};
use tidepool_core::{JobId, PreemptReason, PriorityClass, Reason, TimeShare};

/// One 8-GPU node, all of it group 0's; queues split at 1 GPU-hour; no minimum runtime.
fn node(timeshare: bool) -> ClusterBuilder {
    cluster().nodes(1, 8).group("a", 8).config(|c| {
        c.min_runtime_s = 0;
        c.timeshare = timeshare.then(|| TimeShare {
            thresholds_gpu_s: vec![3600],
            max_per_day: 2,
            starve_after_s: 86_400,
            starve_factor: 0,
            order_by_queue: false,
            quantum_s: 600,
            protect_after_gpu_s: 0,
            fifo_in_later_queues: false,
        });
    })
}

#[test]
fn a_new_job_takes_a_turn_from_a_long_running_checkpointable_peer() {
    // Job 10 has held 8 GPUs for 1000 s (8000 GPU-seconds); job 1 is new.
    let snap = node(true).running(alloc(10).on(0, 0xFF).started(0)).pending(job(1).gpus(8).at(900)).build();
    let plan = run(&snap, 1000);
    assert_eq!(preempted(&plan), vec![10]);
    let why = &preemption(&plan, 10).reason;
    assert_eq!(
        why,
        &PreemptReason::TimeShare { for_job: JobId(1), attained_gpu_s: 8000, for_attained_gpu_s: 0 }
    );
    assert!(why.to_string().starts_with("taking turns: it has had 2.2 GPU-hours, job 1 only 0.0"), "{why}");
    assert_eq!(reason(&plan, 1), &Reason::AwaitingPreemption { victims: 1 });

    // Off, nothing running is stopped for a peer.
    let snap = node(false).running(alloc(10).on(0, 0xFF).started(0)).pending(job(1).gpus(8).at(900)).build();
    assert!(run(&snap, 1000).preemptions.is_empty());
}

#[test]
fn never_for_jobs_that_cannot_checkpoint_nor_other_classes() {
    let long = || alloc(10).on(0, 0xFF).started(0);
    let snap = node(true).running(long().not_checkpointable()).pending(job(1).gpus(8).at(900)).build();
    assert!(run(&snap, 1000).preemptions.is_empty(), "a job that cannot checkpoint keeps its GPUs");
    let snap = node(true)
        .running(long().class(PriorityClass::Batch))
        .pending(job(1).gpus(8).class(PriorityClass::Experiment).at(900))
        .build();
    assert!(run(&snap, 1000).preemptions.is_empty(), "classes do not take turns with each other");
}

#[test]
fn the_quantum_and_the_daily_cap_protect_a_job() {
    // Resumed 300 s ago with 10 GPU-hours behind it: protected until its quantum is up.
    let mut resumed = alloc(10).on(0, 0xFF).started(700).build();
    resumed.attained_gpu_s = 36_000;
    let mut snap = node(true).pending(job(1).gpus(8).at(900)).build();
    snap.running.push(resumed.clone());
    let plan = run(&snap, 1000);
    assert!(plan.preemptions.is_empty());
    assert_eq!(plan.retry_at, Some(1300), "the cycle comes back when the quantum ends");
    assert_eq!(preempted(&run(&snap, 1300)), vec![10]);
    // Preempted twice today already: left running.
    snap.running[0].preemptions_today = 2;
    assert!(run(&snap, 1300).preemptions.is_empty());
}

#[test]
fn ordered_by_queue_a_job_with_little_gpu_time_starts_before_an_older_one_with_much() {
    // Job 1 waited longest but has had 16 GPU-hours (queue 1); job 2 is new (queue 0).
    let build = |order_by_queue: bool| {
        let mut snap = node(true).pending(job(1).gpus(8).at(0)).pending(job(2).gpus(8).at(5000)).build();
        snap.pending[0].attained_gpu_s = 16 * 3600;
        snap.config.timeshare.as_mut().expect("on").order_by_queue = order_by_queue;
        snap
    };
    let started = |snap| run(&snap, 7200).placements.iter().map(|p| p.job.0).collect::<Vec<_>>();
    assert_eq!(started(build(false)), vec![1], "the priority policy alone: the longest wait first");
    assert_eq!(started(build(true)), vec![2], "by queue: least attained service first");
    // Once job 1 has waited `starve_factor` times its own run (2 h on 8 GPUs), it is
    // promoted to the first queue, where its longer wait puts it ahead again.
    let mut snap = build(true);
    snap.config.timeshare.as_mut().expect("on").starve_factor = 3;
    assert_eq!(started(snap.clone()), vec![2], "waited 2 h, ran 2 h: not yet");
    assert_eq!(run(&snap, 6 * 3600).placements.iter().map(|p| p.job.0).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn a_job_that_has_had_enough_gpu_time_is_no_longer_stopped() {
    // Job 10 resumed at 0 with 20 GPU-hours behind it (queue 1, later than the new job).
    let mut long = alloc(10).on(0, 0xFF).started(0).build();
    long.attained_gpu_s = 20 * 3600;
    let mut snap = node(true).pending(job(1).gpus(8).at(900)).build();
    snap.running.push(long);
    assert_eq!(preempted(&run(&snap, 1000)), vec![10], "no protection: it takes turns");
    // Protected from 20 GPU-hours on: it runs to its end, whoever waits.
    snap.config.timeshare.as_mut().expect("on").protect_after_gpu_s = 20 * 3600;
    assert!(run(&snap, 1000).preemptions.is_empty(), "protected once it had 20 GPU-hours");
    // Short of the bound (the GPU time it had when this run began counts), it yields.
    snap.running[0].attained_gpu_s = 20 * 3600 - 1;
    assert_eq!(preempted(&run(&snap, 1000)), vec![10]);
}

#[test]
fn a_stopped_job_keeps_its_place_among_those_that_have_had_gpu_time() {
    // Jobs 1 and 2 both had 16 GPU-hours (queue 1); job 1 was submitted first but was
    // stopped later, so it re-entered the line after job 2 and has waited less since.
    let build = |fifo: bool| {
        let mut snap = node(true).pending(job(1).gpus(8).at(0)).pending(job(2).gpus(8).at(100)).build();
        for (j, queued_at) in snap.pending.iter_mut().zip([5000, 1000]) {
            j.attained_gpu_s = 16 * 3600;
            j.queued_at = queued_at;
        }
        let ts = snap.config.timeshare.as_mut().expect("on");
        ts.order_by_queue = true;
        ts.fifo_in_later_queues = fifo;
        snap
    };
    let started = |snap| run(&snap, 7200).placements.iter().map(|p| p.job.0).collect::<Vec<_>>();
    assert_eq!(started(build(false)), vec![2], "the priority policy: the longer wait since the stop");
    assert_eq!(started(build(true)), vec![1], "first submitted first among jobs that have run");
    // Jobs that have not run yet keep the priority policy's order.
    let mut snap = build(true);
    for (j, queued_at) in snap.pending.iter_mut().zip([5000, 1000]) {
        j.attained_gpu_s = 0;
        j.queued_at = queued_at;
    }
    assert_eq!(started(snap), vec![2], "the first queue keeps the policy's order");
}
