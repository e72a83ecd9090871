//! What the bank actions and pages answer of a connection and a sync, and
//! what they are asked with. Never the PIN.

use crate::app::import::Counts;
use crate::config::Secret;
use crate::services::fints::Challenge;
use crate::store::bank::BankAccount;
use crate::store::users::User;
use base64::Engine;
use serde::Serialize;

// ---------------------------------------------------------------- replies

/// Where a connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionState {
    Ready,
    ChooseTanMethod,
    Tan,
    Syncing,
}

/// A TAN the bank asks for: the text it shows, and whether it waits for
/// an approval in the bank's app rather than a typed TAN.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TanView {
    pub challenge: String,
    pub decoupled: bool,
    /// The HHD_UC data of a flicker code (Base64), as the bank sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hhd_uc: Option<String>,
    /// A photoTAN or QR image, as a `data:` URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

impl TanView {
    pub(super) fn of(c: &Challenge) -> TanView {
        let (hhd_uc, image) = match c.hhd_uc.as_deref() {
            None | Some([]) => (None, None),
            Some(data) => match image_of(data) {
                Some(url) => (None, Some(url)),
                None => (
                    Some(base64::engine::general_purpose::STANDARD.encode(data)),
                    None,
                ),
            },
        };
        TanView {
            challenge: c.text.clone(),
            decoupled: c.decoupled,
            hhd_uc,
            image,
        }
    }
}

/// A photoTAN's matrix: two bytes of length, the MIME type, two bytes of
/// length, the image; as a `data:` URL.
fn image_of(data: &[u8]) -> Option<String> {
    let len = |at: usize| -> Option<usize> {
        Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]) as usize)
    };
    let mime_len = len(0)?;
    let mime = std::str::from_utf8(data.get(2..2 + mime_len)?).ok()?;
    if !mime.starts_with("image/") || mime.contains(|c: char| c.is_whitespace() || c == ';') {
        return None;
    }
    let image_len = len(2 + mime_len)?;
    let image = data.get(4 + mime_len..4 + mime_len + image_len)?;
    Some(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(image)
    ))
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TanMethodView {
    pub code: String,
    pub name: String,
    pub decoupled: bool,
}

/// A bank account as a connection answers it: the store's, whose last
/// booking day is not answered.
pub type AccountView = BankAccount;

/// A connection as the doors answer it. Never the PIN.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionView {
    pub id: String,
    pub bank_code: String,
    pub bank_name: String,
    pub login_name: String,
    pub state: ConnectionState,
    pub tan: Option<TanView>,
    /// Only while `state` is `choose_tan_method`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tan_methods: Option<Vec<TanMethodView>>,
    /// The bank's accounts, each with the user's account it is linked to.
    pub accounts: Vec<BankAccount>,
    pub pin_saved: bool,
    pub auto_sync: bool,
    pub auto_confirm: bool,
    pub last_sync_at: Option<String>,
    /// The last failure in the reader's language; null after a success.
    pub last_error: Option<String>,
    /// The batches of the sync a `sendTan` or `chooseTanMethod` finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<Vec<SyncedBatch>>,
}

/// A batch a sync staged for one linked account.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncedBatch {
    pub account_id: String,
    pub batch_id: String,
    pub counts: Counts,
}

/// Where a sync stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncState {
    /// Finished: every linked account's batch is staged.
    Done,
    /// A TAN or an approval is awaited (`sendTan`, or the approval in the
    /// app); the same sync then goes on by itself.
    Tan,
    /// A TAN method is to be chosen (`chooseTanMethod`) first.
    ChooseTanMethod,
}

/// What `syncBank` and [`sync_connection`] answer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncOutcome {
    pub state: SyncState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tan: Option<TanView>,
    pub batches: Vec<SyncedBatch>,
    /// The bank's name, for a message about the sync ("12 new bookings at
    /// <bank>").
    #[serde(skip)]
    pub bank_name: String,
}

impl SyncOutcome {
    /// Bookings staged as new, over all batches.
    pub fn new_bookings(&self) -> i64 {
        self.batches.iter().map(|b| b.counts.new).sum()
    }
}

// ---------------------------------------------------------------- inputs

/// `connectBank`'s input, checked by the door.
pub struct ConnectInput {
    pub bank_code: String,
    pub url: Option<String>,
    pub login_name: String,
    pub customer_id: Option<String>,
    pub pin: Secret,
    pub save_pin: bool,
}

/// `setBankSync`'s input.
#[derive(Default)]
pub struct SyncSettings {
    pub auto_sync: Option<bool>,
    pub auto_confirm: Option<bool>,
    pub save_pin: Option<bool>,
    pub pin: Option<Secret>,
}

/// A connection with automatic sync on, for the scheduled sync.
#[derive(Clone, Debug)]
pub struct AutoSync {
    pub user: User,
    pub connection_id: String,
    pub bank_name: String,
    pub auto_confirm: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phototan_matrix_is_an_image_and_a_flicker_code_is_not() {
        let mut data = vec![0, 9];
        data.extend_from_slice(b"image/png");
        data.extend_from_slice(&[0, 3, 1, 2, 3]);
        assert_eq!(
            image_of(&data).as_deref(),
            Some("data:image/png;base64,AQID")
        );
        assert_eq!(image_of(b"\x0f\x04\x01\x02"), None);
        assert_eq!(image_of(&[]), None);
        let tan = TanView::of(&Challenge {
            text: "Bitte TAN".into(),
            decoupled: false,
            hhd_uc: Some(vec![1, 2, 3]),
            poll_after: std::time::Duration::ZERO,
        });
        assert_eq!(tan.hhd_uc.as_deref(), Some("AQID"));
        assert!(tan.image.is_none());
    }
}
