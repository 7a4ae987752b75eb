//! `tidepool login`, `logout` and `whoami`.

use reqwest::Method;
use tidepool_api::{GroupPage, Login, Logout, Tokens, User};

use crate::cli::ClientOpts;
use crate::client::http::{Api, session_from};
use crate::client::session::{self, Config};
use crate::client::{Failure, Outcome, password, print};

pub async fn login(opts: &ClientOpts, username: Option<&str>) -> Outcome {
    let config = session::load_config()?;
    let Some(base) = session::server(opts.server.as_deref(), &config) else {
        return Err(Failure::Usage(
            "which server? run `tidepool login --server URL` (or set TIDEPOOL_SERVER)".into(),
        ));
    };
    let remembered = config.username.filter(|_| config.server.as_deref() == Some(&base));
    let username = match username.map(str::to_string).or(remembered).or_else(|| std::env::var("USER").ok()) {
        Some(u) if !u.trim().is_empty() => u.trim().to_string(),
        _ => return Err(Failure::Usage("who signs in? give --username NAME".into())),
    };
    let api = Api::new(&base, None, opts.ca_cert())?;
    let password = password::read(&username, &base)?;
    let body = Login { username: username.clone(), password };
    let tokens: Tokens = api.anonymous(Method::POST, "/api/auth/login", Some(&body)).await?;
    let user = tokens.user.clone();
    session::save_session(&session_from(&base, tokens))?;
    session::save_config(&Config { server: Some(base.clone()), username: Some(username) })?;
    // Never the tokens on stdout: they stay in the session file.
    print(opts, &user, |u| format!("signed in to {base} as {} ({})", u.username, u.role.as_str()))
}

/// Ends the session on the server (its refresh token's family is revoked) and deletes it
/// here. Not being signed in is no failure: the end state is the one asked for.
pub async fn logout(opts: &ClientOpts) -> Outcome {
    let config = session::load_config()?;
    let base = session::server(opts.server.as_deref(), &config);
    let Some(s) = session::load_session()?.filter(|s| Some(&s.server) == base.as_ref()) else {
        eprintln!("not signed in{}", base.map(|b| format!(" to {b}")).unwrap_or_default());
        return Ok(());
    };
    let api = Api::new(&s.server, None, opts.ca_cert())?;
    let body = Logout { refresh_token: Some(s.refresh_token.clone()) };
    // An already-ended session answers 401: signed out all the same.
    match api.anonymous::<_, ()>(Method::POST, "/api/auth/logout", Some(&body)).await {
        Ok(()) | Err(Failure::Refused(_)) => {}
        Err(other) => return Err(other),
    }
    session::forget_session()?;
    eprintln!("signed out of {}", s.server);
    Ok(())
}

pub async fn whoami(opts: &ClientOpts) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let me: User = api.get("/api/me").await?;
    let group = match me.group_id {
        Some(id) => {
            let groups: GroupPage = api.get("/api/groups?limit=500").await?;
            groups.groups.into_iter().find(|g| g.id == id).map_or(format!("group {id}"), |g| g.name)
        }
        None => "every group".into(),
    };
    let base = api.base().to_string();
    print(opts, &me, |u| format!("{} ({} of {group}) at {base}", u.username, u.role.as_str()))
}
