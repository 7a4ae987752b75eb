//! `tidepool bench reports`: the size and speed of usage history at scale. Writes a year
//! (`--days`) of `usage_hours` for a `--gpus` cluster ([`crate::usage::synthetic`]), then
//! prints its rows and the database's size, the time `/api/usage`'s figures take for a
//! month, and the roll-up's time over `--rollup-days` of synthetic allocations and samples
//! (extrapolated to a year), and the weekly report's time — the organisation's and one
//! group's — for the week the rolled-up allocations fall in, computed live (an open week
//! is never read from a frozen copy). SQLite in a fresh folder, or `--database-url`.

use std::time::Instant;

use serde::Serialize;
use sqlx::Row;
use tidepool_core::usage::{HOUR, hour_of};

use crate::bench::Rng;
use crate::bench_server::bench_dir;
use crate::cli::{BenchReportsArgs, Format};
use crate::org_time::OrgZone;
use crate::reports::{Scope, scope_for, weekly};
use crate::store::users::{Role, User};
use crate::store::{Engine, Store};
use crate::usage::curves::{Ask, curves};
use crate::usage::{roll_up, synthetic};

#[derive(Debug, Serialize)]
struct Figures {
    gpus: i64,
    days: i64,
    usage_hours_rows: u64,
    write_s: f64,
    usage_hours_mb: f64,
    database_mb: f64,
    usage_month_org_ms: f64,
    usage_month_group_ms: f64,
    rollup_days: i64,
    rollup_allocations: u64,
    rollup_s: f64,
    rollup_year_s_estimate: f64,
    weekly_report_org_ms: f64,
    weekly_report_group_ms: f64,
}

pub fn run(args: &BenchReportsArgs) -> Result<String, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let f = rt.block_on(measure(args))?;
    Ok(match args.format {
        Format::Json => serde_json::to_string(&f).map_err(|e| e.to_string())?,
        Format::Text => format!("{f:#?}"),
    })
}

async fn measure(args: &BenchReportsArgs) -> Result<Figures, String> {
    let dir = bench_dir("reports")?;
    let url = args.database_url.clone().unwrap_or_else(|| format!("sqlite:{}", dir.join("t.db").display()));
    let store = Store::open(&url).await.map_err(|e| e.to_string())?;
    let e = |e: crate::usage::UsageError| e.to_string();
    let start = hour_of(1_767_225_600); // 2026-01-01 00:00 UTC
    let t = Instant::now();
    let rows = synthetic::write_history(&store, start, args.days, args.gpus, 7).await.map_err(e)?;
    let write_s = t.elapsed().as_secs_f64();
    let (table, db) = sizes(&store, &dir).await?;
    // A month of curves, for the organisation and for one group.
    let admin = User { id: 1, username: "bench".into(), role: Role::Admin, group_id: None };
    let to = start + args.days * 86_400;
    let month = Ask { from: Some(to - 30 * 86_400), to: Some(to), group: None, pool: None };
    let t = Instant::now();
    curves(&store, &admin, &month).await.map_err(e)?;
    let org_ms = t.elapsed().as_secs_f64() * 1e3;
    let group = Ask { group: Some("syn-01"), ..month };
    let t = Instant::now();
    curves(&store, &admin, &group).await.map_err(e)?;
    let group_ms = t.elapsed().as_secs_f64() * 1e3;
    // The roll-up over days of allocations after the synthetic year.
    let allocations = allocations(&store, args.gpus, to, args.rollup_days).await?;
    let t = Instant::now();
    roll_up(&store, to + args.rollup_days * 86_400).await.map_err(e)?;
    let rollup_s = t.elapsed().as_secs_f64();
    // The weekly report for the week holding the rolled-up allocations, still open at
    // `now`, so both scopes are computed from the records rather than a frozen copy.
    let now = to + args.rollup_days * 86_400;
    let week = OrgZone::utc().week_of(to);
    let r = |e: crate::reports::ReportError| e.to_string();
    let t = Instant::now();
    weekly(&store, &Scope(None), Some(&week), now).await.map_err(r)?;
    let weekly_org_ms = t.elapsed().as_secs_f64() * 1e3;
    let group = scope_for(&store, &admin, Some("syn-01")).await.map_err(r)?;
    let t = Instant::now();
    weekly(&store, &group, Some(&week), now).await.map_err(r)?;
    let weekly_group_ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(Figures {
        gpus: args.gpus,
        days: args.days,
        usage_hours_rows: rows,
        write_s,
        usage_hours_mb: table,
        database_mb: db,
        usage_month_org_ms: org_ms,
        usage_month_group_ms: group_ms,
        rollup_days: args.rollup_days,
        rollup_allocations: allocations,
        rollup_s,
        rollup_year_s_estimate: rollup_s * 365.0 / args.rollup_days.max(1) as f64,
        weekly_report_org_ms: weekly_org_ms,
        weekly_report_group_ms: weekly_group_ms,
    })
}

/// Megabytes of `usage_hours` (PostgreSQL; SQLite: the whole file) and of the database.
async fn sizes(store: &Store, dir: &std::path::Path) -> Result<(f64, f64), String> {
    let mb = |b: i64| b as f64 / 1_048_576.0;
    match store.engine {
        Engine::Postgres => {
            let r = sqlx::query(
                "SELECT CAST(pg_total_relation_size('usage_hours') AS BIGINT), \
                 CAST(pg_database_size(current_database()) AS BIGINT)",
            )
            .fetch_one(&store.pool)
            .await
            .map_err(|e| e.to_string())?;
            Ok((mb(r.try_get(0).map_err(|e| e.to_string())?), mb(r.try_get(1).map_err(|e| e.to_string())?)))
        }
        _ => {
            let bytes: u64 = std::fs::read_dir(dir)
                .map_err(|e| e.to_string())?
                .flatten()
                .filter_map(|f| f.metadata().ok())
                .map(|m| m.len())
                .sum();
            Ok((mb(bytes as i64), mb(bytes as i64)))
        }
    }
}

/// Philly-sized jobs filling the cluster for `days` from `from`: nodes of 8 GPUs, each
/// GPU running back-to-back jobs of 10 min to 6 h, one sample row per allocation-hour.
async fn allocations(store: &Store, gpus: i64, from: i64, days: i64) -> Result<u64, String> {
    let s = |e: sqlx::Error| e.to_string();
    let groups = synthetic::groups(store, gpus, from).await.map_err(|e| e.to_string())?;
    let user = store
        .create_user("bench-user", "bench-user-pw-1", Role::Member, Some(groups[0]), from)
        .await
        .map_err(|e| e.to_string())?;
    let mut rng = Rng::new(3);
    let mut count = 0u64;
    let end = from + days * 86_400;
    for n in 0..gpus / 8 {
        let mut tx = store.begin().await.map_err(s)?;
        let pool = synthetic::POOLS[(n % 4) as usize];
        let node: i64 = sqlx::query(
            "INSERT INTO nodes (name, pool, model, gpus, nvlink_group, healthy, created_at) \
             VALUES ($1, $2, 'A100-80G', 8, 8, TRUE, $3) RETURNING id",
        )
        .bind(format!("bench-{n}"))
        .bind(pool)
        .bind(from)
        .fetch_one(&mut *tx)
        .await
        .and_then(|r| r.try_get(0))
        .map_err(s)?;
        for gpu in 0..8 {
            let mut t = from;
            while t < end {
                let run = 600 + rng.below(6 * 3600) as i64;
                let group = groups[rng.below(groups.len() as u64) as usize];
                let job: i64 = sqlx::query(
                    "INSERT INTO jobs (group_id, submitted_by, name, category, class, gpus, model, topology, \
                     checkpointable, command, state, submitted_at, queued_at, finished_at) VALUES \
                     ($1, $2, 'b', 'training', 'normal', 1, 'A100-80G', 'any', TRUE, 'true', 'succeeded', $3, $3, $4) \
                     RETURNING id",
                )
                .bind(group)
                .bind(user)
                .bind(t - 300)
                .bind(t + run)
                .fetch_one(&mut *tx)
                .await
                .and_then(|r| r.try_get(0))
                .map_err(s)?;
                let a: i64 = sqlx::query(
                    "INSERT INTO allocations (job_id, node_id, gpu_mask, borrowed, epoch, started_at, ended_at) \
                     VALUES ($1, $2, $3, '[]', 1, $4, $5) RETURNING id",
                )
                .bind(job)
                .bind(node)
                .bind(1i64 << gpu)
                .bind(t)
                .bind(t + run)
                .fetch_one(&mut *tx)
                .await
                .and_then(|r| r.try_get(0))
                .map_err(s)?;
                let mut hour = hour_of(t);
                while hour < t + run {
                    sqlx::query("INSERT INTO usage_samples (hour, allocation_id, sampled_gpu_s, util_pct_gpu_s, idle_gpu_s) \
                         VALUES ($1, $2, 3600, 216000, 0)")
                        .bind(hour)
                        .bind(a)
                        .execute(&mut *tx)
                        .await
                        .map_err(s)?;
                    hour += HOUR;
                }
                count += 1;
                t += run;
            }
        }
        tx.commit().await.map_err(s)?;
    }
    Ok(count)
}
