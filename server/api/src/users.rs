//! Accounts (`GET/POST /api/users`, oldest first, a page at a time), groups created by
//! an admin (`POST /api/groups`), and changing one's own password.

use serde::{Deserialize, Serialize};

use crate::auth::Role;

/// One account as the list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UserRow {
    pub id: i64,
    pub username: String,
    pub role: Role,
    /// The group's name; none for an admin.
    pub group: Option<String>,
}

/// A page of accounts; `next` goes in `?after=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UserPage {
    pub users: Vec<UserRow>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// Creating an account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewUser {
    /// 1-64 letters, digits, `-`, `_` or `.`.
    pub username: String,
    pub password: String,
    pub role: Role,
    /// Managers and members belong to a group; admins to none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// What creating an account answers (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UserCreated {
    pub id: i64,
    pub username: String,
}

/// Creating a group; the answer is the [`Group`](crate::Group) (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewGroup {
    /// 1-64 letters, digits, `-` or `_`.
    pub name: String,
}

/// Changing one's own password: every other sign-in ends (204).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewPassword {
    pub current_password: String,
    pub new_password: String,
}
