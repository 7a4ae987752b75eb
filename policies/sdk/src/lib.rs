//! The guest SDK for Tidepool policy modules.
//!
//! A module implements one world of `policies/wit/v1` (package `tidepool:policy@1.0.0`):
//! turn on the matching feature (`priority`, `quota` or `reclaim`), implement the
//! generated `Guest` trait, and call the export macro:
//!
//! ```ignore
//! use tidepool_policy_sdk::priority::{export_priority, Context, Guest, Jobs};
//! struct Mine;
//! impl Guest for Mine {
//!     fn score(ctx: Context, jobs: Jobs) -> Result<Vec<i64>, String> { ... }
//! }
//! export_priority!(Mine);
//! ```
//!
//! The interface version is embedded in the module by the bindings: its export is named
//! `tidepool:policy/<kind>@1.0.0`, which the host checks before it loads the module.
//! Batches arrive as columns (entry `i` of every list is job `i`), so 50,000 jobs cross
//! the sandbox boundary as a few copies. Besides the bindings, the SDK converts rows into
//! the core's types, so a module can reuse the dispatcher's own building blocks (the
//! quota ledger, the built-in policies).

/// The interface version this SDK builds modules for.
pub const INTERFACE_VERSION: &str = "1.0.0";

pub use tidepool_core as core;

#[cfg(feature = "priority")]
pub mod priority;
#[cfg(feature = "quota")]
pub mod quota;
#[cfg(feature = "reclaim")]
pub mod reclaim;

/// The core's class for a class code (0 batch … 3 critical); unknown codes are normal.
pub fn class(code: u8) -> core::PriorityClass {
    use core::PriorityClass as P;
    match code {
        0 => P::Batch,
        1 => P::Experiment,
        3 => P::Critical,
        _ => P::Normal,
    }
}

/// The core's category for a category code (0 training, 1 inference, 2 pretraining).
pub fn category(code: u8) -> core::Category {
    use core::Category as C;
    match code {
        1 => C::Inference,
        2 => C::Pretraining,
        _ => C::Training,
    }
}

/// `job` conversion for worlds that receive jobs.
#[allow(unused_macros)]
macro_rules! convert_job {
    () => {
        /// Job `i` of the batch as the core's job (placement fields the policy never sees
        /// are left at their defaults).
        pub fn job(jobs: &t::Jobs, i: usize) -> $crate::core::Job {
            use $crate::core as c;
            use $crate::{category, class};
            c::Job {
                id: c::JobId(jobs.id[i]),
                group: c::GroupId(jobs.group[i]),
                category: category(jobs.category[i]),
                class: class(jobs.class[i]),
                gpus: jobs.gpus[i],
                model: c::ModelId(jobs.model[i] as u16),
                topology: c::Topology::Any,
                time_limit_s: Some(jobs.time_limit_s[i]).filter(|&s| s > 0),
                checkpointable: jobs.checkpointable[i] != 0,
                submitted_at: jobs.submitted_at[i],
                queued_at: jobs.queued_at[i],
                attained_gpu_s: jobs.attained_gpu_s[i],
            }
        }
    };
}

#[allow(unused_imports)]
pub(crate) use convert_job;
