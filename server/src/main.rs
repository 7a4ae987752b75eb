use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use tidepool::cli::{BenchCommand, Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Simulate(args) => tidepool::simulate::run(args),
        Command::Bench { what: BenchCommand::Cycle(args) } => tidepool::bench::cycle(args),
    };
    match result {
        Ok(output) => {
            // A closed pipe (`| head`) is the reader's choice, not a failure worth a panic.
            let _ = writeln!(std::io::stdout(), "{output}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
