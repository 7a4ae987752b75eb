//! `tidepool drill`: failover drills against a PostgreSQL database (O3), and their records.

use clap::Subcommand;

use super::*;

#[derive(Debug, Subcommand)]
pub enum DrillCommand {
    /// Start servers and agents (fake GPUs) on one database, SIGKILL the leader mid-burst,
    /// measure the takeover and check nothing ran twice or was lost; the result is recorded.
    Failover(DrillFailoverArgs),
    /// The recorded drills, newest first.
    List {
        /// The database the drills ran on, `postgres://…`.
        #[arg(long)]
        database_url: String,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

#[derive(Debug, clap::Args)]
pub struct DrillFailoverArgs {
    /// The PostgreSQL database the servers share, `postgres://…` (SQLite cannot: one file, one server).
    #[arg(long)]
    pub database_url: String,
    /// `tidepool serve` processes started on it.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..=3))]
    pub servers: u32,
    /// Leaders killed, one a round.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub rounds: u32,
    /// Jobs submitted each round; the leader dies after half of them.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(2..=2000))]
    pub jobs: u32,
    /// Agents started, each with 8 fake GPUs.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub agents: u32,
    /// Seconds a round may take for every acknowledged job to run to its end.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(10..=3600))]
    pub timeout_s: u64,
    /// Run on a database that already holds jobs (the drill adds a group, nodes and jobs).
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}
