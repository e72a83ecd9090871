//! Typed users: a [`TestUser`] is signed in and carries its session
//! cookie, so a call made as it needs nothing else.

use super::{ActionReply, TestApp};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A signed-in user of a test app.
pub struct TestUser {
    pub email: String,
    pub password: String,
    pub cookie: String,
    pub id: String,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

pub fn unique_email() -> String {
    format!(
        "user{}@example.org",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

impl TestApp {
    pub async fn register(&self, email: &str, password: &str) -> ActionReply {
        self.action(
            "register",
            json!({ "email": email, "password": password }),
            None,
        )
        .await
    }

    pub async fn login(&self, email: &str, password: &str) -> ActionReply {
        self.action(
            "login",
            json!({ "email": email, "password": password }),
            None,
        )
        .await
    }

    /// Registers a fresh user and returns it signed in.
    pub async fn new_user(&self) -> TestUser {
        let email = unique_email();
        let password = "correct horse battery".to_string();
        let reply = self.register(&email, &password).await;
        let id = reply.data()["id"].as_str().unwrap().to_string();
        TestUser {
            cookie: reply
                .session_cookie()
                .expect("register sets the session cookie"),
            email,
            password,
            id,
        }
    }

    /// Signs `user` in again and keeps the new cookie: a session does not
    /// outlive a jump of the clock by weeks.
    pub async fn sign_in_again(&self, user: &mut TestUser) {
        user.cookie = self
            .login(&user.email, &user.password)
            .await
            .session_cookie()
            .expect("signs in again");
    }

    /// The stored id of a test user, as the store's functions take it.
    pub async fn user_id(&self, user: &TestUser) -> cashkeeper::store::users::UserId {
        let email = user.email.clone();
        self.state
            .db
            .run(move |c| cashkeeper::store::users::find_by_email(c, &email))
            .await
            .unwrap()
            .expect("the test user is stored")
            .id
    }
}
