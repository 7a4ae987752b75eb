//! The `tidepool` binary's library: everything around the pure core that touches the
//! outside world (files, the command line, the network and the database).
//!
//! Its layers point down only:
//! - drivers: [`http`] (axum handlers: extract → call → map), the subcommands
//!   ([`serve`], [`admin`], [`bench`]…), [`agent`], [`sim`];
//! - domain: [`access`], [`jobs`], [`projects`], [`templates`], [`input`], [`fleet`], [`policy`],
//!   [`dispatch`] — rules and their SQL, errors as their own types, no axum, no status
//!   codes (`http` maps each domain error to an `ApiError`);
//! - records: [`store`] (pool, migrations, event writer), over the pure `tidepool_core`.
//!
//! Nothing outside `http/` names it except the entry points that mount the router
//! (`serve`, `bench_api`); `tests/layers.rs` keeps it so.

/// Who acts for which group (Q6): the rule every domain service asks.
pub mod access;
/// Accounts and groups: who may create them, and the lists everyone reads (V3).
pub mod accounts;
/// `tidepool admin`: users and groups from the shell.
pub mod admin;
/// `tidepool agent`: a node's jobs, run as the server says.
pub mod agent;
/// Alerts (O2): rules evaluated after each cycle, the inbox, mail and webhook delivery.
pub mod alerts;
/// `tidepool admin backup` / `restore`: the records copied while the server runs, and back.
pub mod backup;
/// `tidepool bench`: timing the dispatch cycle.
pub mod bench;
/// `tidepool bench agents`: many agents syncing against one server.
pub mod bench_agents;
/// `tidepool bench api`: the record path's speed, submit to placed.
pub mod bench_api;
pub mod bench_e2e;
/// `tidepool bench reports`: usage history's size and speed at scale.
pub mod bench_reports;
/// `tidepool bench security`: sign-in throttling and idle connections against a server.
pub mod bench_security;
/// The real server the end-to-end benchmarks start and measure.
pub mod bench_server;
/// `tidepool bench templates`: list routes against 1,000 templates and 10,000 jobs.
pub mod bench_templates;
/// Civil dates in UTC: archive years, budget months.
pub mod calendar;
/// Configuration changes under two-person review (B2): quota proposals and their reviews.
pub mod changes;
/// Command-line flags of every subcommand.
pub mod cli;
/// `tidepool login`, `submit`, `queue`, `logs`…: the command line for researchers.
pub mod client;
/// `--config FILE` and TIDEPOOL_* variables for `serve` and `agent`; `tidepool config show`.
pub mod config;
/// `serve --demo-agents`: fake-GPU agents for the demo's nodes.
pub mod demo_agents;
/// The live dispatcher: records → plan() → records, under a leader lease.
pub mod dispatch;
/// High availability drilled: `tidepool drill failover` and the drills' records (O3).
pub mod drill;
/// The server's side of node agents: registration, sync, lost nodes, idle reclaim.
pub mod fleet;
/// Liveness and readiness: the database, its migrations, the dispatch role.
pub mod health;
/// The HTTP API (axum): routes, auth, the error shape.
pub mod http;
/// The checks every piece of text a person gives passes (names, commands, filters).
pub mod input;
/// Jobs: their spec and its rules, what they run in.
pub mod jobs;
/// Bounded work per request: pending jobs, active templates, known models, dry runs.
pub mod limits;
/// Loans between groups (B1): requests, offers, decisions, returns and reclaims.
pub mod loans;
/// Logs: human or JSON lines on stderr, chosen by flag or environment.
pub mod logging;
/// `GET /metrics`'s figures: the records' gauges at scrape time, timings kept in memory (O2).
pub mod metrics;
/// The organisation's clock: ISO weeks, days and months in its time zone.
pub mod org_time;
/// What the server asks of the operating system (its open-file limit).
pub mod os;
/// The WebAssembly policy host (wasmtime): sandbox, fallbacks, versions.
pub mod policy;
/// `tidepool policy …`: build, check and test modules.
pub mod policy_cmd;
/// Projects' priority grants (P2): which jobs may run above `normal`.
pub mod projects;
/// Quotas as everyone sees them: each with its use now and this month (Q1–Q3).
pub mod quota_use;
/// The event log and the archive of finished jobs, searched (A1, A2, D2).
pub mod records;
/// `tidepool replay` and its routes: a policy version run over the recorded past (O1, A3).
pub mod replay;
/// The weekly report (A5, O4): computed from the records, frozen once its week is over (A2).
pub mod reports;
/// The monthly reviews (Q5, R5): quotas against use with suggestions, idle capacity.
pub mod reviews;
/// `tidepool serve`: store, initial admin, demo, HTTP.
pub mod serve;
/// The organisation's settings (A5): time zone, currency, GPU prices, report webhook, emails.
pub mod settings;
/// The trace simulator: event loop, cluster set-up, inputs and report.
pub mod sim;
/// `tidepool simulate`: flags to a simulation report.
pub mod simulate;
/// Durable records: SQLite or PostgreSQL through sqlx.
pub mod store;
/// Templates (T1–T2): launching a frozen job shape, where granted.
pub mod templates;
/// Time limits by priority class: defaults, maximums, and the server's stop on nodes without an agent.
pub mod time_limits;
/// TLS: the server's HTTPS settings, and the CA and identity its clients use.
pub mod tls;
/// Usage history: samples at each sync, the hourly roll-up, the busy/idle curves (V4).
pub mod usage;

/// The wall clock in Unix seconds, for the drivers that need one (the core never reads it).
pub fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The wall clock in Unix milliseconds, for latency figures (records keep seconds).
pub fn unix_now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
