//! One round of the failover drill: a burst of submissions over HTTP spread over every
//! server, the leader SIGKILLed halfway, then the figures: time to the new leader's first
//! cycle (the lease row's cycle mark), jobs acknowledged in the gap, jobs started twice
//! (the jobs' own start log and the allocations), acknowledged jobs lost, and the old
//! leader fenced once it is back.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Serialize;
use sqlx::{AssertSqlSafe, Row};
use tidepool_api::drills::DrillRound;
use tidepool_api::health::DispatchRole;
use tidepool_api::jobs::Submitted;

use crate::dispatch::lease::{marks, now_ms};
use crate::dispatch::{Lease, current_lease};
use crate::drill::Drill;

#[derive(Serialize)]
struct NewJob<'a> {
    name: String,
    command: &'a str,
    gpus: u32,
    model: &'a str,
}

/// Submits one job, trying the servers in turn from `first`; its id and when it was
/// acknowledged (Unix ms), or None when no server took it.
async fn submit(d: &Drill, first: usize, name: String) -> Option<(i64, i64)> {
    let body = NewJob { name, command: &d.command, gpus: 1, model: "drill-gpu" };
    for k in 0..d.servers.len() {
        let s = &d.servers[(first + k) % d.servers.len()];
        if !s.running() {
            continue;
        }
        let r = d.http.post(format!("{}/api/jobs", s.url())).bearer_auth(&d.token).json(&body).send().await;
        let Ok(r) = r else { continue };
        if r.status().is_success()
            && let Ok(s) = r.json::<Submitted>().await
        {
            return Some((s.id, now_ms()));
        }
    }
    None
}

/// The server holding the lease (waits for one).
async fn leader(d: &Drill) -> Result<(usize, String, i64), String> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some((holder, epoch)) =
            current_lease(&d.store, crate::unix_now()).await.map_err(|e| e.to_string())?
            && let Some(i) = d.servers.iter().position(|s| s.holder().as_deref() == Some(&holder))
        {
            return Ok((i, holder, epoch));
        }
        if Instant::now() > until {
            return Err("no server took the dispatch lease within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// When the new leader ran its first cycle after `kill_ms`, if it has.
async fn took_over(d: &Drill, old_epoch: i64, kill_ms: i64) -> Result<Option<i64>, String> {
    let m = marks(&d.store).await.map_err(|e| e.to_string())?;
    Ok(m.filter(|m| m.epoch > old_epoch && m.cycled_ms >= kill_ms).map(|m| m.cycled_ms))
}

/// `ids` as a SQL list (integers the records gave).
fn id_list(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

pub async fn round(d: &mut Drill, number: u32) -> Result<DrillRound, String> {
    let (killed, old_holder, old_epoch) = leader(d).await?;
    let half = d.jobs / 2;
    let mut acked: Vec<(i64, i64)> = Vec::new();
    for k in 0..half {
        acked.extend(submit(d, k as usize, format!("drill-{number}-{k}")).await);
    }
    d.servers[killed].kill();
    let kill_ms = now_ms();
    // The rest of the burst goes on through the gap, a job every 100 ms, on whichever
    // servers still answer.
    let mut cycled = None;
    for k in half..d.jobs {
        acked.extend(submit(d, k as usize, format!("drill-{number}-{k}")).await);
        if cycled.is_none() {
            cycled = took_over(d, old_epoch, kill_ms).await?;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let until = Instant::now() + Duration::from_secs(60);
    while cycled.is_none() {
        if Instant::now() > until {
            return Err(format!("round {number}: no new leader ran a cycle within 60 s of the kill"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        cycled = took_over(d, old_epoch, kill_ms).await?;
    }
    let takeover_ms = cycled.unwrap_or(kill_ms) - kill_ms;
    let submitted_in_gap =
        acked.iter().filter(|(_, at)| (kill_ms..=kill_ms + takeover_ms).contains(at)).count();

    let ids: Vec<i64> = acked.iter().map(|(id, _)| *id).collect();
    let succeeded = wait_for_ends(d, &ids).await?;
    let written_twice = twice(d, &ids).await?;

    // The old leader comes back (a new process, a new name): it must stand by, and a
    // decision carrying its old epoch must be refused.
    d.servers[killed].spawn(&d.shared)?;
    d.servers[killed].wait_alive(&d.http, Duration::from_secs(30)).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let standby = d.servers[killed].role(&d.http).await == Some(DispatchRole::Standby);
    let stale = Lease { holder: old_holder, ttl_s: 0 };
    let refused = !stale.would_write(&d.store, old_epoch).await.map_err(|e| e.to_string())?;

    Ok(DrillRound {
        round: number,
        takeover_ms,
        submitted_in_gap: submitted_in_gap as u32,
        acknowledged: ids.len() as u32,
        written_twice,
        lost: (ids.len() - succeeded) as u32,
        old_leader_fenced: standby && refused,
    })
}

/// Waits until every job in `ids` has ended (or the round's time is up); how many succeeded.
async fn wait_for_ends(d: &Drill, ids: &[i64]) -> Result<usize, String> {
    if ids.is_empty() {
        return Ok(0);
    }
    let sql = format!(
        "SELECT CAST(COUNT(*) AS BIGINT), CAST(COALESCE(SUM(CASE WHEN state = 'succeeded' THEN 1 ELSE 0 END), 0) AS BIGINT) \
         FROM jobs WHERE id IN ({}) AND state NOT IN ('pending', 'running')",
        id_list(ids)
    );
    let until = Instant::now() + d.timeout;
    loop {
        let row = sqlx::query(AssertSqlSafe(sql.clone()))
            .fetch_one(&d.store.pool)
            .await
            .map_err(|e| e.to_string())?;
        let (ended, ok): (i64, i64) =
            (row.try_get(0).map_err(|e| e.to_string())?, row.try_get(1).map_err(|e| e.to_string())?);
        if ended as usize == ids.len() || Instant::now() > until {
            return Ok(ok as usize);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Jobs of `ids` started more than once (the jobs' own start log: one line per start)
/// or given more than one allocation in the records.
async fn twice(d: &Drill, ids: &[i64]) -> Result<u32, String> {
    let mut starts: HashMap<i64, usize> = HashMap::new();
    let log = std::fs::read_to_string(d.shared.dir.join("starts.log")).unwrap_or_default();
    for line in log.lines() {
        if let Some(job) = line.split_whitespace().next().and_then(|j| j.parse().ok()) {
            *starts.entry(job).or_default() += 1;
        }
    }
    let mut twice: std::collections::HashSet<i64> =
        ids.iter().copied().filter(|id| starts.get(id).copied().unwrap_or(0) > 1).collect();
    if !ids.is_empty() {
        let sql = format!(
            "SELECT job_id FROM allocations WHERE job_id IN ({}) GROUP BY job_id HAVING COUNT(*) > 1",
            id_list(ids)
        );
        let rows =
            sqlx::query(AssertSqlSafe(sql)).fetch_all(&d.store.pool).await.map_err(|e| e.to_string())?;
        for r in rows {
            twice.insert(r.try_get(0).map_err(|e| e.to_string())?);
        }
    }
    Ok(twice.len() as u32)
}
