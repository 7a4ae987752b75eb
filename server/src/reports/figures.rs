//! One week's figures from the records. GPU-hours, busy, idle, held GPUs per hour and
//! budgets come from the hourly roll-up (`usage_hours`, closed UTC hours only); waits
//! from the jobs first placed in the week (their first allocation); why jobs waited from
//! each job's wait history (`job_waits`, D2) inside the week; loans from their active
//! spans; preemptions and idle reclaims from the events; outcomes from finished jobs.

use std::collections::{BTreeMap, HashMap};

use sqlx::Row;
use tidepool_api::reports::*;
use tidepool_api::settings::OrgSettings;
use tidepool_core::reason::wait_kind_label;
use tidepool_core::report::{cost, extremes, forecast, hours, spread};

use super::{ReportError, Scope, frozen};
use crate::org_time::OrgZone;
use crate::settings::prices_cents;
use crate::store::Store;

/// Hours before this one are in `usage_hours`.
pub async fn rolled_until(store: &Store) -> Result<i64, sqlx::Error> {
    sqlx::query("SELECT rolled_until FROM usage_rollup WHERE id = 1").fetch_one(&store.pool).await?.try_get(0)
}

/// One roll-up row, summed over pools.
struct Hour {
    hour: i64,
    group: i64,
    model: String,
    category: String,
    held: i64,
    sampled: i64,
    util: i64,
    idle: i64,
    started: i64,
    finished: i64,
}

async fn usage(store: &Store, group: i64, start: i64, end: i64) -> Result<Vec<Hour>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT hour, group_id, model, category, CAST(SUM(held_gpu_s) AS BIGINT), CAST(SUM(sampled_gpu_s) AS BIGINT), \
         CAST(SUM(util_pct_gpu_s) AS BIGINT), CAST(SUM(idle_gpu_s) AS BIGINT), CAST(SUM(jobs_started) AS BIGINT), \
         CAST(SUM(jobs_finished) AS BIGINT) FROM usage_hours \
         WHERE hour >= $1 AND hour < $2 AND ($3 = 0 OR group_id = $3) \
         GROUP BY hour, group_id, model, category ORDER BY hour",
    )
    .bind(start)
    .bind(end)
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Hour {
                hour: r.try_get(0)?,
                group: r.try_get(1)?,
                model: r.try_get(2)?,
                category: r.try_get(3)?,
                held: r.try_get(4)?,
                sampled: r.try_get(5)?,
                util: r.try_get(6)?,
                idle: r.try_get(7)?,
                started: r.try_get(8)?,
                finished: r.try_get(9)?,
            })
        })
        .collect()
}

/// (class, wait in seconds) of each job whose first placement falls in `[start, end)`.
async fn waits(store: &Store, group: i64, start: i64, end: i64) -> Result<Vec<(String, f64)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT j.class, MIN(a.started_at) - j.submitted_at FROM jobs j JOIN allocations a ON a.job_id = j.id \
         WHERE ($1 = 0 OR j.group_id = $1) GROUP BY j.id, j.class, j.submitted_at \
         HAVING MIN(a.started_at) >= $2 AND MIN(a.started_at) < $3",
    )
    .bind(group)
    .bind(start)
    .bind(end)
    .fetch_all(&store.pool)
    .await?;
    rows.iter().map(|r| Ok((r.try_get(0)?, r.try_get::<i64, _>(1)?.max(0) as f64))).collect()
}

fn wait_stats(waits: &[(String, f64)]) -> Vec<WaitStats> {
    let mut by: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (class, w) in waits {
        by.entry(class).or_default().push(*w);
    }
    by.into_iter()
        .map(|(class, w)| {
            let s = spread(&w);
            WaitStats {
                class: class.to_string(),
                jobs: w.len() as i64,
                avg_s: s.avg,
                p50_s: s.p50,
                p95_s: s.p95,
            }
        })
        .collect()
}

/// Held GPU-seconds and cost (currency units) of some rows, at `prices` (cents).
fn held_and_cost(rows: &[Hour], prices: &HashMap<String, i64>) -> (i64, i64, f64) {
    let held = rows.iter().map(|h| h.held).sum();
    let idle = rows.iter().map(|h| h.idle).sum();
    let mut by_model: HashMap<&str, i64> = HashMap::new();
    for h in rows {
        *by_model.entry(&h.model).or_default() += h.held;
    }
    let c = by_model.iter().map(|(m, s)| prices.get(*m).map_or(0.0, |p| cost(*s, *p))).sum();
    (held, idle, c)
}

/// The change against the previous week: its frozen copy if it has one, else computed.
/// A week under way (`elapsed` seconds of it so far) is compared with the same first
/// seconds of the previous week, not the whole of it (O4).
async fn previous(
    store: &Store,
    zone: &OrgZone,
    scope: &Scope,
    week: &str,
    elapsed: Option<i64>,
    prices: &HashMap<String, i64>,
    this_p95: f64,
) -> Result<Option<WeekChange>, ReportError> {
    let prev = zone.previous_week(week)?;
    if elapsed.is_none()
        && let Some(r) = frozen::read(store, scope.id(), &prev).await?
    {
        return Ok(Some(WeekChange {
            week: prev,
            gpu_hours: r.totals.gpu_hours,
            cost: r.totals.cost,
            idle_gpu_hours: r.totals.idle_gpu_hours,
            wait_p95_s: overall_p95(&r),
            this_wait_p95_s: this_p95,
            elapsed_only: false,
        }));
    }
    let (start, end) = zone.week_bounds(&prev)?;
    let end = elapsed.map_or(end, |e| (start + e).min(end));
    let rows = usage(store, scope.id(), start, end).await?;
    let w = waits(store, scope.id(), start, end).await?;
    if rows.is_empty() && w.is_empty() {
        return Ok(None);
    }
    let (held, idle, c) = held_and_cost(&rows, prices);
    let all: Vec<f64> = w.iter().map(|(_, s)| *s).collect();
    Ok(Some(WeekChange {
        week: prev,
        gpu_hours: hours(held),
        cost: c,
        idle_gpu_hours: hours(idle),
        wait_p95_s: spread(&all).p95,
        this_wait_p95_s: this_p95,
        elapsed_only: elapsed.is_some(),
    }))
}

/// A frozen week's p95 wait over all classes: kept in its own comparison
/// (`previous.this_wait_p95_s`); a week that had no previous one keeps per-class spreads
/// only, and the largest class p95 stands in (exact when one class dominates).
fn overall_p95(r: &WeeklyReport) -> f64 {
    match &r.previous {
        Some(p) => p.this_wait_p95_s,
        None => r.waits.iter().map(|w| w.p95_s).fold(0.0, f64::max),
    }
}

/// The whole report of `week` for `scope`, as of `now`.
pub async fn compute(
    store: &Store,
    settings: &OrgSettings,
    zone: &OrgZone,
    scope: &Scope,
    week: &str,
    now: i64,
) -> Result<WeeklyReport, ReportError> {
    let (start, end) = zone.week_bounds(week)?;
    let cut = end.min(now);
    let gid = scope.id();
    let prices = prices_cents(store).await?;
    let rows = usage(store, gid, start, end).await?;

    // Usage by model x category, with cost.
    let mut lines: BTreeMap<(String, String), (i64, i64, i64)> = BTreeMap::new();
    for h in &rows {
        let l = lines.entry((h.model.clone(), h.category.clone())).or_default();
        l.0 += h.held;
        l.1 += h.util;
        l.2 += h.idle;
    }
    let usage_lines: Vec<UsageLine> = lines
        .into_iter()
        .map(|((model, category), (held, util, idle))| {
            let cents = prices.get(&model).copied();
            UsageLine {
                price_per_gpu_hour: cents.map(|c| c as f64 / 100.0),
                cost: cents.map_or(0.0, |c| cost(held, c)),
                gpu_hours: hours(held),
                busy_gpu_hours: hours(util) / 100.0,
                idle_gpu_hours: hours(idle),
                model,
                category,
            }
        })
        .collect();
    let totals = Totals {
        gpu_hours: hours(rows.iter().map(|h| h.held).sum()),
        busy_gpu_hours: hours(rows.iter().map(|h| h.util).sum()) / 100.0,
        idle_gpu_hours: hours(rows.iter().map(|h| h.idle).sum()),
        cost: usage_lines.iter().map(|l| l.cost).sum::<f64>(),
        jobs_started: rows.iter().map(|h| h.started).sum(),
        jobs_finished: rows.iter().map(|h| h.finished).sum(),
    };

    // Days, Monday first: every local day of the week, even empty ones.
    let mut days: Vec<DayUsage> = Vec::new();
    let mut t = start;
    while t < end {
        let (_, next) = zone.day_bounds(t);
        days.push(DayUsage { date: zone.date_of(t), training: 0.0, inference: 0.0, pretraining: 0.0 });
        t = next.max(t + 3600);
    }
    for h in &rows {
        let date = zone.date_of(h.hour);
        if let Some(d) = days.iter_mut().find(|d| d.date == date) {
            match h.category.as_str() {
                "training" => d.training += hours(h.held),
                "inference" => d.inference += hours(h.held),
                _ => d.pretraining += hours(h.held),
            }
        }
    }

    // The week's hours so far, and what each held (all scopes, then per quota).
    let slots = ((cut - start).max(0) + 3599) / 3600;
    let slot = |hour: i64| -> Option<usize> {
        let i = (hour - start).div_euclid(3600);
        (0..slots).contains(&i).then_some(i as usize)
    };
    let mut held_by_hour = vec![0i64; slots as usize];
    let mut util_by_hour = vec![(0i64, 0i64); slots as usize];
    for h in &rows {
        if let Some(i) = slot(h.hour) {
            held_by_hour[i] += h.held;
            util_by_hour[i].0 += h.util;
            util_by_hour[i].1 += h.sampled;
        }
    }
    let gpus: Vec<f64> = held_by_hour.iter().map(|s| *s as f64 / 3600.0).collect();
    let (busy, idle) = extremes(&gpus, 3);
    let figure = |i: usize| HourFigure {
        local: zone.local_hour(start + i as i64 * 3600),
        gpus_held: gpus[i],
        util_pct: if util_by_hour[i].1 > 0 {
            util_by_hour[i].0 as f64 / util_by_hour[i].1 as f64
        } else {
            0.0
        },
    };

    // Guarantees and budgets, per quota in scope.
    let quotas = sqlx::query(
        "SELECT q.group_id, g.name, q.model, q.category, q.guaranteed, q.budget_gpu_h FROM quotas q \
         JOIN groups g ON g.id = q.group_id WHERE ($1 = 0 OR q.group_id = $1) ORDER BY g.name, q.model, q.category",
    )
    .bind(gid)
    .fetch_all(&store.pool)
    .await?;
    // The hours the guarantee covered so far: an open week is compared with its elapsed part.
    let week_hours = (cut - start) as f64 / 3600.0;
    let (month_start, month_end, month) = zone.month_of(cut - 1);
    let month_rows = usage(store, gid, month_start, cut).await?;
    let mut guarantees = Vec::new();
    let mut budgets = Vec::new();
    for q in &quotas {
        let (group, name, model, category): (i64, String, String, String) =
            (q.try_get(0)?, q.try_get(1)?, q.try_get(2)?, q.try_get(3)?);
        let guaranteed: i64 = q.try_get(4)?;
        let budget: Option<f64> = q.try_get(5)?;
        let mine = |h: &&Hour| h.group == group && h.model == model && h.category == category;
        let mut series = vec![0i64; slots as usize];
        for h in rows.iter().filter(mine) {
            if let Some(i) = slot(h.hour) {
                series[i] += h.held;
            }
        }
        let held: Vec<f64> = series.iter().map(|s| *s as f64 / 3600.0).collect();
        let s = spread(&held);
        let used = hours(series.iter().sum());
        let guaranteed_gpu_hours = guaranteed as f64 * week_hours;
        guarantees.push(GuaranteeUse {
            group: name.clone(),
            model: model.clone(),
            category: category.clone(),
            guaranteed,
            guaranteed_gpu_hours,
            used_gpu_hours: used,
            use_ratio: (guaranteed_gpu_hours > 0.0).then(|| used / guaranteed_gpu_hours),
            held_avg: s.avg,
            held_p50: s.p50,
            held_p95: s.p95,
        });
        if let Some(budget) = budget {
            let spent = hours(month_rows.iter().filter(mine).map(|h| h.held).sum());
            budgets.push(BudgetBurn {
                group: name,
                model,
                category,
                month: month.clone(),
                budget_gpu_hours: budget,
                spent_gpu_hours: spent,
                forecast_gpu_hours: forecast(spent, month_start, cut, month_end),
            });
        }
    }

    // Waits and why jobs waited.
    let w = waits(store, gid, start, end).await?;
    let all: Vec<f64> = w.iter().map(|(_, s)| *s).collect();
    let this_p95 = spread(&all).p95;
    // Why they waited: the wait history's spans inside the week (D2), longest first.
    let wait_reasons: Vec<ReasonCount> = crate::jobs::waits::by_kind(store, gid, start, cut)
        .await?
        .into_iter()
        .map(|(kind, wait_s, jobs)| ReasonCount { reason: wait_kind_label(&kind).to_string(), jobs, wait_s })
        .collect();

    Ok(WeeklyReport {
        week: week.to_string(),
        group: scope.name(),
        time_zone: zone.name().to_string(),
        starts_at: start,
        ends_at: end,
        frozen_at: None,
        currency: settings.currency.clone(),
        totals,
        usage: usage_lines,
        days,
        guarantees,
        waits: wait_stats(&w),
        wait_reasons,
        // A loan counts for its span so far: the rest of an open week has not been lent yet.
        loans: super::flows::loans(store, gid, start, cut).await?,
        interruptions: super::flows::interruptions(store, gid, start, end).await?,
        outcomes: super::flows::outcomes(store, gid, start, end).await?,
        budgets,
        busiest_hours: busy.into_iter().map(figure).collect(),
        idlest_hours: idle.into_iter().map(figure).collect(),
        previous: previous(store, zone, scope, week, (cut < end).then_some(cut - start), &prices, this_p95)
            .await?,
    })
}
