//! `tidepool drill failover` (issue 14, O3): two or three real `tidepool serve` processes
//! on one PostgreSQL database, real agents with fake GPUs, a burst of jobs over HTTP and
//! the leader SIGKILLed halfway, round after round. It prints what it measured and keeps
//! it as a record (`drills`), so "drilled" has a date and a figure. `tidepool drill list`
//! reads the records back.

pub mod cluster;
pub mod record;
mod round;

use std::time::Duration;

use tidepool_api::drills::{Drill as DrillRecord, DrillRound};
use tidepool_api::{Login, Tokens};

use crate::cli::{DrillCommand, DrillFailoverArgs, Format};
use crate::fleet::tokens;
use crate::store::Store;
use crate::store::users::{Role, random_b64};
use cluster::{Agent, Server, Shared};

/// A drill under way: its cluster and what it submits with.
pub struct Drill {
    pub store: Store,
    pub shared: Shared,
    pub servers: Vec<Server>,
    pub http: reqwest::Client,
    pub token: String,
    pub jobs: u32,
    /// The jobs' command: logs each start (job, allocation), then runs a second.
    pub command: String,
    pub timeout: Duration,
}

pub fn run(what: &DrillCommand) -> Result<(String, bool), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("cannot start the runtime: {e}"))?;
    match what {
        DrillCommand::Failover(args) => runtime.block_on(failover(args)),
        DrillCommand::List { database_url, format } => {
            runtime.block_on(list(database_url, *format)).map(|out| (out, true))
        }
    }
}

/// High availability is several servers on one PostgreSQL database; refuse anything else.
fn postgres_only(url: &str) -> Result<(), String> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(())
    } else if url.starts_with("sqlite:") {
        Err("the failover drill needs PostgreSQL: high availability is several servers on one \
             PostgreSQL database, and a SQLite file serves one server only"
            .into())
    } else {
        Err(format!("--database-url: postgres://… expected, not `{url}`"))
    }
}

async fn list(url: &str, format: Format) -> Result<String, String> {
    postgres_only(url)?;
    let store = Store::open(url).await.map_err(|e| e.to_string())?;
    let drills = record::recent(&store, 100).await.map_err(|e| e.to_string())?;
    Ok(match format {
        Format::Json => serde_json::to_string(&drills).expect("serializes"),
        Format::Text if drills.is_empty() => "no drills recorded".into(),
        Format::Text => {
            let mut out = format!(
                "{:>4}  {:<20}  {:>7}  {:>6}  {:>10}  {:>10}  result\n",
                "id", "finished (UTC)", "servers", "rounds", "median ms", "max ms"
            );
            for d in &drills {
                let (y, m, day) = crate::calendar::civil_from_days(d.finished_at.div_euclid(86_400));
                let s = d.finished_at.rem_euclid(86_400);
                let when = format!("{y}-{m:02}-{day:02} {:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
                out += &format!(
                    "{:>4}  {:<20}  {:>7}  {:>6}  {:>10}  {:>10}  {}\n",
                    d.id,
                    when,
                    d.servers,
                    d.rounds.len(),
                    d.takeover_median_ms,
                    d.takeover_max_ms,
                    if d.passed { "passed" } else { "FAILED" }
                );
            }
            out.trim_end().to_string()
        }
    })
}

/// The group, member, quota and node tokens the drill's jobs and agents use.
/// `kind` names the group (`drill`, `bench`); `guaranteed` GPUs of `model` in training;
/// one node token per agent. Also what `bench e2e` runs its jobs as.
pub(crate) async fn organise(
    store: &Store,
    kind: &str,
    model: &str,
    guaranteed: i64,
    agents: u32,
) -> Result<(String, String, Vec<String>), String> {
    let err = |e: crate::store::StoreError| e.to_string();
    let now = crate::unix_now();
    let group = format!("{kind}{}-{}", now, std::process::id());
    let gid = store.create_group(&group, now).await.map_err(err)?;
    sqlx::query("INSERT INTO quotas (group_id, model, category, guaranteed) VALUES ($1, $2, 'training', $3)")
        .bind(gid)
        .bind(model)
        .bind(guaranteed)
        .execute(&store.pool)
        .await
        .map_err(|e| e.to_string())?;
    let password = random_b64(24);
    let user = format!("{group}-dev");
    store.create_user(&user, &password, Role::Member, Some(gid), now).await.map_err(err)?;
    let mut node_tokens = Vec::new();
    for i in 0..agents {
        let new = tokens::Issue {
            node: format!("{group}-node-{i}"),
            pool: Some(group.clone()),
            expires_at: Some(now + 86_400),
        };
        node_tokens
            .push(tokens::issue_as(store, &new, &format!("tidepool {kind}"), now).await.map_err(err)?.token);
    }
    Ok((group, format!("{user}\n{password}"), node_tokens))
}

async fn failover(args: &DrillFailoverArgs) -> Result<(String, bool), String> {
    postgres_only(&args.database_url)?;
    let store = Store::open(&args.database_url).await.map_err(|e| e.to_string())?;
    let jobs: i64 = sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM jobs")
        .fetch_one(&store.pool)
        .await
        .map_err(|e| e.to_string())?;
    if jobs > 0 && !args.force {
        return Err(format!(
            "the database holds {jobs} jobs already: a drill submits jobs and adds nodes of its own; \
             drill on a fresh database, or give --force"
        ));
    }
    let started_at = crate::unix_now();
    let dir = std::env::temp_dir().join(format!("tidepool-drill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("checkpoints")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let shared = Shared {
        exe: std::env::current_exe().map_err(|e| e.to_string())?,
        dir: dir.clone(),
        database_url: args.database_url.clone(),
        secret: random_b64(48),
        admin_password: random_b64(24),
    };
    let (group, login, node_tokens) =
        organise(&store, "drill", "drill-gpu", i64::from(args.agents) * 8, args.agents).await?;
    let http =
        reqwest::Client::builder().timeout(Duration::from_secs(10)).build().map_err(|e| e.to_string())?;
    let mut servers = Vec::new();
    // One after the other: the first takes the lease, the others stand by.
    for i in 0..args.servers as usize {
        let server = Server::start(&shared, i)?;
        server.wait_alive(&http, Duration::from_secs(60)).await?;
        servers.push(server);
    }
    let urls: Vec<String> = servers.iter().map(Server::url).collect();
    let _agents = node_tokens
        .iter()
        .enumerate()
        .map(|(i, t)| Agent::start(&shared, i, &urls, t, &group, "8xdrill-gpu"))
        .collect::<Result<Vec<_>, _>>()?;
    let (user, password) = login.split_once('\n').unwrap_or_default();
    let tokens: Tokens = http
        .post(format!("{}/api/auth/login", urls[0]))
        .json(&Login { username: user.into(), password: password.into() })
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| format!("signing in: {e}"))?;
    wait_for_nodes(&store, &group, args.agents).await?;
    let command = format!(
        "echo \"$TIDEPOOL_JOB_ID $TIDEPOOL_ALLOCATION_ID\" >> '{}'; sleep 1",
        dir.join("starts.log").display()
    );
    let mut drill = Drill {
        store,
        shared,
        servers,
        http,
        token: tokens.access_token,
        jobs: args.jobs,
        command,
        timeout: Duration::from_secs(args.timeout_s),
    };
    let mut rounds: Vec<DrillRound> = Vec::new();
    for r in 1..=args.rounds {
        let done =
            round::round(&mut drill, r).await.map_err(|e| format!("{e} (logs in {})", dir.display()))?;
        eprintln!("round {r}: takeover {} ms", done.takeover_ms);
        rounds.push(done);
    }
    let mut takeovers: Vec<i64> = rounds.iter().map(|r| r.takeover_ms).collect();
    takeovers.sort_unstable();
    let passed = rounds.iter().all(|r| r.written_twice == 0 && r.lost == 0 && r.old_leader_fenced);
    let mut record = DrillRecord {
        id: 0,
        kind: "failover".into(),
        started_at,
        finished_at: crate::unix_now(),
        servers: args.servers,
        passed,
        takeover_median_ms: takeovers[(takeovers.len() - 1) / 2],
        takeover_max_ms: *takeovers.last().unwrap_or(&0),
        rounds,
    };
    record.id = record::insert(&drill.store, &record).await.map_err(|e| e.to_string())?;
    drop(drill);
    if passed {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let out = match args.format {
        Format::Json => serde_json::to_string(&record).expect("serializes"),
        Format::Text => table(&record),
    };
    Ok((out, passed))
}

/// Waits until every agent's node has registered.
pub(crate) async fn wait_for_nodes(store: &Store, pool: &str, agents: u32) -> Result<(), String> {
    let until = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let n: i64 = sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM nodes WHERE pool = $1")
            .bind(pool)
            .fetch_one(&store.pool)
            .await
            .map_err(|e| e.to_string())?;
        if n >= i64::from(agents) {
            return Ok(());
        }
        if std::time::Instant::now() > until {
            return Err(format!("{n} of {agents} agents registered within 60 s"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn table(d: &DrillRecord) -> String {
    let mut out = format!(
        "{:>5}  {:>11}  {:>6}  {:>5}  {:>12}  {:>4}  {}\n",
        "round", "takeover ms", "in gap", "acked", "written twice", "lost", "old leader fenced"
    );
    for r in &d.rounds {
        out += &format!(
            "{:>5}  {:>11}  {:>6}  {:>5}  {:>13}  {:>4}  {}\n",
            r.round,
            r.takeover_ms,
            r.submitted_in_gap,
            r.acknowledged,
            r.written_twice,
            r.lost,
            if r.old_leader_fenced { "yes" } else { "NO" }
        );
    }
    out + &format!(
        "takeover over {} rounds: median {} ms, max {} ms; {} (drill {} recorded)",
        d.rounds.len(),
        d.takeover_median_ms,
        d.takeover_max_ms,
        if d.passed { "passed" } else { "FAILED" },
        d.id
    )
}
