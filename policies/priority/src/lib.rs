//! The default priority policy as a module: class, then aging, then least attained
//! service — the dispatcher's built-in rule, so both always agree.

use tidepool_policy_sdk::core::policy::NativePriority;
use tidepool_policy_sdk::priority::{Context, Guest, Jobs, class, export_priority};

struct DefaultPriority;

impl Guest for DefaultPriority {
    fn score(ctx: Context, jobs: Jobs) -> Result<Vec<i64>, String> {
        let rule = NativePriority::default();
        Ok((0..jobs.id.len())
            .map(|i| {
                rule.score_parts(class(jobs.class[i]), ctx.now - jobs.queued_at[i], jobs.attained_gpu_s[i])
            })
            .collect())
    }
}

export_priority!(DefaultPriority);
