//! Checkpoint arithmetic for jobs that run in segments (D4). A resumed segment first
//! spends `restart_overhead_s` restoring state; after that it does useful work and
//! writes a checkpoint every `interval_s` seconds of useful work. When a segment is
//! interrupted, the work since the last checkpoint is lost and nothing else.

use crate::model::Time;

/// How a job checkpoints; `interval_s == 0` means it never does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpointing {
    pub interval_s: u64,
    pub restart_overhead_s: u64,
}

impl Checkpointing {
    /// Useful work done by a segment that ran `elapsed_s` seconds, resumed or not.
    pub fn useful_s(&self, elapsed_s: u64, resumed: bool) -> u64 {
        let overhead = if resumed { self.restart_overhead_s } else { 0 };
        elapsed_s.saturating_sub(overhead)
    }

    /// Work a segment keeps when interrupted after `elapsed_s` seconds: everything up to
    /// its last checkpoint, capped at the work that was left to do.
    pub fn saved_s(&self, elapsed_s: u64, resumed: bool, remaining_s: u64) -> u64 {
        if self.interval_s == 0 {
            return 0;
        }
        let useful = self.useful_s(elapsed_s, resumed).min(remaining_s);
        useful / self.interval_s * self.interval_s
    }

    /// When the segment that started at `started_at` last wrote a checkpoint.
    pub fn last_checkpoint_at(&self, started_at: Time, now: Time, resumed: bool) -> Option<Time> {
        if self.interval_s == 0 {
            return None;
        }
        let overhead = if resumed { self.restart_overhead_s } else { 0 } as Time;
        let useful = (now - started_at - overhead).max(0);
        let done = useful / self.interval_s as Time;
        (done > 0).then(|| started_at + overhead + done * self.interval_s as Time)
    }

    /// Seconds a segment needs to finish `remaining_s` of work.
    pub fn segment_s(&self, remaining_s: u64, resumed: bool) -> u64 {
        remaining_s + if resumed { self.restart_overhead_s } else { 0 }
    }
}
