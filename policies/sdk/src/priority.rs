//! The priority world: order the queue.

wit_bindgen::generate!({
    path: "../wit/v1",
    world: "priority-policy",
    pub_export_macro: true,
    export_macro_name: "export_priority",
    default_bindings_module: "tidepool_policy_sdk::priority",
});

pub use exports::tidepool::policy::priority::Guest;
pub use tidepool::policy::types::{Category, Context, Jobs, PriorityClass};

pub use crate::{category, class};
use tidepool::policy::types as t;
crate::convert_job!();
