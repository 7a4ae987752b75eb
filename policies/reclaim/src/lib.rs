//! The default reclaim policy as a module: borrowers first, then the lowest class, then
//! the least work lost since the last checkpoint — the dispatcher's built-in rule.

use tidepool_policy_sdk::core::policy::NativeReclaim;
use tidepool_policy_sdk::reclaim::{Allocation, Context, Guest, class, export_reclaim};

struct DefaultReclaim;

impl Guest for DefaultReclaim {
    fn rank(_ctx: Context, allocations: Vec<Allocation>) -> Result<Vec<i64>, String> {
        Ok(allocations
            .iter()
            .map(|a| NativeReclaim::score_parts(a.borrowed_gpus > 0, class(a.class), a.work_at_risk_gpu_s))
            .collect())
    }
}

export_reclaim!(DefaultReclaim);
