//! Which local account a job runs as: `--run-as ACCOUNT` for every job, or the account a
//! site maps the job's Tidepool user or group to (`--run-as-map vision=ml-vision,
//! user:alice=alice`, or `@FILE` with one mapping a line). Accounts are looked up once
//! at start, so a typo stops the agent rather than a job. Without any, jobs run as the
//! agent's own account (inside their sandbox).

use std::collections::HashMap;
use std::ffi::CString;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

#[derive(Default)]
pub struct Accounts {
    default: Option<Account>,
    by_group: HashMap<String, Account>,
    by_user: HashMap<String, Account>,
}

impl Accounts {
    pub fn new(run_as: Option<&str>, map: Option<&str>) -> Result<Accounts, String> {
        let mut accounts = Accounts { default: run_as.map(lookup).transpose()?, ..Default::default() };
        let text = match map {
            Some(file) if file.starts_with('@') => {
                std::fs::read_to_string(&file[1..]).map_err(|e| format!("--run-as-map {file}: {e}"))?
            }
            Some(list) => list.replace(',', "\n"),
            None => String::new(),
        };
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let (key, account) = line
                .split_once('=')
                .ok_or_else(|| format!("--run-as-map: `{line}` is not GROUP=ACCOUNT or user:NAME=ACCOUNT"))?;
            let account = lookup(account.trim())?;
            match key.trim().strip_prefix("user:") {
                Some(user) => accounts.by_user.insert(user.to_string(), account),
                None => accounts.by_group.insert(key.trim().to_string(), account),
            };
        }
        // Only root can start a process as another account.
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        let all = accounts.default.iter().chain(accounts.by_group.values()).chain(accounts.by_user.values());
        if me != 0 && all.clone().any(|a| a.uid != me) {
            return Err("--run-as and --run-as-map need the agent to run as root".into());
        }
        Ok(accounts)
    }

    /// The account for a job of `group` submitted by `user`; `None`: the agent's own.
    pub fn for_job(&self, group: Option<&str>, user: Option<&str>) -> Option<&Account> {
        user.and_then(|u| self.by_user.get(u))
            .or_else(|| group.and_then(|g| self.by_group.get(g)))
            .or(self.default.as_ref())
    }

    /// Whether every job runs as some account other than root.
    pub fn any(&self) -> bool {
        self.default.is_some() || !self.by_group.is_empty() || !self.by_user.is_empty()
    }
}

/// The account named, from the system's user database.
pub fn lookup(name: &str) -> Result<Account, String> {
    let c = CString::new(name).map_err(|_| format!("no account `{name}`"))?;
    // SAFETY: getpwnam_r writes into `pwd` and `buf`, which outlive the call; `result`
    // points at `pwd` or is null.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    let rc = unsafe { libc::getpwnam_r(c.as_ptr(), &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
    if rc != 0 || result.is_null() {
        return Err(format!("no account `{name}` on this node"));
    }
    if pwd.pw_uid == 0 {
        return Err(format!("account `{name}` is root: jobs run as an unprivileged account"));
    }
    Ok(Account { name: name.to_string(), uid: pwd.pw_uid, gid: pwd.pw_gid })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_before_groups_before_the_default() {
        let a = Accounts::new(Some("nobody"), Some("vision=nobody,user:alice=nobody")).unwrap();
        assert_eq!(a.for_job(Some("speech"), Some("bob")).unwrap().name, "nobody");
        assert!(Accounts::new(Some("no-such-account-here"), None).is_err());
        assert!(Accounts::new(Some("root"), None).is_err());
        assert!(Accounts::new(None, Some("vision")).is_err());
        assert!(Accounts::new(None, None).unwrap().for_job(Some("vision"), None).is_none());
    }
}
