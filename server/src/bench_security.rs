//! `tidepool bench security`: against a real server (its own `tidepool serve`, or
//! `--server`), measures what issue 10 found broken: `/api/me` latency (p50, p99) alone
//! and while 1,000 idle connections are open (finding 7), and a flood of wrong passwords:
//! answers per second, the share refused with 429, and how many were actually checked
//! (finding 6). The load driver shares the machine with the server it starts.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Serialize;

use crate::bench_server::{BenchServer, bench_dir};
use crate::cli::{BenchSecurityArgs, Format};
use crate::sim::report::nearest_rank;

type Http = Client<HttpConnector, Full<Bytes>>;

#[derive(Serialize)]
struct Figures {
    me_requests: u32,
    me_p50_ms: f64,
    me_p99_ms: f64,
    idle_connections: u32,
    me_idle_p50_ms: f64,
    me_idle_p99_ms: f64,
    login_attempts: u64,
    login_seconds: f64,
    login_answers_per_s: f64,
    login_share_429: f64,
    /// Wrong passwords actually checked (answered 401): the rest never reached argon2.
    login_checked_401: u64,
}

pub fn run(args: &BenchSecurityArgs) -> Result<String, String> {
    let server = match &args.server {
        Some(_) => None,
        None => Some(BenchServer::start(&bench_dir("security")?, &args.password, &[])?),
    };
    let base = match (&args.server, &server) {
        (Some(url), _) => url.trim_end_matches('/').to_string(),
        (None, s) => format!("http://{}", s.as_ref().map_or("", |s| s.addr.as_str())),
    };
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let figures = rt.block_on(drive(args, &base));
    drop(server);
    let f = figures?;
    Ok(match args.format {
        Format::Json => serde_json::to_string(&f).map_err(|e| e.to_string())?,
        Format::Text => format!(
            "/api/me: p50 {} ms, p99 {} ms ({} requests)\n\
             /api/me with {} idle connections open: p50 {} ms, p99 {} ms\n\
             wrong passwords: {} answered in {} s ({} /s), {:.1}% refused with 429, {} checked",
            f.me_p50_ms,
            f.me_p99_ms,
            f.me_requests,
            f.idle_connections,
            f.me_idle_p50_ms,
            f.me_idle_p99_ms,
            f.login_attempts,
            f.login_seconds,
            f.login_answers_per_s,
            f.login_share_429 * 100.0,
            f.login_checked_401,
        ),
    })
}

/// One request: (status, body).
async fn request(
    http: &Http,
    method: &str,
    url: &str,
    token: Option<&str>,
    body: &str,
) -> Result<(u16, Bytes), String> {
    let mut req =
        hyper::Request::builder().method(method).uri(url).header("content-type", "application/json");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let req = req.body(Full::new(Bytes::from(body.to_string()))).map_err(|e| e.to_string())?;
    let resp = http.request(req).await.map_err(|e| format!("{url}: {e}"))?;
    let status = resp.status().as_u16();
    let bytes = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok((status, bytes))
}

fn login_body(user: &str, password: &str) -> String {
    let body = tidepool_api::Login { username: user.into(), password: password.into() };
    serde_json::to_string(&body).unwrap_or_default()
}

/// `/api/me` `n` times one after another: the latencies in ms, sorted.
async fn time_me(http: &Http, base: &str, token: &str, n: u32) -> Result<Vec<f64>, String> {
    let mut ms = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t0 = Instant::now();
        let (status, _) = request(http, "GET", &format!("{base}/api/me"), Some(token), "").await?;
        if status != 200 {
            return Err(format!("/api/me answered {status}"));
        }
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms)
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

async fn drive(args: &BenchSecurityArgs, base: &str) -> Result<Figures, String> {
    let http: Http = Client::builder(TokioExecutor::new()).build_http();
    // Sign in (waiting for a server this bench started).
    let deadline = Instant::now() + Duration::from_secs(60);
    let token = loop {
        let body = login_body(&args.username, &args.password);
        match request(&http, "POST", &format!("{base}/api/auth/login"), None, &body).await {
            Ok((200, bytes)) => {
                let t: tidepool_api::Tokens = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
                break t.access_token;
            }
            Ok((status, _)) => return Err(format!("signing in as {} answered {status}", args.username)),
            Err(e) if Instant::now() > deadline => return Err(format!("the server did not come up: {e}")),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    };
    let plain = time_me(&http, base, &token, args.requests).await?;
    // Idle connections: connected, nothing sent; the server holds each until its header timeout.
    crate::os::raise_fd_limit();
    let authority = base.trim_start_matches("http://").to_string();
    let mut idle = Vec::with_capacity(args.idle as usize);
    for _ in 0..args.idle {
        idle.push(
            tokio::net::TcpStream::connect(&authority).await.map_err(|e| format!("idle connection: {e}"))?,
        );
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let with_idle = time_me(&http, base, &token, args.requests).await?;
    drop(idle);
    // A flood of wrong passwords for one username from this address.
    let (attempts, refused, checked) =
        (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let started = Instant::now();
    let until = started + Duration::from_secs(args.seconds);
    let mut tasks = Vec::new();
    for k in 0..args.concurrency {
        let (http, base, target) = (http.clone(), base.to_string(), args.target.clone());
        let (attempts, refused, checked) = (attempts.clone(), refused.clone(), checked.clone());
        tasks.push(tokio::spawn(async move {
            let mut i = 0u64;
            while Instant::now() < until {
                i += 1;
                let body = login_body(&target, &format!("wrong-{k}-{i}"));
                let (status, _) =
                    request(&http, "POST", &format!("{base}/api/auth/login"), None, &body).await?;
                attempts.fetch_add(1, Ordering::Relaxed);
                match status {
                    429 => refused.fetch_add(1, Ordering::Relaxed),
                    401 => checked.fetch_add(1, Ordering::Relaxed),
                    other => return Err(format!("a wrong password answered {other}")),
                };
            }
            Ok::<_, String>(())
        }));
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    let seconds = started.elapsed().as_secs_f64();
    let (attempts, refused) = (attempts.load(Ordering::Relaxed), refused.load(Ordering::Relaxed));
    let pct = |v: &[f64], q| round(nearest_rank(v, q).unwrap_or(0.0));
    Ok(Figures {
        me_requests: args.requests,
        me_p50_ms: pct(&plain, 0.50),
        me_p99_ms: pct(&plain, 0.99),
        idle_connections: args.idle,
        me_idle_p50_ms: pct(&with_idle, 0.50),
        me_idle_p99_ms: pct(&with_idle, 0.99),
        login_attempts: attempts,
        login_seconds: round(seconds),
        login_answers_per_s: round(attempts as f64 / seconds),
        login_share_429: round(refused as f64 / attempts.max(1) as f64 * 100.0) / 100.0,
        login_checked_401: checked.load(Ordering::Relaxed),
    })
}
