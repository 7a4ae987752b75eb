//! `tidepool config`: the configuration of the server and the agent.

use std::ffi::OsString;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration of `serve` (the default) or `agent`, as TOML that
    /// `--config` takes back, each value with where it came from; secrets masked.
    Show {
        /// `serve` or `agent`, then that command's flags (`--config FILE` among them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "serve|agent FLAGS")]
        args: Vec<OsString>,
    },
}
