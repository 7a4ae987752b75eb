//! A policy version's life: upload and validation, shadow, canary, promotion with a
//! second person's approval, rollback, history with change notes. MISSION O1, A3, B2.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::policies::{bytes, runtime};
use tidepool::policy::registry::{Registry, RegistryError, State};
use tidepool::policy::{Kind, PolicyEvent, WasmPolicies};
use tidepool_core::testkit::{cluster, job};
use tidepool_core::{GroupId, plan};

fn registry() -> (Registry, Arc<WasmPolicies>) {
    let rt = runtime(Duration::from_secs(2));
    let policies = Arc::new(WasmPolicies::new(rt.clone()));
    (Registry::new(rt, policies.clone()), policies)
}

#[test]
fn uploads_are_validated_and_content_addressed() {
    let (mut reg, _) = registry();
    let good = reg.upload(&bytes("priority"), "ada", "least attained service", 10).clone();
    assert_eq!(good.state, State::Validated);
    assert_eq!((good.kind, good.interface.as_deref()), (Some(Kind::Priority), Some("1.0.0")));
    assert_eq!((good.author.as_str(), good.note.as_str()), ("ada", "least attained service"));
    let again = reg.upload(&bytes("priority"), "bob", "same bytes", 20);
    assert_eq!(
        (again.sha256.as_str(), again.author.as_str()),
        (good.sha256.as_str(), "ada"),
        "one version per content"
    );
    let bad = reg.upload(&bytes("wasi-snoop"), "eve", "reads files", 30).clone();
    let State::Rejected { errors } = &bad.state else { panic!("{:?}", bad.state) };
    assert!(errors.iter().any(|e| e.contains("wasi:filesystem")), "{errors:?}");
    assert_eq!(reg.versions().len(), 2);
    assert!(matches!(reg.shadow(&bad.sha256, "eve", 31), Err(RegistryError::NotRunnable { .. })));
}

#[test]
fn promotion_takes_a_second_person_and_rollback_is_one_call() {
    let (mut reg, policies) = registry();
    let v1 = reg.upload(&bytes("priority"), "ada", "least attained service", 1).sha256.clone();
    let v2 = reg.upload(&bytes("fifo"), "bob", "first come first served", 2).sha256.clone();

    assert_eq!(reg.approve(&v1, None, "bob", 3, "ok"), Err(RegistryError::NotRequested(v1.clone())));
    reg.request_promotion(&v1, "ada").expect("request");
    assert_eq!(reg.approve(&v1, None, "ada", 4, "ok"), Err(RegistryError::SamePerson("ada".into())));
    assert_eq!(policies.active(Kind::Priority), None, "nothing changes without a second person");
    reg.approve(&v1, None, "bob", 5, "reviewed the shadow report").expect("approve");
    assert_eq!(policies.active(Kind::Priority), Some(v1.clone()));
    assert_eq!(reg.get(&v1).expect("v1").state, State::Active);

    // v2 in shadow: it runs beside v1 and its differences are recorded.
    reg.shadow(&v2, "bob", 6).expect("shadow");
    let snap = cluster()
        .nodes(1, 8)
        .group("a", 8)
        .pending(job(1).at(0).attained(90_000))
        .pending(job(2).at(10))
        .build();
    plan(&snap, 100, policies.as_ref());
    assert!(
        policies.events().iter().any(|e| matches!(e, PolicyEvent::Shadow { sha256, .. } if *sha256 == v2))
    );

    reg.request_promotion(&v2, "bob").expect("request");
    reg.approve(&v2, None, "ada", 7, "fifo for the audit").expect("approve");
    assert_eq!(policies.active(Kind::Priority), Some(v2.clone()));
    assert_eq!(reg.get(&v1).expect("v1").state, State::Retired);

    reg.rollback(Kind::Priority, "ada", 8, "fifo starved new experiments").expect("rollback");
    assert_eq!(policies.active(Kind::Priority), Some(v1.clone()));
    assert_eq!(reg.get(&v2).expect("v2").state, State::Retired);

    let history = reg.history(Kind::Priority);
    assert_eq!(history.len(), 2);
    let notes: Vec<&str> = history[1].history.iter().map(|t| t.note.as_str()).collect();
    assert_eq!(
        notes,
        [
            "uploaded",
            "reviewed the shadow report",
            "replaced by a newer version",
            "fifo starved new experiments"
        ]
    );
    // The author of a version never approves it, even when someone else asked (B2).
    let v3 = reg.upload(&bytes("las2d"), "cy", "two-dimensional LAS", 10).sha256.clone();
    reg.request_promotion(&v3, "dee").expect("request");
    assert_eq!(reg.approve(&v3, None, "cy", 11, "mine"), Err(RegistryError::Author("cy".into())));
    assert_eq!(policies.active(Kind::Priority), Some(v1.clone()));

    let (mut empty, _) = registry();
    assert_eq!(empty.rollback(Kind::Quota, "ada", 9, "x"), Err(RegistryError::NothingToRollBack("quota")));
}

#[test]
fn a_canary_decides_for_its_groups_only() {
    let (mut reg, policies) = registry();
    let fifo = reg.upload(&bytes("fifo"), "ada", "fifo for group b", 1).sha256.clone();
    reg.request_canary(&fifo, vec![GroupId(1)], "ada").expect("ask");
    assert_eq!(reg.approve(&fifo, None, "ada", 2, ""), Err(RegistryError::SamePerson("ada".into())));
    assert_eq!(policies.canary_groups(Kind::Priority), None, "nothing runs before a second admin approves");
    reg.approve(&fifo, None, "bob", 2, "").expect("canary");
    assert_eq!(reg.get(&fifo).expect("fifo").state, State::Canary { groups: vec![GroupId(1)] });
    let snap = cluster()
        .nodes(1, 8)
        .group("a", 4)
        .group("b", 4)
        .pending(job(1).at(0).attained(90_000))
        .pending(job(2).group(1).at(0).attained(90_000))
        .build();
    use tidepool_core::Policies;
    let scores = policies.priority(&snap, 100);
    assert_ne!(scores[0], 0, "group a: the built-in policy");
    assert_eq!(scores[1], 0, "group b: the canary");
}
