//! The reclaim world: order running jobs for preemption.

wit_bindgen::generate!({
    path: "../wit/v1",
    world: "reclaim-policy",
    pub_export_macro: true,
    export_macro_name: "export_reclaim",
    default_bindings_module: "tidepool_policy_sdk::reclaim",
});

pub use exports::tidepool::policy::reclaim::Guest;
pub use tidepool::policy::types::{Allocations, Category, Context, PriorityClass};

pub use crate::{category, class};
