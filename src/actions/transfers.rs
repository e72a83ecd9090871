//! Transfers between the user's own accounts: `listTransfers`,
//! `createTransfer`, `updateTransfer`, `deleteTransfer`.

use super::entries::{self, currency_for, Record};
use super::input::{self, Patch, NOTES_MAX};
use super::Registry;
use crate::error::{Error, Result};
use crate::store::transfers::{NewTransfer, Transfer};
use crate::store::users::UserId;
use crate::store::Cap;
use crate::store::{require_owned_field, Owned};
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("listTransfers", entries::list::<TransferInput>);
    r.session("createTransfer", entries::create::<TransferInput>);
    r.session("updateTransfer", entries::update::<TransferInput>);
    r.session("deleteTransfer", entries::delete::<TransferInput>);
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct TransferInput {
    id: Option<String>,
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
    const CAP: Cap = Cap::Recurring;

    fn take_id(&mut self) -> Option<String> {
        self.id.take()
    }

    fn validate(
        self,
        c: &Connection,
        user: &UserId,
        stored: Option<&Transfer>,
    ) -> Result<NewTransfer> {
        let from = input::optional_id(
            self.from_account_id
                .or(stored.map(|t| t.from_account_id.clone())),
        )
        .ok_or_else(|| Error::invalid("fromAccountId", "is required"))?;
        let to = input::optional_id(
            self.to_account_id
                .or(stored.map(|t| t.to_account_id.clone())),
        )
        .ok_or_else(|| Error::invalid("toAccountId", "is required"))?;
        // The amount is in the source account's currency.
        let currency = currency_for(c, user, "fromAccountId", &from, None)?;
        require_owned_field(c, Owned::Account, user, "toAccountId", &to)?;
        if from == to {
            return Err(Error::invalid(
                "toAccountId",
                "must be another account than fromAccountId",
            ));
        }
        let amount = input::positive_amount(self.amount, stored.map(|t| t.amount))?;
        let schedule = input::schedule(
            self.frequency,
            self.start_date,
            self.end_date,
            stored.map(|t| t.schedule()).as_ref(),
            true,
        )?;
        Ok(NewTransfer {
            from_account_id: from,
            to_account_id: to,
            amount,
            currency,
            schedule,
            note: input::optional_text(
                "note",
                self.note.or(stored.map(|t| t.note.clone())),
                NOTES_MAX,
            )?,
        })
    }
}
