//! First come, first served: every job scores the same, so the dispatcher's tie-break
//! (submission time, then id) is the order. The smallest useful policy, and the rule
//! the simulator's silos replay.

use tidepool_policy_sdk::priority::{Context, Guest, Jobs, export_priority};

struct Fifo;

impl Guest for Fifo {
    fn score(_ctx: Context, jobs: Jobs) -> Result<Vec<i64>, String> {
        Ok(vec![0; jobs.id.len()])
    }
}

export_priority!(Fifo);
