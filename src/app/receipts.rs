//! The receipt scan (`docs/receipts.md`): a photo of a receipt in, its
//! merchant, date, total, currency, items and a category out, read by the
//! vision model and checked (`domain::receipts`). The image is scaled down
//! to what vision models read before it is sent; the category the user
//! chose for the merchant before beats the model's guess.

use crate::domain::currency::Currency;
use crate::domain::merchant;
use crate::domain::receipts::{self, CategoryChoice, Kind, Receipt};
use crate::error::{Error, Reason};
use crate::services::ai::{self, AiClient, ChatRequest, JsonSchema, Message, Part};
use crate::state::AppState;
use crate::store::categories::Category;
use crate::store::users::User;
use crate::store::{merchants, table};

/// The text sent with the image.
const ASK: &str = "Read this receipt.";

/// Why a scan gave no receipt.
#[derive(Debug)]
pub enum ScanFailure {
    /// The image cannot be read or is too large (the field is `file`).
    Image(Reason),
    /// The AI provider failed (the cause is logged here, never shown).
    Provider,
    /// The model's answer cannot be used (the cause is logged here).
    Unusable,
    Internal(Error),
}

impl From<Error> for ScanFailure {
    fn from(e: Error) -> ScanFailure {
        ScanFailure::Internal(e)
    }
}

/// One image decoded at a time, whoever asks: a large photo takes up to
/// [`receipts::prepare`]'s allocation limit while it is scaled down.
static DECODING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// Reads a receipt: `kind` is what the image's first bytes say it is.
pub async fn scan(
    state: &AppState,
    ai: &AiClient,
    user: &User,
    kind: Kind,
    image: Vec<u8>,
) -> Result<Receipt, ScanFailure> {
    let (kind, image) = sendable(kind, image).await?;
    let u = user.id.clone();
    let categories: Vec<CategoryChoice> = state
        .db
        .run(move |c| table::all::<Category>(c, &u))
        .await?
        .into_iter()
        .map(|c| CategoryChoice {
            id: c.id,
            name: c.name,
        })
        .collect();
    let base = Currency::parse("baseCurrency", &user.base_currency).unwrap_or(Currency::EUR);

    // The instructions go with the image in the user's message: some local
    // vision models pay little attention to a system message.
    let mut request = ChatRequest::new(
        ai.vision_model(),
        vec![Message::user_parts(vec![
            Part::Text(format!("{}\n\n{ASK}", receipts::instructions(&categories))),
            Part::ImageUrl(ai::data_uri(kind.content_type(), &image)),
        ])],
    );
    request.json_schema = Some(JsonSchema {
        name: "receipt".into(),
        schema: receipts::answer_schema(),
    });
    // The request holds the image now; free the upload during the wait.
    drop(image);
    let answer = match ai.complete_json(&request).await {
        Ok(answer) => answer,
        Err(e) if e.is_unusable_answer() => {
            tracing::info!(model = %ai.vision_model(), error = %e, "receipt scan: unusable answer");
            return Err(ScanFailure::Unusable);
        }
        Err(e) => {
            tracing::warn!(model = %ai.vision_model(), error = %e, "receipt scan: the AI provider failed");
            return Err(ScanFailure::Provider);
        }
    };
    let mut receipt = receipts::check_answer(&answer, &categories, &base).map_err(|why| {
        tracing::info!(model = %ai.vision_model(), why, "receipt scan: unusable answer");
        ScanFailure::Unusable
    })?;

    // What the user chose for this merchant before beats the model's guess.
    let key = receipt
        .merchant
        .as_deref()
        .map(merchant::normalize)
        .unwrap_or_default();
    if !key.is_empty() {
        let u = user.id.clone();
        match state
            .db
            .run(move |c| merchants::category_for(c, &u, &key))
            .await
        {
            Ok(Some((learned, _))) if categories.iter().any(|c| c.id == learned) => {
                receipt.category_id = Some(learned);
            }
            Ok(_) => {}
            Err(e) => e.log(),
        }
    }
    Ok(receipt)
}

/// The image as the vision model gets it ([`receipts::prepare`], off the
/// async threads), or the refusal naming `file`.
async fn sendable(kind: Kind, image: Vec<u8>) -> Result<(Kind, Vec<u8>), ScanFailure> {
    let internal = |e: &dyn std::fmt::Display| {
        ScanFailure::Internal(Error::Internal(anyhow::anyhow!(
            "preparing a receipt image: {e}"
        )))
    };
    // The header alone refuses, or lets a small image through unchanged.
    match receipts::dimensions(kind, &image) {
        Some((w, h)) if w.max(h) <= receipts::SENT_SIDE && w > 0 && h > 0 => {
            return Ok((kind, image))
        }
        None => {
            return Err(ScanFailure::Image(
                receipts::ImageRefusal::Unreadable.reason(),
            ))
        }
        Some(_) => {}
    }
    let _turn = DECODING.acquire().await.map_err(|e| internal(&e))?;
    let prepared = tokio::task::spawn_blocking(move || {
        receipts::prepare(kind, &image).map(|scaled| match scaled {
            Some(jpeg) => (Kind::Jpeg, jpeg),
            None => (kind, image),
        })
    })
    .await
    .map_err(|e| internal(&e))?;
    prepared.map_err(|refusal| ScanFailure::Image(refusal.reason()))
}
