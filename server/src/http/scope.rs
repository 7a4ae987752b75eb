//! The checks every handler shares, re-exported from the domain: who acts for which
//! group ([`crate::access`]) and the text rules ([`crate::input`]). An
//! [`AccessError`](crate::access::AccessError) answers 403 or 422 (`domain_errors.rs`).

pub use crate::access::{acting_group, belongs, group_named, manages, require_admin, require_manager};
pub use crate::input::{clean, command, filter, one_of, text};
pub use crate::jobs::{CATEGORIES, CLASSES, TOPOLOGIES};
