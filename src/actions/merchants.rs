//! Merchant-category learning: `getMerchantCategoryHints`, `learnMerchantCategory`
//! (`app::merchants`).

use super::{Ctx, Registry, Reply};
use crate::app::merchants;
use crate::error::Result;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("getMerchantCategoryHints", hints);
    r.session("learnMerchantCategory", learn);
}

#[derive(Deserialize)]
struct HintInput {
    merchant: String,
}

async fn hints(ctx: Ctx, input: HintInput) -> Result<Reply> {
    Reply::data(merchants::hints(&ctx.state, &ctx.user_id()?, &input.merchant).await?)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LearnInput {
    merchant: String,
    category_id: String,
}

async fn learn(ctx: Ctx, input: LearnInput) -> Result<Reply> {
    let key = merchants::learn(
        &ctx.state,
        &ctx.user_id()?,
        &input.merchant,
        &input.category_id,
    )
    .await?;
    Reply::data(serde_json::json!({ "merchant": key }))
}
