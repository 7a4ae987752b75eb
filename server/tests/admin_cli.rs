//! `tidepool admin` creates groups and users on the server's records; mistakes get a
//! clear message and change nothing. MISSION Q6, A1.

mod common;

use common::tidepool;

fn run(dir: &str, args: &[&str]) -> (bool, String) {
    let mut all = vec!["admin", "--data-dir", dir];
    all.extend_from_slice(args);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(&all)
        .env("TIDEPOOL_NEW_PASSWORD", "pw-from-env")
        .output()
        .expect("runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[test]
fn groups_and_users_from_the_shell() {
    let dir = common::fresh_dir("admin");
    let dir = dir.to_str().unwrap();
    let (ok, out) = run(dir, &["add-group", "genomics"]);
    assert!(ok && out.contains("group `genomics` created"), "{out}");
    let (ok, out) = run(dir, &["add-user", "ada", "--role", "manager", "--group", "genomics"]);
    assert!(ok && out.contains("TIDEPOOL_NEW_PASSWORD"), "{out}");
    for (args, says) in [
        (vec!["add-group", "genomics"], "already exists"),
        (vec!["add-user", "ada", "--role", "member", "--group", "genomics"], "already exists"),
        (vec!["add-user", "bob", "--role", "member"], "need --group"),
        (vec!["add-user", "bob", "--role", "member", "--group", "nowhere"], "no group `nowhere`"),
        (vec!["add-user", "bob", "--role", "king", "--group", "genomics"], "admin, manager or member"),
    ] {
        let (ok, out) = run(dir, &args);
        assert!(!ok, "{args:?} should fail: {out}");
        assert!(out.contains(says), "{args:?}: {out}");
    }
    assert!(!tidepool(&["admin", "--frobnicate"]).status.success());
    let _ = std::fs::remove_dir_all(dir);
}
