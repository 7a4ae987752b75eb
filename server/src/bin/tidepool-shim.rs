//! `tidepool-shim [--] COMMAND…`: the program the node agent starts for every job, the
//! same as `tidepool agent-shim` (`tidepool::agent::shim`) in a binary that holds nothing
//! else. The agent starts one per job: loading the whole `tidepool` binary cost ~2.3 ms
//! of CPU a start, this one a fraction of it. The agent uses it when it lies beside its
//! own binary, else `tidepool agent-shim`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let command: Option<Vec<String>> = std::env::args_os().skip(1).map(|a| a.into_string().ok()).collect();
    let Some(command) = command else {
        eprintln!("tidepool-shim: the command is not valid UTF-8");
        return ExitCode::from(2);
    };
    let skip = usize::from(command.first().is_some_and(|c| c == "--"));
    ExitCode::from(tidepool::agent::shim::run(&command[skip..]).clamp(0, 255) as u8)
}
