//! EASY backfill: the highest blocked job gets a reservation computed from running
//! jobs' time limits; lower jobs fill the holes only where they cannot delay it.
//! // D1, D5, P1

mod common;

use common::{placed, reason, run, slots};
use tidepool_core::testkit::{ClusterBuilder, alloc, cluster, job};
use tidepool_core::{JobId, NodeId, Reason, Reservation, Slot};

/// Two 4-GPU nodes at t=1000. Node 0: job 100 holds GPUs 0-1 until t=2000.
/// Node 1: job 101 holds GPUs 0-2 until t=6000. Free: GPUs 2-3 of node 0, GPU 3 of node 1.
/// Job 1 (4 GPUs, first in line) cannot start; node 0 is whole again at t=2000.
fn busy() -> ClusterBuilder {
    cluster()
        .nodes(2, 4)
        .group("a", 32)
        .running(alloc(100).on(0, 0b0011).started(0).limit(2000))
        .running(alloc(101).on(1, 0b0111).started(0).limit(6000))
        .pending(job(1).gpus(4))
}

const NOW: i64 = 1000;

// D1: the reservation starts when the running jobs' time limits free enough GPUs, on
// the node they free, and the GPUs free now on that node are withheld for it.
#[test]
fn the_highest_blocked_job_reserves_from_running_time_limits() {
    let plan = run(&busy().build(), NOW);
    assert_eq!(reason(&plan, 1), &Reason::Reserved { start_at: 2000 });
    assert_eq!(
        plan.reservations,
        vec![Reservation {
            job: JobId(1),
            start_at: 2000,
            slots: vec![Slot { node: NodeId(0), gpus: 0b1111 }]
        }]
    );
}

// D1: a running job without a limit is planned with the configured default; one past
// its limit may end any moment, so it is expected now.
#[test]
fn reservations_use_the_default_limit_and_treat_overdue_jobs_as_ending_now() {
    let table: [(Option<u64>, u64, i64); 3] = [
        // (running job's limit, default limit, expected start)
        (None, 86_400, 86_400),
        (None, 5_000, 5_000),
        (Some(500), 86_400, NOW),
    ];
    for (limit, default, start_at) in table {
        let mut running = alloc(100).on(0, 0xFF).started(0);
        if let Some(l) = limit {
            running = running.limit(l);
        }
        let snap = cluster()
            .nodes(1, 8)
            .group("a", 16)
            .config(|c| c.default_time_limit_s = default)
            .running(running)
            .pending(job(1).gpus(8))
            .build();
        let plan = run(&snap, NOW);
        assert_eq!(reason(&plan, 1), &Reason::Reserved { start_at }, "limit {limit:?}, default {default}");
    }
}

// D1, D5: what a lower job gets while job 1 holds the reservation, by its size and
// time limit. Short jobs that end by t=2000 may use the withheld GPUs; long ones only
// GPUs the reservation does not need.
#[test]
fn lower_jobs_backfill_only_where_they_cannot_delay_the_reservation() {
    enum Expect {
        Backfilled(Vec<(u32, u64)>),
        Held(Reason),
    }
    use Expect::*;
    let delay = Reason::WouldDelay { job: JobId(1), start_at: 2000 };
    let table: Vec<(u32, u64, Expect, &str)> = vec![
        (2, 600, Backfilled(vec![(0, 0b1100)]), "short: ends at 1600, before the reservation"),
        (2, 1000, Backfilled(vec![(0, 0b1100)]), "ends exactly when the reservation starts"),
        (2, 1001, Held(delay.clone()), "one second too long"),
        (2, 7200, Held(delay), "long, and it would need reserved GPUs"),
        (1, 7200, Backfilled(vec![(1, 0b1000)]), "long, but only on a GPU nobody reserved"),
    ];
    for (gpus, limit, expect, why) in table {
        let snap = busy().pending(job(2).gpus(gpus).limit(limit).at(1)).build();
        let plan = run(&snap, NOW);
        assert_eq!(reason(&plan, 1), &Reason::Reserved { start_at: 2000 }, "{why}");
        match expect {
            Backfilled(want) => {
                let p = placed(&plan, 2);
                assert_eq!(slots(p), want, "{why}");
                assert!(p.backfilled, "{why}: a job started ahead of a reserved one is marked backfilled");
                assert!(p.basis().contains("backfilled"), "{why}: the receipt says so (D3)");
            }
            Held(want) => assert_eq!(reason(&plan, 2), &want, "{why}"),
        }
    }
}

// D1, D5: all of the above in one queue: the reservation is honoured, holes are used,
// and the reserved GPUs are all free again by the reserved start.
#[test]
fn one_queue_backfills_around_the_reservation() {
    let snap = busy()
        .pending(job(2).gpus(2).limit(7200).at(1))
        .pending(job(3).gpus(1).limit(7200).at(2))
        .pending(job(4).gpus(2).limit(600).at(3))
        .pending(job(5).gpus(1).limit(600).at(4))
        .build();
    let plan = run(&snap, NOW);
    assert_eq!(reason(&plan, 1), &Reason::Reserved { start_at: 2000 });
    assert_eq!(reason(&plan, 2), &Reason::WouldDelay { job: JobId(1), start_at: 2000 });
    assert_eq!(slots(placed(&plan, 3)), vec![(1, 0b1000)]);
    assert_eq!(slots(placed(&plan, 4)), vec![(0, 0b1100)]);
    assert_eq!(reason(&plan, 5), &Reason::NoCapacity { requested: 1, free: 0 });

    let r = plan.reservations.first().unwrap();
    for p in &plan.placements {
        let job = &snap.pending[p.pending_index as usize];
        let ends = NOW + job.time_limit_s.unwrap() as i64;
        let overlaps =
            p.slots.iter().any(|s| r.slots.iter().any(|rs| rs.node == s.node && rs.gpus & s.gpus != 0));
        assert!(
            !overlaps || ends <= r.start_at,
            "job {} would still hold reserved GPUs at t={}",
            job.id.0,
            r.start_at
        );
    }
}

// D1: only the highest blocked job reserves; the next blocked one waits with a plain reason.
#[test]
fn only_the_highest_blocked_job_holds_a_reservation() {
    let snap = busy().pending(job(2).gpus(4).at(1)).build();
    let plan = run(&snap, NOW);
    assert_eq!(reason(&plan, 1), &Reason::Reserved { start_at: 2000 });
    assert_eq!(reason(&plan, 2), &Reason::NoCapacity { requested: 4, free: 1 });
    assert_eq!(plan.reservations.first().map(|r| r.job), Some(JobId(1)));
}

// D1: with backfill off the queue is strict first-come-first-served: nothing starts
// ahead of the blocked job, not even a short job that would fit.
#[test]
fn without_backfill_nothing_jumps_the_queue() {
    let snap = busy().config(|c| c.backfill = false).pending(job(2).gpus(1).limit(60).at(1)).build();
    let plan = run(&snap, NOW);
    assert!(plan.placements.is_empty(), "{plan:#?}");
    assert!(plan.reservations.is_empty());
    assert_eq!(reason(&plan, 1), &Reason::NoCapacity { requested: 4, free: 3 });
    assert_eq!(reason(&plan, 2), &Reason::QueuedBehind { job: JobId(1) });
}

// D1, D5: a reservation concerns its own GPU model only: a job of another model neither
// starts on the withheld GPUs nor is told it would delay the reserved job; the highest
// blocked job of that other model gets a reservation of its own.
#[test]
fn a_reservation_only_concerns_its_own_gpu_model() {
    for limit in [60, 7200] {
        let snap = cluster()
            .nodes(1, 8) // node 0: A100
            .model_nodes("H100", 1, 4) // node 1: H100
            .group("a", 16)
            .model_quota(0, 1, 8)
            .running(alloc(100).on(0, 0x0F).started(0).limit(3600))
            .running(alloc(101).model(1).on(1, 0x0F).started(0).limit(7200))
            .pending(job(1).gpus(8))
            .pending(job(2).model(1).limit(limit).at(1))
            .build();
        let plan = run(&snap, NOW);
        assert_eq!(reason(&plan, 1), &Reason::Reserved { start_at: 3600 });
        assert!(plan.placements.is_empty(), "an H100 job on A100 GPUs: {plan:#?}");
        assert_eq!(reason(&plan, 2), &Reason::Reserved { start_at: 7200 }, "limit {limit}");
        let reserved: Vec<_> = plan.reservations.iter().map(|r| (r.job, r.start_at)).collect();
        assert_eq!(reserved, vec![(JobId(1), 3600), (JobId(2), 7200)]);
    }
}
