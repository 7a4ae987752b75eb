//! The default quota policy as a module: every job that fits its group's guarantee
//! first, then the rest on idle GPUs of other groups under approved loans — the
//! dispatcher's built-in rule, run on the SDK's ledger.

use tidepool_policy_sdk::core::policy::NativeQuota;
use tidepool_policy_sdk::quota::{Context, Guest, Job, Loan, Quota, Verdict, batch, export_quota, verdict};

struct DefaultQuota;

impl Guest for DefaultQuota {
    fn decide(
        ctx: Context,
        jobs: Vec<Job>,
        quotas: Vec<Quota>,
        loans: Vec<Loan>,
    ) -> Result<Vec<Verdict>, String> {
        let (snap, ledger) = batch(&ctx, &jobs, &quotas, &loans);
        let order: Vec<u32> = (0..jobs.len() as u32).collect();
        Ok(NativeQuota.verdicts(&snap, &order, &ledger).into_iter().map(verdict).collect())
    }
}

export_quota!(DefaultQuota);
