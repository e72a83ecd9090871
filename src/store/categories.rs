//! Categories. Deleting one leaves its entries uncategorised (the schema's
//! ON DELETE SET NULL) and forgets the merchants learned for it.

use super::table::{self, read_columns, written_columns, Table};
use super::users::UserId;
use crate::domain::money::Money;
use crate::error::{Error, Reason, Result};
use rusqlite::{params, Connection};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    pub id: String,
    pub name: String,
    pub icon: String,
    pub color: String,
    /// The budget as its newest change set it (`None` when ended or never
    /// set); the months are in `budgets` (`docs/budgets.md`).
    pub monthly_limit: Option<Money>,
    pub created_at: String,
    pub updated_at: String,
}

pub struct NewCategory {
    pub name: String,
    pub icon: String,
    pub color: String,
    /// `monthlyLimit` given with the category: its budget from this month
    /// on (`Some(None)` ends it). Not a column: budgets keep it.
    pub budget: Option<Option<Decimal>>,
}

impl Table for Category {
    type New = NewCategory;
    const NAME: &'static str = "categories";
    const ORDER: &'static str = "name COLLATE NOCASE, id";

    read_columns! {
        name, icon, color,
        monthly_limit: "(SELECT b.amount_cents FROM budgets b WHERE b.category_id = categories.id
                         ORDER BY b.month DESC LIMIT 1)" => Money::from_cents_or_none,
        created_at, updated_at,
    }

    written_columns! { k;
        "name" => k.name, "icon" => k.icon, "color" => k.color,
    }

    fn before_write(
        c: &Connection,
        user_id: &UserId,
        k: &NewCategory,
        id: Option<&str>,
    ) -> Result<()> {
        check_unique(c, user_id, &k.name, id)
    }
}

/// Refuses a second category of the same name (in any letter case).
fn check_unique(c: &Connection, user_id: &UserId, name: &str, except: Option<&str>) -> Result<()> {
    let taken: bool = c.query_row(
        "SELECT EXISTS(SELECT 1 FROM categories WHERE user_id = ?1 AND lower(name) = lower(?2)
                       AND id <> COALESCE(?3, ''))",
        params![user_id, name, except],
        |r| r.get(0),
    )?;
    if taken {
        return Err(Error::invalid("name", Reason::CategoryExists));
    }
    Ok(())
}

/// Gives a new user the default categories of their language.
pub fn insert_defaults(
    c: &Connection,
    user_id: &UserId,
    locale: crate::domain::locale::Locale,
    now: &str,
) -> Result<()> {
    for (name, icon, color) in crate::domain::categories::defaults(locale.default_category_names())
    {
        table::insert::<Category>(
            c,
            user_id,
            &NewCategory {
                name: name.into(),
                icon: icon.into(),
                color: color.into(),
                budget: None,
            },
            now,
        )?;
    }
    Ok(())
}
