//! `tidepool bench e2e`: what a user goes through, end to end. A real `tidepool serve`
//! (SQLite or PostgreSQL), one real agent process with fake GPUs running each job as a
//! real (trivial) process, and HTTP clients submitting a burst as a member. It prints the
//! submit rate and latency, jobs started per second, submit-to-start (p50/p99), the gap
//! between a job's end and the next start on its GPU, and the server's and agent's CPU per
//! job. The driver shares the machine's cores with the server and the agent.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sqlx::Row;
use tidepool_api::jobs::{Submit, Submitted};

use crate::bench_agents::cpu_s;
use crate::bench_server::{BenchServer, bench_dir, sign_in};
use crate::cli::{BenchE2eArgs, Format};
use crate::drill::cluster::{Agent, Shared};
use crate::sim::report::nearest_rank;
use crate::store::Store;

const MODEL: &str = "bench-gpu";

/// The figures, as `--format json` prints them.
#[derive(Debug, Serialize, Deserialize)]
pub struct E2eFigures {
    pub engine: String,
    pub jobs: u32,
    pub clients: u32,
    pub gpus: u32,
    /// The file system of the agent's folders ("tmpfs", "ext4 without a journal", …).
    #[serde(default)]
    pub node_fs: Option<String>,
    pub submitted_per_s: f64,
    pub submit_p50_ms: f64,
    pub submit_p99_ms: f64,
    /// Jobs over the time from the first submission to the last start.
    pub started_per_s: f64,
    /// From the records, whole seconds.
    pub submit_to_start_p50_s: i64,
    pub submit_to_start_p99_s: i64,
    /// A GPU's idle gap between one job's end and the next job's start on it.
    pub reuse_p50_s: i64,
    pub reuse_p99_s: i64,
    pub finished: u32,
    pub server_cpu_ms_per_job: f64,
    pub agent_cpu_ms_per_job: f64,
    pub wall_s: f64,
}

pub fn run(args: &BenchE2eArgs) -> Result<String, String> {
    let dir = bench_dir("e2e")?;
    // The agent's folders: where the user put them, else beside the database.
    let node_dir = match &args.node_dir {
        Some(d) => {
            let n = d.join(format!("tidepool-bench-node-{}", std::process::id()));
            // Checked first: a bad folder is refused before anything starts.
            std::fs::create_dir_all(&n).map_err(|e| {
                let _ = std::fs::remove_dir_all(&dir);
                format!("--node-dir {}: {e}", n.display())
            })?;
            n
        }
        None => dir.clone(),
    };
    let url =
        args.database_url.clone().unwrap_or_else(|| format!("sqlite:{}", dir.join("bench.db").display()));
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let store = rt.block_on(Store::open(&url)).map_err(|e| e.to_string())?;
    let (group, login, tokens) =
        rt.block_on(crate::drill::organise(&store, "bench", MODEL, i64::from(args.gpus), 1))?;
    let server = BenchServer::start(
        &dir.join("server"),
        "bench-admin-pw",
        &["--database-url", &url, "--max-pending-per-user", "1000000", "--min-runtime-s", "0"],
    )?;
    let shared = Shared {
        exe: std::env::current_exe().map_err(|e| e.to_string())?,
        dir: node_dir.clone(),
        database_url: url.clone(),
        secret: String::new(),
        admin_password: String::new(),
    };
    let base = format!("http://{}", server.addr);
    let agent = Agent::start(
        &shared,
        0,
        std::slice::from_ref(&base),
        &tokens[0],
        &group,
        &format!("{}x{MODEL}", args.gpus),
    )?;
    let out = rt.block_on(drive(args, &store, &base, &group, &login, server.id(), agent.id()));
    drop(agent);
    drop(server);
    let node_fs = crate::agent::filesystem::describe(&node_dir);
    let _ = std::fs::remove_dir_all(&node_dir);
    let _ = std::fs::remove_dir_all(&dir);
    let f = E2eFigures { node_fs, ..out? };
    Ok(match args.format {
        Format::Json => serde_json::to_string(&f).map_err(|e| e.to_string())?,
        Format::Text => text(&f),
    })
}

fn text(f: &E2eFigures) -> String {
    format!(
        "{} jobs by {} clients, one agent of {} GPUs (its folders on {}), on {}\n\
         submitted   {:.0}/s, latency p50 {:.1} ms, p99 {:.1} ms\n\
         started     {:.0}/s (first submission to last start)\n\
         waited      submit to start p50 {} s, p99 {} s\n\
         GPU reuse   end to next start p50 {} s, p99 {} s\n\
         finished    {} of {}\n\
         CPU per job server {:.2} ms, agent {:.2} ms ({:.1} s in all)",
        f.jobs,
        f.clients,
        f.gpus,
        f.node_fs.as_deref().unwrap_or("an unknown file system"),
        f.engine,
        f.submitted_per_s,
        f.submit_p50_ms,
        f.submit_p99_ms,
        f.started_per_s,
        f.submit_to_start_p50_s,
        f.submit_to_start_p99_s,
        f.reuse_p50_s,
        f.reuse_p99_s,
        f.finished,
        f.jobs,
        f.server_cpu_ms_per_job,
        f.agent_cpu_ms_per_job,
        f.wall_s
    )
}

async fn count(store: &Store, sql: &str) -> Result<i64, String> {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(&store.pool).await.map_err(|e| e.to_string())
}

async fn drive(
    args: &BenchE2eArgs,
    store: &Store,
    base: &str,
    group: &str,
    login: &str,
    server_pid: u32,
    agent_pid: u32,
) -> Result<E2eFigures, String> {
    let http = reqwest::Client::new();
    let (username, password) = login.split_once('\n').ok_or("no login")?;
    let token = sign_in(base, username, password).await?;
    // The burst measures dispatch, not the agent's start.
    crate::drill::wait_for_nodes(store, group, 1).await?;
    let (server_cpu0, agent_cpu0) = (cpu_s(server_pid)?, cpu_s(agent_pid)?);
    let t0 = Instant::now();
    let next = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let mut tasks = Vec::new();
    for _ in 0..args.clients {
        let (http, token, next, base, jobs) =
            (http.clone(), token.clone(), next.clone(), base.to_string(), args.jobs);
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n >= jobs {
                    break;
                }
                let body = Submit {
                    name: Some(format!("e2e-{n}")),
                    command: Some("true".into()),
                    gpus: Some(1),
                    model: Some(MODEL.into()),
                    time_limit_s: Some(600),
                    ..Submit::default()
                };
                let at = Instant::now();
                let r = http.post(format!("{base}/api/jobs")).bearer_auth(&token).json(&body).send().await;
                let r = r.map_err(|e| e.to_string())?;
                if !r.status().is_success() {
                    return Err(format!(
                        "a submission answered {}: {}",
                        r.status(),
                        r.text().await.unwrap_or_default()
                    ));
                }
                r.json::<Submitted>().await.map_err(|e| e.to_string())?;
                latencies.push(at.elapsed().as_secs_f64() * 1000.0);
            }
            Ok::<_, String>(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.map_err(|e| e.to_string())??);
    }
    let submitted_s = t0.elapsed().as_secs_f64();
    // Every job started, then every job ended: polled from the records.
    let deadline = t0 + Duration::from_secs(args.timeout_s);
    let started_sql = "SELECT CAST(COUNT(DISTINCT job_id) AS BIGINT) FROM allocations";
    let mut started_s = None;
    loop {
        if started_s.is_none() && count(store, started_sql).await? >= i64::from(args.jobs) {
            started_s = Some(t0.elapsed().as_secs_f64());
        }
        let ended = count(store, "SELECT CAST(COUNT(*) AS BIGINT) FROM jobs WHERE state IN ('succeeded', 'failed', 'timed-out', 'cancelled')").await?;
        if started_s.is_some() && ended >= i64::from(args.jobs) {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "after {} s: {ended} of {} jobs ended (see --timeout-s)",
                args.timeout_s, args.jobs
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let wall_s = t0.elapsed().as_secs_f64();
    let jobs = f64::from(args.jobs);
    let (waits, reuse) = from_records(store).await?;
    let finished =
        count(store, "SELECT CAST(COUNT(*) AS BIGINT) FROM jobs WHERE state = 'succeeded'").await?;
    latencies.sort_by(f64::total_cmp);
    Ok(E2eFigures {
        engine: match store.engine {
            crate::store::Engine::Postgres => "PostgreSQL",
            crate::store::Engine::Sqlite => "SQLite",
        }
        .into(),
        jobs: args.jobs,
        clients: args.clients,
        gpus: args.gpus,
        node_fs: None,
        submitted_per_s: jobs / submitted_s.max(1e-9),
        submit_p50_ms: nearest_rank(&latencies, 0.5).unwrap_or(0.0),
        submit_p99_ms: nearest_rank(&latencies, 0.99).unwrap_or(0.0),
        started_per_s: jobs / started_s.unwrap_or(wall_s).max(1e-9),
        submit_to_start_p50_s: nearest_rank(&waits, 0.5).unwrap_or(0),
        submit_to_start_p99_s: nearest_rank(&waits, 0.99).unwrap_or(0),
        reuse_p50_s: nearest_rank(&reuse, 0.5).unwrap_or(0),
        reuse_p99_s: nearest_rank(&reuse, 0.99).unwrap_or(0),
        finished: finished as u32,
        server_cpu_ms_per_job: (cpu_s(server_pid)? - server_cpu0) * 1000.0 / jobs,
        agent_cpu_ms_per_job: (cpu_s(agent_pid)? - agent_cpu0) * 1000.0 / jobs,
        wall_s,
    })
}

/// Submit-to-start per job, and per GPU the gaps between an allocation's end and the next
/// start on that GPU (sorted, whole seconds).
async fn from_records(store: &Store) -> Result<(Vec<i64>, Vec<i64>), String> {
    let rows = sqlx::query(
        "SELECT a.node_id, a.gpu_mask, a.started_at, a.ended_at, j.submitted_at \
         FROM allocations a JOIN jobs j ON j.id = a.job_id ORDER BY a.started_at, a.id",
    )
    .fetch_all(&store.pool)
    .await
    .map_err(|e| e.to_string())?;
    let mut waits = Vec::new();
    let mut last_end: std::collections::HashMap<(i64, u32), i64> = Default::default();
    let mut reuse = Vec::new();
    for r in rows {
        let (node, mask, start): (i64, i64, i64) = (r.get(0), r.get(1), r.get(2));
        let end: Option<i64> = r.get(3);
        waits.push(start - r.get::<i64, _>(4));
        for bit in (0..64).filter(|b| mask & (1 << b) != 0) {
            if let Some(prev) = last_end.get(&(node, bit)) {
                reuse.push((start - prev).max(0));
            }
            if let Some(end) = end {
                last_end.insert((node, bit), end);
            }
        }
    }
    waits.sort_unstable();
    reuse.sort_unstable();
    Ok((waits, reuse))
}
