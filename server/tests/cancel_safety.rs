//! Work cut short leaves nothing half done (A1, D2). A caller may hang up at any moment
//! (the agent does, on every long poll a job's end interrupts), and a request may run past
//! its timeout. sqlx (0.9.0) leaves a PostgreSQL connection inside a transaction when the
//! future of `Pool::begin` is dropped while BEGIN is on the wire; the pool then hands that
//! connection on, and later writes went into the stale transaction and were lost with it:
//! `bench e2e` lost 42 of 5,000 acknowledged submissions so. `Store::begin` runs BEGIN on
//! a task of its own; the server runs each request to its end on one.

mod common;

use std::task::Poll;
use std::time::Duration;

use tidepool::store::Store;

/// Polls `work` up to `polls` times, then drops it (a caller hanging up).
async fn cut_short<T>(work: impl Future<Output = T>, polls: u64) {
    let mut work = std::pin::pin!(work);
    for _ in 0..polls {
        let done = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx).is_ready())).await;
        if done {
            return;
        }
        tokio::task::yield_now().await;
    }
}

/// Transactions begun and cut short, each followed by a write outside
/// any transaction: every write is there, seen from a connection of another pool.
async fn cut_short_begins_then_writes(engine: &str) {
    let url = common::api::fresh_url(engine).await;
    let store = Store::open(&url).await.expect("store");
    sqlx::query("CREATE TABLE cut_short (n BIGINT NOT NULL)").execute(&store.pool).await.expect("table");
    let writes = 200;
    for n in 0..writes {
        // Dropped after 1 to 4 polls: with BEGIN on the wire, or before or after.
        cut_short(store.begin(), 1 + n % 4).await;
        sqlx::query("INSERT INTO cut_short (n) VALUES ($1)")
            .bind(n as i64)
            .execute(&store.pool)
            .await
            .expect("a write outside any transaction");
    }
    let other = Store::open(&url).await.expect("a second pool");
    let seen: i64 = sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM cut_short")
        .fetch_one(&other.pool)
        .await
        .expect("count");
    assert_eq!(seen, writes as i64, "{engine}: writes after a cut-short BEGIN are committed");
    // And the connections the cut-short transactions used are free again: a write that
    // waits for every row's lock (a stale transaction would hold some) gets through.
    tokio::time::timeout(
        Duration::from_secs(10),
        sqlx::query("UPDATE cut_short SET n = n + 1").execute(&other.pool),
    )
    .await
    .expect("no stale transaction holds a row")
    .expect("update");
}

#[tokio::test]
async fn a_transaction_cut_short_while_it_begins_takes_no_later_write_with_it() {
    for engine in common::api::engines() {
        cut_short_begins_then_writes(engine).await;
    }
}
