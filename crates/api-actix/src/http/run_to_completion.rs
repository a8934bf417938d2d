//! Runs each request as a task of its own, so a client that disconnects mid-request does not
//! cancel work already started: a write finishes instead of being cut off, and SQLite queries
//! (diesel-async runs them on blocking threads and cannot be cancelled on actix's
//! current-thread workers) are never dropped in flight.

use std::future::{Ready, ready};
use std::rc::Rc;

use actix_web::Error;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use futures_util::future::LocalBoxFuture;

pub struct RunToCompletion;

impl<S, B> Transform<S, ServiceRequest> for RunToCompletion
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = RunToCompletionService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RunToCompletionService { service: Rc::new(service) }))
    }
}

pub struct RunToCompletionService<S> {
    service: Rc<S>,
}

impl<S, B> Service<ServiceRequest> for RunToCompletionService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let service = self.service.clone();
        let task = actix_web::rt::spawn(async move { service.call(req).await });
        Box::pin(async move { task.await.map_err(|e| actix_web::error::ErrorInternalServerError(format!("request task failed: {e}")))? })
    }
}
