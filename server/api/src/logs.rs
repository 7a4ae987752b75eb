//! A job's log (`GET /api/jobs/{id}/log?offset=&limit=&follow_s=`), in byte ranges so no
//! read loads a whole log; a followed read waits for more output or the job's end.

use serde::{Deserialize, Serialize};

/// A range of a job's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LogRange {
    pub job: i64,
    /// Where `log` starts (the offset asked for, moved onto a character boundary).
    pub offset: i64,
    /// Where the next read starts.
    pub next_offset: i64,
    /// The log's size so far, in bytes.
    pub size: i64,
    /// The job's output reached the cap: the rest was dropped, after a marker.
    pub capped: bool,
    /// The job has finished: once a read reaches `size`, there is no more.
    pub done: bool,
    /// The text of the range.
    pub log: String,
}
