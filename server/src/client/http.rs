//! The client's side of HTTP: one reqwest client (rustls, connect and request deadlines)
//! with retries where they are safe, the bearer token on every call, and the session
//! refreshed when its access token is about to expire or is refused.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tidepool_api::{ErrorBody, Refresh, Tokens};

use crate::cli::ClientOpts;
use crate::client::Failure;
use crate::client::session::{self, Session};

/// Waits before the second and third tries of a request that did not get through.
const BACKOFF_MS: [u64; 2] = [300, 1000];
/// An access token this close to its expiry is refreshed first.
const REFRESH_MARGIN_S: i64 = 30;

/// A server, and the session for it when signed in.
pub struct Api {
    base: String,
    http: reqwest::Client,
    session: Option<Session>,
}

fn cause(e: &reqwest::Error) -> String {
    // reqwest's own message names only the URL; the reason is at the end of the chain.
    let mut source: &dyn std::error::Error = e;
    while let Some(next) = source.source() {
        source = next;
    }
    if e.is_timeout() { "no answer in time".into() } else { source.to_string() }
}

/// The message of an answer in the API's error shape; empty for anything else.
fn server_message(bytes: &[u8]) -> String {
    serde_json::from_slice::<ErrorBody>(bytes).map(|b| b.error.message).unwrap_or_default()
}

fn signed_out(base: &str, why: &str) -> Failure {
    Failure::SignedOut(format!("{why}: run `tidepool login --server {base}`"))
}

impl Api {
    /// A client for `base` (`http://host:port` or `https://…`, trusting `ca_cert` when
    /// given), with its session if any.
    pub fn new(base: &str, session: Option<Session>, ca_cert: Option<PathBuf>) -> Result<Api, Failure> {
        let url = reqwest::Url::parse(base).map_err(|e| Failure::Usage(format!("server `{base}`: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(Failure::Usage(format!("the server is http(s)://host:port, not `{base}`")));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            // A followed log read waits up to 25 s on the server.
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("tidepool/", env!("CARGO_PKG_VERSION")));
        let tls = crate::tls::ClientTls { ca_cert, ..Default::default() };
        let http = tls
            .apply(http)
            .map_err(Failure::Usage)?
            .build()
            .map_err(|e| Failure::Usage(format!("cannot build the HTTP client: {e}")))?;
        Ok(Api { base: base.to_string(), http, session })
    }

    /// The client for the server the command names (or was signed in to last), with its
    /// session; exit 3 when there is none.
    pub fn signed_in(opts: &ClientOpts) -> Result<Api, Failure> {
        let config = session::load_config()?;
        let Some(base) = session::server(opts.server.as_deref(), &config) else {
            return Err(Failure::SignedOut("not signed in: run `tidepool login --server URL`".into()));
        };
        match session::load_session()?.filter(|s| s.server == base) {
            Some(s) => Api::new(&base, Some(s), opts.ca_cert()),
            None => Err(signed_out(&base, &format!("not signed in to {base}"))),
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// One request, tried again after a short wait when it did not reach the server (any
    /// method: nothing was sent) or, for a GET, when it timed out or a proxy said 502-504.
    async fn send(
        &self,
        method: &Method,
        path: &str,
        token: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<(StatusCode, Vec<u8>), Failure> {
        let idempotent = method == Method::GET;
        let mut attempt = 0;
        loop {
            let mut request = self.http.request(method.clone(), format!("{}{path}", self.base));
            if let Some(t) = token {
                request = request.bearer_auth(t);
            }
            if let Some(b) = body {
                request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(b.to_vec());
            }
            let result = request.send().await;
            let again = match &result {
                Err(e) => e.is_connect() || (idempotent && e.is_timeout()),
                Ok(r) => idempotent && matches!(r.status().as_u16(), 502..=504),
            };
            if again && attempt < BACKOFF_MS.len() {
                tokio::time::sleep(Duration::from_millis(BACKOFF_MS[attempt])).await;
                attempt += 1;
                continue;
            }
            let unreachable = |e: &reqwest::Error| {
                Failure::Unreachable(format!(
                    "cannot reach the server at {}: {} (is it running? check --server or TIDEPOOL_SERVER)",
                    self.base,
                    cause(e)
                ))
            };
            let response = result.map_err(|e| unreachable(&e))?;
            let status = response.status();
            let bytes = response.bytes().await.map_err(|e| unreachable(&e))?;
            return Ok((status, bytes.to_vec()));
        }
    }

    /// The answer as `T`, or the server's refusal in its own words.
    fn decode<T: DeserializeOwned>(status: StatusCode, bytes: &[u8]) -> Result<T, Failure> {
        if status.is_success() {
            let bytes: &[u8] = if bytes.is_empty() { b"null" } else { bytes };
            return serde_json::from_slice(bytes)
                .map_err(|e| Failure::Refused(format!("unreadable answer from the server: {e}")));
        }
        Err(Api::refusal(status, bytes))
    }

    /// The server's refusal in its own words, or its status when it gave none.
    fn refusal(status: StatusCode, bytes: &[u8]) -> Failure {
        let message = server_message(bytes);
        Failure::Refused(if message.is_empty() { format!("the server answered {status}") } else { message })
    }

    /// A call that needs no session (signing in, refreshing).
    pub async fn anonymous<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
    ) -> Result<T, Failure> {
        let body = body.map(serde_json::to_vec).transpose().map_err(|e| Failure::Usage(e.to_string()))?;
        let (status, bytes) = self.send(&method, path, None, body.as_deref()).await?;
        Api::decode(status, &bytes)
    }

    pub async fn get<T: DeserializeOwned>(&mut self, path: &str) -> Result<T, Failure> {
        self.call(Method::GET, path, None).await
    }

    pub async fn post<B: Serialize, T: DeserializeOwned>(
        &mut self,
        path: &str,
        body: Option<&B>,
    ) -> Result<T, Failure> {
        let body = body.map(serde_json::to_vec).transpose().map_err(|e| Failure::Usage(e.to_string()))?;
        self.call(Method::POST, path, body).await
    }

    /// A POST whose body is raw bytes (a policy module), read as `T`.
    pub async fn post_bytes<T: DeserializeOwned>(&mut self, path: &str, body: Vec<u8>) -> Result<T, Failure> {
        self.call(Method::POST, path, Some(body)).await
    }

    /// A GET whose answer is text (`weekly.csv`), or the server's refusal in its own words.
    pub async fn get_text(&mut self, path: &str) -> Result<String, Failure> {
        let (status, bytes) = self.authorized(&Method::GET, path, None).await?;
        if status.is_success() {
            return String::from_utf8(bytes)
                .map_err(|e| Failure::Refused(format!("unreadable answer from the server: {e}")));
        }
        Err(Api::refusal(status, &bytes))
    }

    /// A call with the session's access token, read as `T`.
    async fn call<T: DeserializeOwned>(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<T, Failure> {
        let (status, bytes) = self.authorized(&method, path, body).await?;
        Api::decode(status, &bytes)
    }

    /// A request with the session's access token, refreshed first when it is about to
    /// expire, and once more when the server refuses it.
    async fn authorized(
        &mut self,
        method: &Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<(StatusCode, Vec<u8>), Failure> {
        let expires = self.session.as_ref().map(|s| s.access_expires_at);
        let Some(expires) = expires else {
            return Err(signed_out(&self.base, &format!("not signed in to {}", self.base)));
        };
        if expires - REFRESH_MARGIN_S <= crate::unix_now() {
            self.refresh(None).await?;
        }
        let token = self.session.as_ref().map(|s| s.access_token.clone()).unwrap_or_default();
        let (mut status, mut bytes) = self.send(method, path, Some(&token), body.as_deref()).await?;
        if status == StatusCode::UNAUTHORIZED {
            self.refresh(Some(&token)).await?;
            let token = self.session.as_ref().map(|s| s.access_token.clone()).unwrap_or_default();
            (status, bytes) = self.send(method, path, Some(&token), body.as_deref()).await?;
            if status == StatusCode::UNAUTHORIZED {
                let why = server_message(&bytes);
                return Err(signed_out(&self.base, &format!("the server refused the session ({why})")));
            }
        }
        Ok((status, bytes))
    }

    /// Trades the refresh token for new tokens and saves them, under the session lock.
    /// Another command may have refreshed meanwhile (`refused` is the access token the
    /// server turned down, if any): then its newer tokens on disk are used instead.
    async fn refresh(&mut self, refused: Option<&str>) -> Result<(), Failure> {
        let _lock = session::lock()?;
        let Some(mine) = self.session.clone() else {
            return Err(signed_out(&self.base, "not signed in"));
        };
        if let Some(disk) = session::load_session()?.filter(|d| d.server == mine.server) {
            let newer =
                disk.refresh_token != mine.refresh_token && Some(disk.access_token.as_str()) != refused;
            if newer && disk.access_expires_at - REFRESH_MARGIN_S > crate::unix_now() {
                self.session = Some(disk);
                return Ok(());
            }
        }
        let body = Refresh { refresh_token: mine.refresh_token.clone() };
        let body = serde_json::to_vec(&body).map_err(|e| Failure::Usage(e.to_string()))?;
        let (status, bytes) = self.send(&Method::POST, "/api/auth/refresh", None, Some(&body)).await?;
        if status == StatusCode::UNAUTHORIZED {
            session::forget_session()?;
            let why = server_message(&bytes);
            return Err(signed_out(&self.base, &format!("the session has ended ({why})")));
        }
        let tokens: Tokens = Api::decode(status, &bytes)?;
        let fresh = session_from(&self.base, tokens);
        session::save_session(&fresh)?;
        self.session = Some(fresh);
        Ok(())
    }
}

/// The session a sign-in or a refresh answer gives.
pub fn session_from(base: &str, t: Tokens) -> Session {
    Session {
        server: base.to_string(),
        username: t.user.username,
        access_token: t.access_token,
        access_expires_at: crate::unix_now() + t.expires_in,
        refresh_token: t.refresh_token,
    }
}

/// `pairs` as a query string, each value encoded.
pub fn query(pairs: &[(&str, String)]) -> String {
    let mut url = reqwest::Url::parse("http://query/").expect("a constant URL");
    url.query_pairs_mut().extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    url.query().unwrap_or_default().to_string()
}
