//! What cashkeeper computes from a user's records for the pages, the REST
//! API, the jobs and the command line alike: each number in one place.

pub mod cache;
pub mod dashboard;
pub mod forecasts;
pub mod payments;
pub mod reserves;
pub mod subscriptions;
pub mod summary;
