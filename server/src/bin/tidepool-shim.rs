//! `tidepool-shim [--] COMMAND…`: the program the node agent starts for every job, the
//! same as `tidepool agent-shim` (`tidepool::agent::shim`) in a binary that holds nothing
//! else. The agent starts one per job: loading the whole `tidepool` binary cost ~2.3 ms
//! of CPU a start, this one a fraction of it. The agent uses it when it lies beside its
//! own binary, else `tidepool agent-shim`.

use std::process::ExitCode;

fn main() -> ExitCode {
    tidepool::agent::shim::main(std::env::args_os().skip(1))
}
