//! Tries the filesystem, the clock, randomness and the network: a module the sandbox
//! must refuse before it ever runs (built for wasm32-wasip2, so std imports WASI).

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use tidepool_policy_sdk::priority::{Context, Guest, Jobs, export_priority};

struct Snoop;

impl Guest for Snoop {
    fn score(_ctx: Context, jobs: Jobs) -> Result<Vec<i64>, String> {
        let secret = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let noise = RandomState::new().hash_one(now);
        let _ = std::net::TcpStream::connect("10.0.0.1:80");
        Ok(vec![(secret.len() as u64 ^ noise) as i64; jobs.id.len()])
    }
}

export_priority!(Snoop);
