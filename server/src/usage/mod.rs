//! Usage history (issue 12: R2, V4): the agents' samples recorded at each sync
//! ([`sample`]), the hourly roll-up of the records into `usage_hours` ([`rollup`]), the
//! busy/idle curves the API answers ([`curves`]), and synthetic and demo history
//! ([`synthetic`], [`demo`]). The figures come straight from the dispatch records.

pub mod curves;
pub mod demo;
pub mod rollup;
pub mod sample;
pub mod synthetic;

use sqlx::Row;
use tidepool_core::usage::Figures;

pub use rollup::{RollUp, roll_up};

use crate::access::AccessError;
use crate::input::Invalid;
use crate::store::{Store, StoreError};

/// Why usage figures cannot be given.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(UsageError);

/// One row of `usage_hours`: a closed UTC hour x group x pool x model x category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageHour {
    pub hour: i64,
    pub group_id: i64,
    pub pool: String,
    pub model: String,
    pub category: String,
    pub figures: Figures,
}

/// The rolled-up hours in `[from, to)`, for one group and one pool if named, in order.
pub async fn hours(
    store: &Store,
    from: i64,
    to: i64,
    group: Option<i64>,
    pool: Option<&str>,
) -> Result<Vec<UsageHour>, UsageError> {
    let rows = sqlx::query(
        "SELECT hour, group_id, pool, model, category, held_gpu_s, sampled_gpu_s, util_pct_gpu_s, \
         idle_gpu_s, jobs_started, jobs_finished, wait_s FROM usage_hours \
         WHERE hour >= $1 AND hour < $2 AND ($3 < 0 OR group_id = $3) AND ($4 = '' OR pool = $4) \
         ORDER BY hour, group_id, pool, model, category",
    )
    .bind(from)
    .bind(to)
    .bind(group.unwrap_or(-1))
    .bind(pool.unwrap_or(""))
    .fetch_all(&store.pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(UsageHour {
                hour: r.try_get(0)?,
                group_id: r.try_get(1)?,
                pool: r.try_get(2)?,
                model: r.try_get(3)?,
                category: r.try_get(4)?,
                figures: figures_at(r, 5)?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(Into::into)
}

/// The seven figures from column `first` on, in `usage_hours`' order.
pub(crate) fn figures_at(r: &sqlx::any::AnyRow, first: usize) -> Result<Figures, sqlx::Error> {
    Ok(Figures {
        held_gpu_s: r.try_get(first)?,
        sampled_gpu_s: r.try_get(first + 1)?,
        util_pct_gpu_s: r.try_get(first + 2)?,
        idle_gpu_s: r.try_get(first + 3)?,
        jobs_started: r.try_get(first + 4)?,
        jobs_finished: r.try_get(first + 5)?,
        wait_s: r.try_get(first + 6)?,
    })
}

/// Hours before this are rolled up.
pub async fn rolled_until(store: &Store) -> Result<i64, UsageError> {
    let row =
        sqlx::query("SELECT rolled_until FROM usage_rollup WHERE id = 1").fetch_one(&store.pool).await?;
    Ok(row.try_get(0)?)
}
