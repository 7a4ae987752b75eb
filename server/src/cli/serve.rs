//! The server, the node agent and the admin commands: `tidepool serve`, `agent`, `admin`.

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

use super::*;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// `sqlite:FILE` or `postgres://…`; default: a SQLite file in the data folder.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Where the SQLite file and the token secret live.
    #[arg(long, default_value = "data")]
    pub data_dir: PathBuf,
    /// Do not seed the demo organisation.
    #[arg(long)]
    pub no_demo: bool,
    /// Seconds between dispatch cycles when nothing wakes the dispatcher sooner.
    #[arg(long, default_value_t = 5)]
    pub dispatch_interval_s: u64,
    /// Seconds the dispatch lease lasts without renewal: a standby takes over this long
    /// after the leader stops (2 to 300).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(i64).range(2..=300))]
    pub lease_ttl_s: i64,
    /// Milliseconds between renewals of the lease by its holder, and between tries by
    /// standbys; at most half the TTL.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(100..=60_000))]
    pub lease_renew_ms: u64,
    /// Who decides: the built-in policies, or the default modules in the sandbox.
    #[arg(long, value_enum, default_value_t = PolicyEngine::Native)]
    pub policies: PolicyEngine,
    /// Seconds a job runs before it may be preempted (protects fresh jobs from churn).
    #[arg(long, default_value_t = tidepool_core::CycleConfig::default().min_runtime_s)]
    pub min_runtime_s: u64,
    /// Checkpointable jobs of one group and class take turns on its GPUs (`on`, the
    /// default), or a running job is never stopped for another of its own kind (`off`).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub time_sharing: Switch,
    /// Run an agent with fake GPUs for every node in the records (a demo on one machine).
    #[arg(long)]
    pub demo_agents: bool,
    /// Seconds a stopped job gets between SIGTERM and SIGKILL, to checkpoint.
    #[arg(long, default_value_t = 30)]
    pub grace_s: u64,
    /// Seconds without a heartbeat after which a node is lost and its jobs requeued.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(i64).range(1..))]
    pub node_lost_after_s: i64,
    /// A GPU below this utilisation (percent) counts as idle.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(i64).range(0..=100))]
    pub idle_threshold_pct: i64,
    /// Seconds an allocation may sit idle before its owners get a notice.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(i64).range(1..))]
    pub idle_after_s: i64,
    /// Seconds after the notice before an idle allocation is reclaimed.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(i64).range(0..))]
    pub idle_notice_s: i64,
    /// The most bytes of a job's log kept; later output is dropped, after a marker.
    #[arg(long, default_value_t = crate::fleet::logs::DEFAULT_CAP_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub log_cap_bytes: u64,
    /// Seconds a new connection has to send its first request's headers.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout_s: u64,
    /// Seconds a request may take to be answered (agents' syncs wait up to 60 s for news).
    #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub request_timeout_s: u64,
    /// Seconds a kept-alive connection may wait for its next request.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub idle_timeout_s: u64,
    /// Connections open at once (more wait; idle ones are closed to make room).
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Jobs one user may have pending at once; more are refused (422).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(i64).range(1..))]
    pub max_pending_per_user: i64,
    /// Active templates one group may keep; more are refused (422).
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(i64).range(1..))]
    pub max_templates_per_group: i64,
    /// Dry runs one user may ask for per 10 s; more are answered 429 with Retry-After.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub dry_runs_per_10s: u32,
    /// The SMTP server (HOST:PORT, plain SMTP) that mails the finished weeks' reports to
    /// the groups' managers and the admins; without it reports are not mailed.
    #[arg(long, requires = "smtp_from")]
    pub smtp_server: Option<String>,
    /// The sender of the reports' mails (`Tidepool <reports@example.org>`).
    #[arg(long, requires = "smtp_server")]
    pub smtp_from: Option<String>,
    /// The bearer token a Prometheus scraper presents to `GET /metrics` (16 characters or
    /// more); else TIDEPOOL_METRICS_TOKEN. Without one, only callers on loopback may scrape.
    #[arg(long)]
    pub metrics_token: Option<String>,
    /// Seconds between reminders of an open alert nobody has acknowledged (0: none). Alerts
    /// are also mailed through `--smtp-server`, to recipients with an address.
    #[arg(long, default_value_t = 4 * 3600, value_parser = clap::value_parser!(i64).range(0..))]
    pub alert_repeat_s: i64,
    /// Log lines on stderr: `human` (the default) or `json` (one object a line, for a
    /// collector); else TIDEPOOL_LOG_FORMAT. `RUST_LOG` still picks what is logged.
    #[arg(long, value_enum)]
    pub log_format: Option<crate::logging::LogFormat>,
    /// Serve HTTPS with this certificate chain (PEM); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key", conflicts_with = "demo_agents")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Ask clients for certificates signed by this CA (PEM): agents must present one
    /// (besides their node token); browsers and the command line need none.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    /// The servers' addresses, `http(s)://host:port`, comma-separated or repeated: on a
    /// connection failure or a 5xx answer the agent moves to the next one.
    #[arg(long, required = true, value_delimiter = ',')]
    pub server: Vec<String>,
    /// The node token (an admin issues it); better TIDEPOOL_NODE_TOKEN or the configuration
    /// file, which other processes on the node cannot read.
    #[arg(long, env = "TIDEPOOL_NODE_TOKEN")]
    pub token: Option<String>,
    /// The pool to join.
    #[arg(long)]
    pub pool: Option<String>,
    /// Fake GPUs instead of the driver's, `COUNTxMODEL` (e.g. `8xA100-80G`).
    #[arg(long)]
    pub fake_gpus: Option<String>,
    /// Where the agent keeps its state (what it runs) and the jobs' logs.
    #[arg(long, default_value = "agent-state")]
    pub state_dir: PathBuf,
    /// The checkpoint root; each job gets a folder in it (shared storage across nodes).
    #[arg(long, default_value = "checkpoints")]
    pub checkpoint_root: PathBuf,
    /// Longest wait of one sync for news, in seconds (the heartbeat is at least this often).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=60))]
    pub wait_s: u64,
    /// Where jobs get their working folders (never inside the state folder); default:
    /// `STATE_DIR-jobs`, beside the state folder.
    #[arg(long)]
    pub jobs_root: Option<PathBuf>,
    /// The account jobs run as (the agent must be root to use another account).
    #[arg(long)]
    pub run_as: Option<String>,
    /// Accounts per Tidepool group or user, `GROUP=ACCOUNT,user:NAME=ACCOUNT,…`, or
    /// `@FILE` with one mapping a line; a job neither names runs as `--run-as`.
    #[arg(long)]
    pub run_as_map: Option<String>,
    /// How jobs without an image are confined: bubblewrap (`auto`: when installed), or
    /// plain processes.
    #[arg(long, value_enum, default_value_t = SandboxKind::Auto)]
    pub sandbox: SandboxKind,
    /// Let jobs reach the network (by default a sandboxed job has none).
    #[arg(long)]
    pub job_network: bool,
    /// Trust this CA (PEM) for an `https://` server instead of the built-in public roots.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// The agent's certificate (PEM), for a server that asks agents for one (mutual TLS).
    #[arg(long, value_name = "FILE", requires = "client_key")]
    pub client_cert: Option<PathBuf>,
    /// The private key (PEM) of --client-cert.
    #[arg(long, value_name = "FILE", requires = "client_cert")]
    pub client_key: Option<PathBuf>,
}

/// How an agent confines a job that names no image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SandboxKind {
    /// bubblewrap when it is installed, else plain processes (with a warning).
    Auto,
    /// bubblewrap, or the agent refuses to start.
    Bwrap,
    /// Plain processes: no confinement beyond the account.
    None,
}

#[derive(Debug, clap::Args)]
pub struct AdminArgs {
    /// `sqlite:FILE` or `postgres://…`; default: the SQLite file in the data folder.
    #[arg(long)]
    pub database_url: Option<String>,
    #[arg(long, default_value = "data")]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: AdminCommand,
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create a group.
    AddGroup { name: String },
    /// Issue a node token for an agent (printed once).
    NodeToken {
        node: String,
        /// The pool the node goes to when it registers with this token.
        #[arg(long)]
        pool: Option<String>,
        /// Refused this many seconds from now (default: no expiry).
        #[arg(long, value_parser = clap::value_parser!(i64).range(1..=315_360_000))]
        expires_in_s: Option<i64>,
    },
    /// List node tokens: node, pool, expiry, last use (never the tokens).
    NodeTokens,
    /// Revoke a node token by its id: its agent is refused from its next request.
    RevokeNodeToken { id: i64 },
    /// Create a user; the password comes from TIDEPOOL_NEW_PASSWORD, else is generated and shown once.
    AddUser {
        username: String,
        /// admin, manager or member.
        #[arg(long)]
        role: String,
        /// The group of a manager or member.
        #[arg(long)]
        group: Option<String>,
    },
    /// Set a user's email address (weekly reports go there); `--clear` removes it.
    SetEmail {
        username: String,
        #[arg(required_unless_present = "clear")]
        address: Option<String>,
        #[arg(long, conflicts_with = "address")]
        clear: bool,
    },
    /// Copy the records to FILE while the server runs (SQLite: VACUUM INTO; PostgreSQL:
    /// pg_dump in custom format); never overwrites a file.
    Backup { file: PathBuf },
    /// Restore a backup into an empty data folder or database; older schemas are
    /// migrated up, newer ones refused.
    Restore {
        file: PathBuf,
        /// Replace records that are there already (stop the servers on them first).
        #[arg(long)]
        force: bool,
    },
}

/// A setting turned on or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}
