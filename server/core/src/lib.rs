//! Tidepool's scheduling core: pure (no I/O, no clock, no async runtime), so the live
//! dispatcher, the trace simulator and the tests all drive the very same decisions.

/// Alert rules (O2): thresholds, de-duplication keys, recipients, repeats and retries.
pub mod alerts;
/// Checkpoint arithmetic for resumed segments (D4).
pub mod checkpoint;
/// The dispatch cycle, `plan()`, and what it returns.
pub mod cycle;
/// Domain types: nodes and GPUs, groups, jobs, allocations.
pub mod model;
/// The priority, quota and reclaim policies, and the built-in defaults.
pub mod policy;
/// Quotas, loans and the ledger that accounts GPUs against them.
pub mod quota;
/// Why a job waits or a running job is stopped, in words.
pub mod reason;
/// The weekly report's arithmetic: percentiles, cost, forecasts, overlaps.
pub mod report;
/// The input of a dispatch cycle.
pub mod snapshot;
/// Builders for snapshots in tests, the simulator and benchmarks.
#[cfg(feature = "testkit")]
pub mod testkit;
/// Usage history arithmetic: spans cut into hours, samples, roll-up sums.
pub mod usage;

pub use cycle::{Hold, Placement, Plan, Preemption, Reservation, plan};
pub use model::*;
pub use policy::{NativePolicies, Policies, Verdict};
pub use quota::{Ask, Demand, Ledger, Loan, Quota};
pub use reason::{PreemptReason, Reason};
pub use snapshot::{CycleConfig, Snapshot, TimeShare};
