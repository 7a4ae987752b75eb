//! What a job runs in, as its spec or template names it: a container image and the
//! environment variables it sets. Both reach a node's sandbox, so both are checked here:
//! an image reference in its usual characters, and variables that cannot reach the
//! loader or impersonate what the agent itself sets.

use std::collections::BTreeMap;

use crate::access::belongs;
use crate::input::Invalid;
use crate::store::users::User;

pub const MAX_IMAGE: usize = 256;
pub const MAX_VARS: usize = 64;
pub const MAX_KEY: usize = 128;
pub const MAX_VALUE: usize = 4096;

/// Variables the agent sets for each job, and the loader's: a spec setting them could
/// pose as another job or load code into every process of its sandbox.
fn reserved(key: &str) -> bool {
    let k = key.to_ascii_uppercase();
    k.starts_with("TIDEPOOL_")
        || k.starts_with("LD_")
        || matches!(k.as_str(), "CUDA_VISIBLE_DEVICES" | "NVIDIA_VISIBLE_DEVICES")
}

/// A container image reference: 1 to 256 of letters, digits and `. _ - / : @`, starting
/// with a letter or digit (never an option to the container tool).
pub fn image(value: &str) -> Result<&str, Invalid> {
    let ok = !value.is_empty()
        && value.len() <= MAX_IMAGE
        && value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && value.chars().all(|c| c.is_ascii_alphanumeric() || "._-/:@".contains(c));
    if ok {
        Ok(value)
    } else {
        Err(Invalid(format!(
            "image must be 1 to {MAX_IMAGE} letters, digits and . _ - / : @, starting with a letter or digit"
        )))
    }
}

/// Environment variables a spec or template sets.
pub fn env(vars: &BTreeMap<String, String>) -> Result<(), Invalid> {
    if vars.len() > MAX_VARS {
        return Err(Invalid(format!("env holds at most {MAX_VARS} variables")));
    }
    for (k, v) in vars {
        let name_ok = k.len() <= MAX_KEY
            && k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !name_ok {
            return Err(Invalid(format!(
                "env names are 1 to {MAX_KEY} letters, digits and '_', not starting with a digit: `{}`",
                k.escape_debug()
            )));
        }
        if reserved(k) {
            return Err(Invalid(format!(
                "env may not set {k}: TIDEPOOL_*, the loader's LD_* and the GPU assignment are the agent's"
            )));
        }
        if v.len() > MAX_VALUE || v.contains('\0') {
            return Err(Invalid(format!("env {k}: a value is at most {MAX_VALUE} bytes, without NUL")));
        }
    }
    Ok(())
}

/// What an env value shows to those outside the owning group.
pub const MASK: &str = "•••";

/// The env as `user` may read it back: env values are where people keep API keys, so
/// whole for the owning group's members and managers and for admins; for everyone else
/// the names with each value masked, so the shape stays visible (which variables a job
/// or template sets) and the secrets do not (finding 10).
pub fn shown(env: BTreeMap<String, String>, user: &User, owner: i64) -> BTreeMap<String, String> {
    if belongs(user, owner) {
        return env;
    }
    env.into_keys().map(|k| (k, MASK.to_string())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::users::Role;

    fn user(role: Role, group: Option<i64>) -> User {
        User { id: 1, username: "u".into(), role, group_id: group }
    }

    #[test]
    fn env_values_reach_only_the_owning_group_and_admins() {
        let env = BTreeMap::from([("HF_TOKEN".to_string(), "secret".to_string())]);
        assert_eq!(shown(env.clone(), &user(Role::Member, Some(3)), 3), env);
        assert_eq!(shown(env.clone(), &user(Role::Admin, None), 3), env);
        let masked = shown(env, &user(Role::Manager, Some(4)), 3);
        assert_eq!(masked, BTreeMap::from([("HF_TOKEN".to_string(), MASK.to_string())]));
    }

    #[test]
    fn loader_and_agent_variables_are_refused() {
        for key in ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "TIDEPOOL_JOB_ID", "CUDA_VISIBLE_DEVICES"] {
            assert!(env(&BTreeMap::from([(key.to_string(), "x".to_string())])).is_err(), "{key}");
        }
        assert!(env(&BTreeMap::from([("HF_TOKEN".to_string(), "x".to_string())])).is_ok());
        assert!(env(&BTreeMap::from([("1A".to_string(), "x".to_string())])).is_err());
    }

    #[test]
    fn image_references_keep_to_their_characters() {
        assert!(image("registry.local:5000/ml/pytorch:2.4-cuda12@sha256:abc").is_ok());
        for bad in ["", "--privileged", "a b", "a;b", &"a".repeat(MAX_IMAGE + 1)] {
            assert!(image(bad).is_err(), "{bad}");
        }
    }
}
