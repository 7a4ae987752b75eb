//! The default quota policy as a module: every job that fits its group's guarantee
//! first, then the rest on idle GPUs of other groups under approved loans — the
//! dispatcher's built-in rule, run on the SDK's ledger.

use tidepool_policy_sdk::core::policy::NativeQuota;
use tidepool_policy_sdk::quota::{
    Context, Decisions, Guest, Jobs, Loan, Quota, asks, decisions, export_quota, ledger,
};

struct DefaultQuota;

impl Guest for DefaultQuota {
    fn decide(
        ctx: Context,
        jobs: Jobs,
        order: Vec<u32>,
        quotas: Vec<Quota>,
        loans: Vec<Loan>,
    ) -> Result<Decisions, String> {
        if order.iter().any(|&i| i as usize >= jobs.id.len()) {
            return Err("order names a job that is not in the batch".into());
        }
        let ledger = ledger(&ctx, &quotas, &loans);
        Ok(decisions(NativeQuota.decide(&asks(&ctx, &jobs, &order), ctx.models.len(), &ledger)))
    }
}

export_quota!(DefaultQuota);
