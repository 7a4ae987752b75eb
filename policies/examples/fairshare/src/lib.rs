//! Half-life decayed fair share (as Slurm's multifactor priority): a group that has used
//! less than its share of the pool lately goes first. A group's recent usage is GPU-hours
//! decayed with a half-life (kept by the dispatcher, sent in the context); its share is
//! its guarantee's part of all guarantees. The fair-share factor is 2^(-usage/share),
//! in (0, 1]: 1 for a group that used nothing, ½ for one that used exactly its share.
//! Class still comes first; within a class, the factor; then least attained service.

use tidepool_policy_sdk::priority::{Context, Guest, Jobs, class, export_priority};

struct FairShare;

impl Guest for FairShare {
    fn score(ctx: Context, jobs: Jobs) -> Result<Vec<i64>, String> {
        let total_share: f64 = ctx.group_guaranteed.iter().map(|&g| f64::from(g)).sum::<f64>().max(1.0);
        let total_usage: f64 = ctx.group_recent_gpu_h.iter().sum::<f64>().max(1e-9);
        let factor: Vec<f64> = ctx
            .group_guaranteed
            .iter()
            .zip(&ctx.group_recent_gpu_h)
            .map(|(&guaranteed, &used)| {
                let share = (f64::from(guaranteed) / total_share).max(1e-6);
                2f64.powf(-(used / total_usage) / share)
            })
            .collect();
        Ok((0..jobs.id.len())
            .map(|i| {
                let f = factor.get(jobs.group[i] as usize).copied().unwrap_or(0.5);
                let fair = (f * 1_000_000.0) as i64; // 20 bits
                let attained_h = (jobs.attained_gpu_s[i] / 3600).min(0xFFFF) as i64;
                (i64::from(class(jobs.class[i]) as u8) << 40) | (fair << 16) | (0xFFFF - attained_h)
            })
            .collect())
    }
}

export_priority!(FairShare);
