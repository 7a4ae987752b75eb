//! Templates (`GET /api/templates`, oldest first, a page at a time): frozen job shapes a
//! group launches in one step (T1), granted to other groups by the owner's manager (T2),
//! with their usage for the retirement review (T3).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One template with its grants and usage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub id: i64,
    pub name: String,
    /// The owning group.
    pub group: String,
    pub group_id: i64,
    pub category: String,
    pub class: String,
    pub gpus: i64,
    pub model: String,
    pub topology: String,
    pub time_limit_s: Option<i64>,
    pub checkpointable: bool,
    /// The container image; empty: the node's sandbox.
    pub image: String,
    pub command: String,
    /// The frozen environment; values masked unless `env_shown`.
    pub env: Option<BTreeMap<String, String>>,
    /// Whether `env` holds the real values (the owning group and admins).
    pub env_shown: bool,
    pub created_by: String,
    /// Unix seconds.
    pub created_at: i64,
    /// When it was retired; none while active.
    pub retired_at: Option<i64>,
    /// Jobs launched from it.
    pub uses: i64,
    /// The last launch (Unix seconds).
    pub last_used_at: Option<i64>,
    /// The other groups allowed to launch it.
    pub granted_to: Vec<String>,
    /// Whether the caller may launch it now.
    pub usable: bool,
}

/// A page of templates; `next` goes in `?after=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplatePage {
    pub templates: Vec<Template>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}
