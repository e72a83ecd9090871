//! The panic guard of a door: a handler that panics is logged naming the
//! door and answered in the door's own shape (the action envelope, the
//! `/api` error, the REST error, the error page), never a dropped
//! connection. Test builds mount a route that panics on purpose
//! (`Config::panic_routes`) to prove it.

use axum::response::Response;
use axum::routing::{on, MethodFilter};
use axum::Router;
use std::any::Any;
use tower_http::catch_panic::{CatchPanicLayer, ResponseForPanic};

/// A door's answer to a panic in one of its handlers.
#[derive(Clone, Copy)]
pub struct Door {
    /// Who panicked, for the log: "an action handler", "a page handler".
    pub name: &'static str,
    /// The route that panics on purpose, when test routes are on.
    pub test_route: &'static str,
    /// Its method.
    pub test_method: MethodFilter,
    /// The door's reply to a panic (a 500 in its shape).
    pub reply: fn() -> Response,
}

impl ResponseForPanic for Door {
    type ResponseBody = axum::body::Body;

    fn response_for_panic(&mut self, _: Box<dyn Any + Send + 'static>) -> Response {
        tracing::error!("panic in {}", self.name);
        (self.reply)()
    }
}

/// `routes` behind `door`'s panic guard, with its test route when
/// `panic_routes` is on.
pub fn guard<S: Clone + Send + Sync + 'static>(
    mut routes: Router<S>,
    door: Door,
    panic_routes: bool,
) -> Router<S> {
    if panic_routes {
        routes = routes.route(door.test_route, on(door.test_method, deliberate_panic));
    }
    routes.layer(CatchPanicLayer::custom(door))
}

async fn deliberate_panic() -> &'static str {
    panic!("deliberate panic for the tests")
}
