//! Transfers between the user's own accounts: `listTransfers`,
//! `createTransfer`, `updateTransfer`, `deleteTransfer`.

use super::entries::currency_for;
use super::input::{self, IdInput, Patch, NOTES_MAX};
use super::{Ctx, NoInput, Registry, Reply};
use crate::clock::timestamp;
use crate::domain::money::Sign;
use crate::domain::recurrence::{Frequency, Schedule};
use crate::error::{Error, Result};
use crate::store::transfers::{self, NewTransfer, Transfer};
use crate::store::{require_owned_field, Owned};
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("listTransfers", list);
    r.session("createTransfer", create);
    r.session("updateTransfer", update);
    r.session("deleteTransfer", delete);
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TransferInput {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    from_account_id: Patch<String>,
    #[serde(default)]
    to_account_id: Patch<String>,
    #[serde(default)]
    amount: Patch<Value>,
    #[serde(default)]
    frequency: Patch<String>,
    #[serde(default)]
    start_date: Patch<String>,
    #[serde(default)]
    end_date: Patch<String>,
    #[serde(default)]
    note: Patch<String>,
}

impl TransferInput {
    fn validate(
        self,
        c: &Connection,
        user: &str,
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
        let amount = match self.amount {
            Patch::Absent if stored.is_some() => stored.map(|t| t.amount).unwrap_or_default(),
            p => input::amount("amount", p.or(None), Sign::Positive)?,
        };
        let frequency = match self
            .frequency
            .or(stored.map(|t| t.frequency.code().to_string()))
        {
            Some(f) => Frequency::parse("frequency", &f, true)?,
            None => return Err(Error::invalid("frequency", "is required")),
        };
        let start = input::date(
            "startDate",
            self.start_date.or(stored.map(|t| t.start_date.to_string())),
        )?;
        let end = input::optional_date(
            "endDate",
            self.end_date
                .or(stored.and_then(|t| t.end_date.map(|d| d.to_string()))),
        )?;
        let schedule = if frequency == Frequency::Once {
            Schedule::once(start)
        } else {
            Schedule::new(frequency, start, end)?
        };
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

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    Reply::data(ctx.state.db.run(move |c| transfers::list(c, &user)).await?)
}

async fn create(ctx: Ctx, input: TransferInput) -> Result<Reply> {
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    let transfer = ctx
        .state
        .db
        .transaction(move |tx| {
            let new = input.validate(tx, &user, None)?;
            transfers::insert(tx, &user, &new, &now)
        })
        .await?;
    Reply::data(transfer)
}

async fn update(ctx: Ctx, mut input: TransferInput) -> Result<Reply> {
    let id = input::required_id(input.id.take())?;
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    let transfer = ctx
        .state
        .db
        .transaction(move |tx| {
            let stored = transfers::find(tx, &user, &id)?.ok_or(Error::NotFound)?;
            let new = input.validate(tx, &user, Some(&stored))?;
            transfers::update(tx, &user, &id, &new, &now)?.ok_or(Error::NotFound)
        })
        .await?;
    Reply::data(transfer)
}

async fn delete(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    let user = ctx.user_id()?;
    if !ctx
        .state
        .db
        .run(move |c| transfers::delete(c, &user, &id))
        .await?
    {
        return Err(Error::NotFound);
    }
    Reply::data(())
}
