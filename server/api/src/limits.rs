//! Time limits by priority class (`GET/PUT /api/settings/limits`, P1): the limit a job of
//! each class gets when it names none, and the most it may ask for. Everyone signed in
//! reads them; admins change them.

use serde::{Deserialize, Serialize};

/// One class's limits, in seconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClassLimit {
    /// `batch`, `experiment`, `normal` or `critical`.
    pub class: String,
    /// The limit of a job of the class that names none.
    pub default_s: u64,
    /// The longest limit a job of the class may ask for; longer is refused.
    pub max_s: u64,
}

/// Every class's limits (in a PUT: the classes to change; the others keep theirs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClassLimits {
    pub classes: Vec<ClassLimit>,
}
