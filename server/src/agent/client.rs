//! The agent's HTTP client: JSON over HTTP/1.1 to the server, with the node token. Every
//! request has a deadline, so a server or proxy that stops answering never holds the
//! agent: it goes on watching its jobs, and fences them itself if the silence lasts.

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Serialize;
use serde::de::DeserializeOwned;

#[derive(Clone)]
pub struct Client {
    base: String,
    token: String,
    http: Hyper<HttpConnector, Full<Bytes>>,
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
        if !base.starts_with("http://") {
            return Err(format!("--server must be http://host:port, not `{server}`"));
        }
        base.parse::<hyper::Uri>().map_err(|e| format!("--server `{server}`: {e}"))?;
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(5)));
        let http = Hyper::builder(TokioExecutor::new()).build(connector);
        Ok(Client { base, token, http })
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
        let json = serde_json::to_vec(body).map_err(|e| failed(e.to_string()))?;
        let request = hyper::Request::post(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(json)))
            .map_err(|e| failed(e.to_string()))?;
        let response = self.http.request(request).await.map_err(|e| failed(format!("{path}: {e}")))?;
        let status = response.status();
        let bytes =
            response.into_body().collect().await.map_err(|e| failed(format!("{path}: {e}")))?.to_bytes();
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
