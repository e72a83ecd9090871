//! The app's clock, which the tests set: no test waits for time to pass.

use super::{TestApp, TestUser};
use chrono::{NaiveDate, TimeZone, Utc};

impl TestApp {
    /// Sets the app's clock to `hour`:00 UTC of `day` ("2026-03-15").
    pub fn set_day(&self, day: &str, hour: u32) {
        let d: NaiveDate = day.parse().unwrap();
        self.state
            .clock
            .set(Utc.from_utc_datetime(&d.and_hms_opt(hour, 0, 0).unwrap()));
    }

    /// Sets the clock to `hour`:00 UTC of `day` and signs `user` in again:
    /// a session ends after 30 days unused.
    pub async fn move_to_day(&self, user: &mut TestUser, day: &str, hour: u32) {
        self.set_day(day, hour);
        self.sign_in_again(user).await;
    }
}
