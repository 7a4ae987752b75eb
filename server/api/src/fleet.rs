//! Nodes as admins manage them (`POST /api/nodes`, `PATCH /api/nodes/{id}`) and the
//! node tokens their agents sign in with (`/api/nodes/tokens`): a token is shown once,
//! listed without its secret, and revoked at once.

use serde::{Deserialize, Serialize};

/// Adding a node by hand (agents register theirs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewNode {
    pub name: String,
    pub pool: String,
    pub model: String,
    /// 1 to 64.
    pub gpus: u8,
    /// GPUs per NVLink domain, dividing `gpus`; omitted: all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvlink_group: Option<u8>,
}

/// What adding a node answers (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeAdded {
    pub id: i64,
    pub name: String,
}

/// Moving a node to a pool, or taking it out of (or back into) service: one or both.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub healthy: Option<bool>,
}

/// What editing a node answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeEdited {
    pub id: i64,
}

/// Issuing a node token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewNodeToken {
    /// The node's name: the token registers this node only.
    pub node: String,
    /// The pool its node joins; omitted: the agent's choice, or `default`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// Seconds it stays good (up to ten years); omitted: no expiry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in_s: Option<i64>,
}

/// A token just issued (201): the only time `token` is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IssuedNodeToken {
    pub id: i64,
    pub node: String,
    pub pool: Option<String>,
    /// Unix seconds; none: no expiry.
    pub expires_at: Option<i64>,
    /// The agent's `Authorization: Bearer …`.
    pub token: String,
}

/// A node token as admins see it listed: never the token or its hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeToken {
    pub id: i64,
    pub node: String,
    pub pool: Option<String>,
    pub created_by: String,
    /// Unix seconds.
    pub created_at: i64,
    pub expires_at: Option<i64>,
    /// The last time its agent used it (to the minute).
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// Every node token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeTokenList {
    pub tokens: Vec<NodeToken>,
}
