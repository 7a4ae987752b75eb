//! `tidepool logs JOB [-f]`: a job's output, read in ranges from an offset; following
//! waits on the server (`follow_s`) for more until the job has ended and all is read.

use std::io::Write;

use tidepool_api::LogRange;

use crate::cli::{ClientOpts, Format};
use crate::client::http::Api;
use crate::client::{Failure, Outcome};

/// Seconds one followed read waits on the server for more output.
const FOLLOW_S: u64 = 20;

/// Prints one range: its text, or (JSON) the range itself as one line.
fn emit(opts: &ClientOpts, range: &LogRange) -> Outcome {
    let mut out = std::io::stdout().lock();
    let written = match opts.format {
        Format::Json => {
            let line = serde_json::to_string(range).map_err(|e| Failure::Refused(e.to_string()))?;
            writeln!(out, "{line}")
        }
        Format::Text => out.write_all(range.log.as_bytes()),
    };
    // A closed pipe (`| head`) ends the command quietly.
    if written.and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
    Ok(())
}

pub async fn logs(opts: &ClientOpts, job: i64, follow: bool, offset: i64) -> Outcome {
    if offset < 0 {
        return Err(Failure::Usage("--offset is a byte position, 0 or more".into()));
    }
    let mut api = Api::signed_in(opts)?;
    let mut offset = offset;
    loop {
        let wait = if follow { format!("&follow_s={FOLLOW_S}") } else { String::new() };
        let range: LogRange = api.get(&format!("/api/jobs/{job}/log?offset={offset}{wait}")).await?;
        let read_all = range.next_offset >= range.size;
        // Done once everything is read: without -f, what there is now; with -f, all the
        // output of a job that has ended. (An empty range without -f: nothing more now.)
        let finished = (read_all && (!follow || range.done)) || (!follow && range.log.is_empty());
        if !range.log.is_empty() || (finished && opts.format == Format::Json) {
            emit(opts, &range)?;
        }
        offset = range.next_offset;
        if finished {
            if range.capped && opts.format == Format::Text {
                eprintln!("(the log reached its size cap: later output was dropped)");
            }
            return Ok(());
        }
    }
}
