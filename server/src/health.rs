//! Liveness and readiness (issue 14, O3): what a load balancer or an orchestrator probes.
//! Alive needs nothing but the process; ready needs the database to answer and to hold
//! exactly the migrations this binary ships (an older binary on a newer schema, or a
//! half-applied upgrade, must not take traffic). Readiness also says whether this server
//! holds the dispatch lease, read without taking it, so probing a standby moves nothing.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use sqlx::Row;
use sqlx::migrate::Migrator;
use tidepool_api::health::{Alive, Check, DispatchRole, Readiness};

use crate::store::{Engine, Store};

/// How long the database has to answer before the server is called not ready: a probe
/// must answer in time even when the pool is exhausted or the network hangs.
pub const DATABASE_TIMEOUT: Duration = Duration::from_secs(3);

/// This server's name on the lease (`serve` sets it; a router built without a
/// dispatcher has none and is always a standby).
#[derive(Clone, Debug)]
pub struct LeaseName(pub Arc<str>);

static SQLITE: Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES: Migrator = sqlx::migrate!("../migrations/postgres");

/// The migrations this binary ships for `engine`.
pub fn shipped(engine: Engine) -> &'static Migrator {
    match engine {
        Engine::Sqlite => &SQLITE,
        Engine::Postgres => &POSTGRES,
    }
}

pub fn alive() -> Alive {
    Alive { status: "alive".into(), version: env!("CARGO_PKG_VERSION").into() }
}

/// Runs the checks in order; a later check is not run once one fails (it could only
/// repeat the first failure).
pub async fn readiness(store: &Store, me: Option<&str>, now: i64) -> Readiness {
    let mut checks = vec![database(store).await];
    if checks[0].ok {
        checks.push(migrations(store).await);
    } else {
        checks.push(Check {
            name: "migrations".into(),
            ok: false,
            detail: "not checked: the database did not answer".into(),
        });
    }
    let failing = checks.iter().find(|c| !c.ok).map(|c| c.name.clone());
    let lease = match failing {
        None => crate::dispatch::current_lease(store, now).await.ok().flatten(),
        Some(_) => None,
    };
    let leader = matches!((&lease, me), (Some((holder, _)), Some(me)) if holder == me);
    Readiness {
        ready: failing.is_none(),
        checks,
        failing,
        dispatch: if leader { DispatchRole::Leader } else { DispatchRole::Standby },
        lease_epoch: lease.as_ref().map(|l| l.1),
        lease_holder: lease.map(|l| l.0),
    }
}

async fn database(store: &Store) -> Check {
    let query = sqlx::query("SELECT 1").fetch_one(&store.pool);
    let (ok, detail) = match tokio::time::timeout(DATABASE_TIMEOUT, query).await {
        Ok(Ok(_)) => (true, format!("{:?} answers", store.engine).to_lowercase()),
        Ok(Err(e)) => (false, format!("the database does not answer: {e}")),
        Err(_) => (false, format!("the database did not answer within {} s", DATABASE_TIMEOUT.as_secs())),
    };
    Check { name: "database".into(), ok, detail }
}

/// The applied versions (successful ones) against the shipped ones, both ways.
async fn migrations(store: &Store) -> Check {
    let check = |ok, detail| Check { name: "migrations".into(), ok, detail };
    // Two reads rather than decoding `success`: the Any driver knows no type for
    // SQLite's BOOLEAN column.
    let mut found = [Vec::new(), Vec::new()];
    let reads = [
        "SELECT version FROM _sqlx_migrations WHERE success",
        "SELECT version FROM _sqlx_migrations WHERE NOT success",
    ];
    for (i, sql) in reads.into_iter().enumerate() {
        let rows = match tokio::time::timeout(DATABASE_TIMEOUT, sqlx::query(sql).fetch_all(&store.pool)).await
        {
            Ok(Ok(rows)) => rows,
            Ok(Err(e)) => return check(false, format!("cannot read the applied migrations: {e}")),
            Err(_) => return check(false, "reading the applied migrations timed out".into()),
        };
        for row in rows {
            match row.try_get::<i64, _>(0) {
                Ok(v) => found[i].push(v),
                Err(e) => return check(false, format!("the migrations table cannot be read: {e}")),
            }
        }
    }
    let [applied, failed] = found;
    let applied: BTreeSet<i64> = applied.into_iter().collect();
    let failed: Vec<String> = failed.iter().map(i64::to_string).collect();
    let shipped: BTreeSet<i64> = shipped(store.engine).iter().map(|m| m.version).collect();
    let missing: Vec<String> = shipped.difference(&applied).map(|v| v.to_string()).collect();
    let unknown: Vec<String> = applied.difference(&shipped).map(|v| v.to_string()).collect();
    let mut wrong = Vec::new();
    if !failed.is_empty() {
        wrong.push(format!("failed part-way: {}", failed.join(", ")));
    }
    if !missing.is_empty() {
        wrong.push(format!("not applied: {}", missing.join(", ")));
    }
    if !unknown.is_empty() {
        wrong
            .push(format!("applied but not shipped by this binary (a newer schema): {}", unknown.join(", ")));
    }
    if wrong.is_empty() {
        check(true, format!("{} applied, as shipped", applied.len()))
    } else {
        check(false, wrong.join("; "))
    }
}
