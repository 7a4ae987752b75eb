//! Each request runs to its end on a task of its own, whether its caller hangs up or it
//! runs past the request timeout (the caller is then answered 503 at once). A handler
//! dropped between two writes would leave half of what it does, and a database
//! transaction dropped while it begins is never rolled back (see `Store::begin`).
//!
//! Two bounds keep a request that never ends from holding its task for good: its body
//! ends in an error a second after the request's time is up (a handler still waiting for
//! a body its caller never sends gives up there, in its extractor, before it has written
//! anything), and past twice the timeout the task is dropped after all, as every request
//! was before.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::Response;
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use tower::ServiceExt;

use super::listen::{error, timed_out};

/// Ends once nobody waits for the answer any more: the caller hung up, or was answered
/// 503 at the timeout. Running to the end is for work; a handler that only waits (a
/// followed log read) stops here, or a caller hanging up at once could leave any number
/// of waits polling the records behind it.
#[derive(Clone)]
pub struct CallerGone(tokio::sync::watch::Receiver<()>);

impl CallerGone {
    pub async fn wait(mut self) {
        while self.0.changed().await.is_ok() {}
    }
}

/// The router's answer to `request`, within `limit` for the caller.
pub(super) async fn answer(router: Router, request: Request<Incoming>, limit: Duration) -> Response {
    // The body's deadline comes after the caller's 503, never racing ahead of it.
    let mut request = request.map(|body| Body::new(Deadline::new(body, limit + Duration::from_secs(1))));
    // Dropped with this future: when the caller is answered or gone.
    let (_waiting, gone) = tokio::sync::watch::channel(());
    request.extensions_mut().insert(CallerGone(gone));
    let running = tokio::spawn(tokio::time::timeout(2 * limit, router.oneshot(request)));
    match tokio::time::timeout(limit, running).await {
        Ok(Ok(Ok(Ok(response)))) => response,
        Ok(Ok(Ok(Err(never)))) => match never {},
        Ok(Ok(Err(_))) | Err(_) => timed_out(limit),
        Ok(Err(panicked)) => {
            tracing::error!(error = %panicked, "a request's handler panicked");
            let message = "the server failed on this request; it is logged".to_string();
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
        }
    }
}

/// A request body that ends in an error once the request's time is up.
struct Deadline {
    body: Incoming,
    up: Pin<Box<tokio::time::Sleep>>,
}

impl Deadline {
    fn new(body: Incoming, limit: Duration) -> Deadline {
        Deadline { body, up: Box::pin(tokio::time::sleep(limit)) }
    }
}

impl hyper::body::Body for Deadline {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        match self.up.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err("the request's body did not come in time".into()))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
