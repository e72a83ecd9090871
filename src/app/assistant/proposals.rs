//! The assistant's proposals: [`confirm`] books one exactly once,
//! [`discard`] sets it aside (`docs/actions.md`, Assistant).
//!
//! Confirm runs in one write transaction: the proposal must still be
//! pending, its write is the very one its action runs ([`tools::book`]:
//! decoded and validated again, today's data), and the proposal is marked
//! saved with the booked record's id before the transaction commits. Two
//! confirms at once queue for the write lock; the second finds the
//! proposal saved and is refused.

use super::tools;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::proposals::{self, Proposal, State};
use crate::store::users::{User, UserId};
use serde::Serialize;
use serde_json::Value;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settled {
    pub proposal_id: String,
    pub state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_id: Option<String>,
    /// The booked record as its action answers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<Value>,
}

/// The refusal for a proposal that is not pending: its state, and the
/// record it booked.
fn settled_already(p: &Proposal) -> Error {
    match (p.state, &p.record_id) {
        (State::Saved, Some(record)) => {
            Error::invalid("proposalId", Reason::ProposalSaved(Some(record.clone())))
        }
        (State::Saved, None) => Error::invalid("proposalId", Reason::ProposalSaved(None)),
        _ => Error::invalid("proposalId", Reason::ProposalDiscarded),
    }
}

/// Books a pending proposal: `{proposalId, state: "saved", recordId, record}`.
/// An expense booked works out the budget insights again, as a save
/// through its action does.
pub async fn confirm(state: &AppState, user: &User, id: String) -> Result<Settled> {
    let (user, user_id) = (user.clone(), user.id.clone());
    let (now, today) = (
        crate::clock::timestamp(state.clock.now()),
        state.clock.today(),
    );
    let (settled, spends) = state
        .db
        .transaction(move |tx| {
            let p = proposals::find(tx, &user.id, &id)?.ok_or(Error::NotFound)?;
            if p.state != State::Pending {
                return Err(settled_already(&p));
            }
            let (record_id, record) =
                tools::book(tx, &user, &p.tool, p.arguments.clone(), &now, today)?;
            if !proposals::settle(tx, &user.id, &id, State::Saved, Some(&record_id), &now)? {
                return Err(Error::Internal(anyhow::anyhow!(
                    "proposal {id} left pending inside its own write transaction"
                )));
            }
            let settled = Settled {
                proposal_id: id,
                state: State::Saved,
                record_id: Some(record_id),
                record: Some(record),
            };
            Ok((settled, tools::spends(&p.tool)))
        })
        .await?;
    if spends {
        crate::app::budget_insights::refresh(state, &user_id).await;
    }
    Ok(settled)
}

/// Sets a proposal aside: `{proposalId, state: "discarded"}`. Discarding
/// a discarded proposal again answers the same; a saved one is refused
/// naming its record.
pub async fn discard(state: &AppState, user: &UserId, id: String) -> Result<Settled> {
    let user = user.clone();
    let now = crate::clock::timestamp(state.clock.now());
    state
        .db
        .transaction(move |tx| {
            let p = proposals::find(tx, &user, &id)?.ok_or(Error::NotFound)?;
            match p.state {
                State::Pending => {
                    proposals::settle(tx, &user, &id, State::Discarded, None, &now)?;
                }
                State::Discarded => {}
                State::Saved => return Err(settled_already(&p)),
            }
            Ok(Settled {
                proposal_id: id,
                state: State::Discarded,
                record_id: None,
                record: None,
            })
        })
        .await
}
