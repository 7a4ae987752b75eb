//! Synthetic usage history for benchmarks: N days of `usage_hours` for a cluster of G
//! GPUs, with a daily and weekly rhythm.
