//! Policy modules (`/api/policies`): uploaded WebAssembly components, each version with
//! its state and history (A3); shadow, canary and promotion, the last two approved by a
//! second admin (B2); rollback to the previously active version.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The three kinds of policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum PolicyKind {
    Priority,
    Quota,
    Reclaim,
}

/// Where a version is in its life; `state` names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum PolicyState {
    /// Failed validation; kept with the reasons, never runs.
    Rejected { errors: Vec<String> },
    /// Passed validation.
    Validated,
    /// Runs beside the active version; its differences are recorded.
    Shadow,
    /// Decides for these groups only (their indices, by age).
    Canary { groups: Vec<u32> },
    /// Decides for everyone.
    Active,
    /// Was active, or was set aside.
    Retired,
}

/// One recorded change of a version's state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Transition {
    pub to: PolicyState,
    pub by: String,
    /// Unix seconds.
    pub at: i64,
    pub note: String,
}

/// A policy version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyVersion {
    /// The module's SHA-256, its name in every other route.
    pub sha256: String,
    /// None for a module that could not be read.
    pub kind: Option<PolicyKind>,
    /// The WIT interface and version it implements.
    pub interface: Option<String>,
    pub author: String,
    /// The change that produced it (A3).
    pub note: String,
    pub state: PolicyState,
    /// Who asked for its promotion, waiting for a second admin.
    pub promotion_requested_by: Option<String>,
    /// Who asked for a canary, waiting for a second admin, and for which groups.
    pub canary_requested_by: Option<String>,
    pub canary_requested: Option<Vec<u32>>,
    /// Every change of state, oldest first.
    pub history: Vec<Transition>,
}

/// One kind's active version and its versions, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct KindVersions {
    /// The active version's SHA-256; none: the built-in policy decides.
    pub active: Option<String>,
    pub versions: Vec<PolicyVersion>,
}

/// Every kind's versions, and the modules that could not be read at all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyList {
    /// By kind: `priority`, `quota`, `reclaim`.
    pub kinds: BTreeMap<String, KindVersions>,
    pub rejected: Vec<PolicyVersion>,
}

/// What an upload answers (201): the validation report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Uploaded {
    pub sha256: String,
    pub kind: Option<PolicyKind>,
    pub interface: Option<String>,
    pub state: PolicyState,
    pub author: String,
    pub note: String,
}

/// A version's new state after shadowing or approval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyMoved {
    pub sha256: String,
    /// `shadow`, `canary` or `active`.
    pub state: String,
}

/// Asking for a canary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CanaryRequest {
    /// The groups it decides for: 1 to 64 names.
    pub groups: Vec<String>,
}

/// What asking for a canary answers (202: a second admin approves).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CanaryRequested {
    pub sha256: String,
    pub canary_requested_by: String,
    pub groups: Vec<String>,
}

/// What asking for a promotion answers (202: a second admin approves).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PromotionRequested {
    pub sha256: String,
    pub promotion_requested_by: String,
}

/// What an approval approves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    Canary,
    Promotion,
}

/// Approving a canary or a promotion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyApproval {
    /// 1-500 characters.
    pub note: String,
    /// Which request; omitted: the one that waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Approval>,
}

/// Going back to a kind's previously active version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Rollback {
    pub kind: PolicyKind,
    /// Why (1-500 characters).
    pub note: String,
}

/// What a rollback answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RolledBack {
    pub kind: PolicyKind,
    /// The version now active; none: the built-in policy.
    pub active: Option<String>,
}
