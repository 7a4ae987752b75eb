//! The agent's HTTP client: JSON over HTTP/1.1 to the server, with the node token. Every
//! request has a deadline, so a server or proxy that stops answering never holds the
//! agent: it goes on watching its jobs, and fences them itself if the silence lasts.
//! Given several servers (one database, O3), it talks to one at a time and moves to the
//! next on a connection failure or a 5xx answer; a sync is safe to repeat on another
//! server (the records decide what runs; the agent never starts an allocation twice).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The same maintained client as the command line's (reqwest over rustls), so an agent
/// may also reach its server over `https://`.
#[derive(Clone)]
pub struct Client {
    base: String,
    /// Every server given, in order; `base` is the first, `at` the one in use (shared by
    /// the clones, so a move sticks).
    bases: Arc<[String]>,
    at: Arc<AtomicUsize>,
    token: String,
    http: reqwest::Client,
}

/// A request that failed: the server's status when it answered, and what went wrong.
#[derive(Debug)]
pub struct Failure {
    pub status: Option<u16>,
    pub message: String,
    /// Another server may answer: this one could not be reached, or answered 5xx.
    pub elsewhere: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn failed(message: String) -> Failure {
    Failure { status: None, message, elsewhere: false }
}

impl Client {
    pub fn new(server: &str, token: String) -> Result<Client, String> {
        let base = server.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("--server must be http(s)://host:port, not `{server}`"));
        }
        reqwest::Url::parse(&base).map_err(|e| format!("--server `{server}`: {e}"))?;
        let http = builder().build().map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        let bases = Arc::from(vec![base.clone()]);
        Ok(Client { base, bases, at: Arc::default(), token, http })
    }

    /// A client for several servers on one database, tried in turn.
    pub fn with_servers(servers: &[String], token: String) -> Result<Client, String> {
        let first = servers.first().ok_or("give --server")?;
        let mut client = Client::new(first, token)?;
        for s in &servers[1..] {
            Client::new(s, String::new())?;
        }
        client.bases = servers.iter().map(|s| s.trim_end_matches('/').to_string()).collect();
        Ok(client)
    }

    /// The server in use.
    fn current(&self) -> (usize, &str) {
        let at = self.at.load(Ordering::Relaxed) % self.bases.len();
        (at, self.bases.get(at).map_or(self.base.as_str(), |b| b.as_str()))
    }

    /// Moves on from server `from` (unless a clone already did).
    fn move_on(&self, from: usize) {
        let next = (from + 1) % self.bases.len();
        if next != from && self.at.compare_exchange(from, next, Ordering::Relaxed, Ordering::Relaxed).is_ok()
        {
            tracing::warn!(server = %self.bases[next], "moving to the next server");
        }
    }

    /// The same client trusting `tls`'s CA and presenting its certificate, if any.
    pub fn with_tls(mut self, tls: &crate::tls::ClientTls) -> Result<Client, String> {
        self.http =
            tls.apply(builder())?.build().map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(self)
    }

    /// POSTs `body` as JSON and reads the JSON answer within a minute; a non-2xx answer is
    /// an error carrying the server's message.
    pub async fn post<B: Serialize, R: DeserializeOwned>(&self, path: &str, body: &B) -> Result<R, String> {
        self.post_within(path, body, Duration::from_secs(60)).await.map_err(|f| f.message)
    }

    /// POSTs `body` as JSON and reads the JSON answer within `timeout`; a non-2xx answer
    /// is a failure carrying the server's status and message.
    pub async fn post_within<B: Serialize, R: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        timeout: Duration,
    ) -> Result<R, Failure> {
        // Each server once at most: an unreachable one or a 5xx is tried on the next at
        // once; one that does not answer in time costs the call (the next call moves on).
        let mut last = failed(format!("{path}: no server"));
        for _ in 0..self.bases.len() {
            let (at, base) = self.current();
            match tokio::time::timeout(timeout, self.exchange(base, path, body)).await {
                Ok(Ok(r)) => return Ok(r),
                Ok(Err(f)) if f.elsewhere => last = f,
                Ok(Err(f)) => return Err(f),
                Err(_) => {
                    self.move_on(at);
                    return Err(failed(format!("{path}: no answer within {} s", timeout.as_secs())));
                }
            }
            self.move_on(at);
        }
        Err(last)
    }

    async fn exchange<B: Serialize, R: DeserializeOwned>(
        &self,
        base: &str,
        path: &str,
        body: &B,
    ) -> Result<R, Failure> {
        let response = self
            .http
            .post(format!("{base}{path}"))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .map_err(|e| Failure { elsewhere: true, ..failed(format!("{base}{path}: {}", cause(&e))) })?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| failed(format!("{path}: {}", cause(&e))))?;
        if !status.is_success() {
            // The server's message, bounded: a proxy's error page is not the agent's log.
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(500)]).into_owned();
            return Err(Failure {
                status: Some(status.as_u16()),
                message: format!("{path}: {status}: {text}"),
                elsewhere: status.is_server_error(),
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| failed(format!("{path}: unreadable answer: {e}")))
    }
}

/// Each call sets its own deadline (`post_within`); connecting gets five seconds.
fn builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!("tidepool-agent/", env!("CARGO_PKG_VERSION")))
}

/// What went wrong, with its cause: reqwest's own message names only the URL.
fn cause(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}
