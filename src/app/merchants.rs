//! Merchant-category learning: what a form pre-selects for a merchant, and
//! a merchant's category taught by hand.

use crate::clock::timestamp;
use crate::domain::merchant;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::categories::Category;
use crate::store::users::UserId;
use crate::store::{merchants, require_owned_field, table};
use serde::Serialize;

/// The longest merchant name.
const MERCHANT_MAX: usize = 200;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hint {
    pub merchant: String,
    pub category_id: String,
    pub category: Option<Category>,
    pub uses: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hints {
    /// The normalised merchant key the input maps to.
    pub merchant: String,
    /// The learned category of this merchant, or of the learned merchant
    /// most like it ("rewe" for "REWE Markt", a typo): what a form pre-selects.
    pub category_id: Option<String>,
    /// The learned merchant `categoryId` comes from, when it is not exactly
    /// this one.
    pub similar_to: Option<String>,
    /// Learned merchants starting like the input, most used first.
    pub suggestions: Vec<Hint>,
    /// Merchants as the user wrote them, starting like the input (for the
    /// form's autocomplete), most used first.
    pub names: Vec<String>,
}

/// What cashkeeper knows about the merchant `typed`: the category to
/// pre-select and similar merchants it has learned.
pub async fn hints(state: &AppState, user: &UserId, typed: &str) -> Result<Hints> {
    if typed.chars().count() > MERCHANT_MAX {
        return Err(Error::invalid("merchant", Reason::MaxChars(MERCHANT_MAX)));
    }
    let key = merchant::normalize(typed);
    let typed = typed.trim().to_string();
    let user = user.clone();
    state
        .db
        .run(move |c| {
            if key.is_empty() {
                return Ok(Hints {
                    merchant: key,
                    category_id: None,
                    similar_to: None,
                    suggestions: vec![],
                    names: vec![],
                });
            }
            let learned = merchants::category_for(c, &user, &key)?;
            let similar_to = learned
                .as_ref()
                .filter(|(_, k)| *k != key)
                .map(|(_, k)| k.clone());
            let suggestions = merchants::with_prefix(c, &user, &key, 5)?
                .into_iter()
                .map(|(merchant, category_id, uses)| {
                    Ok(Hint {
                        category: table::find::<Category>(c, &user, &category_id)?,
                        merchant,
                        category_id,
                        uses,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Hints {
                merchant: key,
                category_id: learned.map(|(id, _)| id),
                similar_to,
                suggestions,
                names: merchants::names_like(c, &user, &typed, 8)?,
            })
        })
        .await
}

/// Teaches that `typed` belongs to the user's category `category_id`;
/// answers the merchant's key.
pub async fn learn(
    state: &AppState,
    user: &UserId,
    typed: &str,
    category_id: &str,
) -> Result<String> {
    let key = merchant::normalize(typed);
    if key.is_empty() {
        return Err(Error::invalid("merchant", Reason::Required));
    }
    if key.chars().count() > MERCHANT_MAX {
        return Err(Error::invalid("merchant", Reason::MaxChars(MERCHANT_MAX)));
    }
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    let (k, category_id) = (key.clone(), category_id.trim().to_string());
    state
        .db
        .transaction(move |tx| {
            require_owned_field::<Category>(tx, &user, "categoryId", &category_id)?;
            merchants::learn(tx, &user, &k, &category_id, &now)
        })
        .await?;
    Ok(key)
}
