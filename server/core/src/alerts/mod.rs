//! Alert rules (O2), pure: when a condition the records show deserves telling someone,
//! under which key it is de-duplicated, how severe it is and who hears of it; how the
//! conditions found in one evaluation change the open alerts (raise, refresh, resolve);
//! when an unacknowledged alert is repeated and a failed delivery tried again.
//!
//! The server reads the records (budgets spent, grants, nodes, events, waits, idle
//! allocations) and asks these functions; nothing here reads a clock.

mod rules;

pub use rules::*;

/// How urgent an alert is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        [Severity::Info, Severity::Warning, Severity::Critical].into_iter().find(|v| v.as_str() == s)
    }
}

/// Who in the alert's group hears of it besides the admins, who hear of everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Audience {
    /// Admins only (the fleet, the policies, the pools).
    Admins,
    /// The group's managers (grants they renew, waits they answer for).
    Managers,
    /// The group's managers and members (budgets their jobs stop at, their idle jobs).
    Members,
}

impl Audience {
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Admins => "admins",
            Audience::Managers => "managers",
            Audience::Members => "members",
        }
    }

    pub fn parse(s: &str) -> Option<Audience> {
        [Audience::Admins, Audience::Managers, Audience::Members].into_iter().find(|v| v.as_str() == s)
    }
}

/// A person's tier (MISSION Q6), as far as alerts care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Admin,
    Manager,
    Member,
}

/// Whether a person of `tier` in `own_group` receives an alert about `group` for
/// `audience`: admins every alert; managers and members only their own group's, as the
/// audience says; nobody but admins an alert about no group.
pub fn receives(tier: Tier, own_group: Option<i64>, group: Option<i64>, audience: Audience) -> bool {
    match tier {
        Tier::Admin => true,
        Tier::Manager => group.is_some() && own_group == group && audience >= Audience::Managers,
        Tier::Member => group.is_some() && own_group == group && audience == Audience::Members,
    }
}

/// A condition one evaluation found true.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// Rule, subject and period: the same key is the same alert while it stays open.
    pub key: String,
    pub rule: &'static str,
    pub severity: Severity,
    /// The group it concerns; none: the organisation's (admins).
    pub group: Option<i64>,
    pub audience: Audience,
    /// What it is about, for people: a group, a quota, a node, a pool, a policy.
    pub subject: String,
    pub message: String,
    /// Seconds it stays open after it was last found: 0 for a state the records show
    /// every cycle (it resolves the first evaluation that no longer finds it); more for
    /// a one-off event, so its repeats within that time are the same alert.
    pub linger_s: i64,
    /// When an event's condition was last true (the event's time); none: now.
    pub at: Option<i64>,
}

/// An alert still open, as the records hold it.
#[derive(Clone, Debug, PartialEq)]
pub struct Open {
    pub id: i64,
    pub key: String,
    pub last_seen_at: i64,
    pub linger_s: i64,
}

/// What one evaluation changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    /// New alerts: no open alert has their key.
    pub raise: Vec<Condition>,
    /// Open alerts found again (id, last seen at, as found now): seen, never re-raised.
    pub seen: Vec<(i64, i64, Condition)>,
    /// Open alerts no longer found past their linger time.
    pub resolve: Vec<i64>,
}

/// Compares the conditions found at `now` with the open alerts: each key is raised once
/// while it stays open (the de-duplication), found again it is only seen, and an alert
/// not found is resolved once its linger time has passed since it was last seen.
pub fn reconcile(open: &[Open], found: Vec<Condition>, now: i64) -> Changes {
    // One condition per key: the latest occurrence.
    let mut by_key: Vec<Condition> = Vec::new();
    for c in found {
        match by_key.iter_mut().find(|k| k.key == c.key) {
            Some(k) if c.at.unwrap_or(now) >= k.at.unwrap_or(now) => *k = c,
            Some(_) => {}
            None => by_key.push(c),
        }
    }
    let mut changes = Changes::default();
    for o in open {
        let found = by_key.iter().position(|c| c.key == o.key);
        match found {
            Some(i) => {
                let c = by_key.remove(i);
                let seen = o.last_seen_at.max(c.at.unwrap_or(now));
                if now - seen >= o.linger_s && o.linger_s > 0 {
                    changes.resolve.push(o.id);
                } else {
                    changes.seen.push((o.id, seen, c));
                }
            }
            None if now - o.last_seen_at >= o.linger_s => changes.resolve.push(o.id),
            None => {}
        }
    }
    changes.raise = by_key.into_iter().filter(|c| c.at.is_none_or(|at| now - at < c.linger_s)).collect();
    changes
}

/// Whether an open alert last sent at `last_sent_at` is sent again now: until someone
/// acknowledges it, every `every_s`; informational alerts are told once.
pub fn repeat_due(severity: Severity, acknowledged: bool, last_sent_at: i64, now: i64, every_s: i64) -> bool {
    !acknowledged && severity > Severity::Info && every_s > 0 && now - last_sent_at >= every_s
}

/// Attempts of one delivery before it is given up.
pub const MAX_ATTEMPTS: i64 = 12;

/// Seconds before a delivery that failed `attempts` times is tried again: 5 s doubling,
/// at most an hour, so a server that is down for a while is not hammered.
pub fn retry_after(attempts: i64) -> i64 {
    let doublings = u32::try_from(attempts.clamp(1, 20) - 1).unwrap_or(0);
    (5_i64 << doublings).min(3600)
}

/// The one line a chat tool shows (`{"text": …}`).
pub fn chat_text(severity: Severity, message: &str, reminder: bool) -> String {
    let again = if reminder { " (reminder: not acknowledged yet)" } else { "" };
    format!("[{}] {message}{again}", severity.as_str().to_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_person_receives_their_groups_alerts_as_the_audience_says() {
        use Audience::*;
        for (tier, own, group, audience, want) in [
            (Tier::Admin, None, None, Admins, true),
            (Tier::Admin, None, Some(2), Members, true),
            (Tier::Manager, Some(2), Some(2), Managers, true),
            (Tier::Manager, Some(2), Some(2), Members, true),
            (Tier::Manager, Some(2), Some(3), Members, false),
            (Tier::Manager, Some(2), None, Admins, false),
            (Tier::Member, Some(2), Some(2), Managers, false),
            (Tier::Member, Some(2), Some(2), Members, true),
            (Tier::Member, Some(3), Some(2), Members, false),
        ] {
            assert_eq!(receives(tier, own, group, audience), want, "{tier:?} {own:?} {group:?} {audience:?}");
        }
    }

    fn open(id: i64, key: &str, seen: i64, linger: i64) -> Open {
        Open { id, key: key.into(), last_seen_at: seen, linger_s: linger }
    }

    #[test]
    fn an_open_condition_is_raised_once_and_resolved_when_gone() {
        let lost = node_lost(5, "n5", 100);
        // Found with nothing open: raised.
        let c = reconcile(&[], vec![lost.clone(), lost.clone()], 200);
        assert_eq!(c.raise.len(), 1, "the same key twice in one evaluation is one alert");
        // Found again while open: seen, not raised.
        let c = reconcile(&[open(1, &lost.key, 200, 0)], vec![lost.clone()], 205);
        assert_eq!((c.raise.len(), c.seen.len(), c.resolve.len()), (0, 1, 0));
        assert_eq!(c.seen[0].1, 205);
        // An event's alert was last seen when its latest event happened; an event older
        // than its linger time raises nothing.
        let fault = |at| Condition { at: Some(at), ..from_event("policy-fault", "q", None, "f").unwrap() };
        let c = reconcile(&[open(2, "policy-fault:q", 100, 3600)], vec![fault(150), fault(120)], 300);
        assert_eq!(c.seen[0].1, 150);
        assert!(reconcile(&[], vec![fault(100)], 100 + 3600).raise.is_empty());
        // Gone: a state resolves at once, an event's alert after its linger time.
        let c = reconcile(&[open(1, &lost.key, 205, 0), open(2, "policy-fault:q", 205, 3600)], vec![], 210);
        assert_eq!(c.resolve, vec![1]);
        let c = reconcile(&[open(2, "policy-fault:q", 205, 3600)], vec![], 205 + 3600);
        assert_eq!(c.resolve, vec![2]);
    }

    #[test]
    fn repeats_stop_when_acknowledged_and_retries_back_off() {
        assert!(repeat_due(Severity::Warning, false, 0, 100, 100));
        assert!(!repeat_due(Severity::Warning, false, 0, 99, 100));
        assert!(!repeat_due(Severity::Warning, true, 0, 1000, 100), "acknowledged");
        assert!(!repeat_due(Severity::Info, false, 0, 1000, 100), "told once");
        assert_eq!((retry_after(1), retry_after(2), retry_after(4)), (5, 10, 40));
        assert_eq!(retry_after(40), 3600);
        assert_eq!(
            chat_text(Severity::Critical, "node n1 is lost", true),
            "[CRITICAL] node n1 is lost (reminder: not acknowledged yet)"
        );
    }
}
