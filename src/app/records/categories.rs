//! Categories: their input and validation.

use super::{Record, Written};
use crate::app::input::{self, Patch};
use crate::domain::categories::{parse_color, parse_icon};
use crate::domain::money::Sign;
use crate::error::Result;
use crate::store::categories::{Category, NewCategory};
use crate::store::users::UserId;
use crate::store::Cap;
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct CategoryInput {
    name: Patch<String>,
    icon: Patch<String>,
    color: Patch<String>,
    /// The category's budget from this month on (`setBudget`); null or
    /// empty ends it.
    monthly_limit: Patch<Value>,
}

impl Record for CategoryInput {
    type Stored = Category;
    const NOUN: [&'static str; 2] = ["Category", "Categories"];
    const CAP: Cap = Cap::Categories;

    fn validate(
        self,
        _: &Connection,
        _: &UserId,
        stored: Option<&Category>,
    ) -> Result<NewCategory> {
        let mut checks = input::Checks::default();
        let name = checks.take(input::text(
            "name",
            self.name.or(stored.map(|k| k.name.clone())),
            50,
        ))?;
        let icon = checks.take(parse_icon(
            "icon",
            &self
                .icon
                .or(stored.map(|k| k.icon.clone()))
                .unwrap_or_default(),
        ))?;
        let color = checks.take(match self.color.or(stored.map(|k| k.color.clone())) {
            Some(c) if !c.trim().is_empty() => parse_color("color", &c),
            _ => Ok("#64748b".to_string()),
        })?;
        let monthly_limit = checks.take(match self.monthly_limit {
            Patch::Absent => Ok(None),
            Patch::Null => Ok(Some(None)),
            Patch::Value(Value::String(s)) if s.trim().is_empty() => Ok(Some(None)),
            Patch::Value(v) => {
                input::amount("monthlyLimit", Some(v), Sign::Positive).map(|a| Some(Some(a)))
            }
        })?;
        let (name, icon, color, monthly_limit) =
            checks.finish(|| Some((name?, icon?, color?, monthly_limit?)))?;
        Ok(NewCategory {
            name,
            icon,
            color,
            budget: monthly_limit,
        })
    }

    fn after_write(c: &Connection, user: &UserId, w: &Written<'_, Category>) -> Result<()> {
        match w.new.budget {
            Some(amount) => {
                crate::app::budgets::set_in(c, user, w.id, amount, false, w.today, w.now)
                    .map(|_| ())
            }
            None => Ok(()),
        }
    }
}
