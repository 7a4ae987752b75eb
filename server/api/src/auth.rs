//! Signing in (`POST /api/auth/login`), refreshing (`/api/auth/refresh`: refresh tokens
//! rotate, each answer carries the next one), signing out, and the signed-in user
//! (`GET /api/me`).

use serde::{Deserialize, Serialize};

/// A username and password to sign in with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Login {
    pub username: String,
    pub password: String,
}

/// A refresh token to trade for new tokens (it is good once).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Refresh {
    pub refresh_token: String,
}

/// Signing out: the refresh token's sign-in ends (the bearer's too, when one is sent).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Logout {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
}

/// What a sign-in or a refresh answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Tokens {
    /// Sent as `Authorization: Bearer …`; short-lived.
    pub access_token: String,
    /// Opaque; good for one refresh: the answer carries the next one.
    pub refresh_token: String,
    /// Always "Bearer".
    pub token_type: String,
    /// Seconds the access token stays good.
    pub expires_in: i64,
    /// Who signed in.
    pub user: User,
}

/// The three tiers of MISSION Q6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Acts anywhere.
    Admin,
    /// Acts for their group: approvals, grants, renewals.
    Manager,
    /// Submits and cancels their own jobs in their group.
    Member,
}

impl Role {
    /// The role as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Manager => "manager",
            Role::Member => "member",
        }
    }

    /// The role spelled `s`, if it is one.
    pub fn parse(s: &str) -> Option<Role> {
        [Role::Admin, Role::Manager, Role::Member].into_iter().find(|r| r.as_str() == s)
    }
}

/// A user account as the API shows it (never its password).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub role: Role,
    /// The group of a manager or member; none for an admin.
    pub group_id: Option<i64>,
}
