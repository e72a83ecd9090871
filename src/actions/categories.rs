//! Categories: `listCategories`, `createCategory`, `updateCategory`, `deleteCategory`.

use super::input::{self, IdInput, Patch};
use super::{Ctx, NoInput, Registry, Reply};
use crate::clock::timestamp;
use crate::domain::categories::{parse_color, parse_icon};
use crate::domain::money::Sign;
use crate::error::{Error, Result};
use crate::store::categories::{self, Category, NewCategory};
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("listCategories", list);
    r.session("createCategory", create);
    r.session("updateCategory", update);
    r.session("deleteCategory", delete);
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CategoryInput {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    icon: Patch<String>,
    #[serde(default)]
    color: Patch<String>,
    /// Optional monthly spending limit (budget warnings).
    #[serde(default)]
    monthly_limit: Patch<Value>,
}

impl CategoryInput {
    fn validate(self, stored: Option<&Category>) -> Result<NewCategory> {
        let name = input::text("name", self.name.or(stored.map(|k| k.name.clone())), 50)?;
        let icon = parse_icon(
            "icon",
            &self
                .icon
                .or(stored.map(|k| k.icon.clone()))
                .unwrap_or_default(),
        )?;
        let color = match self.color.or(stored.map(|k| k.color.clone())) {
            Some(c) if !c.trim().is_empty() => parse_color("color", &c)?,
            _ => "#64748b".to_string(),
        };
        let monthly_limit = match self.monthly_limit {
            Patch::Absent => stored.and_then(|k| k.monthly_limit),
            Patch::Null => None,
            Patch::Value(Value::String(s)) if s.trim().is_empty() => None,
            Patch::Value(v) => Some(input::amount("monthlyLimit", Some(v), Sign::Positive)?),
        };
        Ok(NewCategory {
            name,
            icon,
            color,
            monthly_limit,
        })
    }
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    Reply::data(
        ctx.state
            .db
            .run(move |c| categories::list(c, &user))
            .await?,
    )
}

async fn create(ctx: Ctx, input: CategoryInput) -> Result<Reply> {
    let new = input.validate(None)?;
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    Reply::data(
        ctx.state
            .db
            .run(move |c| categories::insert(c, &user, &new, &now))
            .await?,
    )
}

async fn update(ctx: Ctx, mut input: CategoryInput) -> Result<Reply> {
    let id = input::required_id(input.id.take())?;
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    let category = ctx
        .state
        .db
        .transaction(move |tx| {
            let stored = categories::find(tx, &user, &id)?.ok_or(Error::NotFound)?;
            let new = input.validate(Some(&stored))?;
            categories::update(tx, &user, &id, &new, &now)?.ok_or(Error::NotFound)
        })
        .await?;
    Reply::data(category)
}

/// Deletes a category; its entries stay, uncategorised.
async fn delete(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    let user = ctx.user_id()?;
    let deleted = ctx
        .state
        .db
        .run(move |c| categories::delete(c, &user, &id))
        .await?;
    if !deleted {
        return Err(Error::NotFound);
    }
    Reply::data(())
}
