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

/// The router's answer to `request`, within `limit` for the caller.
pub(super) async fn answer(router: Router, request: Request<Incoming>, limit: Duration) -> Response {
    // The body's deadline comes after the caller's 503, never racing ahead of it.
    let request = request.map(|body| Body::new(Deadline::new(body, limit + Duration::from_secs(1))));
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
