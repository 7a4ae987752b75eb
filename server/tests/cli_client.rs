//! Issue 11, first acceptance item: `tidepool` as a researcher's client, run as a user
//! runs it — a fresh config folder, `login` with the password on stdin — against a real
//! server with a real agent (4 fake T4s) on loopback: submit, queue, show, logs -f,
//! cancel, sbatch, whoami, JSON output, refresh of an expired session, logout, and the
//! exit codes scripts rely on (1 refused, 3 signed out, 4 unreachable). MISSION D3
//! (receipt), V1 (where a job waits and why).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::live::{Proc, call, free_port, http, login, wait_for};
use common::shell::Shell;
use serde_json::json;
use tidepool_api::{JobPage, JobState, Receipt, Submitted, User};

const ADMIN_PASSWORD: &str = "admin-pw-71c2";

/// A server with vision's T4 quota and one agent with 4 fake T4s in pool `lab`.
struct Cluster {
    addr: String,
    dir: PathBuf,
    _agent: Proc,
    _server: Proc,
}

fn cluster(name: &str) -> Cluster {
    let dir = common::fresh_dir(&format!("cli-{name}"));
    let d = dir.to_str().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let server = Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args([
            "serve",
            "--listen",
            &addr,
            "--dispatch-interval-s",
            "1",
            "--min-runtime-s",
            "0",
            "--grace-s",
            "1",
        ])
        .args(["--data-dir", &format!("{d}/data")])
        .env("TIDEPOOL_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let server = Proc(server);
    wait_for(60, "the server", || {
        (http(&addr, "GET", "/api/openapi.json", None, None).ok()?.0 == 200).then_some(())
    });
    let admin = login(&addr, "admin", ADMIN_PASSWORD);
    let admin2 = json!({ "username": "admin2", "password": "admin2-pw", "role": "admin" });
    call(&addr, "POST", "/api/users", &admin, Some(admin2));
    let admin2 = login(&addr, "admin2", "admin2-pw");
    let change = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 8, "why": "the lab" });
    let id = call(&addr, "PUT", "/api/quotas", &admin, Some(change))["change"].clone();
    call(&addr, "POST", &format!("/api/changes/{id}/approve"), &admin2, Some(json!({ "note": "ok" })));
    let token =
        call(&addr, "POST", "/api/nodes/tokens", &admin, Some(json!({ "node": format!("{name}-0") })));
    let mut agent = Command::new(env!("CARGO_BIN_EXE_tidepool"));
    agent
        .args(["agent", "--server", &format!("http://{addr}"), "--fake-gpus", "4xT4", "--pool", "lab"])
        .args(["--wait-s", "1", "--state-dir", &format!("{d}/agent"), "--jobs-root", &format!("{d}/jobs")])
        .args(["--checkpoint-root", &format!("{d}/checkpoints")])
        .env("TIDEPOOL_NODE_TOKEN", token["token"].as_str().unwrap())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(format!("{d}/agent.err")).unwrap());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        agent.args(["--run-as", "nobody"]);
    }
    let agent = Proc(agent.spawn().expect("agent starts"));
    Cluster { addr, dir, _agent: agent, _server: server }
}

impl Shell {
    fn new(c: &Cluster) -> Shell {
        Shell::in_dir(&c.dir)
    }

    /// Runs with `--format json` and reads the answer as the api type `T`.
    #[track_caller]
    fn json<T: serde::de::DeserializeOwned>(&self, args: &[&str]) -> T {
        // Right after the subcommand: anything after `--` is the job's command.
        let args: Vec<&str> =
            args[..1].iter().copied().chain(["--format", "json"]).chain(args[1..].iter().copied()).collect();
        let out = self.ok(&args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("tidepool {args:?}: not its JSON ({e}): {out}"))
    }

    fn receipt(&self, job: i64) -> Receipt {
        self.json(&["show", &job.to_string()])
    }

    #[track_caller]
    fn wait_state(&self, job: i64, state: JobState) {
        wait_for(60, &format!("job {job} {state}"), || (self.receipt(job).state == state).then_some(()));
    }

    fn session(&self) -> PathBuf {
        self.config.join("tidepool/session.json")
    }
}

#[test]
fn a_researcher_submits_follows_and_cancels_from_the_command_line() {
    let c = cluster("flow");
    let sh = Shell::new(&c);
    let server = format!("http://{}", c.addr);

    // A fresh machine: not signed in is exit 3 and says what to do.
    let (_, err) = sh.expect(3, &["queue"]);
    assert!(err.contains("tidepool login --server"), "{err}");

    // A wrong password: the server's refusal, exit 1; nothing saved.
    let out = sh.run(&["login", "--server", &server, "--username", "vision-dev"], "not-it\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong username or password"));
    assert!(!sh.session().exists());

    let out = sh.run(&["login", "--server", &server, "--username", "vision-dev"], "demo-password\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::metadata(sh.session()).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(sh.config.join("tidepool")).unwrap().permissions().mode() & 0o777, 0o700);
    let me: User = sh.json(&["whoami"]);
    assert_eq!((me.username.as_str(), me.role.as_str()), ("vision-dev", "member"));
    assert!(sh.ok(&["whoami"]).contains("vision-dev (member of vision)"));

    wait_for(30, "the agent's 4 T4s", || sh.ok(&["nodes"]).contains("flow-0").then_some(()));

    // Submit, see it in the queue, follow its log to the end, read its receipt.
    let job: Submitted =
        sh.json(&["submit", "--gpus", "1", "--model", "T4", "--", "sh", "-c", "echo hello; sleep 2"]);
    let queue: JobPage = sh.json(&["queue", "--mine"]);
    assert!(queue.jobs.iter().any(|j| j.id == job.id && j.name == "sh"), "{queue:?}");
    assert!(sh.ok(&["jobs"]).lines().any(|l| l.starts_with(&format!("{} ", job.id))));
    let (log, _) = sh.expect(0, &["logs", "-f", &job.id.to_string()]);
    assert_eq!(log, "hello\n", "logs -f prints the output and returns at the end");
    let receipt = sh.receipt(job.id);
    assert_eq!(receipt.state, JobState::Succeeded, "logs -f returned only once the job ended");
    assert!(receipt.events.iter().any(|e| e.kind == "placed" && e.message.contains("flow-0")));
    let shown = sh.ok(&["show", &job.id.to_string()]);
    for fact in ["where", "flow-0", "policy", "placed", "succeeded"] {
        assert!(shown.contains(fact), "show says {fact}: {shown}");
    }

    // A job too big for the lab waits: the queue says its place and why.
    let big: Submitted = sh.json(&["submit", "--gpus", "8", "--model", "T4", "--name", "big", "--", "true"]);
    let reason = wait_for(20, "the big job's reason", || sh.receipt(big.id).reason);
    let waiting = sh.ok(&["queue", "--state", "pending"]);
    let row = waiting.lines().find(|l| l.starts_with(&format!("{} ", big.id))).expect("listed");
    assert!(row.contains("#1") && row.contains(&reason), "place and reason: {row}");
    assert!(sh.ok(&["cancel", &big.id.to_string()]).contains("cancelled"));

    // A long job is cancelled while it runs; a second cancel is refused, exit 1.
    let long: Submitted =
        sh.json(&["submit", "-g", "1", "--model", "T4", "--name", "long", "--", "sleep", "600"]);
    sh.wait_state(long.id, JobState::Running);
    assert_eq!(sh.ok(&["cancel", &long.id.to_string()]).trim(), format!("cancelled job {}", long.id));
    assert_eq!(sh.receipt(long.id).state, JobState::Cancelled);
    let (_, err) = sh.expect(1, &["cancel", &long.id.to_string()]);
    assert!(err.contains("already cancelled"), "{err}");

    // sbatch: the script's #TIDEPOOL lines are its flags, its text the command.
    let script = c.dir.join("train.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\n#TIDEPOOL --gpus 1 --model T4\n#TIDEPOOL --name scripted\necho from-script\n",
    )
    .unwrap();
    let scripted: Submitted = sh.json(&["sbatch", script.to_str().unwrap()]);
    assert_eq!(sh.ok(&["logs", "-f", &scripted.id.to_string()]), "from-script\n");
    assert_eq!(sh.receipt(scripted.id).name, "scripted");

    // An expired access token is refreshed on the way; the rotated refresh token is saved.
    let before: serde_json::Value = serde_json::from_slice(&std::fs::read(sh.session()).unwrap()).unwrap();
    let mut expired = before.clone();
    expired["access_expires_at"] = json!(0);
    std::fs::write(sh.session(), expired.to_string()).unwrap();
    sh.ok(&["queue"]);
    let after: serde_json::Value = serde_json::from_slice(&std::fs::read(sh.session()).unwrap()).unwrap();
    assert_ne!(after["refresh_token"], before["refresh_token"], "the new refresh token is kept");
    assert_eq!(std::fs::metadata(sh.session()).unwrap().permissions().mode() & 0o777, 0o600);
    // A token the server refuses is refreshed once and the call retried.
    let mut refused = after.clone();
    refused["access_token"] = json!("not-a-token");
    std::fs::write(sh.session(), refused.to_string()).unwrap();
    sh.ok(&["show", &job.id.to_string()]);
    let healed: serde_json::Value = serde_json::from_slice(&std::fs::read(sh.session()).unwrap()).unwrap();
    assert_ne!(healed["access_token"], "not-a-token");

    // Signing out ends the session on the server too.
    let old_refresh = serde_json::from_slice::<serde_json::Value>(&std::fs::read(sh.session()).unwrap())
        .unwrap()["refresh_token"]
        .clone();
    sh.ok(&["logout"]);
    assert!(!sh.session().exists());
    let body = json!({ "refresh_token": old_refresh }).to_string();
    assert_eq!(http(&c.addr, "POST", "/api/auth/refresh", None, Some(&body)).unwrap().0, 401);
    let (_, err) = sh.expect(3, &["queue"]);
    assert!(err.contains(&format!("tidepool login --server {server}")), "{err}");

    // A server that does not answer: exit 4, and it says where it tried.
    let nowhere = format!("127.0.0.1:{}", free_port());
    let out = sh.run(&["login", "--server", &nowhere, "-u", "vision-dev"], "demo-password\n");
    assert_eq!(out.status.code(), Some(4));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains(&format!("cannot reach the server at http://{nowhere}"))
    );
    // Usage mistakes are exit 2.
    sh.expect(2, &["submit", "--gpus", "1"]);
}
