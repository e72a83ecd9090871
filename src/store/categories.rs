//! Categories. Deleting one leaves its entries uncategorised (the schema's
//! ON DELETE SET NULL) and forgets the merchants learned for it.

use crate::domain::money;
use crate::error::{Error, Result};
use rusqlite::{params, Connection, OptionalExtension, Row};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    pub id: String,
    pub name: String,
    pub icon: String,
    pub color: String,
    #[serde(serialize_with = "money::json::option::serialize")]
    pub monthly_limit: Option<Decimal>,
    pub created_at: String,
    pub updated_at: String,
}

pub struct NewCategory {
    pub name: String,
    pub icon: String,
    pub color: String,
    pub monthly_limit: Option<Decimal>,
}

const COLUMNS: &str = "id, name, icon, color, monthly_limit_cents, created_at, updated_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Category> {
    Ok(Category {
        id: r.get(0)?,
        name: r.get(1)?,
        icon: r.get(2)?,
        color: r.get(3)?,
        monthly_limit: r.get::<_, Option<i64>>(4)?.map(money::from_cents),
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
    })
}

pub fn list(c: &Connection, user_id: &str) -> Result<Vec<Category>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM categories WHERE user_id = ?1 ORDER BY name COLLATE NOCASE, id"
    ))?;
    let rows = s
        .query_map([user_id], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

pub fn find(c: &Connection, user_id: &str, id: &str) -> Result<Option<Category>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM categories WHERE id = ?1 AND user_id = ?2"),
        [id, user_id],
        from_row,
    )
    .optional()?)
}

/// Refuses a second category of the same name (in any letter case).
fn check_unique(c: &Connection, user_id: &str, name: &str, except: Option<&str>) -> Result<()> {
    let taken: bool = c.query_row(
        "SELECT EXISTS(SELECT 1 FROM categories WHERE user_id = ?1 AND lower(name) = lower(?2)
                       AND id <> COALESCE(?3, ''))",
        params![user_id, name, except],
        |r| r.get(0),
    )?;
    if taken {
        return Err(Error::invalid("name", "a category with this name exists"));
    }
    Ok(())
}

pub fn insert(c: &Connection, user_id: &str, k: &NewCategory, now: &str) -> Result<Category> {
    check_unique(c, user_id, &k.name, None)?;
    let id = super::new_id();
    c.execute(
        "INSERT INTO categories (id, user_id, name, icon, color, monthly_limit_cents, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
        params![id, user_id, k.name, k.icon, k.color, k.monthly_limit.map(money::to_cents), now],
    )?;
    Ok(find(c, user_id, &id)?.expect("just inserted"))
}

pub fn update(
    c: &Connection,
    user_id: &str,
    id: &str,
    k: &NewCategory,
    now: &str,
) -> Result<Option<Category>> {
    check_unique(c, user_id, &k.name, Some(id))?;
    c.execute(
        "UPDATE categories SET name = ?1, icon = ?2, color = ?3, monthly_limit_cents = ?4, updated_at = ?5
         WHERE id = ?6 AND user_id = ?7",
        params![k.name, k.icon, k.color, k.monthly_limit.map(money::to_cents), now, id, user_id],
    )?;
    find(c, user_id, id)
}

pub fn delete(c: &Connection, user_id: &str, id: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM categories WHERE id = ?1 AND user_id = ?2",
        [id, user_id],
    )? == 1)
}

/// Gives a new user the default categories of their language.
pub fn insert_defaults(
    c: &Connection,
    user_id: &str,
    locale: crate::domain::locale::Locale,
    now: &str,
) -> Result<()> {
    for (name, icon, color) in crate::domain::categories::defaults(locale) {
        insert(
            c,
            user_id,
            &NewCategory {
                name: name.into(),
                icon: icon.into(),
                color: color.into(),
                monthly_limit: None,
            },
            now,
        )?;
    }
    Ok(())
}
