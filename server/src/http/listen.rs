//! Serving the API over TCP within limits (issue 10, finding 7: 1,100 idle connections
//! made the API unreachable). Every connection holds a permit of a cap; one that sends
//! no request within the header timeout, or sits idle between requests past the idle
//! timeout, is closed; a request that runs past the request timeout is answered 503.
//! When the cap is reached, connections with nothing in flight for a second are closed
//! to make room, so a flood of idle connections cannot lock callers out even for the
//! length of a timeout. The client's address reaches handlers as `ConnectInfo`.
//! Over TLS (`serve_tls`), the handshake counts against the header timeout and yields to
//! make room like an idle connection (`http::tls`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore, watch};
use tokio::time::Instant;

/// The server's limits (`tidepool serve --header-timeout-s …`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// From accepting a connection to its first request's headers.
    pub header_timeout: Duration,
    /// From a request's arrival to its answer's head (a long-poll sync waits up to 60 s).
    pub request_timeout: Duration,
    /// Between the end of an answer and the next request's headers on a kept-alive connection.
    pub idle_timeout: Duration,
    /// Connections open at once; more wait in the listen backlog.
    pub max_connections: usize,
}

/// A connection that has had nothing in flight this long may be closed to make room.
pub(super) const MAKE_ROOM_AFTER: Duration = Duration::from_secs(1);

/// Kept here too, where the listener's tests and callers have always found it.
pub use crate::os::raise_fd_limit;

/// What a connection is doing, for its watchdog.
struct Activity {
    state: Mutex<(usize, u64, Instant)>, // (requests in flight, requests answered, waiting since)
}

/// Held by a request from its arrival until its answer's body is sent (or dropped).
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut s = self.0.state.lock().expect("not poisoned");
        s.0 -= 1;
        s.1 += 1;
        s.2 = Instant::now();
    }
}

impl Activity {
    fn begin(self: &Arc<Self>) -> InFlight {
        self.state.lock().expect("not poisoned").0 += 1;
        InFlight(self.clone())
    }

    /// When the connection is due to close if nothing changes; `None` while busy.
    fn deadline(&self, limits: &Limits) -> Option<Instant> {
        let (in_flight, answered, since) = *self.state.lock().expect("not poisoned");
        let wait = if answered == 0 { limits.header_timeout } else { limits.idle_timeout };
        (in_flight == 0).then_some(since + wait)
    }

    fn idle_for(&self) -> Option<Duration> {
        let (in_flight, _, since) = *self.state.lock().expect("not poisoned");
        (in_flight == 0).then(|| since.elapsed())
    }
}

pub(super) fn timed_out(limit: Duration) -> Response {
    let message = format!("the request took longer than {} s", limit.as_secs());
    error(StatusCode::SERVICE_UNAVAILABLE, "timeout", message)
}

pub(super) fn error(status: StatusCode, code: &str, message: String) -> Response {
    let body = tidepool_api::ErrorBody { error: tidepool_api::ErrorDetail { code: code.into(), message } };
    (status, axum::Json(body)).into_response()
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets open requests
/// finish (up to 10 s).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_tls(listener, router, limits, None, shutdown).await
}

/// `serve`, over TLS when `tls` is given (HTTPS).
pub async fn serve_tls(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    tls: Option<crate::tls::ServerTls>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let acceptor = tls.map(|t| (tokio_rustls::TlsAcceptor::from(t.config), t.client_ca));
    let cap = limits.max_connections.max(1);
    let permits = Arc::new(Semaphore::new(cap));
    let room = Arc::new(Notify::new());
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let permit = loop {
            match permits.clone().try_acquire_owned() {
                Ok(p) => break Some(p),
                Err(_) => room.notify_waiters(),
            }
            tokio::select! {
                p = permits.clone().acquire_owned() => break p.ok(),
                _ = tokio::time::sleep(MAKE_ROOM_AFTER / 2) => {}
                _ = &mut shutdown => break None,
            }
        };
        let Some(permit) = permit else { break };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors or memory: wait rather than spin.
                    tracing::error!(error = %e, "accepting a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let (router, room, stopping) = (router.clone(), room.clone(), stopping.clone());
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            match acceptor {
                None => connection(stream, peer, None, router, limits, room, stopping).await,
                Some((acceptor, client_ca)) => {
                    if let Some((stream, cert)) =
                        super::tls::handshake(&acceptor, stream, &limits, &room).await
                    {
                        let cert = client_ca.then_some(cert);
                        connection(stream, peer, cert, router, limits, room, stopping).await;
                    }
                }
            }
            drop(permit);
        });
    }
    let _ = stop.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(10), permits.acquire_many(cap as u32)).await;
    Ok(())
}

async fn connection(
    stream: impl AsyncRead + AsyncWrite + Unpin + Send + 'static,
    peer: SocketAddr,
    client_cert: Option<super::tls::ClientCertificate>,
    router: Router,
    limits: Limits,
    room: Arc<Notify>,
    mut stopping: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity { state: Mutex::new((0, 0, Instant::now())) });
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            let in_flight = activity.begin();
            request.extensions_mut().insert(ConnectInfo(peer));
            if let Some(cert) = &client_cert {
                request.extensions_mut().insert(cert.clone());
            }
            let router = router.clone();
            async move {
                let response = super::run_to_end::answer(router, request, limits.request_timeout).await;
                // The request counts as in flight until its body is sent.
                let response = response.map(|body| {
                    Body::new(body.map_frame(move |frame| {
                        let _ = &in_flight;
                        frame
                    }))
                });
                Ok::<_, Infallible>(response)
            }
        })
    };
    // hyper's own header timer also runs between requests; ours are the tighter ones.
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout.max(limits.idle_timeout) + Duration::from_secs(1))
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let mut closing = false;
    loop {
        let check = activity.deadline(&limits).unwrap_or_else(|| {
            Instant::now() + limits.header_timeout.min(limits.idle_timeout).max(Duration::from_millis(100))
        });
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = tokio::time::sleep_until(check), if !closing => {
                // Nothing in flight: no answer is cut by closing.
                if activity.deadline(&limits).is_some_and(|d| d <= Instant::now()) {
                    return;
                }
            }
            _ = room.notified(), if !closing => {
                if activity.idle_for().is_some_and(|d| d >= MAKE_ROOM_AFTER) {
                    return;
                }
            }
            _ = stopping.changed(), if !closing => {
                conn.as_mut().graceful_shutdown();
                closing = true;
            }
        }
    }
}
