//! The default priority policy as a module: class, then aging, then least attained
//! service — the dispatcher's built-in rule, so both always agree.

use tidepool_policy_sdk::core::policy::NativePriority;
use tidepool_policy_sdk::priority::{Context, Guest, Job, export_priority, job};

struct DefaultPriority;

impl Guest for DefaultPriority {
    fn score(ctx: Context, jobs: Vec<Job>) -> Result<Vec<i64>, String> {
        let rule = NativePriority::default();
        Ok(jobs.iter().map(|j| rule.score(&job(j), ctx.now)).collect())
    }
}

export_priority!(DefaultPriority);
