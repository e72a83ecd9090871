//! What the application layer's unit tests stand on: the state over a
//! fresh temporary data directory (migrated as at start), its clock set by
//! the test, and users in it. No HTTP: a use case is called as a door
//! calls it.

use crate::config::Config;
use crate::error::{Error, Reason};
use crate::state::AppState;
use crate::store::users::{NewUser, UserId};
use chrono::{NaiveDate, TimeZone, Utc};

pub(crate) struct Fixture {
    pub state: AppState,
    _dir: tempfile::TempDir,
}

impl Fixture {
    /// A state over an empty data directory, its clock at 10:00 UTC of
    /// `today` ("2026-03-15").
    pub fn on(today: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let state = AppState::new(Config::for_data_dir(dir.path())).unwrap();
        let fixture = Fixture { state, _dir: dir };
        fixture.set_day(today);
        fixture
    }

    /// Moves the clock to 10:00 UTC of `day`.
    pub fn set_day(&self, day: &str) {
        let d: NaiveDate = day.parse().unwrap();
        self.state
            .clock
            .set(Utc.from_utc_datetime(&d.and_hms_opt(10, 0, 0).unwrap()));
    }

    /// A new user (with the default categories, as registration makes it).
    pub async fn user(&self, email: &str) -> UserId {
        let (email, now) = (
            email.to_string(),
            crate::clock::timestamp(self.state.clock.now()),
        );
        self.state
            .db
            .transaction(move |tx| {
                crate::app::users::open(
                    tx,
                    &NewUser {
                        email: &email,
                        name: "",
                        password_hash: "not a hash: never signs in",
                        locale: crate::domain::locale::Locale::En,
                        now: &now,
                    },
                )
            })
            .await
            .unwrap()
            .id
    }
}

/// The (field, reason) pairs of a refusal, one or several.
pub(crate) fn fields(e: &Error) -> Vec<(String, Reason)> {
    match e {
        Error::Invalid { field, reason } => vec![(field.to_string(), reason.clone())],
        Error::Several(all) => all.iter().flat_map(fields).collect(),
        other => panic!("not a refusal of fields: {other:?}"),
    }
}
