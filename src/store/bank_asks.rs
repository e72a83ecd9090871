//! The scheduled bank sync's asks for a TAN or an approval
//! (`docs/bank-sync.md`): one per connection, so the person is asked once
//! and the bank is not asked again until a sync of the connection has
//! completed since.

use super::users::UserId;
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};

/// An ask: when, and the connection's last sync as it was then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ask {
    pub asked_at: String,
    pub last_sync_at: Option<String>,
}

impl Ask {
    /// Whether the connection is still waiting for the person: no sync has
    /// completed since the ask (its last sync is the one seen then).
    pub fn waiting(&self, last_sync_at: Option<&str>) -> bool {
        self.last_sync_at.as_deref() == last_sync_at
    }
}

/// The ask of the user's connection, if one is kept.
pub fn find(c: &Connection, user: &UserId, connection: &str) -> Result<Option<Ask>> {
    Ok(c.query_row(
        "SELECT asked_at, last_sync_at FROM bank_sync_asks
         WHERE user_id = ?1 AND connection_id = ?2",
        params![user, connection],
        |r| {
            Ok(Ask {
                asked_at: r.get(0)?,
                last_sync_at: r.get(1)?,
            })
        },
    )
    .optional()?)
}

/// Remembers that the person was asked for the connection, whose last
/// sync is `last_sync_at`.
pub fn remember(
    c: &Connection,
    user: &UserId,
    connection: &str,
    last_sync_at: Option<&str>,
    now: &str,
) -> Result<()> {
    c.execute(
        "INSERT INTO bank_sync_asks (connection_id, user_id, asked_at, last_sync_at)
         SELECT id, user_id, ?3, ?4 FROM bank_connections WHERE id = ?2 AND user_id = ?1
         ON CONFLICT (connection_id) DO UPDATE
             SET asked_at = excluded.asked_at, last_sync_at = excluded.last_sync_at",
        params![user, connection, now, last_sync_at],
    )?;
    Ok(())
}

/// Forgets the ask of the connection (the person has acted).
pub fn forget(c: &Connection, user: &UserId, connection: &str) -> Result<()> {
    c.execute(
        "DELETE FROM bank_sync_asks WHERE user_id = ?1 AND connection_id = ?2",
        params![user, connection],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Ask;

    #[test]
    fn an_ask_waits_until_a_sync_completes_after_it() {
        let never = Ask {
            asked_at: "2026-01-02T05:20:00Z".into(),
            last_sync_at: None,
        };
        assert!(never.waiting(None));
        assert!(!never.waiting(Some("2026-01-02T09:00:00Z")));
        let synced = Ask {
            asked_at: "2026-01-02T05:20:00Z".into(),
            last_sync_at: Some("2026-01-01T05:20:00Z".into()),
        };
        assert!(synced.waiting(Some("2026-01-01T05:20:00Z")));
        assert!(!synced.waiting(Some("2026-01-02T09:00:00Z")));
    }
}
