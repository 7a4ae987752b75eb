//! First come, first served: every job scores the same, so the dispatcher's tie-break
//! (submission time, then id) is the order. The smallest useful policy, and the rule
//! the simulator's silos replay.

use tidepool_policy_sdk::priority::{Context, Guest, Job, export_priority};

struct Fifo;

impl Guest for Fifo {
    fn score(_ctx: Context, jobs: Vec<Job>) -> Result<Vec<i64>, String> {
        Ok(vec![0; jobs.len()])
    }
}

export_priority!(Fifo);
