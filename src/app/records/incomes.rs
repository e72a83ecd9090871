//! Incomes: a [`RecurringInput`] that may happen once, with neither a
//! category nor a subscription flag.

use super::recurring::{kept, Kept, Kind, RecurringInput};
use crate::store::incomes::Income;
use crate::store::prices::Owner;
use serde::de::IgnoredAny;

/// The input of an income: it has no category and is never a
/// subscription, so it passes over those two fields.
pub type IncomeInput = RecurringInput<Income, IgnoredAny, IgnoredAny>;

impl Kind for Income {
    const NOUN: [&'static str; 2] = ["Income", "Incomes"];
    const ONCE: bool = true;
    const OWNER: Owner = Owner::Income;

    fn kept(&self) -> Kept<'_> {
        kept!(self)
    }
}
