//! An API under test: the real router over a real database (a fresh SQLite file, or a
//! fresh database on the PostgreSQL server named by `TIDEPOOL_TEST_POSTGRES`), driven
//! without a socket.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tidepool::http::{AppState, app, auth::Keys};
use tidepool::policy::desk::PolicyDesk;
use tidepool::store::users::Role;
use tidepool::store::{Store, bootstrap_admin, seed_demo};
use tower::ServiceExt;

pub const SECRET: &[u8] = b"a test secret that is long enough!!";

pub struct TestApp {
    pub state: AppState,
    pub clock: Arc<AtomicI64>,
}

/// The engines to run API tests on: SQLite always, PostgreSQL when the test command
/// started one.
pub fn engines() -> Vec<&'static str> {
    let mut e = vec!["sqlite"];
    if std::env::var_os("TIDEPOOL_TEST_POSTGRES").is_some() {
        e.push("postgres");
    }
    e
}

static N: AtomicU32 = AtomicU32::new(0);

/// A fresh database on `engine` ("sqlite" or "postgres"), by URL.
pub async fn fresh_url(engine: &str) -> String {
    let n = N.fetch_add(1, Ordering::SeqCst);
    match engine {
        "sqlite" => format!("sqlite:{}", super::fresh_dir("api").join("t.db").display()),
        _ => postgres_database(&format!("tidepool_t{}_{n}", std::process::id())).await.expect("postgres url"),
    }
}

/// A fresh database `name` on the PostgreSQL server the test command started (its URL),
/// or `None` when it started none.
pub async fn postgres_database(name: &str) -> Option<String> {
    let base = std::env::var("TIDEPOOL_TEST_POSTGRES").ok()?;
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&base).await.expect("postgres");
    // Process ids repeat: a database an earlier run left under this name goes first.
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}")))
        .execute(&pool)
        .await
        .expect("drop stale database");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&pool)
        .await
        .expect("create database");
    let (prefix, _) = base.rsplit_once('/').expect("url with a database");
    Some(format!("{prefix}/{name}"))
}

/// [`postgres_database`] for a test without a runtime of its own: `tidepool_<what>_<pid>`.
pub fn fresh_postgres(what: &str) -> Option<String> {
    let name = format!("tidepool_{what}_{}", std::process::id());
    tokio::runtime::Runtime::new().expect("runtime").block_on(postgres_database(&name))
}

impl TestApp {
    /// A migrated database with the admin (`admin` / `admin-pw`) and the demo seeded.
    pub async fn new(engine: &str) -> TestApp {
        let store = Store::open(&fresh_url(engine).await).await.expect("store");
        bootstrap_admin(&store, Some("admin-pw".into()), 1_000).await.expect("admin");
        seed_demo(&store, 1_000).await.expect("demo");
        store.create_user("admin2", "admin2-pw", Role::Admin, None, 1_000).await.expect("admin2");
        let clock = Arc::new(AtomicI64::new(2_000_000_000));
        let c = clock.clone();
        let state = AppState {
            store,
            keys: Arc::new(Keys::new(SECRET).expect("keys")),
            clock: Arc::new(move || c.load(Ordering::SeqCst)),
            wake: Default::default(),
            policies: Arc::new(PolicyDesk::new(None).expect("policy runtime")),
            fleet: Arc::new(tidepool::fleet::Fleet::new(tidepool::fleet::FleetConfig::default())),
            web_dir: tidepool::http::web::default_dir(),
            bounds: Arc::new(tidepool::limits::Bounds::default()),
            metrics_token: None,
        };
        TestApp { state, clock }
    }

    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> (StatusCode, Value) {
        let mut req = Request::builder().method(method).uri(path);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        if body.is_some() {
            req = req.header("content-type", "application/json");
        }
        let req = req.body(Body::from(body.unwrap_or("").to_string())).expect("request");
        let resp = app(self.state.clone()).oneshot(req).await.expect("response");
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 24).await.expect("body");
        let value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or(Value::Null)
        };
        (status, value)
    }

    /// POSTs raw bytes (a module upload).
    pub async fn upload(&self, path: &str, token: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
        let req = Request::builder()
            .method("POST")
            .uri(path)
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/wasm")
            .body(Body::from(bytes))
            .expect("request");
        let resp = app(self.state.clone()).oneshot(req).await.expect("response");
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 24).await.expect("body");
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    /// Signs in and returns the access token.
    pub async fn token(&self, user: &str, password: &str) -> String {
        let body = format!(r#"{{"username":"{user}","password":"{password}"}}"#);
        let (status, v) = self.call("POST", "/api/auth/login", None, Some(&body)).await;
        assert_eq!(status, StatusCode::OK, "login {user}: {v}");
        v["access_token"].as_str().expect("token").to_string()
    }

    pub async fn count(&self, table: &str) -> i64 {
        use sqlx::Row;
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
            .fetch_one(&self.state.store.pool)
            .await
            .expect("count");
        row.try_get(0).expect("count")
    }
}

/// The error shape every failure answers with.
#[track_caller]
pub fn assert_error_shape(v: &Value, code: &str) {
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
}
