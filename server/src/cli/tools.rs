//! The tools: `tidepool simulate`, `policy` and `bench`.

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

use super::*;
use crate::sim::{Mode, PolicyChoice};

#[derive(Clone, Debug, clap::Args)]
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
    #[command(flatten)]
    pub timeshare: TimeShareArgs,
    /// Print the comparison table instead of one run: fifo, default and timeshare, each
    /// group alone on `--nodes` (default 8) nodes, then pooled at capacity scales 1, 0.5
    /// and 0.25 (needs `--groups`).
    #[arg(long)]
    pub table: bool,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

/// Time-sharing knobs for `--policy timeshare`; unset ones keep the server's defaults.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct TimeShareArgs {
    /// GPU-hours of attained service between time-sharing queues, ascending (`1,10`).
    #[arg(long, value_delimiter = ',')]
    pub timeshare_thresholds: Vec<f64>,
    /// Most preemptions per job in 24 hours beyond which time-sharing leaves it running.
    #[arg(long)]
    pub timeshare_max_per_day: Option<u32>,
    /// Seconds of waiting after which a job claims as if it were new (starvation guard).
    #[arg(long)]
    pub timeshare_starve_after: Option<u64>,
    /// Seconds a segment runs before time-sharing may stop it.
    #[arg(long)]
    pub timeshare_quantum: Option<u64>,
    /// A job that has waited this many times as long as it has run claims as if new
    /// (relative starvation guard; 0: off).
    #[arg(long)]
    pub timeshare_starve_factor: Option<u64>,
    /// Order the waiting line by time-sharing queue first (`true`/`false`).
    #[arg(long)]
    pub timeshare_order_by_queue: Option<bool>,
    /// GPU-hours a job has received, when its run begins, from which time-sharing no
    /// longer stops it (0: no bound).
    #[arg(long)]
    pub timeshare_protect_after: Option<f64>,
    /// Jobs that have had GPU time wait first submitted first (`true`/`false`).
    #[arg(long)]
    pub timeshare_fifo_in_later_queues: Option<bool>,
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
    /// What users go through: a real server, a real agent running each job as a process,
    /// HTTP clients submitting a burst; submit rate, starts per second, waits, CPU per job.
    E2e(BenchE2eArgs),
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
pub struct BenchE2eArgs {
    /// Jobs to submit (each runs `true` on one GPU).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub jobs: u32,
    /// HTTP clients submitting at once.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub clients: u32,
    /// Fake GPUs of the one agent.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub gpus: u32,
    /// `postgres://…` (a fresh database); default: a SQLite file in a fresh folder.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Where the agent keeps its jobs' folders, checkpoints and logs, as a node keeps them
    /// on its scratch disk (a fresh folder is made inside); default: beside the database.
    /// The output names the file system.
    #[arg(long)]
    pub node_dir: Option<std::path::PathBuf>,
    /// Give up when the jobs have not all ended after this many seconds.
    #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout_s: u64,
    #[arg(long, value_enum, default_value_t = Format::Text)]
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
#[derive(Clone, Debug, clap::Args)]
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
    /// Calls a module's instance answers before it is recreated (1: a fresh one per call).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub reuse_calls: Option<u32>,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
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
