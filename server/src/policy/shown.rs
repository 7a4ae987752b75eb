//! Policy versions as the API shows them (`tidepool_api::policies`): the registry keeps
//! its own types (with the compiled module, groups by their place in the dispatcher's
//! snapshot); these are their serialisable shapes, field for field, and the list everyone
//! signed in reads (A3: every version with its author, note and history).

use std::collections::BTreeMap;

use tidepool_api::policies::{KindVersions, PolicyKind, PolicyList, PolicyState, PolicyVersion, Transition};

use crate::policy::Kind;
use crate::policy::desk::PolicyDesk;
use crate::policy::version::{State, Transition as Step, Version};

impl From<Kind> for PolicyKind {
    fn from(k: Kind) -> Self {
        match k {
            Kind::Priority => PolicyKind::Priority,
            Kind::Quota => PolicyKind::Quota,
            Kind::Reclaim => PolicyKind::Reclaim,
        }
    }
}

impl From<PolicyKind> for Kind {
    fn from(k: PolicyKind) -> Self {
        match k {
            PolicyKind::Priority => Kind::Priority,
            PolicyKind::Quota => Kind::Quota,
            PolicyKind::Reclaim => Kind::Reclaim,
        }
    }
}

impl From<&State> for PolicyState {
    fn from(s: &State) -> Self {
        match s {
            State::Rejected { errors } => PolicyState::Rejected { errors: errors.clone() },
            State::Validated => PolicyState::Validated,
            State::Shadow => PolicyState::Shadow,
            State::Canary { groups } => PolicyState::Canary { groups: groups.iter().map(|g| g.0).collect() },
            State::Active => PolicyState::Active,
            State::Retired => PolicyState::Retired,
        }
    }
}

impl From<&Step> for Transition {
    fn from(t: &Step) -> Self {
        Transition { to: (&t.to).into(), by: t.by.clone(), at: t.at, note: t.note.clone() }
    }
}

impl From<&Version> for PolicyVersion {
    fn from(v: &Version) -> Self {
        PolicyVersion {
            sha256: v.sha256.clone(),
            kind: v.kind.map(PolicyKind::from),
            interface: v.interface.clone(),
            author: v.author.clone(),
            note: v.note.clone(),
            state: (&v.state).into(),
            promotion_requested_by: v.promotion_requested_by.clone(),
            canary_requested_by: v.canary_requested_by.clone(),
            canary_requested: v.canary_requested.as_ref().map(|gs| gs.iter().map(|g| g.0).collect()),
            history: v.history.iter().map(Transition::from).collect(),
        }
    }
}

/// Every kind's active version and versions (newest first), and the modules that could
/// not be read at all.
pub async fn list(desk: &PolicyDesk) -> PolicyList {
    let registry = desk.registry.lock().await;
    let kinds: BTreeMap<String, KindVersions> = Kind::ALL
        .into_iter()
        .map(|kind| {
            let versions = registry.history(kind).into_iter().map(PolicyVersion::from).collect();
            (kind.name().to_string(), KindVersions { active: desk.policies.active(kind), versions })
        })
        .collect();
    let rejected = registry.versions().iter().filter(|v| v.kind.is_none()).map(PolicyVersion::from).collect();
    PolicyList { kinds, rejected }
}

#[cfg(test)]
mod tests {
    use tidepool_core::GroupId;

    use super::*;

    #[test]
    fn kinds_and_states_keep_their_names_on_the_wire() {
        for k in Kind::ALL {
            assert_eq!(serde_json::to_value(PolicyKind::from(k)).unwrap(), serde_json::to_value(k).unwrap());
            assert_eq!(Kind::from(PolicyKind::from(k)), k);
        }
        let canary = State::Canary { groups: vec![GroupId(2), GroupId(5)] };
        let shown = PolicyState::from(&canary);
        assert_eq!(serde_json::to_value(&shown).unwrap(), serde_json::to_value(&canary).unwrap());
        let rejected = State::Rejected { errors: vec!["imports wasi".into()] };
        assert_eq!(
            serde_json::to_value(PolicyState::from(&rejected)).unwrap(),
            serde_json::to_value(&rejected).unwrap()
        );
    }
}
