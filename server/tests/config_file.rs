//! The configuration file and the environment (issue 14, configuration; O3: a server the
//! operators start from a file they keep). `tidepool serve --config FILE` and `agent
//! --config FILE` take any flag as a TOML key; TIDEPOOL_<FLAG> overrides the file; a flag
//! overrides both. `tidepool config show` prints what a command would run with, masked.
//! Every check runs the real binary; the servers answer real HTTP on loopback.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::live::{Proc, free_port, http, wait_for};
use common::{fresh_dir, temp_file};

/// The binary with none of the settings' variables of the calling shell, so a test sees
/// only what it sets.
fn tidepool() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tidepool"));
    for setting in
        tidepool::config::settings_of("serve").iter().chain(&tidepool::config::settings_of("agent"))
    {
        cmd.env_remove(&setting.env);
    }
    cmd
}

/// A server that answers `/healthz` on `addr`.
#[track_caller]
fn healthy(addr: &str) -> bool {
    http(addr, "GET", "/healthz", None, None).is_ok_and(|(status, _)| status == 200)
}

/// Starts `tidepool serve ARGS` with `env`; answers once it is healthy on `addr`.
#[track_caller]
fn serve_at(addr: &str, args: &[&str], env: &[(&str, &str)]) -> Proc {
    let child = tidepool()
        .arg("serve")
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let proc = Proc(child);
    wait_for(60, &format!("a healthy server on {addr}"), || healthy(addr).then_some(()));
    proc
}

fn server_file(dir: &Path, listen: &str, extra: &str) -> String {
    let text = format!(
        "listen = \"{listen}\"\ndata_dir = \"{}\"\nno_demo = true\ndispatch_interval_s = 1\n{extra}",
        dir.display()
    );
    temp_file("tidepool.toml", &text).display().to_string()
}

/// O3: the file alone configures a server: it listens where the file says, keeps its
/// records in the file's data folder, and answers `/healthz`.
#[test]
fn a_server_started_from_a_file_listens_where_the_file_says() {
    let dir = fresh_dir("config-file");
    let addr = format!("127.0.0.1:{}", free_port());
    let file = server_file(&dir, &addr, "");
    let _server = serve_at(&addr, &["--config", &file], &[]);
    assert!(dir.join("tidepool.db").exists(), "the records are in the file's data folder");
}

/// Precedence, on live servers: TIDEPOOL_LISTEN beats the file's `listen`, and
/// `--listen` beats TIDEPOOL_LISTEN (the losers' addresses stay closed).
#[test]
fn the_environment_beats_the_file_and_a_flag_beats_the_environment() {
    let dir = fresh_dir("config-env");
    let [in_file, in_env, on_flag] = [0; 3].map(|_| format!("127.0.0.1:{}", free_port()));
    let file = server_file(&dir, &in_file, "");
    {
        let _server = serve_at(&in_env, &["--config", &file], &[("TIDEPOOL_LISTEN", &in_env)]);
        assert!(!healthy(&in_file), "the file's address is not used when the environment names one");
    }
    let dir = fresh_dir("config-flag");
    let file = server_file(&dir, &in_file, "");
    let _server =
        serve_at(&on_flag, &["--config", &file, "--listen", &on_flag], &[("TIDEPOOL_LISTEN", &in_env)]);
    assert!(!healthy(&in_env) && !healthy(&in_file), "only the flag's address answers");
}

/// `config show`: the runs' output, checked for success.
#[track_caller]
fn show(args: &[&str], env: &[(&str, &str)]) -> String {
    let out =
        tidepool().args(["config", "show"]).args(args).envs(env.iter().copied()).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "config show {args:?}: {stderr}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The line of `key` in `config show`'s output.
#[track_caller]
fn line_of<'a>(shown: &'a str, key: &str) -> &'a str {
    shown
        .lines()
        .find(|l| l.trim_start_matches("# ").starts_with(&format!("{key} =")))
        .unwrap_or_else(|| panic!("no `{key}` in:\n{shown}"))
}

/// The effective values without their sources (`key = value`, masked lines included).
fn values(shown: &str) -> Vec<String> {
    shown
        .lines()
        .filter(|l| l.contains(" = "))
        .map(|l| l.split("  #").next().unwrap_or(l).trim_end().to_string())
        .collect()
}

/// Every source named, precedence as the server applies it, on one printout.
#[test]
fn config_show_names_each_values_source() {
    let file = temp_file("show.toml", "grace_s = 11\nidle_after_s = 100\nlisten = \"127.0.0.1:7000\"\n");
    let file = file.display().to_string();
    let shown = show(
        &["serve", "--config", &file, "--idle-after-s", "300"],
        &[("TIDEPOOL_GRACE_S", "12"), ("TIDEPOOL_POLICIES", "wasm")],
    );
    assert_eq!(line_of(&shown, "grace_s"), "grace_s = 12  # env TIDEPOOL_GRACE_S");
    assert_eq!(line_of(&shown, "idle_after_s"), "idle_after_s = 300  # flag --idle-after-s");
    assert_eq!(line_of(&shown, "listen"), "listen = \"127.0.0.1:7000\"  # file");
    assert_eq!(line_of(&shown, "policies"), "policies = \"wasm\"  # env TIDEPOOL_POLICIES");
    assert_eq!(line_of(&shown, "min_runtime_s"), "min_runtime_s = 600  # default");
    assert!(line_of(&shown, "smtp_server").starts_with("# smtp_server =   (not set"), "{shown}");
}

/// Secrets never print (the metrics token, the node token, a database password), and
/// the printout fed back as `--config` gives the same effective configuration.
#[test]
fn config_show_masks_secrets_and_round_trips() {
    let token = "scrape-me-0123456789abcdef";
    let shown = show(
        &[
            "serve",
            "--database-url",
            "postgres://app:pg-s3cret@db:5432/tidepool",
            "--grace-s",
            "45",
            "--no-demo",
        ],
        &[("TIDEPOOL_METRICS_TOKEN", token), ("TIDEPOOL_LOG_FORMAT", "json")],
    );
    assert!(!shown.contains(token) && !shown.contains("pg-s3cret"), "{shown}");
    assert_eq!(
        line_of(&shown, "metrics_token"),
        "# metrics_token = \"********\"  # env TIDEPOOL_METRICS_TOKEN; secret, not shown"
    );
    assert!(
        line_of(&shown, "database_url")
            .starts_with("# database_url = \"postgres://app:********@db:5432/tidepool\"")
    );

    let agent =
        show(&["agent", "--server", "http://127.0.0.1:1"], &[("TIDEPOOL_NODE_TOKEN", "node-token-xyz")]);
    assert!(!agent.contains("node-token-xyz"), "{agent}");
    assert!(line_of(&agent, "token").contains("env TIDEPOOL_NODE_TOKEN; secret"), "{agent}");

    // Fed back, with the masked secrets given again where they came from (or anywhere):
    // the same values, now from the file.
    let again_file = temp_file("shown.toml", &shown).display().to_string();
    let again = show(
        &["serve", "--config", &again_file],
        &[
            ("TIDEPOOL_METRICS_TOKEN", token),
            ("TIDEPOOL_DATABASE_URL", "postgres://app:pg-s3cret@db:5432/tidepool"),
        ],
    );
    assert_eq!(values(&again), values(&shown));
    assert_eq!(line_of(&again, "grace_s"), "grace_s = 45  # file");
    assert_eq!(line_of(&again, "no_demo"), "no_demo = true  # file");
    assert_eq!(line_of(&again, "log_format"), "log_format = \"json\"  # file");
}

/// `serve ARGS` with `env` must stop at once with exit code 2 and say `expected`; a
/// server that starts instead is killed and fails the test.
#[track_caller]
fn refused(args: &[&str], env: &[(&str, &str)], expected: &str) {
    let dir = fresh_dir("config-bad").display().to_string();
    let mut child = tidepool()
        .args(["serve", "--data-dir", &dir, "--listen", "127.0.0.1:0", "--no-demo"])
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve {args:?} {env:?} started instead of refusing");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}: {stderr}");
    assert!(stderr.contains(expected), "{args:?} {env:?}: wanted `{expected}` in: {stderr}");
}

fn bad_file(text: &str) -> String {
    temp_file("bad.toml", text).display().to_string()
}

/// Each kind of bad input is refused with a message that says where and what to write.
#[test]
fn bad_files_and_variables_are_refused_with_their_reason() {
    let cases: [(&str, &str); 8] = [
        ("lisen = \"127.0.0.1:1\"\n", "line 1, column 1: unknown key `lisen`: did you mean `listen`?"),
        (
            "\ndispatch-interval-s = 2\n",
            "line 2, column 1: unknown key `dispatch-interval-s`: keys use underscores: write `dispatch_interval_s`",
        ),
        ("grace_s = \"thirty\"\n", "line 1, column 11: `grace_s` takes a whole number, not a string"),
        ("no_demo = 1\n", "line 1, column 11: `no_demo` takes `true` or `false`, not an integer"),
        ("header_timeout_s = 0\n", "line 1, column 20: `header_timeout_s` is `0`: 0 is not in 1..=3600"),
        ("log_format = \"xml\"\n", "`log_format` is `xml`: it must be `human` or `json`"),
        ("grace_s = = 3\n", "TOML parse error at line 1, column 11"),
        ("smtp_server = \"127.0.0.1:25\"\n", "--smtp-from"),
    ];
    for (text, expected) in cases {
        refused(&["--config", &bad_file(text)], &[], expected);
    }
    let missing = fresh_dir("config-missing").join("absent.toml").display().to_string();
    refused(&["--config", &missing], &[], "cannot read the configuration file");
    // clap's own range checks hold for the environment too, and the message names the variable.
    refused(
        &[],
        &[("TIDEPOOL_IDLE_THRESHOLD_PCT", "101")],
        "TIDEPOOL_IDLE_THRESHOLD_PCT is `101`: 101 is not in 0..=100",
    );
    refused(&[], &[("TIDEPOOL_NO_DEMO", "yes")], "TIDEPOOL_NO_DEMO is `yes`: it must be `true` or `false`");
    // An agent's file is checked against the agent's flags.
    let out = tidepool().args(["agent", "--config", &bad_file("listen = \"x\"\n")]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown key `listen`"), "{out:?}");
}

/// The example in deploy/ parses, names every flag of `serve` (a new flag without its
/// line fails here), and the defaults it shows are the server's.
#[test]
fn the_example_file_parses_names_every_flag_and_shows_the_defaults() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/tidepool.toml");
    let text = std::fs::read_to_string(example).expect("deploy/tidepool.toml");
    show(&["serve", "--config", example], &[]);
    let defaults = show(&["serve"], &[]);
    for setting in tidepool::config::settings_of("serve") {
        let line = text
            .lines()
            .find(|l| l.trim_start_matches("# ").starts_with(&format!("{} =", setting.id)))
            .unwrap_or_else(|| panic!("deploy/tidepool.toml has no line for `{}`", setting.id));
        let default = line_of(&defaults, &setting.id);
        if !default.contains("(not set") && !setting.secret {
            let shown = default.trim_start_matches("# ").split("  #").next().unwrap();
            assert_eq!(
                line.trim_start_matches("# ").trim_end(),
                shown,
                "the example's default for `{}`",
                setting.id
            );
        }
    }
}
