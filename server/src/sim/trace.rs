//! Loading job traces and group files (the simulator's inputs).
//!
//! Trace CSV: a header naming at least `timestamp` (`YYYY-MM-DD HH:MM:SS`, or seconds),
//! `duration` (seconds), `num_gpus` and `cluster` (the group); other columns are ignored.
//! Groups CSV: `name,nodes` rows under a header, as Philly's `vc,node num`.

use std::path::Path;

use crate::sim::time::parse_time;

/// A problem in an input file, always naming the file and, where there is one, the line.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error("{file}:{line}: {message}")]
    Row { file: String, line: u64, message: String },
}

/// One job of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceJob {
    pub submitted_at: i64,
    pub duration_s: u64,
    pub gpus: u32,
    pub group: String,
}

/// Opens a CSV file and reads its header; an empty file has an empty header.
fn open(path: &Path) -> Result<(csv::Reader<std::fs::File>, csv::StringRecord), InputError> {
    let file_error =
        |e: csv::Error| InputError::File { file: path.display().to_string(), message: e.to_string() };
    let mut rdr = csv::ReaderBuilder::new().trim(csv::Trim::All).from_path(path).map_err(file_error)?;
    let header = rdr.headers().map_err(file_error)?.clone();
    Ok((rdr, header))
}

fn row_error(path: &Path, line: u64, message: impl Into<String>) -> InputError {
    InputError::Row { file: path.display().to_string(), line, message: message.into() }
}

/// Calls `on_row` with every record and its line number; stops at the first error.
fn for_each_row(
    path: &Path,
    mut rdr: csv::Reader<std::fs::File>,
    mut on_row: impl FnMut(&csv::StringRecord, u64) -> Result<(), InputError>,
) -> Result<(), InputError> {
    for record in rdr.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            row_error(path, line, e.to_string())
        })?;
        on_row(&record, record.position().map_or(0, |p| p.line()))?;
    }
    Ok(())
}

/// Reads a trace file, rejecting the first malformed row with its line number.
/// An empty file is an empty trace.
pub fn load_trace(path: &Path) -> Result<Vec<TraceJob>, InputError> {
    let (rdr, header) = open(path)?;
    if header.iter().all(str::is_empty) {
        return Ok(Vec::new());
    }
    let column = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| InputError::File {
            file: path.display().to_string(),
            message: format!(
                "the header has no `{name}` column (need timestamp, duration, num_gpus, cluster)"
            ),
        })
    };
    let (ts, dur, gpus, cluster) =
        (column("timestamp")?, column("duration")?, column("num_gpus")?, column("cluster")?);
    let mut jobs = Vec::new();
    for_each_row(path, rdr, |r, line| {
        let field = |i: usize| r.get(i).unwrap_or("");
        let submitted_at = parse_time(field(ts)).ok_or_else(|| {
            row_error(path, line, format!("timestamp `{}` is not a date-time or seconds", field(ts)))
        })?;
        let duration: f64 =
            field(dur).parse().ok().filter(|d: &f64| d.is_finite() && *d >= 0.0).ok_or_else(|| {
                row_error(path, line, format!("duration `{}` is not a non-negative number", field(dur)))
            })?;
        let n: f64 = field(gpus)
            .parse()
            .ok()
            .filter(|n: &f64| n.fract() == 0.0 && *n >= 1.0 && *n <= 65536.0)
            .ok_or_else(|| {
                row_error(path, line, format!("num_gpus `{}` is not a whole number ≥ 1", field(gpus)))
            })?;
        let group = field(cluster);
        if group.is_empty() {
            return Err(row_error(path, line, "cluster (the group) is empty"));
        }
        jobs.push(TraceJob {
            submitted_at,
            duration_s: duration.round() as u64,
            gpus: n as u32,
            group: group.into(),
        });
        Ok(())
    })?;
    Ok(jobs)
}

/// Reads a groups file: each row a group name and its node count.
pub fn load_groups(path: &Path) -> Result<Vec<(String, u32)>, InputError> {
    let (rdr, header) = open(path)?;
    if header.len() < 2 {
        return Err(InputError::File {
            file: path.display().to_string(),
            message: "expected a header and two columns: group name and node count".into(),
        });
    }
    let mut groups: Vec<(String, u32)> = Vec::new();
    for_each_row(path, rdr, |r, line| {
        let name = r.get(0).unwrap_or("");
        let nodes = r.get(1).unwrap_or("");
        let nodes: u32 = nodes
            .parse()
            .map_err(|_| row_error(path, line, format!("node count `{nodes}` is not a whole number")))?;
        if name.is_empty() {
            return Err(row_error(path, line, "group name is empty"));
        }
        if groups.iter().any(|(g, _)| g == name) {
            return Err(row_error(path, line, format!("group `{name}` appears twice")));
        }
        groups.push((name.into(), nodes));
        Ok(())
    })?;
    Ok(groups)
}
