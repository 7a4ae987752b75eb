//! `tidepool login`, `submit`, `queue`, `show`, `logs`, `cancel`, `report`…: the command line for
//! researchers, a client of the server's API over HTTP that reads the shared
//! `tidepool-api` types. Exit codes are for scripts: 0 ok, 1 the server refused, 2 usage,
//! 3 not signed in or the session expired, 4 the server cannot be reached.

mod account;
mod alerts;
mod http;
mod jobs;
mod loans;
mod logs;
mod password;
mod receipt;
mod replay;
mod report;
mod reviews;
mod sbatch;
mod session;
mod table;
mod views;

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;

use crate::cli::{ClientCommand, ClientOpts, Format, ReportCommand};

pub use http::Api;

/// Why a client command failed, and so its exit status.
#[derive(Debug)]
pub enum Failure {
    /// The server answered with a refusal: its message (exit 1).
    Refused(String),
    /// The command line or a file it names is wrong (exit 2).
    Usage(String),
    /// No session for this server, or it ended (exit 3).
    SignedOut(String),
    /// No answer from the server (exit 4).
    Unreachable(String),
}

impl Failure {
    fn code(&self) -> u8 {
        match self {
            Failure::Refused(_) => 1,
            Failure::Usage(_) => 2,
            Failure::SignedOut(_) => 3,
            Failure::Unreachable(_) => 4,
        }
    }

    fn message(&self) -> &str {
        match self {
            Failure::Refused(m) | Failure::Usage(m) | Failure::SignedOut(m) | Failure::Unreachable(m) => m,
        }
    }
}

/// What a command printed: already written, or a value to print in the chosen format.
pub type Outcome = Result<(), Failure>;

/// Runs one client command and turns its outcome into the exit status.
pub fn run(command: &ClientCommand) -> ExitCode {
    let result = match command {
        ClientCommand::Completions { shell } => {
            let mut cli = <crate::cli::Cli as clap::CommandFactory>::command();
            // Into a buffer first: clap_complete panics on a write error (`| head`).
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut cli, "tidepool", &mut script);
            let _ = std::io::stdout().write_all(&script);
            Ok(())
        }
        _ => match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt.block_on(dispatch(command)),
            Err(e) => Err(Failure::Unreachable(format!("cannot start the client's runtime: {e}"))),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message());
            ExitCode::from(failure.code())
        }
    }
}

async fn dispatch(command: &ClientCommand) -> Outcome {
    use ClientCommand as C;
    match command {
        C::Login { opts, username } => account::login(opts, username.as_deref()).await,
        C::Logout { opts } => account::logout(opts).await,
        C::Whoami { opts } => account::whoami(opts).await,
        C::Submit { opts, spec, dry_run, command } => jobs::submit(opts, spec, *dry_run, command).await,
        C::Sbatch { opts, spec, dry_run, script } => sbatch::sbatch(opts, spec, *dry_run, script).await,
        C::Queue { opts, mine, group, state, limit, before } => {
            jobs::queue(
                opts,
                &jobs::QueueFilter { mine: *mine, group, state, limit: *limit, before: *before },
            )
            .await
        }
        C::Show { opts, job } => receipt::show(opts, *job).await,
        C::Logs { opts, job, follow, offset } => logs::logs(opts, *job, *follow, *offset).await,
        C::Cancel { opts, job } => jobs::cancel(opts, *job).await,
        C::Templates { opts } => views::templates(opts).await,
        C::Quota { opts, group } => views::quota(opts, group.as_deref()).await,
        C::Nodes { opts } => views::nodes(opts).await,
        C::Loans { opts, action } => loans::loans(opts, action.as_ref()).await,
        C::Alerts { opts, unread, action } => alerts::alerts(opts, *unread, action.as_ref()).await,
        C::Replay { opts, since, until, priority, quota, reclaim } => {
            let modules = [("priority", priority), ("quota", quota), ("reclaim", reclaim)];
            replay::replay(opts, since, until.as_deref(), &modules).await
        }
        C::Completions { .. } => Ok(()),
        C::Report { what: ReportCommand::Weekly { server, format, group, week } } => {
            report::weekly(server, *format, group.as_deref(), week.as_deref()).await
        }
        C::Report { what: ReportCommand::Reviews { server, format, kind, month, quarter, year } } => {
            reviews::reviews(server, *format, *kind, month.as_deref(), quarter.as_deref(), *year).await
        }
    }
}

/// Prints `value` as the API's JSON, or as `text` renders it for people.
fn print<T: Serialize>(opts: &ClientOpts, value: &T, text: impl FnOnce(&T) -> String) -> Outcome {
    let out = match opts.format {
        Format::Json => serde_json::to_string_pretty(value).map_err(|e| Failure::Refused(e.to_string()))?,
        Format::Text => text(value),
    };
    // A closed pipe (`| head`) is the reader's choice, not a failure.
    let _ = writeln!(std::io::stdout(), "{}", out.trim_end_matches('\n'));
    Ok(())
}
