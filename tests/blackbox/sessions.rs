//! The user's own sessions: listed with their browser, signed out one by
//! one or all others, ended by a new password, and a signed-out browser's
//! push subscription goes with it.

use crate::push::{subscribe, BrowserKeys};
use crate::support::*;
use serde_json::json;

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

async fn login_as(app: &TestApp, user: &TestUser, agent: &str) -> String {
    let req = app
        .client
        .post(app.url("/actions/login"))
        .header("content-type", "application/json")
        .header("user-agent", agent)
        .body(json!({"email": user.email, "password": user.password}).to_string());
    app.reply(req).await.session_cookie().unwrap()
}

async fn signed_in(app: &TestApp, cookie: &str) -> bool {
    app.action("getSettings", json!({}), Some(cookie))
        .await
        .ok()
}

async fn push_count(app: &TestApp, user: &TestUser) -> i64 {
    let id = app.user_id(user).await;
    app.state
        .db
        .run(move |c| cashkeeper::store::push_subscriptions::count_for_user(c, &id))
        .await
        .unwrap()
}

#[tokio::test]
async fn sessions_are_listed_with_their_browser_and_the_current_one_marked() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let laptop = login_as(&app, &user, FIREFOX).await;
    let phone = login_as(&app, &user, IPHONE).await;
    // Another user's sessions are never listed.
    app.new_user().await;

    let listed = app.action("listSessions", json!({}), Some(&phone)).await;
    let rows = listed.data().as_array().unwrap().clone();
    assert_eq!(rows.len(), 3, "{rows:?}");
    let current: Vec<_> = rows.iter().filter(|r| r["current"] == true).collect();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0]["userAgent"], IPHONE);
    assert!(rows.iter().any(|r| r["userAgent"] == FIREFOX));
    for r in &rows {
        for field in ["id", "createdAt", "lastSeenAt"] {
            assert!(r[field].as_str().is_some_and(|v| !v.is_empty()), "{r}");
        }
        assert!(r.get("tokenHash").is_none(), "the hash is never shown: {r}");
    }
    assert!(signed_in(&app, &laptop).await);
}

#[tokio::test]
async fn one_session_or_all_others_are_signed_out() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let laptop = login_as(&app, &user, FIREFOX).await;
    let phone = login_as(&app, &user, IPHONE).await;
    let rows = app.action("listSessions", json!({}), Some(&phone)).await;
    let laptop_id = rows
        .data()
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["userAgent"] == FIREFOX)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();

    // Another user cannot sign this session out: it answers like an unknown id.
    let stranger = app.new_user().await;
    let foreign = app
        .action(
            "revokeSession",
            json!({"id": laptop_id}),
            Some(&stranger.cookie),
        )
        .await;
    let unknown = app
        .action(
            "revokeSession",
            json!({"id": "no-such-session"}),
            Some(&stranger.cookie),
        )
        .await;
    assert_eq!(foreign.status, unknown.status);
    assert_eq!(foreign.body, unknown.body);
    assert!(signed_in(&app, &laptop).await);

    let revoked = app
        .action("revokeSession", json!({"id": laptop_id}), Some(&phone))
        .await;
    assert!(revoked.ok(), "{}", revoked.body);
    assert!(!signed_in(&app, &laptop).await);
    assert!(signed_in(&app, &phone).await);

    let others = app
        .action("revokeOtherSessions", json!({}), Some(&phone))
        .await;
    assert_eq!(others.data()["revoked"], 1, "the registration's session");
    assert!(!signed_in(&app, &user.cookie).await);
    assert!(signed_in(&app, &phone).await);
    let rows = app.action("listSessions", json!({}), Some(&phone)).await;
    assert_eq!(rows.data().as_array().unwrap().len(), 1);

    // Revoking the current session signs this browser out, cookie and all.
    let phone_id = rows.data()[0]["id"].as_str().unwrap().to_string();
    let own = app
        .action("revokeSession", json!({"id": phone_id}), Some(&phone))
        .await;
    assert!(own.set_cookie().unwrap().contains("Max-Age=0"));
    assert!(!signed_in(&app, &phone).await);
}

#[tokio::test]
async fn a_new_password_signs_out_the_other_sessions() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other = login_as(&app, &user, FIREFOX).await;
    let changed = app
        .action(
            "changePassword",
            json!({"currentPassword": user.password, "newPassword": "another long password"}),
            Some(&user.cookie),
        )
        .await;
    assert!(changed.ok(), "{}", changed.body);
    assert!(signed_in(&app, &user.cookie).await);
    assert!(!signed_in(&app, &other).await);
}

#[tokio::test]
async fn signing_a_browser_out_removes_its_push_subscription_only() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let phone = login_as(&app, &user, IPHONE).await;
    let laptop = login_as(&app, &user, FIREFOX).await;
    let tablet = login_as(&app, &user, FIREFOX).await;
    for (cookie, endpoint) in [
        (&phone, "https://push.example.net/phone"),
        (&laptop, "https://push.example.net/laptop"),
        (&tablet, "https://push.example.net/tablet"),
    ] {
        let res = subscribe(&app, cookie, &BrowserKeys::new().json(endpoint)).await;
        assert!(res.status().is_success(), "{}", res.text().await.unwrap());
    }
    assert_eq!(push_count(&app, &user).await, 3);

    // Logout ends this browser's reminders, not the others'.
    let out = app.action("logout", json!({}), Some(&phone)).await;
    assert!(out.ok());
    assert_eq!(push_count(&app, &user).await, 2);

    // Signed out from elsewhere: the same.
    let rows = app.action("listSessions", json!({}), Some(&laptop)).await;
    let tablet_id = rows
        .data()
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["current"] == false && r["userAgent"] == FIREFOX)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.action("revokeSession", json!({"id": tablet_id}), Some(&laptop))
        .await
        .data();
    assert_eq!(push_count(&app, &user).await, 1);
    let id = app.user_id(&user).await;
    let endpoints = app
        .state
        .db
        .run(move |c| cashkeeper::store::push_subscriptions::list_for_user(c, &id))
        .await
        .unwrap();
    assert_eq!(endpoints[0].endpoint, "https://push.example.net/laptop");
}
