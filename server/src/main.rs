use std::io::Write;
use std::process::ExitCode;

use tidepool::cli::{BenchCommand, Command, ConfigCommand};

fn main() -> ExitCode {
    // The agent starts a shim for every job: it skips parsing the whole command line
    // (clap builds every subcommand) and the configuration, half its start-up cost.
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == "agent-shim") {
        return tidepool::agent::shim::main(args);
    }
    // Flags over TIDEPOOL_* variables over `--config FILE` over defaults (serve, agent).
    let (cli, warnings) = match tidepool::config::parse_args() {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    // Logs (the server's, the agent's) go to stderr, human or JSON lines.
    let flag = match &cli.command {
        Command::Serve(args) => args.log_format,
        _ => None,
    };
    match tidepool::logging::format(flag) {
        Ok(format) => tidepool::logging::init(format),
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    }
    for warning in warnings {
        tracing::warn!("{warning}");
    }
    let result = match &cli.command {
        Command::Admin(args) => tidepool::admin::run(args).map(|out| (out, true)),
        Command::Serve(args) => tidepool::serve::run(args).map(|out| (out, true)),
        Command::Agent(args) => tidepool::agent::run(args).map(|out| (out, true)),
        Command::AgentShim { command } => {
            return tidepool::agent::shim::main(command.iter().map(std::ffi::OsString::from));
        }
        Command::Config { what: ConfigCommand::Show { args } } => {
            tidepool::config::show(args).map(|out| (out, true))
        }
        Command::Client(command) => return tidepool::client::run(command),
        Command::Drill { what } => tidepool::drill::run(what),
        Command::Simulate(args) => tidepool::simulate::run(args).map(|out| (out, true)),
        Command::Policy { what } => tidepool::policy_cmd::run(what),
        Command::Bench { what: BenchCommand::Api(args) } => {
            tidepool::bench_api::run(args).map(|out| (out, true))
        }
        Command::Bench { what: BenchCommand::E2e(args) } => {
            tidepool::bench_e2e::run(args).map(|out| (out, true))
        }
        Command::Bench { what: BenchCommand::Agents(args) } => {
            tidepool::bench_agents::run(args).map(|out| (out, true))
        }
        Command::Bench { what: BenchCommand::Security(args) } => {
            tidepool::bench_security::run(args).map(|out| (out, true))
        }
        Command::Bench { what: BenchCommand::Templates(args) } => {
            tidepool::bench_templates::run(args).map(|out| (out, true))
        }
        Command::Bench { what: BenchCommand::Cycle(args) } => {
            tidepool::bench::cycle(args).map(|out| (out, true))
        }
        Command::Bench { what: BenchCommand::Reports(args) } => {
            tidepool::bench_reports::run(args).map(|out| (out, true))
        }
    };
    match result {
        Ok((output, success)) => {
            // A closed pipe (`| head`) is the reader's choice, not a failure worth a panic.
            let _ = writeln!(std::io::stdout(), "{output}");
            if success { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
