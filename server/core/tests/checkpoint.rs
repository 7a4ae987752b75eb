//! Jobs run in segments: an interrupted job resumes from its last checkpoint and loses
//! only the work done since then. // D4, R3

use tidepool_core::checkpoint::Checkpointing;
use tidepool_core::testkit::alloc;

const CKPT: Checkpointing = Checkpointing { interval_s: 600, restart_overhead_s: 60 };

// D4: what one segment keeps when it is interrupted after `elapsed` seconds.
#[test]
fn an_interrupted_segment_keeps_everything_up_to_its_last_checkpoint() {
    // (elapsed, resumed, work left before the segment, kept)
    let table: [(u64, bool, u64, u64); 8] = [
        (599, false, 10_000, 0),
        (600, false, 10_000, 600),
        (2000, false, 10_000, 1800),
        (659, true, 10_000, 0),   // restoring state is not work
        (660, true, 10_000, 600), // the first checkpoint of a resumed segment
        (2000, true, 10_000, 1800),
        (60, true, 10_000, 0), // interrupted while restoring
        (30, true, 10_000, 0),
    ];
    for (elapsed, resumed, remaining, kept) in table {
        assert_eq!(CKPT.saved_s(elapsed, resumed, remaining), kept, "{elapsed}s, resumed {resumed}");
    }
    // Never more than the work that was left.
    assert!(CKPT.saved_s(5000, false, 1300) <= 1300);
}

// D4: across a whole run of segments, the work lost to each interruption is exactly the
// work since that segment's last checkpoint, and is always less than one interval.
#[test]
fn a_job_resumed_twice_loses_only_the_work_since_each_checkpoint() {
    let total: u64 = 10_000;
    let mut remaining = total;
    let mut lost = 0;
    let mut wall = 0;
    // Two interruptions, then the segment that finishes.
    for (k, elapsed) in [2000u64, 1500].into_iter().enumerate() {
        let resumed = k > 0;
        let useful = CKPT.useful_s(elapsed, resumed);
        let kept = CKPT.saved_s(elapsed, resumed, remaining);
        assert!(useful - kept < CKPT.interval_s, "segment {k} lost {}s", useful - kept);
        assert_eq!(kept % CKPT.interval_s, 0, "segment {k} keeps whole intervals");
        lost += useful - kept;
        remaining -= kept;
        wall += elapsed;
    }
    assert_eq!(lost, 200 + 240, "2000 = 3 checkpoints + 200; 1500 - 60 overhead = 2 checkpoints + 240");
    assert_eq!(remaining, total - 1800 - 1200);
    let last = CKPT.segment_s(remaining, true);
    assert_eq!(last, remaining + 60, "the final segment pays the restart once");
    wall += last;
    assert_eq!(wall, total + lost + 60 + 60, "wall time = work + lost work + two restarts");
}

// D4: without checkpoints an interrupted job starts over.
#[test]
fn a_job_that_never_checkpoints_keeps_nothing() {
    let never = Checkpointing { interval_s: 0, restart_overhead_s: 0 };
    for elapsed in [0, 599, 600, 86_400] {
        assert_eq!(never.saved_s(elapsed, false, 100_000), 0);
        assert_eq!(never.last_checkpoint_at(1000, 1000 + elapsed as i64, false), None);
    }
}

// D4, R3: the checkpoint time the simulator reports agrees with what a segment keeps, and
// the planner's work-at-risk (what preemption would throw away now) is exactly the lost
// work, on every GPU the job holds.
#[test]
fn last_checkpoint_and_work_at_risk_agree_with_what_is_kept() {
    let started = 50_000;
    for resumed in [false, true] {
        for elapsed in (0..4000u64).step_by(97) {
            let now = started + elapsed as i64;
            let kept = CKPT.saved_s(elapsed, resumed, u64::MAX);
            let at = CKPT.last_checkpoint_at(started, now, resumed);
            let overhead = if resumed { CKPT.restart_overhead_s } else { 0 };
            match at {
                None => assert_eq!(kept, 0, "{elapsed}s"),
                Some(at) => {
                    assert_eq!(at - started - overhead as i64, kept as i64, "{elapsed}s, resumed {resumed}");
                    assert!(at <= now);
                }
            }
            let mut running = alloc(1).on(0, 0b1111).started(started);
            if let Some(at) = at {
                running = running.checkpoint(at);
            }
            let a = running.build();
            let lost = match at {
                Some(_) => CKPT.useful_s(elapsed, resumed) - kept,
                None => elapsed, // nothing saved: the whole segment, restore included
            };
            assert_eq!(a.work_at_risk_gpu_s(now), lost * 4, "{elapsed}s, resumed {resumed}");
        }
    }
}

// R3: a job that cannot checkpoint risks everything since it started, whatever it reports.
#[test]
fn work_at_risk_ignores_checkpoints_of_jobs_that_cannot_checkpoint() {
    let a = alloc(1).on(0, 0b11).started(1000).checkpoint(1900).not_checkpointable().build();
    assert_eq!(a.work_at_risk_gpu_s(2000), 1000 * 2);
    let b = alloc(1).on(0, 0b11).started(1000).checkpoint(1900).build();
    assert_eq!(b.work_at_risk_gpu_s(2000), 100 * 2);
    // A checkpoint from an earlier segment does not count for this one.
    let c = alloc(1).on(0, 0b11).started(1000).checkpoint(500).build();
    assert_eq!(c.work_at_risk_gpu_s(2000), 1000 * 2);
}
