//! Merchant-category learning: `getMerchantCategoryHints`, `learnMerchantCategory`.

use super::{Ctx, Registry, Reply};
use crate::clock::timestamp;
use crate::domain::merchant;
use crate::error::Reason;
use crate::error::{Error, Result};
use crate::store::categories::Category;
use crate::store::table;
use crate::store::{merchants, require_owned_field, Owned};
use serde::{Deserialize, Serialize};

pub fn register(r: &mut Registry) {
    r.session("getMerchantCategoryHints", hints);
    r.session("learnMerchantCategory", learn);
}

#[derive(Deserialize)]
struct HintInput {
    merchant: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hint {
    merchant: String,
    category_id: String,
    category: Option<Category>,
    uses: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hints {
    /// The normalised merchant key the input maps to.
    merchant: String,
    /// The learned category of this merchant, or of the learned merchant
    /// most like it ("rewe" for "REWE Markt", a typo): what a form pre-selects.
    category_id: Option<String>,
    /// The learned merchant `categoryId` comes from, when it is not exactly
    /// this one.
    similar_to: Option<String>,
    /// Learned merchants starting like the input, most used first.
    suggestions: Vec<Hint>,
    /// Merchants as the user wrote them, starting like the input (for the
    /// form's autocomplete), most used first.
    names: Vec<String>,
}

/// What cashkeeper knows about a merchant: the category to pre-select and
/// similar merchants it has learned.
async fn hints(ctx: Ctx, input: HintInput) -> Result<Reply> {
    if input.merchant.chars().count() > 200 {
        return Err(Error::invalid("merchant", Reason::MaxChars(200)));
    }
    let key = merchant::normalize(&input.merchant);
    let typed = input.merchant.trim().to_string();
    let user = ctx.user_id()?;
    let hints = ctx
        .state
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
        .await?;
    Reply::data(hints)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LearnInput {
    merchant: String,
    category_id: String,
}

async fn learn(ctx: Ctx, input: LearnInput) -> Result<Reply> {
    let key = merchant::normalize(&input.merchant);
    if key.is_empty() {
        return Err(Error::invalid("merchant", Reason::Required));
    }
    if key.chars().count() > 200 {
        return Err(Error::invalid("merchant", Reason::MaxChars(200)));
    }
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    let category_id = input.category_id.trim().to_string();
    let k = key.clone();
    ctx.state
        .db
        .transaction(move |tx| {
            require_owned_field(tx, Owned::Category, &user, "categoryId", &category_id)?;
            merchants::learn(tx, &user, &k, &category_id, &now)
        })
        .await?;
    Reply::data(serde_json::json!({ "merchant": key }))
}
