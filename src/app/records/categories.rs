//! Categories: their input and validation.

use super::Record;
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
    id: Option<String>,
    name: Patch<String>,
    icon: Patch<String>,
    color: Patch<String>,
    /// Optional monthly spending limit (budget warnings).
    monthly_limit: Patch<Value>,
}

impl Record for CategoryInput {
    type Stored = Category;
    const CAP: Cap = Cap::Categories;

    fn take_id(&mut self) -> Option<String> {
        self.id.take()
    }

    fn validate(
        self,
        _: &Connection,
        _: &UserId,
        stored: Option<&Category>,
    ) -> Result<NewCategory> {
        // Every field is checked, so that a form hears of all its errors at once.
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
            Patch::Absent => Ok(stored.and_then(|k| k.monthly_limit)),
            Patch::Null => Ok(None),
            Patch::Value(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Patch::Value(v) => input::amount("monthlyLimit", Some(v), Sign::Positive).map(Some),
        })?;
        let (name, icon, color, monthly_limit) =
            checks.finish(|| Some((name?, icon?, color?, monthly_limit?)))?;
        Ok(NewCategory {
            name,
            icon,
            color,
            monthly_limit,
        })
    }
}
