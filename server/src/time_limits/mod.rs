//! Time limits by priority class (P1): each class has a default limit, given at submission
//! to a job that names none, and a maximum no job of the class may ask for, so every job
//! carries a limit and none runs forever. Admins change them (each change an event, A4);
//! everyone reads them. The agent stops a job at its limit; on nodes without an agent the
//! server does ([`overdue`]). Jobs submitted before limits existed have none stored: they
//! are held to their class's maximum ([`LIMIT_OF_JOB`]).

pub mod overdue;

use sqlx::Row;
use tidepool_api::limits::{ClassLimit, ClassLimits};

use crate::access::require_admin;
use crate::input::{Invalid, one_of};
use crate::jobs::spec::{CLASSES, Spec, rank};
use crate::settings::SettingsError;
use crate::store::events::{EventDetail, record};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// The longest limit any class may allow: a year, as a job's own limit.
const LONGEST_S: u64 = 365 * 86_400;

/// SQL for the limit a job (`jobs j`) runs under: its own, else (a job submitted before
/// limits existed) its class's maximum.
pub const LIMIT_OF_JOB: &str =
    "COALESCE(j.time_limit_s, (SELECT cl.max_s FROM class_limits cl WHERE cl.class = j.class))";

/// Every class's limits, in class order (batch first, critical last).
pub async fn read(store: &Store) -> Result<ClassLimits, StoreError> {
    let rows = sqlx::query("SELECT class, default_s, max_s FROM class_limits").fetch_all(&store.pool).await?;
    let mut classes = rows
        .iter()
        .map(|r| {
            Ok(ClassLimit {
                class: r.try_get(0)?,
                default_s: r.try_get::<i64, _>(1)?.max(1) as u64,
                max_s: r.try_get::<i64, _>(2)?.max(1) as u64,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    classes.sort_by_key(|c| rank(&c.class));
    Ok(ClassLimits { classes })
}

/// `s` seconds in the largest whole unit: `72 h`, `7 d`, `2 s`.
pub fn words(s: u64) -> String {
    match s {
        s if s >= 86_400 && s % 86_400 == 0 => format!("{} d", s / 86_400),
        s if s >= 3600 && s % 3600 == 0 => format!("{} h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// The limits checked: known classes, each once, 1 s ≤ default ≤ maximum ≤ a year.
fn checked(body: &ClassLimits) -> Result<&[ClassLimit], Invalid> {
    if body.classes.is_empty() {
        return Err(Invalid("name at least one class's limits".into()));
    }
    for (i, c) in body.classes.iter().enumerate() {
        one_of(&c.class, CLASSES, "class")?;
        if body.classes[..i].iter().any(|o| o.class == c.class) {
            return Err(Invalid(format!("the {} class is named twice", c.class)));
        }
        if c.max_s > LONGEST_S {
            return Err(Invalid(format!("the {} class's maximum must be at most a year", c.class)));
        }
        if c.default_s == 0 || c.default_s > c.max_s {
            return Err(Invalid(format!(
                "the {} class's default must be between 1 s and its maximum ({})",
                c.class,
                words(c.max_s)
            )));
        }
    }
    Ok(&body.classes)
}

/// Changes the limits of the classes `body` names (admins); answers every class's.
pub async fn write(
    store: &Store,
    user: &User,
    body: &ClassLimits,
    now: i64,
) -> Result<ClassLimits, SettingsError> {
    require_admin(user, "change the time limits")?;
    let classes = checked(body)?;
    let mut tx = store.begin().await?;
    let mut said = Vec::with_capacity(classes.len());
    for c in classes {
        sqlx::query(
            "UPDATE class_limits SET default_s = $1, max_s = $2, set_by = $3, set_at = $4 WHERE class = $5",
        )
        .bind(c.default_s as i64)
        .bind(c.max_s as i64)
        .bind(&user.username)
        .bind(now)
        .bind(&c.class)
        .execute(&mut *tx)
        .await?;
        said.push(format!("{} {} (at most {})", c.class, words(c.default_s), words(c.max_s)));
    }
    let message = format!("{} set the time limits: {}", user.username, said.join(", "));
    record(&mut tx, now, "limits-changed", None, &user.username, &message, &EventDetail::default()).await?;
    tx.commit().await?;
    Ok(read(store).await?)
}

/// A class's (default, maximum) limits, seconds.
pub async fn of_class(store: &Store, class: &str) -> Result<(i64, i64), StoreError> {
    // `validate` has passed the class: a missing row is a fault of the records (500).
    let row = sqlx::query("SELECT default_s, max_s FROM class_limits WHERE class = $1")
        .bind(class)
        .fetch_one(&store.pool)
        .await?;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

/// Gives `spec` its class's default when it names no limit, and refuses one above the
/// class's maximum, naming the maximum.
pub fn give(spec: &mut Spec, (default_s, max_s): (i64, i64)) -> Result<(), Invalid> {
    within(spec, max_s)?;
    spec.time_limit_s.get_or_insert(default_s);
    Ok(())
}

/// Refuses a limit above the class's maximum `max_s`, naming the maximum.
pub fn within(spec: &Spec, max_s: i64) -> Result<(), Invalid> {
    match spec.time_limit_s {
        Some(t) if t > max_s => Err(Invalid(format!(
            "time_limit_s {t} s ({}) is above the {} class's maximum of {max_s} s ({}): ask for at most that, \
             and checkpoint to go on longer",
            words(t.max(0) as u64),
            spec.class,
            words(max_s.max(0) as u64)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(rows: &[(&str, u64, u64)]) -> ClassLimits {
        let classes = rows
            .iter()
            .map(|(c, d, m)| ClassLimit { class: c.to_string(), default_s: *d, max_s: *m })
            .collect();
        ClassLimits { classes }
    }

    #[test]
    fn limits_name_known_classes_once_with_a_default_within_the_maximum() {
        assert!(checked(&limits(&[("batch", 3600, 7200), ("critical", 1, 1)])).is_ok());
        assert!(checked(&limits(&[])).is_err());
        assert!(checked(&limits(&[("urgent", 1, 2)])).is_err());
        assert!(checked(&limits(&[("batch", 1, 2), ("batch", 1, 2)])).is_err());
        assert!(checked(&limits(&[("batch", 0, 2)])).is_err());
        let e = checked(&limits(&[("normal", 7200, 3600)])).unwrap_err();
        assert!(e.0.contains("its maximum (1 h)"), "{e}");
        assert!(checked(&limits(&[("normal", 1, LONGEST_S + 1)])).is_err());
    }

    #[test]
    fn a_job_without_a_limit_gets_the_default_and_one_over_the_maximum_is_refused() {
        let mut spec = crate::jobs::spec::tests::spec();
        give(&mut spec, (7200, 86_400)).unwrap();
        assert_eq!(spec.time_limit_s, Some(7200));
        let mut asked = Spec { time_limit_s: Some(86_400), ..spec.clone() };
        give(&mut asked, (7200, 86_400)).unwrap();
        assert_eq!(asked.time_limit_s, Some(86_400), "the maximum itself is allowed");
        let mut over = Spec { time_limit_s: Some(86_401), ..spec };
        let e = give(&mut over, (7200, 86_400)).unwrap_err();
        assert!(e.0.contains("above the normal class's maximum of 86400 s (1 d)"), "{e}");
    }

    #[test]
    fn spans_read_in_their_largest_whole_unit() {
        assert_eq!(words(604_800), "7 d");
        assert_eq!(words(259_200), "3 d");
        assert_eq!(words(14_400), "4 h");
        assert_eq!(words(90), "90 s");
        assert_eq!(words(120), "2 min");
    }
}
