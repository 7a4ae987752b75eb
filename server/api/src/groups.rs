//! Groups (`GET /api/groups`, oldest first, a page at a time).

use serde::{Deserialize, Serialize};

/// A research group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub id: i64,
    pub name: String,
}

/// A page of groups; `next` goes in `?after=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GroupPage {
    pub groups: Vec<Group>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}
