//! Misbehaves as the first group's name says (see tests/policies/README.md).

use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering};

use tidepool_policy_sdk::priority::{Context, Guest, Jobs, export_priority};

struct Hostile;

/// Calls this instance has seen (`count`): state a module keeps between calls.
static CALLS: AtomicI64 = AtomicI64::new(0);

impl Guest for Hostile {
    fn score(ctx: Context, jobs: Jobs) -> Result<Vec<i64>, String> {
        let n = jobs.id.len();
        match ctx.groups.first().map(String::as_str) {
            Some("loop") => {
                let mut i = 0u64;
                loop {
                    i = black_box(i.wrapping_add(1));
                }
            }
            Some("bomb") => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(black_box(vec![1u8; 1 << 20]));
                }
            }
            Some("panic") => panic!("a policy bug"),
            Some("short") => Ok(vec![0; n.saturating_sub(1)]),
            Some("huge") => Ok(vec![0; 5_000_000]),
            Some("error") => Err("this policy refuses to answer".into()),
            Some("count") => Ok(vec![CALLS.fetch_add(1, Ordering::Relaxed) + 1; n]),
            Some("count-then-panic") => {
                CALLS.fetch_add(1000, Ordering::Relaxed);
                panic!("a policy bug after changing its state")
            }
            _ => Ok(vec![0; n]),
        }
    }
}

export_priority!(Hostile);
