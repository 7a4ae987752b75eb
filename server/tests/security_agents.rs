//! Issue 10, the node side, end to end with a real server and real agent processes on
//! loopback: a job is untrusted code. It sees no secret of the control plane and no
//! other job's files (finding 1, DESIGN "Jobs are untrusted"), its output never takes
//! its node out of service (finding 3), an agent cut off from the server stops its job
//! before the server requeues it so a job never runs twice at once (finding 4, D4, V1),
//! and a job naming an image runs in it under podman (T1).

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::live::{Proc, call, free_port, http, login, wait_for};
use serde_json::{Value, json};

const ADMIN_PASSWORD: &str = "admin-pw-3c1f9e";
const SECRET: &str = "signing-secret-8d02b7a4e1-0f9c6d3a5b7e2c41";

struct Cluster {
    addr: String,
    dir: String,
    tokens: Vec<String>,
    agents: Vec<Option<Proc>>,
    dev: String,
    _server: Proc,
}

/// A server with the control plane's secrets in its environment, vision's T4 quota, and
/// node tokens for `nodes` agents (started by the test).
fn cluster(name: &str, nodes: usize, database: Option<&str>) -> Cluster {
    let dir = common::fresh_dir(&format!("sec-{name}"));
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let mut args = vec!["serve", "--listen", &addr, "--dispatch-interval-s", "1", "--min-runtime-s", "0"];
    args.extend(["--grace-s", "2", "--node-lost-after-s", "3"]);
    let data = format!("{dir}/data");
    args.extend(["--data-dir", &data]);
    if let Some(url) = database {
        args.extend(["--database-url", url]);
    }
    let server = Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(args)
        .env("TIDEPOOL_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .env("TIDEPOOL_SECRET", SECRET)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let server = Proc(server);
    wait_for(60, "the server", || {
        (http(&addr, "GET", "/api/openapi.json", None, None).ok()?.0 == 200).then_some(())
    });
    let admin = login(&addr, "admin", ADMIN_PASSWORD);
    call(
        &addr,
        "POST",
        "/api/users",
        &admin,
        Some(json!({ "username": "admin2", "password": "admin2-pw", "role": "admin" })),
    );
    let admin2 = login(&addr, "admin2", "admin2-pw");
    let change = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 8, "why": "the lab" });
    let id = call(&addr, "PUT", "/api/quotas", &admin, Some(change))["change"].clone();
    call(&addr, "POST", &format!("/api/changes/{id}/approve"), &admin2, Some(json!({ "note": "ok" })));
    let tokens = (0..nodes)
        .map(|k| {
            let t = call(
                &addr,
                "POST",
                "/api/nodes/tokens",
                &admin,
                Some(json!({ "node": format!("{name}-{k}") })),
            );
            t["token"].as_str().unwrap().to_string()
        })
        .collect();
    let dev = login(&addr, "vision-dev", "demo-password");
    Cluster { addr, dir, tokens, agents: (0..nodes).map(|_| None).collect(), dev, _server: server }
}

/// Whether the tests run as root (then jobs run as `nobody`).
fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

impl Cluster {
    /// Agent `k`, with the node token in its environment, syncing with `server`.
    fn agent(&mut self, k: usize, server: &str) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tidepool"));
        command
            .args(["agent", "--server", &format!("http://{server}"), "--fake-gpus", "4xT4", "--pool", "lab"])
            .args(["--wait-s", "1", "--state-dir", &format!("{}/agent-{k}", self.dir)])
            .args(["--jobs-root", &format!("{}/jobs-{k}", self.dir)])
            .args(["--checkpoint-root", &format!("{}/checkpoints", self.dir)])
            .env("TIDEPOOL_NODE_TOKEN", &self.tokens[k])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(format!("{}/agent-{k}.err", self.dir)).unwrap());
        if root() {
            command.args(["--run-as", "nobody"]);
        }
        self.agents[k] = Some(Proc(command.spawn().expect("agent starts")));
    }

    fn gpus_in_lab(&self, n: i64) {
        wait_for(30, &format!("{n} GPUs in the lab"), || {
            let view = call(&self.addr, "GET", "/api/pools", &self.dev, None);
            view["pools"].as_array()?.iter().any(|p| p["pool"] == "lab" && p["gpus"] == n).then_some(())
        });
    }

    fn submit(&self, body: Value) -> i64 {
        call(&self.addr, "POST", "/api/jobs", &self.dev, Some(body))["id"].as_i64().unwrap()
    }

    fn state(&self, id: i64) -> String {
        call(&self.addr, "GET", &format!("/api/jobs/{id}"), &self.dev, None)["state"].as_str().unwrap().into()
    }

    #[track_caller]
    fn wait_state(&self, id: i64, state: &str, secs: u64) {
        wait_for(secs, &format!("job {id} {state} (agent: {})", self.agent_errors()), || {
            (self.state(id) == state).then_some(())
        });
    }

    fn log(&self, id: i64) -> String {
        let v = call(&self.addr, "GET", &format!("/api/jobs/{id}/log"), &self.dev, None);
        v["log"].as_str().unwrap().to_string()
    }

    fn agent_errors(&self) -> String {
        (0..self.agents.len())
            .map(|k| std::fs::read_to_string(format!("{}/agent-{k}.err", self.dir)).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn events(&self, kind: &str) -> Vec<Value> {
        let v = call(&self.addr, "GET", &format!("/api/events?kind={kind}&limit=500"), &self.dev, None);
        v["events"].as_array().unwrap().clone()
    }
}

fn t4(name: &str, gpus: u32, command: &str) -> Value {
    json!({ "name": name, "command": command, "gpus": gpus, "model": "T4", "checkpointable": true })
}

// Finding 1: the member's job prints its environment and walks the file system; no
// secret, token or other job's file shows. The agent's state and logs are private.
#[test]
fn security_a_job_sees_no_secret_token_or_other_jobs_files() {
    let mut c = cluster("probe", 1, None);
    c.agent(0, &c.addr.clone());
    c.gpus_in_lab(4);
    let other = c.submit(t4(
        "other",
        1,
        r#"echo marker-e51b > "$HOME/marker-e51b"; echo marker-e51b > "$TIDEPOOL_CHECKPOINT_DIR/marker-e51b"; sleep 60"#,
    ));
    c.wait_state(other, "running", 30);
    let on_disk = format!("{}/checkpoints/job-{other}/marker-e51b", c.dir);
    wait_for(20, "the other job's marker", || std::path::Path::new(&on_disk).exists().then_some(()));
    let probe = r#"echo "probe-start"; id; env; cd "$HOME"
for d in .. ../.. ../../.. "$TIDEPOOL_CHECKPOINT_DIR/.." /proc/1; do echo "== $d"; ls -la "$d" 2>&1; done
ls -laR / 2>/dev/null | head -c 200000
echo "== find"; timeout 20 find / \( -path /proc -o -path /sys \) -prune -o \( -name 'marker-*' -o -name running.json -o -name 'tidepool.db*' -o -name secret -o -name '*.log' \) -print 2>/dev/null
echo "== environ"; cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n'
cat ../../secret ../secret ../../data/secret 2>/dev/null; echo "probe-end""#;
    let id = c.submit(t4("probe", 1, probe));
    c.wait_state(id, "succeeded", 60);
    let log = c.log(id);
    assert!(log.contains("probe-start") && log.contains("probe-end"), "the probe ran: {log}");
    assert!(log.contains(&format!("TIDEPOOL_JOB_ID={id}")), "its own variables are there");
    if root() {
        assert!(log.contains("uid=65534"), "it runs as nobody: {}", &log[..log.len().min(300)]);
    }
    for secret in [
        ADMIN_PASSWORD,
        SECRET,
        &c.tokens[0],
        "TIDEPOOL_NODE_TOKEN",
        "TIDEPOOL_ADMIN_PASSWORD",
        "TIDEPOOL_SECRET",
        "marker-e51b",
        "running.json",
        "tidepool.db",
        &format!("job-{other}"),
    ] {
        assert!(!log.contains(secret), "the job's log shows `{secret}`");
    }
    // Of the jobs root, it sees its own folder only.
    let own = log.split("TIDEPOOL_ALLOCATION_ID=").nth(1).and_then(|r| r.lines().next()).unwrap();
    for seen in log.split("alloc-").skip(1) {
        let n: String = seen.chars().take_while(char::is_ascii_digit).collect();
        assert_eq!(n, own, "the job sees another job's folder: {log}");
    }
    if std::env::var_os("TIDEPOOL_SHOW_PROBE").is_some() {
        eprintln!("{log}");
    }
    // The agent's state, and the job's output on disk, are the agent's alone.
    use std::os::unix::fs::MetadataExt;
    for (path, mode) in [(format!("{}/agent-0", c.dir), 0o700), (format!("{}/agent-0/logs", c.dir), 0o700)] {
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, mode, "{path}");
    }
    if root() {
        let folder = std::fs::metadata(format!("{}/checkpoints/job-{other}", c.dir)).unwrap();
        assert_eq!(
            (folder.uid(), folder.mode() & 0o777),
            (65534, 0o700),
            "the job's folder is its account's"
        );
    }
    call(&c.addr, "POST", &format!("/api/jobs/{other}/cancel"), &c.dev, None);
}

// Finding 3: 40 KB of 0xFF, control characters and NUL bytes leave the node healthy and
// the log readable; the next job runs on the same node. On both engines (NUL was a 500
// on PostgreSQL).
#[test]
fn security_a_job_printing_garbage_leaves_its_node_healthy() {
    garbage("garbage-sqlite", None);
    if let Some(url) = common::api::fresh_postgres("sec_garbage") {
        garbage("garbage-pg", Some(&url));
    }
}

fn garbage(name: &str, database: Option<&str>) {
    let mut c = cluster(name, 1, database);
    c.agent(0, &c.addr.clone());
    c.gpus_in_lab(4);
    let command = r#"head -c 40000 /dev/zero | tr '\0' '\377'; echo; head -c 40000 /dev/zero | tr '\0' '\001'
head -c 20000 /dev/zero; printf 'caf\303'; printf '\251 \033[31m\a\b\r\n'; echo garbage-done"#;
    let id = c.submit(t4("garbage", 1, command));
    c.wait_state(id, "succeeded", 60);
    let log = c.log(id);
    assert!(log.contains("garbage-done"), "the log is readable to its end");
    assert!(log.contains('\u{fffd}') && log.contains('\u{1}') && !log.contains('\0'));
    assert!(log.contains("café"), "a character split between reads arrives whole");
    let next = c.submit(t4("after", 4, "echo after the garbage"));
    c.wait_state(next, "succeeded", 30);
    assert!(c.log(next).contains("after the garbage"));
    let nodes = call(&c.addr, "GET", "/api/nodes", &c.dev, None);
    let node = nodes["nodes"].as_array().unwrap().iter().find(|n| n["name"] == format!("{name}-0")).cloned();
    assert_eq!(node.unwrap()["healthy"], true, "{nodes}");
    assert!(c.events("node-lost").is_empty(), "the node was never lost");
}

/// A TCP proxy on loopback: forwards until cut, then accepts connections and answers
/// nothing (a server or network that has gone silent, not one that refuses).
struct Silencer {
    addr: String,
    forwarding: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Silencer {
    fn new(target: &str) -> Silencer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let forwarding = Arc::new(AtomicBool::new(true));
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (target, on, conns) = (target.to_string(), forwarding.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                conns.lock().unwrap().push(client.try_clone().unwrap());
                if !on.load(Ordering::SeqCst) {
                    continue; // held open, never answered
                }
                let Ok(server) = TcpStream::connect(&target) else { continue };
                conns.lock().unwrap().push(server.try_clone().unwrap());
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        Silencer { addr, forwarding, open }
    }

    /// Stops forwarding: open connections drop, new ones hang.
    fn cut(&self) {
        self.forwarding.store(false, Ordering::SeqCst);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}

// Finding 4: the agent behind a silent proxy stops its job (SIGTERM, grace) before the
// server requeues it; the job resumes on the second agent, and an exclusive marker in
// the checkpoint folder shows the two runs never overlapped.
#[test]
fn security_a_cut_off_agent_stops_its_job_before_the_server_requeues_it() {
    let mut c = cluster("fence", 2, None);
    let proxy = Silencer::new(&c.addr);
    c.agent(0, &proxy.addr);
    c.gpus_in_lab(4);
    let job = r#"cd "$TIDEPOOL_CHECKPOINT_DIR"; now() { date +%s.%N; }
if ! mkdir lock 2>/dev/null; then echo "overlap $(now) alloc=$TIDEPOOL_ALLOCATION_ID" >> trace; exit 3; fi
echo "start $(now) alloc=$TIDEPOOL_ALLOCATION_ID resume=${TIDEPOOL_RESUME:-0}" >> trace
trap 'echo "end $(now) alloc=$TIDEPOOL_ALLOCATION_ID term" >> trace; rmdir lock; exit 143' TERM
n=0; while [ $n -lt 40 ]; do n=$((n+1)); sleep 0.2; done
echo "end $(now) alloc=$TIDEPOOL_ALLOCATION_ID done" >> trace; rmdir lock"#;
    let id = c.submit(t4("fenced", 4, job));
    let trace_file = format!("{}/checkpoints/job-{id}/trace", c.dir);
    let trace = || std::fs::read_to_string(&trace_file).unwrap_or_default();
    wait_for(30, "the job started on the first node", || trace().contains("start").then_some(()));
    proxy.cut();
    c.agent(1, &c.addr.clone());
    wait_for(60, "the job resumed on the second node", || trace().contains("resume=1").then_some(()));
    c.wait_state(id, "succeeded", 40);
    let trace = trace();
    assert!(!trace.contains("overlap"), "two runs at once: {trace}");
    let lines: Vec<Vec<&str>> = trace.lines().map(|l| l.split(' ').collect()).collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l[0]).collect();
    assert_eq!(kinds, ["start", "end", "start", "end"], "{trace}");
    assert!(lines[1][3] == "term" && lines[3][3] == "done", "fenced with SIGTERM, then finished: {trace}");
    assert_ne!(lines[0][2], lines[2][2], "two allocations: {trace}");
    let at = |l: &[&str]| l[1].parse::<f64>().unwrap();
    assert!(at(&lines[1]) < at(&lines[2]), "the first run ended before the second began: {trace}");
    eprintln!(
        "fence: the cut-off run ended {:.1} s after it started, {:.1} s before the requeued run began",
        at(&lines[1]) - at(&lines[0]),
        at(&lines[2]) - at(&lines[1])
    );
    assert!(c.agent_errors().contains("stopping every job"), "the agent fenced itself: {}", c.agent_errors());
    assert!(!c.events("node-lost").is_empty());
}

/// A busybox image imported from a tarball (no registry is reachable), or why not.
fn busybox_image(dir: &str) -> Result<String, String> {
    let busybox = ["/usr/bin/busybox", "/bin/busybox"].into_iter().find(|p| std::path::Path::new(p).exists());
    let busybox = busybox.ok_or("busybox-static is not installed")?;
    let root = format!("{dir}/image");
    std::fs::create_dir_all(format!("{root}/bin")).unwrap();
    std::fs::create_dir_all(format!("{root}/tmp")).unwrap();
    std::fs::copy(busybox, format!("{root}/bin/busybox")).map_err(|e| e.to_string())?;
    for applet in ["sh", "ls", "cat", "echo", "id", "env", "sleep", "pwd", "test", "grep"] {
        std::os::unix::fs::symlink("busybox", format!("{root}/bin/{applet}")).unwrap();
    }
    let tar = format!("{dir}/image.tar");
    let ok = |c: &mut Command| c.status().is_ok_and(|s| s.success());
    if !ok(Command::new("tar").args(["-C", &root, "-cf", &tar, "."])) {
        return Err("tar failed".into());
    }
    let conf = format!("{dir}/containers.conf");
    std::fs::write(&conf, "[containers]\ndefault_ulimits = []\n").unwrap();
    let image = "localhost/tidepool-security-test:1";
    // Imported once per machine: an import of the same tarball only adds another layer.
    let mut exists = Command::new("podman");
    exists.args(["image", "exists", image]).env("CONTAINERS_CONF", &conf);
    if ok(&mut exists) {
        return Ok(image.to_string());
    }
    let mut import = Command::new("podman");
    import.args(["import", "-q", &tar, image]).env("CONTAINERS_CONF", &conf).stdout(Stdio::null());
    if !ok(&mut import) {
        return Err("podman cannot import an image here".into());
    }
    Ok(image.to_string())
}

/// Submits a job with the spec's `image`.
fn submit_in_image(c: &Cluster, mut body: Value, image: &str) -> i64 {
    body["image"] = json!(image);
    c.submit(body)
}

fn containers() -> String {
    let out = Command::new("podman")
        .args(["ps", "-a", "--format", "{{.Names}}", "--filter", "name=tidepool-"])
        .env("CONTAINERS_CONF", "/dev/null")
        .output();
    out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default()
}

// T1 (scope "Sandboxes and images"): a job naming an image runs in it under podman, with
// its folders mounted, as the unprivileged account; a stop reaches it in the container.
#[test]
fn security_an_image_job_runs_in_its_image_under_podman() {
    let mut c = cluster("image", 1, None);
    let image = match busybox_image(&c.dir) {
        Ok(i) => i,
        Err(why) => {
            eprintln!("NOTICE: security_an_image_job_runs_in_its_image_under_podman skipped: {why}");
            return;
        }
    };
    let probe = r#"echo in-image; id; pwd; test -e /usr/bin/apt && echo host-visible || echo host-hidden
echo from-image > "$TIDEPOOL_CHECKPOINT_DIR/from-image"; ls -la "$HOME"; env | grep TIDEPOOL_"#;
    // Jobs name only models the cluster has: the node registers first.
    c.agent(0, &c.addr.clone());
    c.gpus_in_lab(4);
    let one = submit_in_image(&c, t4("in-image", 1, probe), &image);
    let long = r#"trap 'echo term > "$TIDEPOOL_CHECKPOINT_DIR/term"; exit 143' TERM
echo ready > "$TIDEPOOL_CHECKPOINT_DIR/ready"; while true; do sleep 0.2; done"#;
    let two = submit_in_image(&c, t4("stopped-in-image", 1, long), &image);
    c.wait_state(one, "succeeded", 60);
    let log = c.log(one);
    assert!(log.contains("in-image") && log.contains("host-hidden"), "it ran in the image: {log}");
    assert!(log.contains(&format!("TIDEPOOL_JOB_ID={one}")), "{log}");
    if root() {
        assert!(log.contains("uid=65534"), "as nobody: {log}");
    }
    let written = std::fs::read_to_string(format!("{}/checkpoints/job-{one}/from-image", c.dir)).unwrap();
    assert_eq!(written, "from-image\n", "its checkpoint folder is mounted");

    let folder = format!("{}/checkpoints/job-{two}", c.dir);
    wait_for(60, "the long job ready", || {
        std::path::Path::new(&format!("{folder}/ready")).exists().then_some(())
    });
    call(&c.addr, "POST", &format!("/api/jobs/{two}/cancel"), &c.dev, None);
    wait_for(30, "SIGTERM inside the container", || {
        std::path::Path::new(&format!("{folder}/term")).exists().then_some(())
    });
    wait_for(30, "the container gone", || containers().trim().is_empty().then_some(()));
}
