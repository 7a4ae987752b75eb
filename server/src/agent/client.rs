//! The agent's HTTP client: JSON over HTTP/1.1 to the server, with the node token.

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

impl Client {
    pub fn new(server: &str, token: String) -> Result<Client, String> {
        let base = server.trim_end_matches('/').to_string();
        if !base.starts_with("http://") {
            return Err(format!("--server must be http://host:port, not `{server}`"));
        }
        base.parse::<hyper::Uri>().map_err(|e| format!("--server `{server}`: {e}"))?;
        Ok(Client { base, token, http: Hyper::builder(TokioExecutor::new()).build_http() })
    }

    /// POSTs `body` as JSON and reads the JSON answer; a non-2xx answer is an error
    /// carrying the server's message.
    pub async fn post<B: Serialize, R: DeserializeOwned>(&self, path: &str, body: &B) -> Result<R, String> {
        let json = serde_json::to_vec(body).map_err(|e| e.to_string())?;
        let request = hyper::Request::post(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(json)))
            .map_err(|e| e.to_string())?;
        let response = self.http.request(request).await.map_err(|e| format!("{path}: {e}"))?;
        let status = response.status();
        let bytes = response.into_body().collect().await.map_err(|e| format!("{path}: {e}"))?.to_bytes();
        if !status.is_success() {
            return Err(format!("{path}: {status}: {}", String::from_utf8_lossy(&bytes)));
        }
        serde_json::from_slice(&bytes).map_err(|e| format!("{path}: unreadable answer: {e}"))
    }
}
