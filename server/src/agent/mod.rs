//! `tidepool agent`: runs a node's jobs for the server. It registers the node's GPUs,
//! then syncs in a loop: each sync reports utilisation, what runs and what finished (with
//! new log output), and brings back what to start and stop. A sync waits on the server
//! for news (long poll) but is cut short the moment a local process ends, so a finished
//! job's GPUs are reported free at once (R1). What it runs is remembered in its state
//! folder: after a restart it kills what it had left running and says so, so nothing
//! runs twice.

pub mod client;
mod gpus;
mod procs;
pub mod shim;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::AgentArgs;
use crate::fleet::protocol::{Finished, LogChunk, Orders, Outcome, Register, Registered, Report};
use client::Client;
use gpus::Gpus;
use procs::{Proc, Remembered, signal_group, still_ours};

/// How often local processes are checked while a sync waits.
const TICK: Duration = Duration::from_millis(100);
const LOG_CHUNK: usize = 32 * 1024;

pub fn run(args: &AgentArgs) -> Result<String, String> {
    let token = match &args.token {
        Some(t) => t.clone(),
        None => std::env::var("TIDEPOOL_NODE_TOKEN")
            .map_err(|_| "give --token or TIDEPOOL_NODE_TOKEN".to_string())?,
    };
    let gpus = Gpus::discover(args.fake_gpus.as_deref())?;
    let client = Client::new(&args.server, token)?;
    std::fs::create_dir_all(&args.state_dir).map_err(|e| format!("{}: {e}", args.state_dir.display()))?;
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(Agent::new(args, gpus, client).run())
}

struct Agent<'a> {
    args: &'a AgentArgs,
    gpus: Gpus,
    client: Client,
    procs: BTreeMap<i64, Proc>,
    /// Ends not yet acknowledged by a sync.
    finished: Vec<Finished>,
    /// Log output read but not yet acknowledged by a sync.
    logs: Vec<LogChunk>,
    /// The server's grace period, for time limits.
    grace: Duration,
}

fn state_file(dir: &Path) -> PathBuf {
    dir.join("running.json")
}

impl<'a> Agent<'a> {
    fn new(args: &'a AgentArgs, gpus: Gpus, client: Client) -> Agent<'a> {
        Agent {
            args,
            gpus,
            client,
            procs: BTreeMap::new(),
            finished: Vec::new(),
            logs: Vec::new(),
            grace: Duration::from_secs(30),
        }
    }

    /// Kills what a previous run of this agent left running, to report it abandoned.
    fn clean_up_leftovers(&mut self) {
        let file = state_file(&self.args.state_dir);
        let left: Vec<Remembered> =
            std::fs::read(&file).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        for r in left {
            if still_ours(r.pgid, r.fence) {
                signal_group(r.pgid, libc::SIGKILL);
            }
            self.finished.push(Finished {
                fence: r.fence,
                outcome: Outcome::Abandoned,
                exit_code: None,
                grace_used_ms: None,
            });
        }
        self.remember();
    }

    fn remember(&self) {
        let now: Vec<Remembered> =
            self.procs.values().map(|p| Remembered { fence: p.fence, pgid: p.pgid }).collect();
        let file = state_file(&self.args.state_dir);
        if let Err(e) = std::fs::write(&file, serde_json::to_vec(&now).unwrap_or_default()) {
            eprintln!("agent: cannot write {}: {e}", file.display());
        }
    }

    async fn register(&self) -> Registered {
        let inventory = match self.gpus.inventory() {
            Ok(i) => i,
            Err(e) => {
                eprintln!("agent: cannot read the GPUs: {e}");
                Vec::new()
            }
        };
        let body = Register { pool: self.args.pool.clone(), gpus: inventory };
        loop {
            match self.client.post::<_, Registered>("/api/agent/register", &body).await {
                Ok(r) => return r,
                Err(e) => eprintln!("agent: register: {e}; retrying"),
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    async fn run(mut self) -> Result<String, String> {
        self.clean_up_leftovers();
        let me = self.register().await;
        self.grace = Duration::from_secs(me.grace_s);
        println!("agent: node {} registered (id {})", me.name, me.node_id);
        loop {
            self.poll_procs();
            let report = self.report();
            let (sent_finished, sent_logs) = (report.finished.len(), report.logs.len());
            let client = self.client.clone();
            let sync = async move { client.post::<_, Orders>("/api/agent/sync", &report).await };
            tokio::pin!(sync);
            // Wait for the answer, but report a process's end at once.
            let answer = loop {
                tokio::select! {
                    a = &mut sync => break Some(a),
                    _ = tokio::time::sleep(TICK) => {
                        if self.poll_procs() { break None; }
                    }
                }
            };
            match answer {
                None => continue,
                Some(Ok(orders)) => {
                    self.finished.drain(..sent_finished);
                    self.logs.drain(..sent_logs);
                    self.obey(orders);
                }
                Some(Err(e)) => {
                    eprintln!("agent: sync: {e}");
                    if e.contains("register first") {
                        self.register().await;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    /// Polls every process; true if one ended.
    fn poll_procs(&mut self) -> bool {
        let grace = self.grace;
        let ended: Vec<Finished> = self.procs.values_mut().filter_map(|p| p.poll(grace)).collect();
        for f in &ended {
            if let Some(mut p) = self.procs.remove(&f.fence.allocation) {
                let _ = std::fs::remove_file(&p.util_file);
                // What it printed last goes with the report of its end.
                while let Some((text, n)) = p.unsent_log(LOG_CHUNK) {
                    self.logs.push(LogChunk { fence: p.fence, offset: p.log_sent, text });
                    p.log_sent += n;
                }
            }
        }
        let any = !ended.is_empty();
        self.finished.extend(ended);
        if any {
            self.remember();
        }
        any
    }

    fn report(&mut self) -> Report {
        let busy: HashMap<u8, PathBuf> =
            self.procs.values().flat_map(|p| p.gpus.iter().map(|g| (*g, p.util_file.clone()))).collect();
        for p in self.procs.values_mut() {
            if let Some((text, n)) = p.unsent_log(LOG_CHUNK) {
                self.logs.push(LogChunk { fence: p.fence, offset: p.log_sent, text });
                p.log_sent += n;
            }
        }
        // A report stays under the server's body limit; the rest goes next time.
        let logs: Vec<LogChunk> = self.logs.iter().take(4).cloned().collect();
        Report {
            gpus: self.gpus.sample(&busy),
            running: self.procs.values().map(|p| p.fence).collect(),
            finished: self.finished.clone(),
            logs,
            wait_s: if self.finished.is_empty() { self.args.wait_s } else { 0 },
        }
    }

    fn obey(&mut self, orders: Orders) {
        for r in &orders.refused {
            eprintln!("agent: the server refused a report of allocation {}: {}", r.allocation, r.reason);
        }
        for stop in orders.stop {
            if let Some(p) = self.procs.get_mut(&stop.fence.allocation) {
                p.stop(Outcome::Stopped, Duration::from_secs(stop.grace_s));
            }
        }
        for a in orders.start {
            if self.procs.contains_key(&a.fence.allocation)
                || self.finished.iter().any(|f| f.fence == a.fence)
            {
                continue;
            }
            match Proc::spawn(&a, &self.args.state_dir, &self.args.checkpoint_root) {
                Ok(p) => {
                    self.procs.insert(a.fence.allocation, p);
                }
                Err(e) => {
                    eprintln!("agent: job {}: {e}", a.job);
                    self.finished.push(Finished {
                        fence: a.fence,
                        outcome: Outcome::FailedToStart,
                        exit_code: None,
                        grace_used_ms: None,
                    });
                }
            }
        }
        self.remember();
    }
}
