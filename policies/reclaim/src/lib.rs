//! The default reclaim policy as a module: borrowers first, then the lowest class, then
//! the least work lost since the last checkpoint — the dispatcher's built-in rule.

use tidepool_policy_sdk::core::policy::NativeReclaim;
use tidepool_policy_sdk::reclaim::{Allocations, Context, Guest, class, export_reclaim};

struct DefaultReclaim;

impl Guest for DefaultReclaim {
    fn rank(_ctx: Context, a: Allocations) -> Result<Vec<i64>, String> {
        Ok((0..a.job.len())
            .map(|i| {
                NativeReclaim::score_parts(a.borrowed_gpus[i] > 0, class(a.class[i]), a.work_at_risk_gpu_s[i])
            })
            .collect())
    }
}

export_reclaim!(DefaultReclaim);
