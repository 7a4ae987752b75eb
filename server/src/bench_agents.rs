//! `tidepool bench agents`: a real `tidepool serve` process and many simulated agents in
//! this process, each registering eight fake GPUs and then syncing (heartbeat, GPU
//! samples, nothing running) every `interval_s`. Prints each sync's latency (p50, p99)
//! and the CPU the server process used, read from /proc. The load driver runs on the same
//! machine, so the server shares its cores with it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tidepool_api::{IssuedNodeToken, NewNodeToken};

use crate::agent::client::Client;
use crate::bench_server::{BenchServer, bench_dir, sign_in};
use crate::cli::{BenchAgentsArgs, Format};
use crate::fleet::protocol::{GpuInfo, GpuSample, Orders, Register, Registered, Report};
use crate::sim::report::nearest_rank;

/// CPU seconds (user + system) process `pid` has used.
pub(crate) fn cpu_s(pid: u32) -> Result<f64, String> {
    let stat =
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| format!("server CPU: {e}"))?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').ok_or("unreadable /proc stat")?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|u| u.parse::<f64>().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Ok(ticks / hz)
}

pub fn run(args: &BenchAgentsArgs) -> Result<String, String> {
    let dir = bench_dir("agents")?;
    let database: Vec<&str> =
        args.database_url.as_deref().map(|url| vec!["--database-url", url]).unwrap_or_default();
    let server = BenchServer::start(&dir, "bench-admin-pw", &database)?;
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let out = rt.block_on(drive(args, &server.addr, server.id()));
    drop(server);
    let v = out?;
    Ok(match args.format {
        Format::Json => v.to_string(),
        Format::Text => format!(
            "{} agents, one sync every {} s for {} s: {} syncs ({:.0}/s), p50 {} ms, p99 {} ms; server CPU {:.2} cores",
            v["agents"],
            v["interval_s"],
            v["seconds"],
            v["syncs"],
            v["syncs_per_s"].as_f64().unwrap_or(0.0),
            v["p50_sync_ms"],
            v["p99_sync_ms"],
            v["server_cpu_cores"].as_f64().unwrap_or(0.0)
        ),
    })
}

async fn drive(args: &BenchAgentsArgs, addr: &str, pid: u32) -> Result<Value, String> {
    let base = format!("http://{addr}");
    let admin = Client::new(&base, sign_in(&base, "admin", "bench-admin-pw").await?)?;
    let mut tokens = Vec::with_capacity(args.agents as usize);
    for n in 0..args.agents {
        let ask = NewNodeToken { node: format!("sim-{n}"), pool: None, expires_in_s: None };
        let t: IssuedNodeToken = admin.post("/api/nodes/tokens", &ask).await?;
        tokens.push(t.token);
    }
    let gpus: Vec<GpuInfo> = (0..8)
        .map(|i| GpuInfo {
            index: i,
            uuid: format!("GPU-sim-{i}"),
            model: "SIM".into(),
            memory_total_mb: 81_920,
        })
        .collect();
    let mut clients = Vec::with_capacity(tokens.len());
    for token in tokens {
        let c = Client::new(&base, token)?;
        let _: Registered =
            c.post("/api/agent/register", &Register { pool: Some("sim".into()), gpus: gpus.clone() }).await?;
        clients.push(c);
    }
    let cpu0 = cpu_s(pid)?;
    let started = Instant::now();
    let until = started + Duration::from_secs(args.seconds);
    let interval = Duration::from_secs_f64(args.interval_s.max(0.01));
    let errors = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let n = f64::from(args.agents);
    let mut tasks = Vec::new();
    for (k, c) in clients.into_iter().enumerate() {
        let errors = errors.clone();
        tasks.push(tokio::spawn(async move {
            // Spread the agents over the interval, as real ones drift apart.
            tokio::time::sleep(interval.mul_f64(k as f64 / n)).await;
            let mut latencies = Vec::new();
            let report = Report {
                gpus: (0..8).map(|i| GpuSample { index: i, util_pct: 0, memory_used_mb: 0 }).collect(),
                ..Report::default()
            };
            while Instant::now() < until {
                let t0 = Instant::now();
                match c.post::<_, Orders>("/api/agent/sync", &report).await {
                    Ok(_) => latencies.push(t0.elapsed().as_secs_f64() * 1000.0),
                    Err(_) => {
                        errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                tokio::time::sleep(interval.saturating_sub(t0.elapsed())).await;
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.map_err(|e| e.to_string())?);
    }
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_s(pid)? - cpu0;
    all.sort_by(|a, b| a.total_cmp(b));
    let round = |x: f64| (x * 100.0).round() / 100.0;
    Ok(json!({
        "agents": args.agents,
        "interval_s": args.interval_s,
        "seconds": args.seconds,
        "syncs": all.len(),
        "errors": errors.load(std::sync::atomic::Ordering::Relaxed),
        "syncs_per_s": round(all.len() as f64 / wall),
        "p50_sync_ms": round(nearest_rank(&all, 0.50).unwrap_or(0.0)),
        "p99_sync_ms": round(nearest_rank(&all, 0.99).unwrap_or(0.0)),
        "max_sync_ms": round(all.last().copied().unwrap_or(0.0)),
        "server_cpu_cores": round(cpu / wall),
    }))
}
