//! Transfers between two of the user's own accounts, once or recurring.
//! The amount is in the source account's currency.

use super::recurring::Planned;
use super::table::{read_columns, written_columns, Table};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transfer {
    pub id: String,
    pub from_account_id: String,
    pub to_account_id: String,
    #[serde(flatten)]
    pub plan: Planned,
    pub note: String,
    pub created_at: String,
    pub updated_at: String,
}

pub struct NewTransfer {
    pub from_account_id: String,
    pub to_account_id: String,
    pub plan: Planned,
    pub note: String,
}

impl Table for Transfer {
    type New = NewTransfer;
    const NAME: &'static str = "transfers";
    const ORDER: &'static str = "start_date DESC, id";

    read_columns! {
        from_account_id, to_account_id, note, created_at, updated_at;
        plan
    }

    written_columns! { t;
        "from_account_id" => t.from_account_id, "to_account_id" => t.to_account_id,
        "note" => t.note;
        plan: t.plan,
    }
}
