//! Helpers shared by the core's table tests: run a cycle, then ask what happened to a job.
#![allow(dead_code)]

use tidepool_core::{Hold, NativePolicies, Placement, Plan, Preemption, Reason, Snapshot, Time, plan};

/// One cycle with the built-in policies.
pub fn run(snap: &Snapshot, now: Time) -> Plan {
    plan(snap, now, &NativePolicies::default())
}

pub fn hold(plan: &Plan, job: u64) -> &Hold {
    plan.holds.iter().find(|h| h.job.0 == job).unwrap_or_else(|| panic!("job {job} is not held: {plan:#?}"))
}

/// Why `job` is pending; panics (showing the plan) if it is not held.
pub fn reason(plan: &Plan, job: u64) -> &Reason {
    &hold(plan, job).reason
}

/// Where `job` was placed; panics (showing the plan) if it was not.
pub fn placed(plan: &Plan, job: u64) -> &Placement {
    plan.placements
        .iter()
        .find(|p| p.job.0 == job)
        .unwrap_or_else(|| panic!("job {job} is not placed: {plan:#?}"))
}

pub fn is_placed(plan: &Plan, job: u64) -> bool {
    plan.placements.iter().any(|p| p.job.0 == job)
}

/// The running jobs this plan stops, by job id.
pub fn preempted(plan: &Plan) -> Vec<u64> {
    plan.preemptions.iter().map(|p| p.job.0).collect()
}

pub fn preemption(plan: &Plan, job: u64) -> &Preemption {
    plan.preemptions
        .iter()
        .find(|p| p.job.0 == job)
        .unwrap_or_else(|| panic!("job {job} is not preempted: {plan:#?}"))
}

/// `(node, gpu mask)` pairs of a placement, sorted by node.
pub fn slots(p: &Placement) -> Vec<(u32, u64)> {
    let mut v: Vec<(u32, u64)> = p.slots.iter().map(|s| (s.node.0, s.gpus)).collect();
    v.sort_unstable();
    v
}

pub fn gpu_count(p: &Placement) -> u32 {
    p.slots.iter().map(|s| s.gpus.count_ones()).sum()
}
