//! Templates (`GET /api/templates`, oldest first, a page at a time): frozen job shapes a
//! group launches in one step (T1), granted to other groups by the owner's manager (T2),
//! with their usage for the retirement review (T3).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One template with its grants and usage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplatePage {
    pub templates: Vec<Template>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// Creating a template: a job shape frozen for the group (T1). Absent fields take the
/// server's defaults (category training, class normal, model A100-80G, topology any,
/// not checkpointable, the node's sandbox, no environment).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewTemplate {
    pub name: String,
    /// Admins name the group; everyone else creates for their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    pub gpus: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_s: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpointable: Option<bool>,
    /// The container image its jobs run in; empty or absent: the node's sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    pub command: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// What creating a template answers (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateCreated {
    pub id: i64,
    pub name: String,
}

/// Letting another group launch a template (T2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateGrant {
    /// The group's name.
    pub group: String,
}

/// What a grant answers (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateGranted {
    /// The template's id.
    pub template: i64,
    pub granted_to: String,
}

/// Retiring a template (T3): no new launches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateRetire {
    pub reason: String,
}

/// What retiring answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateRetired {
    pub id: i64,
    /// Unix seconds.
    pub retired_at: i64,
}
