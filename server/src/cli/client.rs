//! The client for researchers: `tidepool login`, `submit`, `queue`, `report`, `alerts`… against a server.

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

use super::*;

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
    /// Trust this CA (PEM) for an `https://` server instead of the built-in public roots;
    /// else TIDEPOOL_CA_CERT.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
}

impl ClientOpts {
    /// The CA to trust: `--ca-cert`, else TIDEPOOL_CA_CERT.
    pub fn ca_cert(&self) -> Option<PathBuf> {
        self.ca_cert.clone().or_else(|| std::env::var_os("TIDEPOOL_CA_CERT").map(PathBuf::from))
    }
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
    /// Replay the organisation's recorded submissions of a period through candidate policy
    /// modules (admins): each module is uploaded (content-addressed: again is harmless),
    /// then run on the simulator's core beside the active versions and what happened. The
    /// comparison is stored with the version, for the admin who approves its promotion.
    #[command(after_help = CLIENT_EXIT_CODES)]
    Replay {
        #[command(flatten)]
        opts: ClientOpts,
        /// Start of the period: `30d`, `12h` before now, a date or a date-time.
        #[arg(long, default_value = "30d")]
        since: String,
        /// End of the period (same forms); default: now.
        #[arg(long)]
        until: Option<String>,
        /// A candidate priority module.
        #[arg(long, value_name = "FILE.wasm")]
        priority: Option<PathBuf>,
        /// A candidate quota module.
        #[arg(long, value_name = "FILE.wasm")]
        quota: Option<PathBuf>,
        /// A candidate reclaim module.
        #[arg(long, value_name = "FILE.wasm")]
        reclaim: Option<PathBuf>,
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
