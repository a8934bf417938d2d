//! A deadline on the request body. actix times out request heads (408 after 5 s) but not
//! bodies: a client announcing `Content-Length: 100000` and sending a byte every 15 s held its
//! connection (and a file descriptor) forever, and thousands of them starved the server.
//!
//! [`BodyDeadline`] wraps each request's payload in a stream that fails once the deadline,
//! counted from when the request reached the application (its head read), has passed. The
//! handler's extractor then fails, and the answer is replaced with 408 `REQUEST_TIMEOUT` and
//! `Connection: close` (see `error.rs`). When the body was not read to its end (timed out, or a
//! handler that answered without reading it), the payload is kept alive until the answer is
//! written, so actix sees a request still arriving and closes the connection: once the payload
//! is dropped, it drains a chunked body for as long as the client sends it, with no time limit.

use std::cell::{Cell, RefCell};
use std::future::{Future, Ready, ready};
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::error::PayloadError;
use actix_web::rt::time::{Sleep, sleep};
use actix_web::web::Bytes;
use actix_web::{Error, HttpMessage, ResponseError};
use futures_util::Stream;
use futures_util::future::LocalBoxFuture;

use crate::http::error::ApiError;
use crate::runtime::config::BodyDeadline;

/// The request's payload, shared by the stream the handler reads and the middleware that
/// answers for it.
struct Body {
    payload: RefCell<Payload>,
    finished: Cell<bool>,
    expired: Cell<bool>,
}

/// The payload as the handler sees it: the request's, until the deadline.
struct Timed {
    body: Rc<Body>,
    deadline: Pin<Box<Sleep>>,
}

impl Stream for Timed {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.body.expired.get() {
            return Poll::Ready(None);
        }
        // Checked before every read, so a body trickling in just fast enough to always have a
        // byte ready is cut too; polling the timer also wakes a handler waiting on a silent one.
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.body.expired.set(true);
            return Poll::Ready(Some(Err(PayloadError::Io(io::Error::new(io::ErrorKind::TimedOut, "the request body deadline passed")))));
        }
        let polled = Pin::new(&mut *self.body.payload.borrow_mut()).poll_next(cx);
        if let Poll::Ready(None) = polled {
            self.body.finished.set(true);
        }
        polled
    }
}

/// The answer's body, holding the request's payload until the answer is written in full: actix
/// decides then whether to close the connection or drain the rest of the request, and it only
/// closes when the payload is still held (see the module docs).
struct Holding {
    body: BoxBody,
    _payload: Rc<Body>,
}

impl MessageBody for Holding {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

/// `res` with its body holding `payload`.
fn holding(res: ServiceResponse<BoxBody>, payload: Rc<Body>) -> ServiceResponse<BoxBody> {
    res.map_body(|_, body| BoxBody::new(Holding { body, _payload: payload }))
}

impl<S, B> Transform<S, ServiceRequest> for BodyDeadline
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<BoxBody>;
    type Error = Error;
    type Transform = BodyDeadlineService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(BodyDeadlineService { service: Rc::new(service), limit: self.0 }))
    }
}

pub struct BodyDeadlineService<S> {
    service: Rc<S>,
    limit: Duration,
}

impl<S, B> Service<ServiceRequest> for BodyDeadlineService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<BoxBody>;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, mut req: ServiceRequest) -> Self::Future {
        let service = self.service.clone();
        let payload = req.take_payload();
        if matches!(payload, Payload::None) {
            // No body (every GET): nothing to wait for, nothing to wrap.
            return Box::pin(async move { Ok(service.call(req).await?.map_into_boxed_body()) });
        }
        let body = Rc::new(Body { payload: RefCell::new(payload), finished: Cell::new(false), expired: Cell::new(false) });
        let timed = Timed { body: body.clone(), deadline: Box::pin(sleep(self.limit)) };
        req.set_payload(Payload::Stream { payload: Box::pin(timed) });
        let limit = self.limit;
        Box::pin(async move {
            let outcome = service.call(req).await;
            if body.expired.get() {
                let timeout = ApiError::RequestTimeout(limit);
                return match outcome {
                    Ok(res) => {
                        let (req, _) = res.into_parts();
                        Ok(holding(ServiceResponse::new(req, timeout.error_response()), body))
                    }
                    Err(_) => Err(timeout.into()),
                };
            }
            let res = outcome?.map_into_boxed_body();
            // A body left unread (a 401, a GET with a body): held, so the connection closes
            // after the answer rather than reading the rest for as long as the client sends it.
            Ok(if body.finished.get() { res } else { holding(res, body) })
        })
    }
}
