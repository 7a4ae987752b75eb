//! `tidepool bench api`: submits N jobs through the real API handlers (in-process, many
//! at a time) and lets the live dispatcher place them all, on SQLite or PostgreSQL.
//! The cluster is sized so every job fits: the figure is the record path's speed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use serde::Serialize;
use tidepool_core::NativePolicies;
use tower::ServiceExt;

use crate::cli::{BenchApiArgs, Format};
use crate::dispatch::{Dispatcher, Lease};
use crate::http::{AppState, Bounds, Keys, app, auth, default_web_dir};
use crate::sim::report::nearest_rank;
use crate::store::Store;
use crate::store::users::Role;

#[derive(Serialize)]
struct ApiReport {
    engine: &'static str,
    jobs: u32,
    concurrency: u32,
    submit_s: f64,
    submit_per_s: f64,
    p50_submit_ms: f64,
    p99_submit_ms: f64,
    place_s: f64,
    placed: usize,
    placed_per_s: f64,
    submitted_and_placed_per_s: f64,
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e5).round() / 100.0
}

pub fn run(args: &BenchApiArgs) -> Result<String, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(bench(args))
}

async fn bench(args: &BenchApiArgs) -> Result<String, String> {
    let err = |e: crate::store::StoreError| e.to_string();
    let store = Store::open(&args.database_url).await.map_err(err)?;
    let now = crate::unix_now();
    // A group and a pool big enough that every job can be placed.
    let group = format!("bench{}", std::process::id());
    let gid = store.create_group(&group, now).await.map_err(err)?;
    sqlx::query(
        "INSERT INTO quotas (group_id, model, category, guaranteed) VALUES ($1, 'bench-gpu', 'training', $2)",
    )
    .bind(gid)
    .bind(i64::from(args.jobs))
    .execute(&store.pool)
    .await
    .map_err(|e| e.to_string())?;
    for n in 0..args.jobs.div_ceil(8) {
        sqlx::query(
            "INSERT INTO nodes (name, pool, model, gpus, nvlink_group, healthy, created_at) \
             VALUES ($1, 'bench', 'bench-gpu', 8, 8, TRUE, $2)",
        )
        .bind(format!("{group}-node-{n}"))
        .bind(now)
        .execute(&store.pool)
        .await
        .map_err(|e| e.to_string())?;
    }
    let user = format!("{group}-dev");
    store.create_user(&user, "bench-pw", Role::Member, Some(gid), now).await.map_err(err)?;
    let keys = Keys::new(b"a benchmark secret that is long enough")?;
    let state = AppState {
        store: store.clone(),
        keys: Arc::new(keys),
        clock: Arc::new(move || now),
        wake: Default::default(),
        policies: Arc::new(crate::policy::desk::PolicyDesk::new(None)?),
        fleet: Arc::new(crate::fleet::Fleet::new(crate::fleet::FleetConfig::default())),
        web_dir: default_web_dir(),
        // One user submits every job: the pending cap is the bench's size.
        bounds: Arc::new(Bounds::new(i64::from(args.jobs), 500, 10, 10)),
        metrics_token: None,
    };
    let me = store.authenticate(&user, "bench-pw").await.map_err(err)?.ok_or("bench user")?;
    let token = auth::issue(&state.keys, &me, "access", now).map_err(|e| e.to_string())?;
    let router = app(state);

    let started = Instant::now();
    let per_task = args.jobs.div_ceil(args.concurrency);
    let mut tasks = Vec::new();
    for t in 0..args.concurrency {
        let (router, token) = (router.clone(), token.clone());
        let count = per_task.min(args.jobs.saturating_sub(t * per_task));
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(count as usize);
            for i in 0..count {
                let body = format!(r#"{{"name":"b{t}-{i}","command":"true","gpus":1,"model":"bench-gpu"}}"#);
                let req = Request::post("/api/jobs")
                    .header("authorization", format!("Bearer {token}"))
                    .header("content-type", "application/json")
                    .body(Body::from(body))
                    .expect("request");
                let t0 = Instant::now();
                let resp = router.clone().oneshot(req).await.expect("infallible");
                if resp.status() != axum::http::StatusCode::CREATED {
                    return Err(format!("submit answered {}", resp.status()));
                }
                latencies.push(t0.elapsed());
            }
            Ok(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.map_err(|e| e.to_string())??);
    }
    let submit = started.elapsed();
    latencies.sort_unstable();
    let pick = |q: f64| nearest_rank(&latencies, q).unwrap_or_default();

    let lease = Lease { holder: format!("bench-{}", std::process::id()), ttl_s: 60 };
    let dispatcher = Dispatcher::new(store, Arc::new(NativePolicies::default()), lease);
    let started = Instant::now();
    let mut placed = 0;
    loop {
        let r = dispatcher.cycle(now).await.map_err(|e| e.to_string())?;
        placed += r.placed;
        if r.placed == 0 {
            break;
        }
    }
    let place = started.elapsed();
    dispatcher.lease.release(&dispatcher.store).await.map_err(|e| e.to_string())?;
    let report = ApiReport {
        engine: if args.database_url.starts_with("sqlite") { "sqlite" } else { "postgres" },
        jobs: args.jobs,
        concurrency: args.concurrency,
        submit_s: submit.as_secs_f64(),
        submit_per_s: (f64::from(args.jobs) / submit.as_secs_f64()).round(),
        p50_submit_ms: ms(pick(0.5)),
        p99_submit_ms: ms(pick(0.99)),
        place_s: place.as_secs_f64(),
        placed,
        placed_per_s: (placed as f64 / place.as_secs_f64()).round(),
        submitted_and_placed_per_s: (placed as f64 / (submit + place).as_secs_f64()).round(),
    };
    Ok(match args.format {
        Format::Json => serde_json::to_string(&report).expect("serializes"),
        Format::Text => serde_json::to_string_pretty(&report).expect("serializes"),
    })
}
