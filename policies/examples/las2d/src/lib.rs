//! Two-dimensional least attained service (Tiresias, NSDI'19): a job's service is its
//! GPUs × time received, so a wide job ages through the queues as fast as it consumes
//! the pool. Jobs fall into discrete queues by attained service (thresholds below);
//! lower queues go first, first come first served inside a queue, so a long job is not
//! preempted by every newcomer. A job that has waited `STARVE_FACTOR` times its own
//! service (at least an hour) is promoted to the first queue. Critical work stays first.

use tidepool_policy_sdk::core::PriorityClass;
use tidepool_policy_sdk::priority::{Context, Guest, Jobs, class, export_priority};

/// Queue boundaries in GPU-hours of attained service.
const QUEUES_GPU_H: [u64; 3] = [1, 16, 256];
/// Waited this many times its attained service: promoted to the first queue.
const STARVE_FACTOR: i64 = 8;

struct Las2d;

fn queue(attained_gpu_s: u64) -> u64 {
    QUEUES_GPU_H.iter().take_while(|&&limit| attained_gpu_s >= limit * 3600).count() as u64
}

impl Guest for Las2d {
    fn score(ctx: Context, jobs: Jobs) -> Result<Vec<i64>, String> {
        Ok((0..jobs.id.len())
            .map(|i| {
                let attained = jobs.attained_gpu_s[i];
                let waited = (ctx.now - jobs.queued_at[i]).max(0);
                let starved = waited >= (STARVE_FACTOR * attained as i64).max(3600) && attained > 0;
                let q = if starved { 0 } else { queue(attained) };
                let critical = u64::from(class(jobs.class[i]) == PriorityClass::Critical);
                // Higher first: critical, then the lowest queue; ties by submission (the
                // dispatcher breaks them), so the score carries no time.
                ((critical << 8) | (QUEUES_GPU_H.len() as u64 - q)) as i64
            })
            .collect())
    }
}

export_priority!(Las2d);
