//! The `tidepool` command line: one binary, one subcommand per role (Nomad style). The
//! arguments live beside what they start: the server, agent and admin commands
//! ([`serve`]), the tools (simulate, policies, benchmarks: [`tools`]) and the client for
//! researchers ([`client`]).

mod client;
mod config;
mod drill;
mod serve;
mod tools;

pub use client::*;
pub use config::*;
pub use drill::*;
pub use serve::*;
pub use tools::*;

use clap::{Parser, Subcommand, ValueEnum};

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
    /// Drill high availability: kill the leader with standbys waiting, and measure.
    Drill {
        #[command(subcommand)]
        what: DrillCommand,
    },
    /// Measure the dispatcher.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
    /// Print the effective configuration (file, environment, flags) of the server or agent.
    Config {
        #[command(subcommand)]
        what: ConfigCommand,
    },
    #[command(flatten)]
    Client(ClientCommand),
}
