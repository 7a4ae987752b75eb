//! Logs on stderr (issue 14): human lines by default, or one JSON object a line for a log
//! collector (`serve --log-format json`, or TIDEPOOL_LOG_FORMAT=json for every command).
//! `RUST_LOG` picks what is logged (default `info`). In JSON, an event's fields sit at
//! the top level beside `timestamp`, `level`, `target` and `message`, and the span it
//! happened in (the HTTP request, the dispatch cycle) comes as `span`.

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Human,
    Json,
}

/// The flag, else TIDEPOOL_LOG_FORMAT, else human; a value that is neither is an error
/// rather than a silent fallback (a collector would otherwise get lines it cannot parse).
pub fn format(flag: Option<LogFormat>) -> Result<LogFormat, String> {
    if let Some(format) = flag {
        return Ok(format);
    }
    match std::env::var("TIDEPOOL_LOG_FORMAT") {
        Ok(v) => <LogFormat as clap::ValueEnum>::from_str(v.trim(), true)
            .map_err(|_| format!("TIDEPOOL_LOG_FORMAT is `{v}`: it must be `human` or `json`")),
        Err(_) => Ok(LogFormat::Human),
    }
}

/// Installs the process's subscriber (once, at start).
pub fn init(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Human => builder.init(),
        // Fields at the top level, so a collector indexes `placed` rather than
        // `fields.placed`; the current span only (its name and fields), not the stack.
        LogFormat::Json => {
            builder.json().flatten_event(true).with_current_span(true).with_span_list(false).init()
        }
    }
}
