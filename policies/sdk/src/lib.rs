//! The guest SDK for Tidepool policy modules.
//!
//! A module implements one world of `policies/wit/v1` (package `tidepool:policy@1.0.0`):
//! turn on the matching feature (`priority`, `quota` or `reclaim`), implement the
//! generated `Guest` trait, and call the export macro:
//!
//! ```ignore
//! use tidepool_policy_sdk::priority::{export_priority, Context, Guest, Job};
//! struct Mine;
//! impl Guest for Mine {
//!     fn score(ctx: Context, jobs: Vec<Job>) -> Result<Vec<i64>, String> { ... }
//! }
//! export_priority!(Mine);
//! ```
//!
//! The interface version is embedded in the module by the bindings: its export is named
//! `tidepool:policy/<kind>@1.0.0`, which the host checks before it loads the module.
//! Besides the bindings, the SDK converts records into the core's types, so a module can
//! reuse the dispatcher's own building blocks (the quota ledger, the built-in policies).

/// The interface version this SDK builds modules for.
pub const INTERFACE_VERSION: &str = "1.0.0";

pub use tidepool_core as core;

#[cfg(feature = "priority")]
pub mod priority;
#[cfg(feature = "quota")]
pub mod quota;
#[cfg(feature = "reclaim")]
pub mod reclaim;

/// Conversions shared by the three worlds; each world's module instantiates them for its
/// own generated record types.
#[allow(unused_macros)]
macro_rules! convert_enums {
    ($types:path) => {
        use $types as t;

        /// The core's class for an interface class.
        pub fn class(c: t::PriorityClass) -> $crate::core::PriorityClass {
            use $crate::core::PriorityClass as P;
            match c {
                t::PriorityClass::Batch => P::Batch,
                t::PriorityClass::Experiment => P::Experiment,
                t::PriorityClass::Normal => P::Normal,
                t::PriorityClass::Critical => P::Critical,
            }
        }

        /// The core's category for an interface category.
        pub fn category(c: t::Category) -> $crate::core::Category {
            use $crate::core::Category as C;
            match c {
                t::Category::Training => C::Training,
                t::Category::Inference => C::Inference,
                t::Category::Pretraining => C::Pretraining,
            }
        }
    };
}

/// `job` conversion for worlds that receive jobs.
#[allow(unused_macros)]
macro_rules! convert_job {
    () => {
        /// The core's job for an interface job (placement fields the policy never sees
        /// are left at their defaults).
        pub fn job(j: &t::Job) -> $crate::core::Job {
            use $crate::core as c;
            c::Job {
                id: c::JobId(j.id),
                group: c::GroupId(j.group),
                category: category(j.category),
                class: class(j.class),
                gpus: j.gpus,
                model: c::ModelId(j.model as u16),
                topology: c::Topology::Any,
                time_limit_s: j.time_limit_s,
                checkpointable: j.checkpointable,
                submitted_at: j.submitted_at,
                queued_at: j.queued_at,
                attained_gpu_s: j.attained_gpu_s,
            }
        }
    };
}

#[allow(unused_imports)]
pub(crate) use {convert_enums, convert_job};
