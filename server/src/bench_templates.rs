//! `tidepool bench templates` (finding 8): one member's 1,000 templates and 10,000 jobs
//! launched from them, written straight into a fresh SQLite file, then a real `tidepool
//! serve` on loopback answering over HTTP. Times `GET /api/templates` (the first page, a
//! 500-row page, every page) and `GET /api/me`, alone and while other callers list
//! templates: a list must not hold the one SQLite connection long enough to stall
//! everyone's `/api/me` (it took 5 s at the median before usage was one grouped read).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use sqlx::Row;
use tidepool_api::TemplatePage;

use crate::bench_server::{BenchServer, bench_dir, sign_in};
use crate::cli::{BenchTemplatesArgs, Format};
use crate::sim::report::nearest_rank;
use crate::store::{Store, bootstrap_admin, seed_demo};

pub fn run(args: &BenchTemplatesArgs) -> Result<String, String> {
    let dir = bench_dir("templates")?;
    let url = format!("sqlite:{}", dir.join("tidepool.db").display());
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let out = rt.block_on(seed(args, &url)).and_then(|()| {
        let server = BenchServer::start(&dir, "bench-admin-pw", &["--database-url", &url])?;
        rt.block_on(drive(args, &server.addr))
    });
    let v = out?;
    Ok(match args.format {
        Format::Json => v.to_string(),
        Format::Text => text(&v),
    })
}

/// The demo organisation, then `templates` templates of vision's and `jobs` finished
/// jobs launched from them, each written by one statement.
async fn seed(args: &BenchTemplatesArgs, url: &str) -> Result<(), String> {
    let err = |e: crate::store::StoreError| e.to_string();
    let sql = |e: sqlx::Error| e.to_string();
    let store = Store::open(url).await.map_err(err)?;
    let now = crate::unix_now();
    bootstrap_admin(&store, Some("bench-admin-pw".into()), now).await.map_err(|e| e.to_string())?;
    seed_demo(&store, now).await.map_err(err)?;
    let id = |q: &'static str| {
        let store = store.clone();
        async move { sqlx::query(q).fetch_one(&store.pool).await?.try_get::<i64, _>(0) }
    };
    let group = id("SELECT id FROM groups WHERE name = 'vision'").await.map_err(sql)?;
    let user = id("SELECT id FROM users WHERE username = 'vision-dev'").await.map_err(sql)?;
    let first = id("SELECT COALESCE(MAX(id), 0) + 1 FROM templates").await.map_err(sql)?;
    sqlx::query(
        "INSERT INTO templates (group_id, name, category, class, gpus, model, topology, time_limit_s, \
         checkpointable, image, command, env, created_by, created_at) \
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1) \
         SELECT $2, 'bench-' || i, 'training', 'normal', 1, 'A100-80G', 'any', 3600, FALSE, 'pytorch:2.4', \
         'true', '{\"WANDB_API_KEY\":\"k\"}', 'vision-dev', $3 FROM n",
    )
    .bind(i64::from(args.templates))
    .bind(group)
    .bind(now - 86_400)
    .execute(&store.pool)
    .await
    .map_err(sql)?;
    sqlx::query(
        "INSERT INTO jobs (group_id, submitted_by, name, category, class, gpus, model, topology, checkpointable, \
         command, state, submitted_at, queued_at, finished_at, template_id) \
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1) \
         SELECT $2, $3, 'bench-' || i, 'training', 'normal', 1, 'A100-80G', 'any', FALSE, 'true', 'succeeded', \
         $4 - i, $4 - i, $4 - i + 60, $5 + (i % $6) FROM n",
    )
    .bind(i64::from(args.jobs))
    .bind(group)
    .bind(user)
    .bind(now)
    .bind(first)
    .bind(i64::from(args.templates))
    .execute(&store.pool)
    .await
    .map_err(sql)?;
    store.pool.close().await;
    Ok(())
}

#[derive(Clone)]
struct Http {
    base: String,
    token: String,
    client: Hyper<HttpConnector, Empty<Bytes>>,
}

impl Http {
    /// GETs `path`; the body, which must be a 200.
    async fn get(&self, path: &str) -> Result<Bytes, String> {
        let req = hyper::Request::get(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .body(Empty::new())
            .map_err(|e| e.to_string())?;
        let resp = self.client.request(req).await.map_err(|e| format!("{path}: {e}"))?;
        let status = resp.status();
        let body = resp.into_body().collect().await.map_err(|e| format!("{path}: {e}"))?.to_bytes();
        if status != hyper::StatusCode::OK {
            return Err(format!("{path}: {status} {}", String::from_utf8_lossy(&body)));
        }
        Ok(body)
    }
}

/// p50 and p99 of `n` timings of `f`, in ms.
async fn time<F, Fut>(n: u32, mut f: F) -> Result<Value, String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let mut ms = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t0 = Instant::now();
        f().await?;
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    let round = |x: f64| (x * 100.0).round() / 100.0;
    Ok(json!({
        "requests": n,
        "p50_ms": round(nearest_rank(&ms, 0.5).unwrap_or(0.0)),
        "p99_ms": round(nearest_rank(&ms, 0.99).unwrap_or(0.0)),
    }))
}

async fn drive(args: &BenchTemplatesArgs, addr: &str) -> Result<Value, String> {
    let base = format!("http://{addr}");
    let token = sign_in(&base, "vision-dev", "demo-password").await?;
    let http = Http { base, token, client: Hyper::builder(TokioExecutor::new()).build_http() };
    let n = args.requests;
    let page = |path: &'static str| {
        let http = http.clone();
        move || {
            let http = http.clone();
            async move { http.get(path).await.map(drop) }
        }
    };
    // Every page, 500 at a time, following `next`.
    let all_pages = || {
        let http = http.clone();
        async move {
            let mut path = "/api/templates?limit=500".to_string();
            loop {
                let page: TemplatePage =
                    serde_json::from_slice(&http.get(&path).await?).map_err(|e| e.to_string())?;
                match page.next {
                    Some(next) => path = format!("/api/templates?limit=500&after={next}"),
                    None => return Ok(()),
                }
            }
        }
    };
    let first_page = time(n, page("/api/templates")).await?;
    let page_500 = time(n, page("/api/templates?limit=500")).await?;
    let every_page = time(n.div_ceil(4), all_pages).await?;
    let stale_review = time(n, page("/api/templates?stale_days=90")).await?;
    let me = time(n, page("/api/me")).await?;
    // /api/me for one caller while four others list 500 templates at a time, non-stop.
    let stop = Arc::new(AtomicBool::new(false));
    let mut load = Vec::new();
    for _ in 0..4 {
        let (http, stop) = (http.clone(), stop.clone());
        load.push(tokio::spawn(async move {
            let mut done = 0u64;
            while !stop.load(Ordering::Relaxed) {
                http.get("/api/templates?limit=500").await?;
                done += 1;
            }
            Ok::<u64, String>(done)
        }));
    }
    let me_loaded = time(n, page("/api/me")).await;
    stop.store(true, Ordering::Relaxed);
    let mut lists = 0;
    for l in load {
        lists += l.await.map_err(|e| e.to_string())??;
    }
    Ok(json!({
        "engine": "sqlite",
        "build": if cfg!(debug_assertions) { "debug" } else { "release" },
        "templates": args.templates,
        "jobs": args.jobs,
        "templates_first_page": first_page,
        "templates_page_500": page_500,
        "templates_every_page": every_page,
        "templates_stale_review": stale_review,
        "me": me,
        "me_while_listing": me_loaded?,
        "lists_alongside": lists,
    }))
}

fn text(v: &Value) -> String {
    let line = |name: &str, key: &str| {
        let (p50, p99) = (v[key]["p50_ms"].as_f64().unwrap_or(0.0), v[key]["p99_ms"].as_f64().unwrap_or(0.0));
        format!("{name:<44} p50 {p50:>8.2} ms   p99 {p99:>8.2} ms")
    };
    [
        format!(
            "{} templates, {} jobs, SQLite, {} build",
            v["templates"],
            v["jobs"],
            v["build"].as_str().unwrap_or("")
        ),
        line("GET /api/templates (first page, 100)", "templates_first_page"),
        line("GET /api/templates?limit=500", "templates_page_500"),
        line("every page of /api/templates, 500 each", "templates_every_page"),
        line("GET /api/templates?stale_days=90", "templates_stale_review"),
        line("GET /api/me", "me"),
        line("GET /api/me while 4 callers list templates", "me_while_listing"),
    ]
    .join("\n")
}
