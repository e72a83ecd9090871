//! Transfers between the user's own accounts: their input and validation.

use super::{currency_for, Record};
use crate::app::input::{self, Patch, NOTES_MAX};
use crate::error::{Error, Reason, Result};
use crate::store::accounts::Account;
use crate::store::recurring::Planned;
use crate::store::require_owned_field;
use crate::store::transfers::{NewTransfer, Transfer};
use crate::store::users::UserId;
use crate::store::Cap;
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct TransferInput {
    from_account_id: Patch<String>,
    to_account_id: Patch<String>,
    amount: Patch<Value>,
    frequency: Patch<String>,
    start_date: Patch<String>,
    end_date: Patch<String>,
    note: Patch<String>,
}

impl Record for TransferInput {
    type Stored = Transfer;
    const NOUN: [&'static str; 2] = ["Transfer", "Transfers"];
    const CAP: Cap = Cap::Recurring;

    fn validate(
        self,
        c: &Connection,
        user: &UserId,
        stored: Option<&Transfer>,
    ) -> Result<NewTransfer> {
        let mut checks = input::Checks::default();
        let from = checks.take(
            input::optional_id(
                self.from_account_id
                    .or(stored.map(|t| t.from_account_id.clone())),
            )
            .ok_or_else(|| Error::invalid("fromAccountId", Reason::Required)),
        )?;
        let to = checks.take(
            input::optional_id(
                self.to_account_id
                    .or(stored.map(|t| t.to_account_id.clone())),
            )
            .ok_or_else(|| Error::invalid("toAccountId", Reason::Required)),
        )?;
        // The amount is in the source account's currency.
        let currency = match &from {
            Some(from) => checks.take(currency_for(c, user, "fromAccountId", from, None))?,
            None => None,
        };
        if let Some(to) = &to {
            let owned = checks.take(require_owned_field::<Account>(c, user, "toAccountId", to))?;
            if owned.is_some() && from.as_ref() == Some(to) {
                checks.take::<()>(Err(Error::invalid(
                    "toAccountId",
                    Reason::AnotherThanSource,
                )))?;
            }
        }
        let amount = checks.take(input::positive_amount(
            self.amount,
            stored.map(|t| *t.plan.amount),
        ))?;
        let schedule = checks.take(input::schedule(
            self.frequency,
            self.start_date,
            self.end_date,
            stored.map(|t| t.plan.schedule()).as_ref(),
            true,
        ))?;
        let note = checks.take(input::optional_text(
            "note",
            self.note.or(stored.map(|t| t.note.clone())),
            NOTES_MAX,
        ))?;
        let (from, to, currency, amount, schedule, note) =
            checks.finish(|| Some((from?, to?, currency?, amount?, schedule?, note?)))?;
        Ok(NewTransfer {
            from_account_id: from,
            to_account_id: to,
            plan: Planned::new(amount, currency, schedule),
            note,
        })
    }
}
