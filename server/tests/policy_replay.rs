//! Replay before promotion (issue 15; O1, A3), both engines: a real server records a
//! history made by real submissions that a real agent (fake T4 GPUs) runs to the end; an
//! admin replays a candidate priority policy over that period with `tidepool replay` and
//! reads the comparison beside the active policy and what happened. The candidate is the
//! half-life fair share example: a group that has just used the pool waits behind one that
//! has not, so the second group's jobs start earlier and the first group's later. Bad
//! input (an unreadable period, a period without jobs, a file that is no module, no
//! candidate at all) is refused with a message.

mod common;

use common::api::{engines, fresh_postgres};
use common::live::{call, free_port, lab_agent, login, serve, wait_for};
use common::shell::Shell;
use serde_json::{Value, json};
use tidepool_api::replays::{Replay, ReplayFigures, ReplayList};

/// The p50 wait of `group`'s normal jobs in one run of the comparison.
fn p50(f: &ReplayFigures, group: &str) -> f64 {
    f.waits
        .iter()
        .find(|w| w.group == group && w.class == "normal")
        .map(|w| w.p50_wait_s)
        .unwrap_or_else(|| panic!("{}: no waits for {group} in {:?}", f.label, f.waits))
}

fn submit(addr: &str, token: &str, name: &str, seconds: u32) -> i64 {
    let spec = json!({ "name": name, "command": format!("sleep {seconds}"), "gpus": 4, "model": "T4",
        "time_limit_s": 600 });
    call(addr, "POST", "/api/jobs", token, Some(spec))["id"].as_i64().expect("job id")
}

fn state(addr: &str, token: &str, id: i64) -> Value {
    call(addr, "GET", &format!("/api/jobs/{id}"), token, None)["state"].clone()
}

#[test]
fn a_candidate_that_reorders_the_recorded_jobs_shows_who_starts_earlier() {
    for engine in engines() {
        let database = (engine == "postgres").then(|| fresh_postgres("policy_replay").expect("postgres"));
        let dir = common::fresh_dir("policy-replay");
        let dir_s = dir.to_str().unwrap().to_string();
        let addr = format!("127.0.0.1:{}", free_port());
        let _server = serve(&dir_s, &addr, database.as_deref(), &[]);
        let admin = login(&addr, "admin", "admin-pw");
        // One node of 4 T4s; vision and speech are each guaranteed all four, so only the
        // policy's order decides who goes next.
        let vision_quota = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4,
            "why": "the lab's T4s" });
        let _agent = lab_agent(&addr, &dir_s, &admin, vision_quota);
        let admin2 = login(&addr, "admin2", "admin2-pw");
        let speech_quota = json!({ "group": "speech", "model": "T4", "category": "training", "guaranteed": 4,
            "why": "the lab's T4s" });
        let change = call(&addr, "PUT", "/api/quotas", &admin, Some(speech_quota))["change"].clone();
        call(
            &addr,
            "POST",
            &format!("/api/changes/{change}/approve"),
            &admin2,
            Some(json!({ "note": "ok" })),
        );

        // The history: vision's first job runs; while it does, vision queues two more and
        // then speech two. The server (built-in policy: oldest first) ran them in that order.
        let (vision, speech) =
            (login(&addr, "vision-dev", "demo-password"), login(&addr, "speech-dev", "demo-password"));
        let first = submit(&addr, &vision, "v0", 4);
        wait_for(30, "vision's first job running", || {
            (state(&addr, &vision, first) == "running").then_some(())
        });
        // A little later, so vision's recent usage is already counted when the rest arrive.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let mut ids = vec![(first, &vision)];
        for (name, token) in [("v1", &vision), ("v2", &vision), ("s1", &speech), ("s2", &speech)] {
            ids.push((submit(&addr, token, name, 1), token));
        }
        for (id, token) in &ids {
            wait_for(90, "every job finished", || (state(&addr, token, *id) == "succeeded").then_some(()));
        }

        // The admin replays the fair-share module over the last hour.
        let shell = Shell::in_dir(&dir);
        let server = format!("http://{addr}");
        let out = shell.run(&["login", "--server", &server, "-u", "admin"], "admin-pw\n");
        assert!(out.status.success(), "{engine}: login: {}", String::from_utf8_lossy(&out.stderr));
        let fairshare = common::policies::dir().join("fairshare.wasm");
        let fairshare = fairshare.to_str().unwrap();
        let text = shell.ok(&[
            "replay",
            "--server",
            &server,
            "--since",
            "1h",
            "--priority",
            fairshare,
            "--format",
            "json",
        ]);
        let replay: Replay = serde_json::from_str(&text).expect("the replay's JSON");
        assert_eq!(replay.jobs, 5, "{engine}: {text}");
        assert_eq!(replay.actual.finished, 5, "{engine}: every recorded job finished");
        assert_eq!((replay.active.finished, replay.candidate.finished), (5, 5), "{engine}");
        assert!(replay.candidate.label.contains("priority"), "{engine}: {}", replay.candidate.label);
        // Speech, which had used nothing, goes before vision's queued jobs under fair share.
        assert!(p50(&replay.candidate, "speech") < p50(&replay.active, "speech"), "{engine}: {text}");
        assert!(p50(&replay.candidate, "speech") < p50(&replay.actual, "speech"), "{engine}: {text}");
        assert!(p50(&replay.candidate, "vision") > p50(&replay.active, "vision"), "{engine}: {text}");
        // Replaying the active order reproduces what the server did (oldest first).
        assert!(p50(&replay.active, "speech") > p50(&replay.active, "vision"), "{engine}: {text}");
        for f in [&replay.actual, &replay.active, &replay.candidate] {
            let share = |g: &str| f.shares.iter().find(|s| s.group == g).expect("a share").guaranteed_share;
            assert_eq!((share("vision"), share("speech")), (0.5, 0.5), "{engine}: {}", f.label);
            let used: f64 = f.shares.iter().map(|s| s.share).sum();
            assert!((used - 1.0).abs() < 0.01, "{engine}: shares of what was used add up: {used}");
        }
        // The people's table says the same.
        let table = shell.ok(&["replay", "--server", &server, "--since", "1h", "--priority", fairshare]);
        assert!(table.contains("avg JCT s") && table.contains("speech"), "{engine}: {table}");

        // Stored with the version, newest first, for the admin who approves its promotion.
        let list = call(&addr, "GET", &format!("/api/policies/{}/replays", replay.sha256), &admin2, None);
        let list: ReplayList = serde_json::from_value(list).expect("a replay list");
        assert_eq!(list.replays.len(), 2, "{engine}");
        assert_eq!(list.replays[1], replay, "{engine}: read back as it was answered");

        // Bad input is refused with a reason.
        let (_, err) =
            shell.expect(1, &["replay", "--server", &server, "--since", "lately", "--priority", fairshare]);
        assert!(err.contains("since `lately`"), "{engine}: {err}");
        let (_, err) = shell.expect(
            1,
            &["replay", "--server", &server, "--since", "400d", "--until", "300d", "--priority", fairshare],
        );
        assert!(err.contains("no jobs were submitted"), "{engine}: {err}");
        let bogus = common::temp_file("bogus.wasm", "not a module");
        let (_, err) =
            shell.expect(1, &["replay", "--server", &server, "--priority", bogus.to_str().unwrap()]);
        assert!(err.contains("not a WebAssembly component"), "{engine}: {err}");
        let (_, err) = shell.expect(2, &["replay", "--server", &server, "--since", "1h"]);
        assert!(err.contains("name a candidate"), "{engine}: {err}");
        let quota = common::policies::dir().join("quota.wasm");
        let (_, err) =
            shell.expect(2, &["replay", "--server", &server, "--priority", quota.to_str().unwrap()]);
        assert!(err.contains("a quota policy, given as --priority"), "{engine}: {err}");
    }
}
