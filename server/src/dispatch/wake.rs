//! What wakes the dispatcher before its timer, and whether a wake-up still brings news.
//!
//! Every write the next cycle must see (a job's end, a cancellation, changed capacity,
//! quotas or loans, a standby's nudge, a submission) is counted, then wakes it. A cycle
//! notes the count before it reads the records; woken later with the count unchanged,
//! it has seen everything it was woken for (a count is taken after its write commits),
//! and the wake-up is skipped. Without this, a job's end recorded while the previous
//! cycle was getting ready woke a second cycle that found nothing to do, and the next
//! useful one waited behind it: in `bench e2e`, one empty cycle in every round of 64.
//!
//! New submissions are planned at once while GPUs are idle; while none is, they wait up
//! to [`SUBMIT_BATCH`] to be planned together. Planned one wake-up at a time, each cost a
//! whole cycle that could start nothing, and under a burst those cycles held back the
//! ones that could: 8 clients submitting at ~900/s kept cycles at ~100 ms. Capacity that
//! frees up still wakes the dispatcher at once, and that cycle plans the new jobs too.
//! Slurm's `defer` and `batch_sched_delay` make the same trade.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// How long new submissions wait to be planned together while no GPU is idle.
pub const SUBMIT_BATCH: Duration = Duration::from_millis(500);

#[derive(Default)]
pub struct Wake {
    now: Notify,
    submitted: Notify,
    changes: AtomicU64,
}

impl Wake {
    /// A write the next cycle must act on has committed: plan at once.
    pub fn changed(&self) {
        self.changes.fetch_add(1, Ordering::SeqCst);
        self.now.notify_one();
    }

    /// A job was submitted (and committed).
    pub fn submitted(&self) {
        self.changes.fetch_add(1, Ordering::SeqCst);
        self.submitted.notify_one();
    }

    /// Writes counted so far; a cycle takes it before it reads the records.
    pub fn changes(&self) -> u64 {
        self.changes.load(Ordering::SeqCst)
    }

    /// Waits for the next reason to plan: true if woken with news since `seen` (the
    /// count the last cycle began with), false when `every` passed first. `saturated`:
    /// when the last cycle ended, if it left no GPU idle.
    pub async fn next(&self, every: Duration, seen: Option<u64>, saturated: Option<Instant>) -> bool {
        let timer = tokio::time::sleep(every);
        tokio::pin!(timer);
        loop {
            tokio::select! {
                _ = self.now.notified() => {}
                _ = self.submitted.notified() => {
                    if let Some(at) = saturated {
                        tokio::select! {
                            _ = self.now.notified() => {}
                            _ = tokio::time::sleep_until(at + SUBMIT_BATCH) => {}
                        }
                    }
                }
                _ = &mut timer => return false,
            }
            if seen != Some(self.changes()) {
                return true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_wake_up_without_news_since_the_last_cycle_is_skipped() {
        let wake = Wake::default();
        wake.changed();
        let seen = Some(wake.changes());
        // Woken after the cycle began, by a write it had already seen: no cycle.
        let every = Duration::from_millis(200);
        assert!(!wake.next(every, seen, None).await, "only the timer ends the wait");
        wake.changed();
        assert!(wake.next(every, seen, None).await, "news wakes it");
    }

    #[tokio::test]
    async fn submissions_wait_for_the_batch_while_no_gpu_is_idle() {
        let wake = Wake::default();
        let every = Duration::from_secs(60);
        // Well under the batch: planned at once, not batched.
        let soon = SUBMIT_BATCH / 2;
        let start = Instant::now();
        wake.submitted();
        assert!(wake.next(every, Some(0), None).await);
        assert!(start.elapsed() < soon, "GPUs idle: at once");
        wake.submitted();
        assert!(wake.next(every, Some(1), Some(start)).await);
        assert!(start.elapsed() >= SUBMIT_BATCH, "saturated: batched");
        // A job's end cuts the batch short.
        let at = Instant::now();
        wake.submitted();
        wake.changed();
        assert!(wake.next(every, Some(2), Some(at)).await);
        assert!(at.elapsed() < soon);
    }
}
