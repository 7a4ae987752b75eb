//! The `tidepool` command line: one binary, one subcommand per role (Nomad style).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::sim::{Mode, PolicyChoice};

#[derive(Debug, Parser)]
#[command(name = "tidepool", version, about = "Tidepool: one GPU pool shared fairly by research groups")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Text,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the API (and later the web app) with the dispatcher.
    Serve(ServeArgs),
    /// Manage users and groups from the shell.
    Admin(AdminArgs),
    /// Run a node's jobs for the server: register its GPUs, start and stop what it is told.
    Agent(AgentArgs),
    /// Runs one job's command for the agent (internal).
    #[command(hide = true)]
    AgentShim {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Replay a job trace through the dispatcher on a virtual clock.
    Simulate(SimulateArgs),
    /// Build, check and test policy modules.
    Policy {
        #[command(subcommand)]
        what: PolicyCommand,
    },
    /// Measure the dispatcher.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
    #[command(flatten)]
    Client(ClientCommand),
}

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
    /// Who decides: the built-in policies, or the default modules in the sandbox.
    #[arg(long, value_enum, default_value_t = PolicyEngine::Native)]
    pub policies: PolicyEngine,
    /// Seconds a job runs before it may be preempted (protects fresh jobs from churn).
    #[arg(long, default_value_t = tidepool_core::CycleConfig::default().min_runtime_s)]
    pub min_runtime_s: u64,
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
}

#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    /// The server's address, `http://host:port`.
    #[arg(long)]
    pub server: String,
    /// The node token (an admin issues it); else TIDEPOOL_NODE_TOKEN.
    #[arg(long)]
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

#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// Trace CSV with timestamp, duration, num_gpus and cluster columns.
    #[arg(long)]
    pub trace: PathBuf,
    /// Groups CSV (`name,nodes`); a group's guarantee is nodes × GPUs per node.
    #[arg(long)]
    pub groups: Option<PathBuf>,
    /// Only jobs submitted at or after this date (YYYY-MM-DD or a date-time).
    #[arg(long)]
    pub from: Option<String>,
    /// Only jobs submitted up to this date (a bare date includes the whole day).
    #[arg(long)]
    pub to: Option<String>,
    /// Cluster size in nodes (split equally among trace groups when no --groups).
    #[arg(long)]
    pub nodes: Option<u32>,
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=64))]
    pub gpus_per_node: u8,
    /// Multiply every group's node count.
    #[arg(long, default_value_t = 1.0)]
    pub capacity_scale: f64,
    #[arg(long, value_enum, default_value_t = Mode::Pooled)]
    pub mode: Mode,
    /// Policy set; the default is `fifo` in silo mode (today's practice), else `default`.
    #[arg(long, value_enum)]
    pub policy: Option<PolicyChoice>,
    /// Seconds of useful work between checkpoints; 0: jobs do not checkpoint.
    #[arg(long, default_value_t = 1800)]
    pub checkpoint_interval: u64,
    /// Seconds a resumed segment spends restoring before doing work.
    #[arg(long, default_value_t = 60)]
    pub restart_overhead: u64,
    /// Seconds a job runs before it may be preempted (protects fresh jobs from churn).
    #[arg(long, default_value_t = tidepool_core::CycleConfig::default().min_runtime_s)]
    pub min_runtime: u64,
    #[command(flatten)]
    pub modules: ModuleArgs,
    /// Simulate only these groups of the trace (repeatable).
    #[arg(long = "only-group")]
    pub only_groups: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Build a policy crate into a module (a component), then check it.
    Build {
        /// The crate's folder (with its Cargo.toml).
        dir: PathBuf,
        /// Where to write the module; default `<crate folder name>.wasm`.
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Validate a module as an upload is validated; exits non-zero when not ok.
    Check {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Run the conformance vectors against a module, one line per check.
    Test { file: PathBuf },
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Time plan() on a synthetic cluster and queue.
    Cycle(BenchCycleArgs),
    /// Submit jobs through the API and let the dispatcher place them all.
    Api(BenchApiArgs),
    /// Many simulated agents syncing against one server: latency and the server's CPU.
    Agents(BenchAgentsArgs),
    /// Sign-in throttling and `/api/me` with many idle connections open, against a server.
    Security(BenchSecurityArgs),
    /// Lists against a real server with 1,000 templates and 10,000 jobs: /api/templates and /api/me.
    Templates(BenchTemplatesArgs),
    /// Usage history at scale: a year's rows and size, `/api/usage` for a month, the roll-up.
    Reports(BenchReportsArgs),
}

#[derive(Debug, clap::Args)]
pub struct BenchSecurityArgs {
    /// A running server (`http://host:port`); default: start one on loopback. Its
    /// throttle will block `--target` and this address for five minutes.
    #[arg(long)]
    pub server: Option<String>,
    /// Who signs in to time `/api/me`.
    #[arg(long, default_value = "admin")]
    pub username: String,
    /// Their password (also the initial admin's, for a server the bench starts).
    #[arg(long, default_value = "bench-admin-pw")]
    pub password: String,
    /// The username the wrong passwords are for.
    #[arg(long, default_value = "admin")]
    pub target: String,
    /// Seconds of wrong passwords.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub seconds: u64,
    /// Wrong passwords in flight at once.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// Idle connections held open while `/api/me` is timed.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub idle: u32,
    /// `/api/me` requests timed in each phase.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub requests: u32,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct BenchTemplatesArgs {
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub templates: u32,
    /// Finished jobs, launched from the templates in turn.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(0..=10_000_000))]
    pub jobs: u32,
    /// Requests timed per figure.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub requests: u32,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct BenchAgentsArgs {
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=20_000))]
    pub agents: u32,
    /// Seconds to measure, after every agent has registered.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub seconds: u64,
    /// Seconds between one agent's syncs.
    #[arg(long, default_value_t = 1.0)]
    pub interval_s: f64,
    /// `sqlite:FILE` or `postgres://…`; default: a SQLite file in a fresh folder.
    #[arg(long)]
    pub database_url: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct BenchApiArgs {
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub jobs: u32,
    /// `sqlite:FILE` or `postgres://…` (a bench group, nodes and user are added to it).
    #[arg(long)]
    pub database_url: String,
    /// Submissions in flight at once.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PolicyEngine {
    /// The built-in Rust policies.
    Native,
    /// The default policy modules, run in the WebAssembly sandbox.
    Wasm,
}

/// Who decides: built-in policies, the default modules, or modules named one by one.
#[derive(Debug, clap::Args)]
pub struct ModuleArgs {
    #[arg(long, value_enum, default_value_t = PolicyEngine::Native)]
    pub policies: PolicyEngine,
    /// A priority module (implies WebAssembly for priority).
    #[arg(long, value_name = "FILE.wasm")]
    pub priority: Option<PathBuf>,
    /// A quota module.
    #[arg(long, value_name = "FILE.wasm")]
    pub quota: Option<PathBuf>,
    /// A reclaim module.
    #[arg(long, value_name = "FILE.wasm")]
    pub reclaim: Option<PathBuf>,
}

impl ModuleArgs {
    /// The modules to load; empty when the built-in policies decide everything.
    pub fn files(&self, fifo: bool) -> crate::policy::select::ModuleFiles {
        let mut files = match self.policies {
            PolicyEngine::Native => crate::policy::select::ModuleFiles::default(),
            PolicyEngine::Wasm => crate::policy::select::ModuleFiles::defaults(fifo),
        };
        files.priority = self.priority.clone().or(files.priority);
        files.quota = self.quota.clone().or(files.quota);
        files.reclaim = self.reclaim.clone().or(files.reclaim);
        files
    }
}

#[derive(Debug, clap::Args)]
pub struct BenchCycleArgs {
    #[arg(long, default_value_t = 5000)]
    pub nodes: u32,
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=64))]
    pub gpus_per_node: u8,
    #[arg(long, default_value_t = 50_000)]
    pub pending: u32,
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub groups: u32,
    #[command(flatten)]
    pub modules: ModuleArgs,
    /// Cycles to time.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    pub cycles: u32,
    /// Share of GPUs already busy when the cycle runs.
    #[arg(long, default_value_t = 0.75)]
    pub busy: f64,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

// ---- The client for researchers: `tidepool login`, `submit`, `queue`… against a server. ----

/// What a client command's exit status means; shown in every client command's help.
pub const CLIENT_EXIT_CODES: &str = "Exit codes: 0 ok; 1 the server refused (its message is printed); 2 usage; \
3 not signed in or the session expired (run `tidepool login`); 4 cannot reach the server.";

/// Where the server is and how to print; every client command takes them.
#[derive(Debug, Clone, clap::Args)]
pub struct ClientOpts {
    /// The server, `http://host:port`; else TIDEPOOL_SERVER, else the one signed in to.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// Human tables, or the API's JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Sign in to a server; the password is read from stdin when it is not a terminal.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Login {
        #[command(flatten)]
        opts: ClientOpts,
        /// Who signs in; default: the user signed in last, else $USER.
        #[arg(long, short)]
        username: Option<String>,
    },
    /// Sign out: the session ends on the server and its tokens are deleted here.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Logout {
        #[command(flatten)]
        opts: ClientOpts,
    },
    /// Who is signed in, where.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Whoami {
        #[command(flatten)]
        opts: ClientOpts,
    },
    /// Submit a job: the command after `--`, or a template.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Submit {
        #[command(flatten)]
        opts: ClientOpts,
        #[command(flatten)]
        spec: JobSpecArgs,
        /// Only ask what would happen now (where it would start, or why it would wait).
        #[arg(long)]
        dry_run: bool,
        /// The command and its arguments, run as given (each argument quoted for the shell).
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Submit a script: `#TIDEPOOL --gpus 4` lines give its flags (the command line's
    /// flags win); the script's text is the job's command.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Sbatch {
        #[command(flatten)]
        opts: ClientOpts,
        #[command(flatten)]
        spec: JobSpecArgs,
        #[arg(long)]
        dry_run: bool,
        script: PathBuf,
    },
    /// The queue: jobs newest first, with why each waiting job waits, its place and
    /// estimated start.
    #[command(alias = "jobs", after_help = CLIENT_EXIT_CODES)]
    Queue {
        #[command(flatten)]
        opts: ClientOpts,
        /// Only my jobs.
        #[arg(long)]
        mine: bool,
        /// Only this group's jobs.
        #[arg(long)]
        group: Option<String>,
        /// Only jobs in this state.
        #[arg(long, value_parser = ["pending", "running", "succeeded", "failed", "timed-out", "cancelled"])]
        state: Option<String>,
        /// Jobs per page.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=500))]
        limit: u32,
        /// Jobs older than this id (the `next` of an earlier page).
        #[arg(long)]
        before: Option<i64>,
    },
    /// A job's receipt: where and when it ran, which policy version decided, and why.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Show {
        #[command(flatten)]
        opts: ClientOpts,
        job: i64,
    },
    /// What a job printed; `-f` follows it until the job ends.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Logs {
        #[command(flatten)]
        opts: ClientOpts,
        job: i64,
        #[arg(long, short)]
        follow: bool,
        /// Start at this byte of the log.
        #[arg(long, default_value_t = 0)]
        offset: i64,
    },
    /// Cancel a job (members: their own; managers: their group's).
    #[command(after_help = CLIENT_EXIT_CODES)]
    Cancel {
        #[command(flatten)]
        opts: ClientOpts,
        job: i64,
    },
    /// Templates, with who may launch them and how often they were.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Templates {
        #[command(flatten)]
        opts: ClientOpts,
    },
    /// Quotas per group, model and category: guaranteed, in use, over and under.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Quota {
        #[command(flatten)]
        opts: ClientOpts,
        /// Only this group's rows.
        #[arg(long)]
        group: Option<String>,
    },
    /// Every node: its pool, model, free GPUs and who holds the rest.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Nodes {
        #[command(flatten)]
        opts: ClientOpts,
    },
    /// Loans between groups; with an action, ask for one or decide on one.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Loans {
        #[command(flatten)]
        opts: ClientOpts,
        #[command(subcommand)]
        action: Option<LoanAction>,
    },
    /// One's alerts, newest first, with the unread count; `ack ID` acknowledges one (no
    /// more reminders), `read ID` marks one read.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Alerts {
        #[command(flatten)]
        opts: ClientOpts,
        /// Only the alerts not read yet.
        #[arg(long)]
        unread: bool,
        #[command(subcommand)]
        action: Option<AlertAction>,
    },
    /// Print a shell completion script: `tidepool completions bash > /etc/bash_completion.d/tidepool`.
    Completions { shell: clap_complete::Shell },
    /// The weekly report of a group or the organisation, and the periodic reviews.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Report {
        #[command(subcommand)]
        what: ReportCommand,
    },
}

/// What `tidepool alerts` does to one alert.
#[derive(Debug, Clone, Subcommand)]
pub enum AlertAction {
    /// Acknowledge an alert: it is read, and nobody is reminded of it again.
    Ack { id: i64 },
    /// Mark an alert read (for oneself only).
    Read { id: i64 },
}

/// A job's shape, as flags (`submit`) or `#TIDEPOOL` lines (`sbatch`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct JobSpecArgs {
    /// The job's name; default: the command's first word (or the script's file name).
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long, short = 'g', value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub gpus: Option<u32>,
    /// The GPU model, e.g. A100-80G (the server's default when omitted).
    #[arg(long)]
    pub model: Option<String>,
    /// training, inference or pretraining.
    #[arg(long)]
    pub category: Option<String>,
    /// batch, experiment, normal or critical.
    #[arg(long)]
    pub class: Option<String>,
    /// any, same-node or same-nvlink.
    #[arg(long)]
    pub topology: Option<String>,
    /// The longest the job may run: seconds, or `90m`, `4h`, `2d`; default: its class's.
    #[arg(long, short = 't', value_name = "DURATION")]
    pub time_limit: Option<String>,
    /// The job saves checkpoints, so it may be stopped and resumed.
    #[arg(long)]
    pub checkpointable: bool,
    /// A container image to run in; default: the node's sandbox.
    #[arg(long)]
    pub image: Option<String>,
    /// An environment variable, `KEY=VALUE` (repeatable).
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Launch this template (its shape is frozen: give only a name, project and tags).
    #[arg(long)]
    pub template: Option<i64>,
    /// The project whose priority grant the job runs under.
    #[arg(long)]
    pub project: Option<String>,
    /// An archive tag (repeatable).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// The group to submit for (admins only).
    #[arg(long)]
    pub group: Option<String>,
    /// A shell command line, run as written (instead of a command after `--`).
    #[arg(long, value_name = "COMMAND LINE")]
    pub wrap: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum LoanAction {
    /// Ask a group for GPUs until a time (or, as its manager, offer them).
    Request {
        /// The group that lends.
        #[arg(long)]
        lender: String,
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
        gpus: u32,
        #[arg(long)]
        model: Option<String>,
        /// For how long: seconds, or `90m`, `4h`, `2d`.
        #[arg(long = "for", value_name = "DURATION")]
        duration: String,
        /// Why, for the lender's manager.
        #[arg(long)]
        why: String,
        /// The borrowing group (admins; or a lender's manager offering).
        #[arg(long)]
        borrower: Option<String>,
    },
    /// Approve a request (the lender's manager).
    Approve {
        id: i64,
        #[arg(long, default_value = "approved")]
        note: String,
    },
    /// Reject a request (the lender's manager).
    Reject {
        id: i64,
        #[arg(long)]
        note: String,
    },
    /// Give a loan back early (the borrower).
    Return { id: i64 },
}

#[derive(Debug, clap::Args)]
pub struct BenchReportsArgs {
    /// GPUs in the synthetic cluster.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(i64).range(16..=1_000_000))]
    pub gpus: i64,
    /// Days of usage_hours written.
    #[arg(long, default_value_t = 365, value_parser = clap::value_parser!(i64).range(31..=3650))]
    pub days: i64,
    /// Days of allocations and samples the roll-up is timed over.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(i64).range(1..=365))]
    pub rollup_days: i64,
    /// `sqlite:FILE` or `postgres://…` (an empty database); default: a SQLite file in a fresh folder.
    #[arg(long)]
    pub database_url: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

/// How `tidepool report weekly` prints: a table for people, the API's JSON, or its CSV.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
}

/// How `tidepool report reviews` prints (the reviews have no CSV).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReviewFormat {
    Table,
    Json,
}

/// The periodic reviews.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReviewKind {
    /// Monthly: each quota's guarantee against what was held, with suggestions (Q5).
    Quotas,
    /// Monthly: GPUs held but idle, per group (R5).
    Idle,
    /// Quarterly: templates nobody launched (T3).
    Templates,
    /// Yearly: every policy and quota change with its effect.
    Rules,
}

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// One ISO week in the organisation's time zone: use, cost, waits, loans, outcomes
    /// and the change against the week before.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Weekly {
        /// The server, `http://host:port`; else TIDEPOOL_SERVER, else the one signed in to.
        #[arg(long, value_name = "URL")]
        server: Option<String>,
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
        /// The group's report; default: the organisation's.
        #[arg(long)]
        group: Option<String>,
        /// The ISO week, `2026-W48`; default: this week.
        #[arg(long)]
        week: Option<String>,
    },
    /// A review: `quotas` and `idle` by month, `templates` by quarter, `rules` by year.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Reviews {
        /// The server, `http://host:port`; else TIDEPOOL_SERVER, else the one signed in to.
        #[arg(long, value_name = "URL")]
        server: Option<String>,
        #[arg(long, value_enum, default_value_t = ReviewFormat::Table)]
        format: ReviewFormat,
        #[arg(value_enum)]
        kind: ReviewKind,
        /// The month, `2026-11` (quotas, idle); default: this month.
        #[arg(long, conflicts_with_all = ["quarter", "year"])]
        month: Option<String>,
        /// The quarter, `2026-Q4` (templates); default: this quarter.
        #[arg(long, conflicts_with = "year")]
        quarter: Option<String>,
        /// The year, `2026` (rules); default: this year.
        #[arg(long)]
        year: Option<i64>,
    },
}
