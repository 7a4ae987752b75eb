//! The agent's HTTP client: JSON over HTTP/1.1 to the server, with the node token. Every
//! request has a deadline, so a server or proxy that stops answering never holds the
//! agent: it goes on watching its jobs, and fences them itself if the silence lasts.

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The same maintained client as the command line's (reqwest over rustls), so an agent
/// may also reach its server over `https://`.
#[derive(Clone)]
pub struct Client {
    base: String,
    token: String,
    http: reqwest::Client,
}

/// A request that failed: the server's status when it answered, and what went wrong.
#[derive(Debug)]
pub struct Failure {
    pub status: Option<u16>,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn failed(message: String) -> Failure {
    Failure { status: None, message }
}

impl Client {
    pub fn new(server: &str, token: String) -> Result<Client, String> {
        let base = server.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("--server must be http(s)://host:port, not `{server}`"));
        }
        reqwest::Url::parse(&base).map_err(|e| format!("--server `{server}`: {e}"))?;
        let http = builder().build().map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Client { base, token, http })
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
        match tokio::time::timeout(timeout, self.exchange(path, body)).await {
            Ok(r) => r,
            Err(_) => Err(failed(format!("{path}: no answer within {} s", timeout.as_secs()))),
        }
    }

    async fn exchange<B: Serialize, R: DeserializeOwned>(&self, path: &str, body: &B) -> Result<R, Failure> {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .map_err(|e| failed(format!("{path}: {}", cause(&e))))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| failed(format!("{path}: {}", cause(&e))))?;
        if !status.is_success() {
            // The server's message, bounded: a proxy's error page is not the agent's log.
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(500)]).into_owned();
            return Err(Failure {
                status: Some(status.as_u16()),
                message: format!("{path}: {status}: {text}"),
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
