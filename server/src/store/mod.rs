//! Durable records (A1): SQLite by default (one file), PostgreSQL in production, chosen
//! by the database URL. Both go through sqlx's `Any` driver with the same SQL; each
//! engine has its own migrations folder, kept in step.

mod demo;
pub mod events;
pub mod jobs;
pub mod listing;
pub mod params;
mod policies;
mod seed;
pub mod sessions;
pub mod throttle;
pub mod usage;
pub mod users;

pub use seed::{bootstrap_admin, seed_demo};

use std::str::FromStr;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, ConnectOptions};

/// Which engine a URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// `From<sqlx::Error>` for a domain error with a `Store(StoreError)` variant, so `?` on
/// a query works in every domain service without the same five lines in each.
macro_rules! from_sqlx {
    ($error:ident) => {
        impl From<sqlx::Error> for $error {
            fn from(e: sqlx::Error) -> Self {
                $error::Store(e.into())
            }
        }
    };
}
pub(crate) use from_sqlx;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database URL `{0}` is neither sqlite:… nor postgres://…")]
    UnknownEngine(String),
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// The connection pool and which engine it talks to.
#[derive(Clone)]
pub struct Store {
    pub pool: AnyPool,
    pub engine: Engine,
}

impl Store {
    /// Connects (creating a SQLite file if needed) and applies pending migrations.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let engine = if url.starts_with("sqlite:") {
            Engine::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Engine::Postgres
        } else {
            return Err(StoreError::UnknownEngine(url.into()));
        };
        let url = match engine {
            // Create the file on first use.
            Engine::Sqlite if !url.contains('?') => format!("{url}?mode=rwc"),
            _ => url.to_string(),
        };
        let options = AnyConnectOptions::from_str(&url)?.disable_statement_logging();
        // SQLite takes one writer at a time: a single connection avoids "database is locked".
        let max = if engine == Engine::Sqlite { 1 } else { 16 };
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            // Per-connection settings go on every connection the pool opens, not just the
            // first: a connection recycled after idling would otherwise skip foreign keys.
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if engine == Engine::Sqlite {
                        sqlx::query("PRAGMA foreign_keys = ON").execute(&mut *conn).await?;
                        sqlx::query("PRAGMA busy_timeout = 5000").execute(&mut *conn).await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await?;
        if engine == Engine::Sqlite {
            // Persistent in the file: readers run beside the dispatcher's writes.
            sqlx::query("PRAGMA journal_mode = WAL").execute(&pool).await?;
        }
        match engine {
            Engine::Sqlite => sqlx::migrate!("../migrations/sqlite").run(&pool).await?,
            Engine::Postgres => sqlx::migrate!("../migrations/postgres").run(&pool).await?,
        }
        Ok(Store { pool, engine })
    }

    /// A transaction whose BEGIN cannot be cut short. sqlx (0.9.0) leaves a PostgreSQL
    /// connection inside a transaction when the future of `Pool::begin` is dropped while
    /// BEGIN is on the wire (a caller that hung up, a timeout): nothing rolls it back, the
    /// pool hands the connection on, and the next callers' statements run inside that
    /// transaction and are lost with it. `bench e2e` lost 42 acknowledged submissions that
    /// way, the agent hanging up on its long polls. Here BEGIN runs on a task of its own:
    /// if the caller is gone when it completes, the transaction is dropped and rolled back.
    pub async fn begin(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, sqlx::Error> {
        let pool = self.pool.clone();
        #[allow(clippy::disallowed_methods)] // the one place it is called, safely
        tokio::spawn(async move { pool.begin().await })
            .await
            .map_err(|e| sqlx::Error::Protocol(format!("beginning a transaction: {e}")))?
    }
}
