//! The alert rules (O2): each turns what the records show into a [`Condition`] (or
//! nothing), with its key, severity and audience. Thresholds are constants, so a reader
//! finds the rule's numbers in one place.

use super::{Audience, Condition, Severity};
use crate::report::percentile;

/// The budget thresholds (Q3), lowest first: percent and severity.
pub const BUDGET_THRESHOLDS: [(u32, Severity); 2] = [(80, Severity::Warning), (95, Severity::Critical)];

/// A monthly budget at or past a threshold: the highest one crossed, keyed by quota,
/// month and threshold, so crossing 95 % after 80 % is news and the next month starts
/// afresh.
pub fn budget(
    quota: i64,
    group: i64,
    label: &str,
    month: &str,
    spent_h: f64,
    budget_h: f64,
) -> Option<Condition> {
    if !(budget_h > 0.0 && spent_h.is_finite()) {
        return None;
    }
    let pct = spent_h / budget_h * 100.0;
    let (threshold, severity) = BUDGET_THRESHOLDS.iter().rev().find(|(t, _)| pct >= f64::from(*t))?;
    Some(Condition {
        key: format!("budget-{threshold}:{quota}:{month}"),
        rule: "budget",
        severity: *severity,
        group: Some(group),
        audience: Audience::Members,
        subject: label.to_string(),
        message: format!(
            "{label} has spent {spent_h:.1} of its {budget_h:.1} GPU-hour budget for {month} ({pct:.0} %, past {threshold} %)"
        ),
        linger_s: 0,
        at: None,
    })
}

/// How far ahead a lapsing grant is told (P2).
pub const GRANT_WARN_S: i64 = 7 * 86_400;

/// A project's priority grant lapsing within [`GRANT_WARN_S`]: warning, critical in its
/// last day; keyed by its expiry, so a renewal (a new expiry) resolves it.
pub fn grant_lapsing(
    project: i64,
    group: i64,
    name: &str,
    class: &str,
    expires_at: i64,
    now: i64,
) -> Option<Condition> {
    let left = expires_at - now;
    if left <= 0 || left > GRANT_WARN_S {
        return None;
    }
    let severity = if left <= 86_400 { Severity::Critical } else { Severity::Warning };
    let hours = (left as f64 / 3600.0).ceil();
    Some(Condition {
        key: format!("grant-lapsing:{project}:{expires_at}"),
        rule: "grant-lapsing",
        severity,
        group: Some(group),
        audience: Audience::Managers,
        subject: format!("project {name}"),
        message: format!(
            "project {name}'s {class} grant lapses in {hours} hours: renew it, or its jobs run at normal"
        ),
        linger_s: 0,
        at: None,
    })
}

/// A node out of service because its agent fell silent, keyed by when it was lost.
pub fn node_lost(node: i64, name: &str, lost_at: i64) -> Condition {
    Condition {
        key: format!("node-lost:{node}:{lost_at}"),
        rule: "node-lost",
        severity: Severity::Critical,
        group: None,
        audience: Audience::Admins,
        subject: format!("node {name}"),
        message: format!("node {name} is lost: its agent stopped syncing, nothing is placed there"),
        linger_s: 0,
        at: None,
    }
}

/// How long an event's alert stays open after its last occurrence.
pub const EVENT_LINGER_S: i64 = 3600;

/// An event of the log that is an alert by itself: policy faults and open circuits
/// (admins), an idle allocation's notice and its reclaim (the job's group). `subject`
/// is the policy (kind and version) or the job.
pub fn from_event(kind: &str, subject: &str, group: Option<i64>, message: &str) -> Option<Condition> {
    let (rule, severity, audience) = match kind {
        "policy-fault" => ("policy-fault", Severity::Warning, Audience::Admins),
        "policy-circuit-open" => ("policy-circuit-open", Severity::Critical, Audience::Admins),
        "idle-notice" => ("idle-notice", Severity::Warning, Audience::Members),
        "idle-reclaim" => ("idle-reclaim", Severity::Info, Audience::Members),
        _ => return None,
    };
    let group = if audience == Audience::Admins { None } else { group };
    Some(Condition {
        key: format!("{rule}:{subject}"),
        rule,
        severity,
        group,
        audience,
        subject: subject.to_string(),
        message: message.to_string(),
        linger_s: EVENT_LINGER_S,
        at: None,
    })
}

/// The wait rule: the p95 of this hour's waits at least this many times the group's
/// usual wait (its mean over the four weeks before, from the hourly roll-up) …
pub const WAIT_FACTOR: f64 = 3.0;
/// … and at least this long, so a group used to 10-second waits is not told of 30 …
pub const WAIT_FLOOR_S: f64 = 600.0;
/// … with a baseline of at least this many jobs started over those four weeks.
pub const WAIT_BASELINE_MIN: i64 = 10;

/// A group's p95 wait this hour far above its own four-week baseline. `now` are this
/// hour's waits (jobs first started this hour, and how long those that joined the queue
/// today and still wait have waited so far); `baseline_s` the group's mean wait over the
/// four weeks before, of `baseline_jobs` jobs. One alert per episode: it resolves when
/// the waits are back.
pub fn wait_spike(
    group: i64,
    name: &str,
    now: &[f64],
    baseline_s: f64,
    baseline_jobs: i64,
) -> Option<Condition> {
    if now.is_empty() || baseline_jobs < WAIT_BASELINE_MIN || !baseline_s.is_finite() {
        return None;
    }
    let mut sorted = now.to_vec();
    sorted.sort_by(f64::total_cmp);
    let current = percentile(&sorted, 95.0);
    if current < WAIT_FLOOR_S || current < WAIT_FACTOR * baseline_s {
        return None;
    }
    Some(Condition {
        key: format!("wait-spike:{group}"),
        rule: "wait-spike",
        severity: Severity::Warning,
        group: Some(group),
        audience: Audience::Managers,
        subject: format!("group {name}"),
        message: format!(
            "group {name}'s p95 wait this hour is {:.0} min, against a usual {:.0} min over the last four weeks",
            current / 60.0,
            baseline_s / 60.0
        ),
        linger_s: 0,
        at: None,
    })
}

/// The pool rule: at least this share of a pool's held GPUs idle past the threshold.
pub const POOL_IDLE_SHARE: f64 = 0.5;

/// A pool whose held GPUs sit idle: `idle` of its `held` GPUs have been idle longer than
/// the threshold (`idle_for_s`, for the message).
pub fn pool_idle(pool: &str, held: i64, idle: i64, idle_for_s: i64) -> Option<Condition> {
    if held <= 0 || idle <= 0 || (idle as f64) < POOL_IDLE_SHARE * held as f64 {
        return None;
    }
    Some(Condition {
        key: format!("pool-idle:{pool}"),
        rule: "pool-idle",
        severity: Severity::Warning,
        group: None,
        audience: Audience::Admins,
        subject: format!("pool {pool}"),
        message: format!(
            "pool {pool}: {idle} of its {held} held GPUs have been idle for over {} min",
            idle_for_s / 60
        ),
        linger_s: 0,
        at: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_thresholds_warn_at_80_and_95_percent() {
        // Q3: 79 % is quiet, 80 % a warning, 95 % critical, keyed by threshold and month.
        assert_eq!(budget(3, 7, "vision A100", "2026-11", 79.0, 100.0), None);
        let w = budget(3, 7, "vision A100", "2026-11", 80.0, 100.0).expect("80 %");
        assert_eq!((w.key.as_str(), w.severity), ("budget-80:3:2026-11", Severity::Warning));
        let c = budget(3, 7, "vision A100", "2026-11", 120.0, 100.0).expect("past 95 %");
        assert_eq!((c.key.as_str(), c.severity), ("budget-95:3:2026-11", Severity::Critical));
        assert_eq!(c.audience, Audience::Members);
        assert_eq!(budget(3, 7, "x", "2026-11", 5.0, 0.0), None, "no budget, no alert");
    }

    #[test]
    fn a_grant_is_told_in_its_last_week_and_critical_in_its_last_day() {
        let now = 1_000_000;
        assert_eq!(grant_lapsing(1, 2, "p", "critical", now + GRANT_WARN_S + 1, now), None);
        assert_eq!(grant_lapsing(1, 2, "p", "critical", now, now), None, "lapsed already");
        let w = grant_lapsing(1, 2, "p", "critical", now + 3 * 86_400, now).expect("three days");
        assert_eq!((w.severity, w.audience), (Severity::Warning, Audience::Managers));
        let c = grant_lapsing(1, 2, "p", "critical", now + 3600, now).expect("an hour");
        assert_eq!(c.severity, Severity::Critical);
        assert_eq!(c.key, format!("grant-lapsing:1:{}", now + 3600));
    }

    #[test]
    fn waits_far_above_the_groups_own_baseline() {
        // 3x the usual 2 minutes but under the 10-minute floor: quiet.
        assert_eq!(wait_spike(1, "vision", &[400.0], 120.0, 20), None);
        // Over the floor but under 3x a slow group's own usual 10 minutes: quiet.
        assert_eq!(wait_spike(1, "vision", &[1500.0], 600.0, 20), None);
        let c = wait_spike(1, "vision", &[60.0, 1800.0], 120.0, 20).expect("a spike");
        assert_eq!((c.key.as_str(), c.audience), ("wait-spike:1", Audience::Managers));
        // Too little history to call anything unusual.
        assert_eq!(wait_spike(1, "vision", &[1800.0], 120.0, WAIT_BASELINE_MIN - 1), None);
    }

    #[test]
    fn a_pool_is_told_when_half_its_held_gpus_sit_idle() {
        assert_eq!(pool_idle("east", 8, 3, 1800), None);
        assert_eq!(pool_idle("east", 0, 0, 1800), None);
        assert_eq!(pool_idle("east", 8, 4, 1800).expect("half").key, "pool-idle:east");
    }

    #[test]
    fn events_become_alerts_for_the_right_people() {
        let f = from_event("policy-fault", "quota:abc", Some(4), "faulted").expect("fault");
        assert_eq!((f.group, f.audience, f.linger_s), (None, Audience::Admins, EVENT_LINGER_S));
        let i = from_event("idle-notice", "job 9", Some(4), "idle").expect("notice");
        assert_eq!((i.group, i.audience, i.key.as_str()), (Some(4), Audience::Members, "idle-notice:job 9"));
        assert_eq!(from_event("placed", "job 9", Some(4), "x"), None);
    }
}
