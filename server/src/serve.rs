//! `tidepool serve`: config → store (migrated) → initial admin and demo → HTTP.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tidepool_core::Policies;

use crate::cli::{PolicyEngine, ServeArgs};
use crate::dispatch::keeper::Keeper;
use crate::dispatch::wake::Wake;
use crate::dispatch::{DispatchError, Dispatcher, Lease};
use crate::fleet::{Fleet, FleetConfig};
use crate::health::LeaseName;
use crate::http::{AppState, Bounds, Keys, Limits, app, default_web_dir};
use crate::policy::artifacts::ArtifactCache;
use crate::policy::desk::PolicyDesk;
use crate::policy::select::ModuleFiles;
use crate::store::{Store, bootstrap_admin, seed_demo, users::random_b64};
use crate::unix_now;

/// The token secret: `TIDEPOOL_SECRET`, else one kept in the data folder (made once), so
/// tokens survive a restart.
fn secret(data_dir: &Path) -> Result<Vec<u8>, String> {
    if let Ok(s) = std::env::var("TIDEPOOL_SECRET") {
        return Ok(s.into_bytes());
    }
    let path = data_dir.join("secret");
    if let Ok(s) = std::fs::read(&path) {
        return Ok(s);
    }
    std::fs::create_dir_all(data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;
    let s = random_b64(48).into_bytes();
    // Readable by the server's user only: whoever reads it can mint tokens.
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
    let mut file = file.open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    std::io::Write::write_all(&mut file, &s).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(s)
}

/// The data folder holds the database, the token secret and compiled policies: the
/// server's user alone may enter it (0700), and what the server creates there is its own
/// (umask 077: the database's journal files included). Existing files are tightened too,
/// for a folder made by an older version.
fn private_data_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let bad = |e: std::io::Error| format!("{}: {e}", dir.display());
    // SAFETY: umask(2) only sets this process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
    std::fs::create_dir_all(dir).map_err(bad)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(bad)?;
    for entry in std::fs::read_dir(dir).map_err(bad)?.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
            let mode = std::fs::Permissions::from_mode(meta.permissions().mode() & 0o700);
            std::fs::set_permissions(entry.path(), mode).map_err(bad)?;
        }
    }
    Ok(())
}

/// Runs a cycle on every wake-up with news (see [`Wake`]) and on a timer. Every server,
/// leader or standby, follows the policy versions in the records, so a takeover runs
/// exactly what was promoted and the API shows it.
async fn dispatch_loop(
    dispatcher: Dispatcher,
    desk: Arc<PolicyDesk>,
    wake: Arc<Wake>,
    every: Duration,
    alerts: Arc<tokio::sync::Notify>,
) {
    let mut pruned_at = 0;
    let mut rolled_at = 0;
    let (mut seen, mut saturated) = (None, None);
    loop {
        let woken = wake.next(every, seen, saturated).await;
        // Sign-in throttle rows past their window, once a minute (any server may do it).
        let now = unix_now();
        if now - pruned_at >= 60 {
            pruned_at = now;
            if let Err(e) = dispatcher.store.prune_login_throttle(now).await {
                tracing::error!(error = %e, "pruning the sign-in throttle");
            }
        }
        if let Err(e) = desk.follow(&dispatcher.store).await {
            tracing::error!(error = %e, "reading policy versions");
        }
        let changes = wake.changes();
        let cycle = dispatcher.cycle(unix_now()).await;
        let leading = cycle.is_ok();
        // A cycle that failed has seen nothing: the next wake-up runs one whatever it brings.
        seen = leading.then_some(changes);
        saturated = match &cycle {
            Ok(report) if report.idle_gpus == 0 => Some(tokio::time::Instant::now()),
            _ => None,
        };
        // A cycle logs its own figures (`Dispatcher::run`); only failures are left here.
        match cycle {
            Ok(_) => {}
            // A standby woken by a submission or a cancellation tells the leader.
            Err(DispatchError::NotLeader(_)) if woken => {
                if let Err(e) = crate::dispatch::lease::nudge(&dispatcher.store).await {
                    tracing::error!(error = %e, "nudging the leader");
                }
            }
            Err(DispatchError::NotLeader(_)) => {}
            Err(e) => tracing::error!(error = %e, "dispatch cycle"),
        }
        // Alerts (O2) are evaluated and sent on their own task after each leading cycle.
        if leading {
            alerts.notify_one();
        }
        // The usage roll-up (V4), once a minute on the leader (a cycle that ran).
        if leading && now - rolled_at >= 60 {
            rolled_at = now;
            if let Err(e) = crate::usage::roll_up(&dispatcher.store, unix_now()).await {
                tracing::error!(error = %e, "usage roll-up");
            }
        }
    }
}

/// The HTTP limits from the flags, with the connection cap kept under the open-files limit
/// (raised to its hard value first), leaving room for the database and the agents' files.
fn serve_limits(args: &ServeArgs) -> Limits {
    let files = crate::os::raise_fd_limit();
    let room = usize::try_from(files.saturating_sub(256)).unwrap_or(usize::MAX).max(1);
    let wanted = usize::try_from(args.max_connections).unwrap_or(usize::MAX);
    if wanted > room {
        tracing::warn!(wanted, room, files, "--max-connections lowered to fit the open-files limit");
    }
    Limits {
        header_timeout: Duration::from_secs(args.header_timeout_s),
        request_timeout: Duration::from_secs(args.request_timeout_s),
        idle_timeout: Duration::from_secs(args.idle_timeout_s),
        max_connections: wanted.min(room),
    }
}

/// The weekly delivery (A5): a pass a minute on the leader; mail when `--smtp-server` is set.
fn report_delivery(
    store: Store,
    args: &ServeArgs,
    holder: String,
) -> Result<impl std::future::Future<Output = ()> + use<>, String> {
    let smtp = match (&args.smtp_server, &args.smtp_from) {
        (Some(server), Some(from)) => Some(crate::reports::mail::Smtp::parse(server, from)?),
        _ => None,
    };
    let outbox = crate::reports::delivery::Outbox { smtp, http: reqwest::Client::new() };
    let lease = Arc::new(Lease { holder, ttl_s: 0 });
    let leader_store = store.clone();
    Ok(crate::reports::delivery::run(store, outbox, Duration::from_secs(60), move |now| {
        let (lease, store) = (lease.clone(), leader_store.clone());
        async move { lease.holds(&store, now).await.unwrap_or(false) }
    }))
}

/// The scrapers' token: `--metrics-token`, else `TIDEPOOL_METRICS_TOKEN` (kept out of
/// the process list); none: `/metrics` answers loopback callers only.
fn metrics_token(args: &ServeArgs) -> Result<Option<Arc<str>>, String> {
    let token = args.metrics_token.clone().or_else(|| std::env::var("TIDEPOOL_METRICS_TOKEN").ok());
    match token {
        Some(t) if t.chars().count() < 16 || t.chars().any(|c| c.is_whitespace() || c.is_control()) => {
            Err("--metrics-token: 16 characters or more, without spaces".into())
        }
        t => Ok(t.map(Arc::from)),
    }
}

/// The alerts task (O2): woken after each leading cycle; mail when `--smtp-server` is set.
fn alert_delivery(
    store: Store,
    args: &ServeArgs,
    holder: String,
    wake: Arc<tokio::sync::Notify>,
) -> Result<impl std::future::Future<Output = ()> + use<>, String> {
    let smtp = match (&args.smtp_server, &args.smtp_from) {
        (Some(server), Some(from)) => Some(crate::reports::mail::Smtp::parse(server, from)?),
        _ => None,
    };
    let config = crate::alerts::AlertConfig {
        repeat_s: args.alert_repeat_s,
        mail: smtp.is_some(),
        ..crate::alerts::AlertConfig::default()
    };
    let evaluator = crate::alerts::Evaluator::new(config);
    let outbox = crate::alerts::deliver::Outbox { smtp, http: reqwest::Client::new() };
    let lease = Arc::new(Lease { holder, ttl_s: 0 });
    let leader_store = store.clone();
    let tick = Duration::from_secs(2);
    Ok(crate::alerts::deliver::run(store, evaluator, outbox, wake, tick, move |now| {
        let (lease, store) = (lease.clone(), leader_store.clone());
        async move { lease.holds(&store, now).await.unwrap_or(false) }
    }))
}

pub fn run(args: &ServeArgs) -> Result<String, String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(serve(args))
}

async fn serve(args: &ServeArgs) -> Result<String, String> {
    if args.lease_renew_ms.saturating_mul(2) > args.lease_ttl_s as u64 * 1000 {
        return Err(
            "--lease-renew-ms: at most half of --lease-ttl-s, so one late renewal loses nothing".into()
        );
    }
    let metrics_token = metrics_token(args)?;
    // Certificate files are checked before anything else starts.
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(crate::tls::server(cert, key, args.tls_client_ca.as_deref())?),
        (None, None) => None,
        _ => return Err("--tls-cert and --tls-key go together".into()),
    };
    private_data_dir(&args.data_dir)?;
    let url = args
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", args.data_dir.join("tidepool.db").display()));
    let store = Store::open(&url).await.map_err(|e| e.to_string())?;
    private_data_dir(&args.data_dir)?;
    let now = unix_now();
    let password = std::env::var("TIDEPOOL_ADMIN_PASSWORD").ok();
    if let Some(generated) = bootstrap_admin(&store, password, now).await.map_err(|e| e.to_string())? {
        // On the console, never in the log: logs travel to collectors, a password must not.
        println!("created the initial admin: username `admin`, password `{generated}` (shown once)");
    }
    if !args.no_demo && seed_demo(&store, now).await.map_err(|e| e.to_string())? {
        tracing::info!(
            "seeded the demo organisation (users <group>-lead / <group>-dev, password `demo-password`)"
        );
        let started = std::time::Instant::now();
        let jobs = crate::usage::demo::seed(&store, now).await.map_err(|e| e.to_string())?;
        tracing::info!(jobs, ms = started.elapsed().as_millis() as u64, "seeded three weeks of demo history");
    }
    let secret = secret(&args.data_dir)?;
    let keys = Keys::new(&secret)?;
    // Policies: what the records hold (promoted by admins), else the default modules when
    // asked for; with neither, the built-in policies decide.
    let cache = ArtifactCache::new(args.data_dir.join("policy-cache"), &secret);
    let desk = Arc::new(PolicyDesk::new(Some(cache))?);
    let restored = desk.restore(&store).await?;
    if args.policies == PolicyEngine::Wasm {
        desk.install(&store, &ModuleFiles::defaults(false), "tidepool serve", now).await?;
    }
    if restored > 0 {
        tracing::info!(stored = restored, deciding = %desk.policies.version(), "policies loaded");
    }
    let fleet = Arc::new(Fleet::new(FleetConfig {
        grace_s: args.grace_s,
        lost_after_s: args.node_lost_after_s,
        idle_threshold_pct: args.idle_threshold_pct,
        idle_after_s: args.idle_after_s,
        idle_notice_s: args.idle_notice_s,
        log_cap_bytes: args.log_cap_bytes,
        ..FleetConfig::default()
    }));
    let wake = Arc::new(Wake::default());
    let state = AppState {
        store: store.clone(),
        keys: Arc::new(keys),
        clock: Arc::new(unix_now),
        wake: wake.clone(),
        policies: desk.clone(),
        fleet: fleet.clone(),
        web_dir: default_web_dir(),
        bounds: Arc::new(Bounds::new(
            args.max_pending_per_user,
            args.max_templates_per_group,
            args.dry_runs_per_10s as usize,
            10,
        )),
        metrics_token,
    };
    let holder =
        format!("{}-{}", std::env::var("HOSTNAME").unwrap_or_else(|_| "tidepool".into()), std::process::id());
    let shutdown_lease = (store.clone(), Lease { holder: holder.clone(), ttl_s: 0 });
    let lease_holder = holder.clone();
    let lease_name = holder.clone();
    // The lease lives on its own period, apart from the cycles (a takeover within
    // seconds); every write still re-checks its epoch.
    let keeper = Keeper {
        store: store.clone(),
        lease: Lease { holder: holder.clone(), ttl_s: args.lease_ttl_s },
        every: Duration::from_millis(args.lease_renew_ms),
        wake: wake.clone(),
        fleet: fleet.clone(),
    };
    let lease = Lease { holder, ttl_s: args.lease_ttl_s };
    let mut dispatcher = Dispatcher::with_modules(store, desk.policies.clone(), lease);
    dispatcher.fleet = Some(fleet);
    dispatcher.config.min_runtime_s = args.min_runtime_s;
    if args.time_sharing == crate::cli::Switch::Off {
        dispatcher.config.timeshare = None;
    }
    let every = Duration::from_secs(args.dispatch_interval_s.max(1));
    let alerts = Arc::new(tokio::sync::Notify::new());
    tokio::spawn(dispatch_loop(dispatcher, desk.clone(), wake, every, alerts.clone()));
    tokio::spawn(keeper.run());
    tokio::spawn(report_delivery(state.store.clone(), args, lease_holder.clone())?);
    tokio::spawn(alert_delivery(state.store.clone(), args, lease_holder, alerts)?);
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!("Tidepool is serving on {scheme}://{addr}");
    let _agents = if args.demo_agents {
        let agents = crate::demo_agents::start(&state.store, addr, &args.data_dir, unix_now()).await?;
        tracing::info!("started an agent with fake GPUs for every node");
        Some(agents)
    } else {
        None
    };
    let limits = serve_limits(args);
    // Readiness tells leader from standby by this server's name on the lease.
    let router = app(state.clone()).layer(axum::Extension(LeaseName(lease_name.into())));
    crate::http::serve_tls(listener, router, limits, tls, stop_asked())
        .await
        .map_err(|e| format!("server: {e}"))?;
    // Hand the lease over at once rather than at expiry.
    let (store, lease) = shutdown_lease;
    lease.release(&store).await.map_err(|e| e.to_string())?;
    Ok("stopped".into())
}

/// Ctrl-C or SIGTERM (what systemd, containers and orchestrators send): either stops the
/// server cleanly, handing its lease over at once.
async fn stop_asked() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(term) => term,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch for SIGTERM; only Ctrl-C stops the server cleanly");
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
