// TEMPORARY STUB (not committed)
use crate::domain::rates::Rates;
use std::sync::Arc;
pub struct RateStore;
impl RateStore {
    pub fn current(&self) -> Arc<Rates> {
        Arc::new(Rates)
    }
}
