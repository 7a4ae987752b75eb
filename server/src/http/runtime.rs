//! What a job runs in, as the API shows it, for handlers that still build JSON values (the
//! template list). The rule is the domain's: `crate::jobs::sandbox::shown`, on typed env
//! maps; this file goes once no handler builds a `Value` env.

use serde_json::{Value, json};

use crate::http::scope::belongs;
use crate::store::users::User;

/// What a value shows to those outside the owning group.
pub use crate::jobs::sandbox::MASK;

/// The env as `user` may read it: whole for the owning group's members and managers and
/// for admins; for everyone else the names with each value masked, so the shape stays
/// visible (which variables a template sets) and the secrets do not.
pub fn shown(env: Value, user: &User, owner: i64) -> Value {
    if belongs(user, owner) {
        return env;
    }
    match env {
        Value::Object(vars) => Value::Object(vars.into_iter().map(|(k, _)| (k, json!(MASK))).collect()),
        other => other,
    }
}
