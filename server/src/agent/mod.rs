//! `tidepool agent`: runs a node's jobs for the server. It registers the node's GPUs,
//! then syncs in a loop: each sync reports utilisation, what runs and what finished (with
//! new log output), and brings back what to start and stop. A sync waits on the server
//! for news (long poll) but is cut short the moment a local process ends, so a finished
//! job's GPUs are reported free at once (R1). What it runs is remembered in its state
//! folder: after a restart it kills what it had left running and says so, so nothing
//! runs twice. Cut off from the server for the lost-node interval, it stops its jobs
//! itself (self-fencing, finding 4): the server requeues them only after that.
//!
//! Jobs are untrusted (finding 1): each starts from an empty environment, in its own
//! folder under the jobs root, confined as `setup` chose (see `launch`).

pub mod accounts;
pub mod client;
pub mod filesystem;
mod gpus;
pub mod launch;
mod logs;
mod procs;
mod setup;
pub mod shim;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::cli::AgentArgs;
use crate::fleet::protocol::{
    Assignment, Fence, Finished, LogChunk, Orders, Outcome, Register, Registered, Report,
};
use client::Client;
use gpus::Gpus;
use logs::Outbox;
use procs::{Proc, Remembered, signal_group, still_ours};
use setup::Setup;

/// How often local processes are checked while a sync waits.
const TICK: Duration = Duration::from_millis(100);
/// Output still to send for which a job's end waits (a few reports' worth).
const HOLD_END_FOR_BYTES: u64 = 1 << 20;
/// How long an answer may take beyond the wait the server was asked for.
const ANSWER_MARGIN: Duration = Duration::from_secs(10);

pub fn run(args: &AgentArgs) -> Result<String, String> {
    // A token on the command line is warned about where the command line is read (config).
    let token = match &args.token {
        Some(t) => t.clone(),
        None => std::env::var("TIDEPOOL_NODE_TOKEN")
            .map_err(|_| "give --token or TIDEPOOL_NODE_TOKEN".to_string())?,
    };
    // SAFETY: prctl(PR_SET_DUMPABLE) only changes this process's attribute. Not dumpable:
    // no process of the same account reads the agent's memory or environment (the token).
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0);
    }
    let gpus = Gpus::discover(args.fake_gpus.as_deref())?;
    let tls = crate::tls::ClientTls {
        ca_cert: args.ca_cert.clone(),
        client_cert: args.client_cert.clone(),
        client_key: args.client_key.clone(),
    };
    let client = Client::with_servers(&args.server, token)?.with_tls(&tls)?;
    let setup = Setup::new(args)?;
    tracing::info!(setup = %setup.describe(), "agent starting");
    filesystem::warn_if_slow(&[
        ("--jobs-root", &setup.jobs_root),
        ("--checkpoint-root", &setup.checkpoint_root),
        ("--state-dir", &setup.logs),
    ]);
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(Agent::new(args, setup, gpus, client).run())
}

struct Agent<'a> {
    args: &'a AgentArgs,
    setup: Setup,
    gpus: Gpus,
    client: Client,
    procs: BTreeMap<i64, Proc>,
    /// Ends not yet acknowledged by a sync.
    finished: Vec<Finished>,
    /// Log output on its way to the server.
    outbox: Outbox,
    /// The server's grace period, for time limits and fencing.
    grace: Duration,
    /// No sync through for this long: stop every job (`None`: the server sets none).
    lost_after: Option<Duration>,
    /// When the last sync (or registration) that got through was sent.
    last_ok_sent: Instant,
    wait_s: u64,
    /// Failed reports in a row that carried logs.
    log_failures: u32,
}

impl<'a> Agent<'a> {
    fn new(args: &'a AgentArgs, setup: Setup, gpus: Gpus, client: Client) -> Agent<'a> {
        Agent {
            args,
            setup,
            gpus,
            client,
            procs: BTreeMap::new(),
            finished: Vec::new(),
            outbox: Outbox::default(),
            grace: Duration::from_secs(30),
            lost_after: None,
            last_ok_sent: Instant::now(),
            wait_s: args.wait_s,
            log_failures: 0,
        }
    }

    fn state_file(&self) -> PathBuf {
        self.setup.state_dir.join("running.json")
    }

    /// Kills what a previous run of this agent left running, to report it abandoned.
    fn clean_up_leftovers(&mut self) {
        let left: Vec<Remembered> = std::fs::read(self.state_file())
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        for r in left {
            if still_ours(r.pgid, r.fence) {
                signal_group(r.pgid, libc::SIGKILL);
            }
            if let Some(name) = &r.container {
                self.setup.remove_container(name);
            }
            let _ =
                std::fs::remove_dir_all(self.setup.jobs_root.join(format!("alloc-{}", r.fence.allocation)));
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
        let now: Vec<Remembered> = self.procs.values().map(Proc::remembered).collect();
        let file = self.state_file();
        if let Err(e) = std::fs::write(&file, serde_json::to_vec(&now).unwrap_or_default()) {
            tracing::error!(file = %file.display(), error = %e, "cannot write");
        }
    }

    /// Registers once; the answer, or why not.
    async fn register_once(&mut self) -> Result<Registered, String> {
        let inventory = self.gpus.inventory().unwrap_or_else(|e| {
            tracing::error!(error = %e, "cannot read the GPUs");
            Vec::new()
        });
        let body = Register { pool: self.args.pool.clone(), gpus: inventory };
        let sent = Instant::now();
        let me: Registered = self
            .client
            .post_within("/api/agent/register", &body, ANSWER_MARGIN)
            .await
            .map_err(|f| f.message)?;
        self.last_ok_sent = sent;
        self.grace = Duration::from_secs(me.grace_s);
        self.lost_after = (me.lost_after_s > 0).then(|| Duration::from_secs(me.lost_after_s));
        // A long poll never outlasts a third of the fence interval.
        let fence_cap = if me.lost_after_s > 0 { me.lost_after_s / 3 } else { u64::MAX };
        self.wait_s = self.args.wait_s.min(me.wait_max_s).min(fence_cap);
        Ok(me)
    }

    async fn run(mut self) -> Result<String, String> {
        self.clean_up_leftovers();
        let me = loop {
            match self.register_once().await {
                Ok(me) => break me,
                Err(e) => tracing::warn!(error = %e, "register failed; retrying"),
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        };
        tracing::info!(node = %me.name, id = me.node_id, "registered");
        // A job's end (its shim exiting) is seen at once, not at the next tick: with short
        // jobs the tick was most of the time between a job's end and the next start.
        let mut ended = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::child())
            .map_err(|e| format!("cannot watch the jobs' ends (SIGCHLD): {e}"))?;
        loop {
            self.poll_procs();
            let report = self.report();
            let sent_finished: Vec<Fence> = report.finished.iter().map(|f| f.fence).collect();
            let sent_logs = report.logs.len();
            // Only a long poll is cut short for a job's end: a report comes back at once, and
            // each sync cut short costs a new connection and the server's work thrown away.
            let long_poll = report.wait_s > 0;
            let timeout = Duration::from_secs(report.wait_s) + ANSWER_MARGIN;
            let client = self.client.clone();
            let sent = Instant::now();
            let sync =
                async move { client.post_within::<_, Orders>("/api/agent/sync", &report, timeout).await };
            tokio::pin!(sync);
            // Wait for the answer, but report a process's end at once.
            let answer = loop {
                tokio::select! {
                    a = &mut sync => break Some(a),
                    _ = ended.recv() => {
                        if self.poll_procs() && long_poll { break None; }
                    }
                    _ = tokio::time::sleep(TICK) => {
                        if self.poll_procs() && long_poll { break None; }
                    }
                }
            };
            match answer {
                None => continue,
                Some(Ok(orders)) => {
                    self.last_ok_sent = sent;
                    self.log_failures = 0;
                    self.finished.retain(|f| !sent_finished.contains(&f.fence));
                    self.outbox.sent(sent_logs);
                    self.obey(orders);
                }
                Some(Err(f)) => {
                    tracing::warn!(failure = %f, "sync failed");
                    if sent_logs > 0 && f.status.is_some() {
                        self.log_failures += 1;
                        // A report the server answers but will not take must not be sent
                        // forever: the logs in it go (their chunks are the likely cause).
                        let refused =
                            f.status.is_some_and(|s| (400..500).contains(&s) && s != 401 && s != 409);
                        if refused || self.log_failures >= 3 {
                            tracing::warn!(
                                chunks = sent_logs,
                                "dropping log chunks the server does not take"
                            );
                            self.outbox.sent(sent_logs);
                            self.log_failures = 0;
                        }
                    }
                    if f.message.contains("register first")
                        && let Err(e) = self.register_once().await
                    {
                        tracing::warn!(error = %e, "register failed");
                    }
                    self.pause(Duration::from_secs(1)).await;
                }
            }
        }
    }

    /// Waits, still watching the jobs (and the fence deadline).
    async fn pause(&mut self, how_long: Duration) {
        let until = Instant::now() + how_long;
        while Instant::now() < until {
            tokio::time::sleep(TICK).await;
            if self.poll_procs() {
                return;
            }
        }
    }

    /// Polls every process, and fences them all if no sync got through for the lost-node
    /// interval; true if one ended.
    fn poll_procs(&mut self) -> bool {
        if let Some(lost) = self.lost_after
            && self.last_ok_sent.elapsed() >= lost
            && self.procs.values().any(|p| !p.stopping())
        {
            tracing::error!(
                lost_s = lost.as_secs(),
                "no sync got through: stopping every job before the server requeues it"
            );
            for p in self.procs.values_mut() {
                p.stop(Outcome::Stopped, self.grace);
            }
        }
        let grace = self.grace;
        let setup = &self.setup;
        let ended: Vec<Finished> = self.procs.values_mut().filter_map(|p| p.poll(grace, setup)).collect();
        for f in &ended {
            if let Some(p) = self.procs.remove(&f.fence.allocation) {
                self.outbox.ended.push(p.log);
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
        let busy: HashMap<u8, PathBuf> = self
            .procs
            .values()
            .filter_map(|p| Some((p, p.util_file.clone()?)))
            .flat_map(|(p, file)| p.gpus.iter().map(move |g| (*g, file.clone())))
            .collect();
        let (logs, more) = self.outbox.next(self.procs.values_mut().map(|p| &mut p.log));
        // A job's end goes out with the last of its output, so whoever sees it ended reads
        // its whole log; meanwhile it is still reported running (else the server would
        // take it for lost). Unless much is left: a job that printed gigabytes would hold
        // its GPUs while that drains a report at a time, so its end goes first.
        let unsent = |fence: Fence| {
            self.outbox.pending[logs.len()..].iter().any(|c| c.fence == fence)
                || self.outbox.ended.iter().any(|t| {
                    let size = std::fs::metadata(&t.file).map_or(0, |m| m.len());
                    t.fence == fence && size.saturating_sub(t.read) <= HOLD_END_FOR_BYTES
                })
        };
        let (held, finished): (Vec<Finished>, Vec<Finished>) =
            self.finished.iter().cloned().partition(|f| unsent(f.fence));
        Report {
            gpus: self.gpus.sample(&busy),
            running: self.procs.values().map(|p| p.fence).chain(held.iter().map(|f| f.fence)).collect(),
            finished,
            logs,
            wait_s: if self.finished.is_empty() && !more { self.wait_s } else { 0 },
        }
    }

    fn obey(&mut self, orders: Orders) {
        for r in &orders.refused {
            tracing::warn!(allocation = r.allocation, reason = %r.reason, "the server refused a report");
        }
        for stop in orders.stop {
            if let Some(p) = self.procs.get_mut(&stop.fence.allocation) {
                p.stop(Outcome::Stopped, Duration::from_secs(stop.grace_s));
            }
        }
        let todo: Vec<Assignment> = orders
            .start
            .into_iter()
            .filter(|a| {
                !self.procs.contains_key(&a.fence.allocation)
                    && !self.finished.iter().any(|f| f.fence == a.fence)
            })
            .collect();
        for (a, started) in spawn_all(todo, &self.setup) {
            match started {
                Ok(p) => {
                    self.procs.insert(a.fence.allocation, p);
                }
                Err(e) => {
                    tracing::error!(job = a.job, error = %e, "the job could not start");
                    // Its owner reads why in the job's log.
                    let text = format!("tidepool agent: the job could not start: {e}\n");
                    self.outbox.pending.push(LogChunk { fence: a.fence, offset: 0, text });
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

/// Starts a batch of jobs. Each start waits for its shim's exec (the parent is held until
/// the child has replaced itself), so a batch of 64 started one by one kept a freed node
/// from reporting back for a sizeable fraction of a second; a few threads start them side
/// by side. Results come back in the order given.
fn spawn_all(todo: Vec<Assignment>, setup: &Setup) -> Vec<(Assignment, Result<Proc, String>)> {
    const SPAWNERS: usize = 4;
    if todo.len() <= 1 {
        return todo
            .into_iter()
            .map(|a| {
                let p = Proc::spawn(&a, setup);
                (a, p)
            })
            .collect();
    }
    let runtime = tokio::runtime::Handle::current();
    let per = todo.len().div_ceil(SPAWNERS);
    let started: Vec<Result<Proc, String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = todo
            .chunks(per)
            .map(|chunk| {
                let runtime = runtime.clone();
                // The reactor reaps the children, so each thread starts them inside it.
                let worker = scope.spawn(move || {
                    let _inside = runtime.enter();
                    chunk.iter().map(|a| Proc::spawn(a, setup)).collect::<Vec<_>>()
                });
                (chunk.len(), worker)
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|(n, w)| {
                w.join()
                    .unwrap_or_else(|_| (0..n).map(|_| Err("the starting thread panicked".into())).collect())
            })
            .collect()
    });
    todo.into_iter().zip(started).collect()
}
