//! A small weekly report with hand-picked figures, for the pure parts' tests.

use tidepool_api::reports::*;
use tidepool_api::usage::HeatCell;

pub fn report() -> WeeklyReport {
    WeeklyReport {
        week: "2026-W48".into(),
        group: Some("vision".into()),
        time_zone: "Europe/Berlin".into(),
        starts_at: 1_795_388_400,
        ends_at: 1_795_993_200,
        frozen_at: Some(1_796_000_000),
        currency: "EUR".into(),
        totals: Totals {
            gpu_hours: 30.0,
            busy_gpu_hours: 20.0,
            idle_gpu_hours: 5.0,
            cost: 75.0,
            jobs_started: 4,
            jobs_finished: 3,
        },
        usage: vec![
            UsageLine {
                model: "A100-80G".into(),
                category: "training".into(),
                gpu_hours: 24.0,
                busy_gpu_hours: 16.0,
                idle_gpu_hours: 4.0,
                price_per_gpu_hour: Some(2.5),
                cost: 60.0,
            },
            UsageLine {
                model: "H100, SXM".into(),
                category: "inference".into(),
                gpu_hours: 6.0,
                busy_gpu_hours: 4.0,
                idle_gpu_hours: 1.0,
                price_per_gpu_hour: None,
                cost: 0.0,
            },
        ],
        days: vec![
            DayUsage { date: "2026-11-23".into(), training: 8.0, inference: 2.0, pretraining: 0.0 },
            DayUsage { date: "2026-11-24".into(), training: 16.0, inference: 4.0, pretraining: 0.0 },
        ],
        guarantees: vec![GuaranteeUse {
            group: "vision".into(),
            model: "A100-80G".into(),
            category: "training".into(),
            guaranteed: 16,
            guaranteed_gpu_hours: 2688.0,
            used_gpu_hours: 24.0,
            use_ratio: Some(24.0 / 2688.0),
            held_avg: 0.14,
            held_p50: 0.0,
            held_p95: 8.0,
        }],
        waits: vec![
            WaitStats { class: "batch".into(), jobs: 3, avg_s: 100.0, p50_s: 60.0, p95_s: 200.0 },
            WaitStats { class: "interactive".into(), jobs: 1, avg_s: 10.0, p50_s: 10.0, p95_s: 10.0 },
        ],
        wait_reasons: vec![ReasonCount { reason: "quota full".into(), jobs: 2, wait_s: 5400 }],
        loans: LoanFlows {
            lent_gpu_hours: 0.0,
            borrowed_gpu_hours: 16.0,
            loans: vec![LoanUse {
                id: 7,
                lender: "speech".into(),
                borrower: Some("vision".into()),
                model: "A100-80G".into(),
                gpus: 8,
                gpu_hours: 16.0,
            }],
        },
        interruptions: Interruptions { preemptions: 1, idle_reclaims: 2, reclaimed_gpu_hours: 3.5 },
        outcomes: Outcomes { succeeded: 2, failed: 1, timed_out: 0, cancelled: 0 },
        budgets: vec![BudgetBurn {
            group: "vision".into(),
            model: "A100-80G".into(),
            category: "training".into(),
            month: "2026-11".into(),
            budget_gpu_hours: 100.0,
            spent_gpu_hours: 60.0,
            forecast_gpu_hours: 120.0,
        }],
        busiest_hours: vec![HourFigure { local: "2026-11-24 14:00".into(), gpus_held: 8.0, util_pct: 90.0 }],
        idlest_hours: vec![HourFigure { local: "2026-11-28 03:00".into(), gpus_held: 0.0, util_pct: 0.0 }],
        previous: Some(WeekChange {
            week: "2026-W47".into(),
            gpu_hours: 20.0,
            cost: 0.0,
            idle_gpu_hours: 10.0,
            wait_p95_s: 100.0,
            this_wait_p95_s: 200.0,
            elapsed_only: false,
        }),
    }
}

pub fn cells() -> Vec<HeatCell> {
    (0..7u8)
        .flat_map(|weekday| (0..24u8).map(move |hour| (weekday, hour)))
        .map(|(weekday, hour)| {
            let busy = weekday == 1 && hour == 14;
            HeatCell {
                weekday,
                hour,
                gpus_held: if busy { 8.0 } else { 0.0 },
                util_pct: busy.then_some(90.0),
                gpus_idle: 0.0,
            }
        })
        .collect()
}
