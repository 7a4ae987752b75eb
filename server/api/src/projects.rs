//! Projects (P2, `GET/POST /api/projects`, oldest first, a page at a time): a group's
//! named work, granted a priority class until an expiry and up to a GPU cap by the
//! group's manager, who renews it (`POST /api/projects/{id}/renew`).

use serde::{Deserialize, Serialize};

/// One project and its grant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Project {
    pub id: i64,
    pub name: String,
    pub group: String,
    /// The highest class its jobs may ask for: `batch`, `experiment`, `normal` or `critical`.
    pub class: String,
    /// The most GPUs its jobs may hold at that class; none: no cap.
    pub gpu_cap: Option<i64>,
    /// When the grant ends (Unix seconds).
    pub expires_at: i64,
    /// When the manager was last reminded of the expiry.
    pub reminded_at: Option<i64>,
    /// Who granted (or last renewed) it.
    pub granted_by: String,
    /// GPUs its running jobs hold now.
    pub running_gpus: i64,
    pub expired: bool,
    /// The grant ends within a week.
    pub expiring_soon: bool,
}

/// A page of projects; `next` goes in `?after=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProjectPage {
    pub projects: Vec<Project>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// Granting a project priority.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewProject {
    pub name: String,
    /// Admins name the group; managers grant in their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// `batch`, `experiment`, `normal` or `critical`.
    pub class: String,
    /// At least 1; omitted: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_cap: Option<u32>,
    /// In the future, within a year (Unix seconds).
    pub expires_at: i64,
}

/// What granting a project answers (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProjectCreated {
    pub id: i64,
    pub name: String,
}

/// Renewing a project's grant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Renew {
    /// The new end, in the future, within a year (Unix seconds).
    pub expires_at: i64,
}

/// What a renewal answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Renewed {
    pub id: i64,
    pub expires_at: i64,
}
