//! Sign-in: register, login, logout, sessions, password reset, registration modes.

use crate::smtp;
use crate::support::*;
use cashkeeper::config::{Registration, Secret};
use serde_json::json;
use std::time::Duration;

/// The `<input>` tag with `id`.
fn input_tag<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<input id=\"{id}\""))
        .unwrap_or_else(|| panic!("#{id} in {html}"));
    &html[start..start + html[start..].find('>').unwrap()]
}

#[tokio::test]
async fn sign_in_and_sign_up_start_in_their_first_field() {
    let app = spawn_app().await;
    for lang in ["en", "de"] {
        let login = signed_out_page(&app, "/login", lang).await;
        assert!(
            input_tag(&login, "f-email").contains(" autofocus"),
            "{login}"
        );
        assert!(!input_tag(&login, "f-password").contains("autofocus"));
        let register = signed_out_page(&app, "/register", lang).await;
        assert!(
            input_tag(&register, "f-name").contains(" autofocus"),
            "{register}"
        );
        assert_eq!(register.matches("autofocus").count(), 1);
    }
}

#[tokio::test]
async fn register_signs_the_new_user_in() {
    let app = spawn_app().await;
    let reply = app.register("Ann@Example.org", "correct horse").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.data()["email"], "Ann@Example.org");
    assert!(reply.data()["id"].as_str().unwrap().len() == 36);
    assert!(reply.data().get("passwordHash").is_none());
    let cookie = reply.session_cookie().unwrap();

    let res = app.get("/api/auth/session", Some(&cookie)).await;
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["user"]["email"], "Ann@Example.org");
    assert_eq!(body["user"]["id"], reply.data()["id"]);
}

#[tokio::test]
async fn the_session_cookie_is_http_only_lax_and_not_secure_over_http() {
    let app = spawn_app().await;
    let cookie = app
        .register(&unique_email(), "correct horse")
        .await
        .set_cookie()
        .unwrap();
    assert!(cookie.starts_with("cashkeeper_session="), "{cookie}");
    let attrs: Vec<&str> = cookie.split("; ").collect();
    assert!(attrs.contains(&"Path=/"), "{cookie}");
    assert!(attrs.contains(&"HttpOnly"), "{cookie}");
    assert!(attrs.contains(&"SameSite=Lax"), "{cookie}");
    assert!(!attrs.contains(&"Secure"), "{cookie}");
    let value = cookie.split(';').next().unwrap().split('=').nth(1).unwrap();
    assert_eq!(value.len(), 64, "32 random bytes in hex");
}

#[tokio::test]
async fn the_session_cookie_is_secure_when_the_base_url_is_https() {
    let app = spawn_app_with(|c| c.base_url = "https://money.example.org".into()).await;
    let cookie = app
        .register(&unique_email(), "correct horse")
        .await
        .set_cookie()
        .unwrap();
    assert!(cookie.split("; ").any(|a| a == "Secure"), "{cookie}");
}

#[tokio::test]
async fn only_a_hash_of_the_session_is_stored() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let cookie = user.cookie.clone();
    let stored: Vec<(String, String)> = app
        .state
        .db
        .run(|c| {
            let mut s = c.prepare("SELECT token_hash, user_id FROM sessions")?;
            let rows = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_ne!(stored[0].0, cookie);
    assert_eq!(stored[0].0, cashkeeper::auth::secrets::sha256_hex(&cookie));
    assert_eq!(stored[0].1, user.id);
}

#[tokio::test]
async fn login_matches_the_email_in_any_letter_case() {
    let app = spawn_app().await;
    app.register("Mixed.Case@Example.org", "correct horse")
        .await
        .data();
    let reply = app.login("mixed.case@EXAMPLE.ORG", "correct horse").await;
    assert_eq!(reply.data()["email"], "Mixed.Case@Example.org");
    assert!(reply.session_cookie().is_some());
}

#[tokio::test]
async fn an_email_taken_in_another_case_cannot_register_again() {
    let app = spawn_app().await;
    app.register("ann@example.org", "correct horse")
        .await
        .data();
    let reply = app.register("ANN@example.org", "another password").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.error(), Some("email: is already registered"));
}

#[tokio::test]
async fn a_wrong_password_or_unknown_email_is_the_same_refusal() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let wrong = app.login(&user.email, "not the password").await;
    let unknown = app.login("nobody@example.org", "not the password").await;
    assert_eq!(wrong.status, 200);
    assert_eq!(wrong.error(), Some("invalid email or password"));
    assert_eq!(unknown.error(), wrong.error());
    assert!(wrong.session_cookie().is_none());
}

#[tokio::test]
async fn registration_input_errors_name_the_field() {
    let app = spawn_app().await;
    let cases = [
        (
            json!({"email": "not-an-address", "password": "correct horse"}),
            "email: ",
        ),
        (
            json!({"email": "a@example.org", "password": "short"}),
            "password: must be at least 8 characters",
        ),
        (json!({"password": "correct horse"}), "email: is required"),
        (json!({"email": "a@example.org"}), "password: is required"),
        (
            json!({"email": 42, "password": "correct horse"}),
            "email: must be text",
        ),
    ];
    for (body, expected) in cases {
        let reply = app.action("register", body.clone(), None).await;
        assert_eq!(reply.status, 200, "{body}");
        let err = reply.error().unwrap();
        assert!(err.starts_with(expected), "{body}: {err}");
    }
    let reply = app
        .action("login", json!({"email": "nope", "password": "x"}), None)
        .await;
    assert!(reply.error().unwrap().starts_with("email: "));
}

#[tokio::test]
async fn logout_ends_the_session_on_the_server() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let reply = app.action("logout", json!({}), Some(&user.cookie)).await;
    assert!(reply.ok());
    assert!(reply.set_cookie().unwrap().contains("Max-Age=0"));
    // The old cookie no longer works anywhere, even if a client kept it.
    assert_eq!(
        app.get("/api/auth/session", Some(&user.cookie))
            .await
            .status(),
        401
    );
    let again = app
        .action("getSettings", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(again.status, 401);
    assert_eq!(app.get("/", Some(&user.cookie)).await.status(), 303);
}

#[tokio::test]
async fn a_session_expires_after_thirty_days_without_use_and_slides_with_use() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // Used on day 20: the expiry moves to day 50, and the cookie is renewed.
    app.state.clock.advance(chrono::Duration::days(20));
    let res = app.get("/api/auth/session", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    let renewed = res.headers().get("set-cookie").unwrap().to_str().unwrap();
    assert!(renewed.contains("Max-Age=2592000"), "{renewed}");
    // Day 45: still alive thanks to the slide.
    app.state.clock.advance(chrono::Duration::days(25));
    assert_eq!(
        app.get("/api/auth/session", Some(&user.cookie))
            .await
            .status(),
        200
    );
    // 31 idle days later: gone.
    app.state.clock.advance(chrono::Duration::days(31));
    assert_eq!(
        app.get("/api/auth/session", Some(&user.cookie))
            .await
            .status(),
        401
    );
}

#[tokio::test]
async fn repeated_failed_logins_lock_the_address_for_a_while() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for _ in 0..5 {
        let r = app.login(&user.email, "wrong password").await;
        assert_eq!(r.error(), Some("invalid email or password"));
    }
    // Now even the right password is refused, without a session.
    let locked = app.login(&user.email, &user.password).await;
    assert!(
        locked
            .error()
            .unwrap()
            .starts_with("too many failed sign-ins"),
        "{:?}",
        locked.error()
    );
    assert!(locked.session_cookie().is_none());
    // Another address is not affected.
    let other = app.new_user().await;
    assert!(app.login(&other.email, &other.password).await.ok());
    // After the lock, the right password works again.
    app.state.clock.advance(chrono::Duration::minutes(16));
    assert!(app.login(&user.email, &user.password).await.ok());
}

#[tokio::test]
async fn closed_registration_refuses_everyone() {
    let app = spawn_app_with(|c| c.registration = Registration::Closed).await;
    let reply = app.register(&unique_email(), "correct horse").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.error(), Some("registration is closed"));
    let page = app.get("/register", None).await.text().await.unwrap();
    assert!(
        !page.contains("data-action=\"register\""),
        "no form when closed"
    );
}

#[tokio::test]
async fn first_user_registration_admits_exactly_one() {
    let app = spawn_app_with(|c| c.registration = Registration::FirstUser).await;
    let page = app.get("/register", None).await.text().await.unwrap();
    assert!(page.contains("data-action=\"register\""));
    assert!(app.register(&unique_email(), "correct horse").await.ok());
    let second = app.register(&unique_email(), "correct horse").await;
    assert_eq!(second.error(), Some("registration is closed"));
    let page = app.get("/register", None).await.text().await.unwrap();
    assert!(!page.contains("data-action=\"register\""));
}

#[tokio::test]
async fn forgot_password_answers_the_same_for_known_and_unknown_addresses() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let known = app
        .action("forgotPassword", json!({"email": user.email}), None)
        .await;
    let unknown = app
        .action(
            "forgotPassword",
            json!({"email": "nobody@example.org"}),
            None,
        )
        .await;
    assert_eq!(known.status, 200);
    assert_eq!(known.body, unknown.body);
    assert_eq!(known.body["success"], true);
}

/// Waits for the next mail, or fails after a few seconds.
async fn next_mail(sink: &mut smtp::Sink) -> smtp::Mail {
    tokio::time::timeout(Duration::from_secs(10), sink.mails.recv())
        .await
        .expect("a mail arrives")
        .expect("sink open")
}

fn reset_token(mail: &smtp::Mail, base: &str) -> String {
    let text = mail.decoded();
    let prefix = format!("{base}/reset-password?token=");
    let start = text
        .find(&prefix)
        .unwrap_or_else(|| panic!("no link in {text}"))
        + prefix.len();
    text[start..start + 64].to_string()
}

#[tokio::test]
async fn password_reset_by_mail_works_exactly_once() {
    let mut sink = smtp::start().await;
    let url = sink.url.clone();
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(Secret::new(url));
        c.mail_from = "cashkeeper <budget@example.org>".into();
    })
    .await;
    let user = app.new_user().await;
    let other_session = app
        .login(&user.email, &user.password)
        .await
        .session_cookie()
        .unwrap();

    assert!(app
        .action(
            "forgotPassword",
            json!({"email": user.email.to_uppercase()}),
            None
        )
        .await
        .ok());
    let mail = next_mail(&mut sink).await;
    assert_eq!(mail.to, vec![format!("<{}>", user.email)]);
    assert_eq!(mail.from, "<budget@example.org>");
    let token = reset_token(&mail, &app.base);

    // The link opens a page with the form.
    let page = app
        .get(&format!("/reset-password?token={token}"), None)
        .await;
    assert_eq!(page.status(), 200);
    assert!(page
        .text()
        .await
        .unwrap()
        .contains("data-action=\"resetPassword\""));

    // Too short a password is refused and does not use the link up.
    let short = app
        .action(
            "resetPassword",
            json!({"token": token, "password": "short"}),
            None,
        )
        .await;
    assert_eq!(
        short.error(),
        Some("password: must be at least 8 characters")
    );

    let reset = app
        .action(
            "resetPassword",
            json!({"token": token, "password": "brand new secret"}),
            None,
        )
        .await;
    assert!(reset.ok(), "{}", reset.body);
    // Every old session ended, the old password is gone, the new one works.
    assert_eq!(
        app.get("/api/auth/session", Some(&user.cookie))
            .await
            .status(),
        401
    );
    assert_eq!(
        app.get("/api/auth/session", Some(&other_session))
            .await
            .status(),
        401
    );
    assert!(!app.login(&user.email, &user.password).await.ok());
    assert!(app.login(&user.email, "brand new secret").await.ok());

    // The link works once.
    let again = app
        .action(
            "resetPassword",
            json!({"token": token, "password": "yet another one"}),
            None,
        )
        .await;
    assert_eq!(again.error(), Some("token: is invalid or expired"));
    let page = app
        .get(&format!("/reset-password?token={token}"), None)
        .await;
    assert!(!page
        .text()
        .await
        .unwrap()
        .contains("data-action=\"resetPassword\""));
}

#[tokio::test]
async fn a_reset_link_expires_after_one_hour_and_is_stored_hashed() {
    let mut sink = smtp::start().await;
    let url = sink.url.clone();
    let app = spawn_app_with(|c| c.smtp_url = Some(Secret::new(url))).await;
    let user = app.new_user().await;
    app.action("forgotPassword", json!({"email": user.email}), None)
        .await;
    let token = reset_token(&next_mail(&mut sink).await, &app.base);

    let stored: String = app
        .state
        .db
        .run(|c| Ok(c.query_row("SELECT token_hash FROM password_resets", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(stored, cashkeeper::auth::secrets::sha256_hex(&token));

    app.state.clock.advance(chrono::Duration::minutes(61));
    let late = app
        .action(
            "resetPassword",
            json!({"token": token, "password": "brand new secret"}),
            None,
        )
        .await;
    assert_eq!(late.error(), Some("token: is invalid or expired"));
    assert!(app.login(&user.email, &user.password).await.ok());
}

#[tokio::test]
async fn an_unknown_address_gets_no_mail() {
    let mut sink = smtp::start().await;
    let url = sink.url.clone();
    let app = spawn_app_with(|c| c.smtp_url = Some(Secret::new(url))).await;
    let user = app.new_user().await;
    app.action(
        "forgotPassword",
        json!({"email": "nobody@example.org"}),
        None,
    )
    .await;
    app.action("forgotPassword", json!({"email": user.email}), None)
        .await;
    // Only the known address's mail arrives.
    let mail = next_mail(&mut sink).await;
    assert_eq!(mail.to, vec![format!("<{}>", user.email)]);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), sink.mails.recv())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn change_password_checks_the_current_one_and_keeps_this_session() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other = app
        .login(&user.email, &user.password)
        .await
        .session_cookie()
        .unwrap();
    let wrong = app
        .action(
            "changePassword",
            json!({"currentPassword": "not it at all", "newPassword": "brand new secret"}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(
        wrong.error(),
        Some("currentPassword: is not your current password")
    );
    let ok = app
        .action(
            "changePassword",
            json!({"currentPassword": user.password, "newPassword": "brand new secret"}),
            Some(&user.cookie),
        )
        .await;
    assert!(ok.ok(), "{}", ok.body);
    assert_eq!(
        app.get("/api/auth/session", Some(&user.cookie))
            .await
            .status(),
        200
    );
    assert_eq!(
        app.get("/api/auth/session", Some(&other)).await.status(),
        401
    );
    assert!(app.login(&user.email, "brand new secret").await.ok());
}

#[tokio::test]
async fn settings_change_name_locale_and_base_currency_with_named_errors() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let updated = app
        .action(
            "updateSettings",
            json!({"name": " Ann ", "locale": "de", "baseCurrency": "chf"}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(updated.data()["name"], "Ann");
    assert_eq!(updated.data()["locale"], "de");
    assert_eq!(updated.data()["baseCurrency"], "CHF");
    let got = app
        .action("getSettings", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(got.data()["locale"], "de");
    for (body, field) in [
        (json!({"locale": "fr"}), "locale: "),
        (json!({"baseCurrency": "XXX"}), "baseCurrency: "),
        (json!({"name": "x".repeat(101)}), "name: "),
    ] {
        let r = app.action("updateSettings", body, Some(&user.cookie)).await;
        assert!(r.error().unwrap().starts_with(field), "{:?}", r.error());
    }
}

#[tokio::test]
async fn the_accept_language_of_registration_becomes_the_locale() {
    let app = spawn_app().await;
    let reply = app
        .reply(
            app.client
                .post(app.url("/actions/register"))
                .header("content-type", "application/json")
                .header("accept-language", "de-DE,de;q=0.9,en;q=0.5")
                .body(json!({"email": unique_email(), "password": "correct horse"}).to_string()),
        )
        .await;
    assert_eq!(reply.data()["locale"], "de");
}

/// A signed-out page in `lang` (its Accept-Language).
async fn signed_out_page(app: &TestApp, path: &str, lang: &str) -> String {
    let res = app
        .client
        .get(app.url(path))
        .header("accept-language", lang)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{path}");
    res.text().await.unwrap()
}

#[tokio::test]
async fn a_dead_reset_link_is_shown_as_an_error() {
    let app = spawn_app().await;
    for (lang, invalid) in [
        (
            "en",
            "This link is invalid, used or expired. Ask for a new one.",
        ),
        (
            "de",
            "Dieser Link ist ungültig, schon benutzt oder abgelaufen. Fordere einen neuen an.",
        ),
    ] {
        let reset = signed_out_page(&app, "/reset-password?token=used", lang).await;
        assert!(
            reset.contains(&format!(
                "<p class=\"notice error\" role=\"alert\">{invalid}</p>"
            )),
            "{reset}"
        );
    }
}
