//! Two-factor sign-in (TOTP and recovery codes): setup, the second step of
//! login, its refusals, the limits, turning it off and the administrator's
//! reset. Codes are computed from the secret the setup shows, at the
//! server's clock (which the tests move).

use crate::support::*;
use cashkeeper::auth::totp;
use serde_json::{json, Value};

fn secret_of(setup: &Value) -> Vec<u8> {
    data_encoding::BASE32_NOPAD
        .decode(setup["secret"].as_str().unwrap().as_bytes())
        .unwrap()
}

fn code(app: &TestApp, secret: &[u8]) -> String {
    totp::code_at(secret, totp::step_at(app.state.clock.now().timestamp()))
}

/// Moves the server's clock to the next 30-second step.
fn next_step(app: &TestApp) {
    app.state.clock.advance(chrono::Duration::seconds(30));
}

/// A user with two-factor sign-in on: (user, secret, recovery codes).
async fn user_with_2fa(app: &TestApp) -> (TestUser, Vec<u8>, Vec<String>) {
    let user = app.new_user().await;
    let setup = app
        .action(
            "beginTotpSetup",
            json!({"password": user.password}),
            Some(&user.cookie),
        )
        .await;
    let secret = secret_of(setup.data());
    let enabled = app
        .action(
            "enableTotp",
            json!({"code": code(app, &secret)}),
            Some(&user.cookie),
        )
        .await;
    let codes = enabled.data()["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    next_step(app);
    (user, secret, codes)
}

async fn challenge(app: &TestApp, user: &TestUser) -> String {
    let reply = app.login(&user.email, &user.password).await;
    assert_eq!(reply.data()["totpRequired"], true, "{}", reply.body);
    assert!(reply.set_cookie().is_none(), "no session before the code");
    reply.data()["challenge"].as_str().unwrap().to_string()
}

async fn login_totp(app: &TestApp, challenge: &str, code: &str) -> ActionReply {
    app.action(
        "loginTotp",
        json!({"challenge": challenge, "code": code}),
        None,
    )
    .await
}

async fn signed_in(app: &TestApp, cookie: &str) -> bool {
    app.action("getSettings", json!({}), Some(cookie))
        .await
        .ok()
}

#[tokio::test]
async fn setup_shows_the_secret_and_turns_on_only_with_a_right_code() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other_browser = app
        .login(&user.email, &user.password)
        .await
        .session_cookie()
        .unwrap();

    let setup = app
        .action(
            "beginTotpSetup",
            json!({"password": user.password}),
            Some(&user.cookie),
        )
        .await;
    let data = setup.data();
    let secret = secret_of(data);
    assert_eq!(secret.len(), 20);
    let url = data["otpauthUrl"].as_str().unwrap();
    assert!(url.starts_with("otpauth://totp/cashkeeper:"), "{url}");
    assert!(url.contains(&format!("secret={}", data["secret"].as_str().unwrap())));
    assert!(url.contains("algorithm=SHA1&digits=6&period=30"));
    assert!(data["qrSvg"].as_str().unwrap().contains("<svg"));

    // Nothing is on yet: the password alone still signs in.
    let plain = app.login(&user.email, &user.password).await;
    assert!(plain.session_cookie().is_some(), "{}", plain.body);

    // A wrong code is refused naming the field.
    let right = code(&app, &secret);
    let wrong_code = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    let wrong = app
        .action(
            "enableTotp",
            json!({"code": wrong_code}),
            Some(&user.cookie),
        )
        .await;
    assert!(
        wrong.error().unwrap().starts_with("code: "),
        "{}",
        wrong.body
    );

    let enabled = app
        .action(
            "enableTotp",
            json!({"code": code(&app, &secret)}),
            Some(&user.cookie),
        )
        .await;
    let codes = enabled.data()["recoveryCodes"].as_array().unwrap();
    assert_eq!(codes.len(), 10);
    let mut unique: Vec<_> = codes.iter().map(|c| c.as_str().unwrap()).collect();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 10);

    // Turning it on signs the other browsers out, not this one.
    assert!(signed_in(&app, &user.cookie).await);
    assert!(!signed_in(&app, &other_browser).await);

    // A second setup is refused while it is on.
    let again = app
        .action(
            "beginTotpSetup",
            json!({"password": user.password}),
            Some(&user.cookie),
        )
        .await;
    assert!(
        again.error().unwrap().contains("already on"),
        "{}",
        again.body
    );

    // The database holds neither the secret nor the recovery codes readably.
    let id = app.user_id(&user).await;
    let (stored, hashes): (String, Vec<String>) = app
        .state
        .db
        .run(move |c| {
            let stored =
                c.query_row("SELECT totp_secret FROM users WHERE id = ?1", [&id], |r| {
                    r.get(0)
                })?;
            let mut s = c.prepare("SELECT code_hash FROM recovery_codes WHERE user_id = ?1")?;
            let hashes = s
                .query_map([&id], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok((stored, hashes))
        })
        .await
        .unwrap();
    assert!(stored.starts_with("v1:"), "{stored}");
    assert!(!stored.contains(data["secret"].as_str().unwrap()));
    assert_eq!(hashes.len(), 10);
    for c in codes {
        let c = c.as_str().unwrap();
        assert!(!hashes.iter().any(|h| h.contains(c)));
    }
}

#[tokio::test]
async fn login_asks_for_the_code_and_a_code_works_once() {
    let app = spawn_app().await;
    let (user, secret, _) = user_with_2fa(&app).await;

    let first = challenge(&app, &user).await;
    let now_code = code(&app, &secret);
    let ok = login_totp(&app, &first, &now_code).await;
    assert_eq!(ok.data()["email"], user.email.as_str());
    let cookie = ok.session_cookie().expect("the code signs in");
    assert!(signed_in(&app, &cookie).await);

    // The challenge is used up.
    let reused = login_totp(&app, &first, &now_code).await;
    assert!(
        reused.error().unwrap().starts_with("challenge: "),
        "{}",
        reused.body
    );
    // The same code with a new challenge: used up too.
    let second = challenge(&app, &user).await;
    let replay = login_totp(&app, &second, &now_code).await;
    assert!(
        replay.error().unwrap().starts_with("code: "),
        "{}",
        replay.body
    );
    // The previous step's code is older than the one used: refused.
    let older = totp::code_at(
        &secret,
        totp::step_at(app.state.clock.now().timestamp()) - 1,
    );
    let replay = login_totp(&app, &second, &older).await;
    assert!(replay.error().unwrap().starts_with("code: "));
    // The next step's code, with a space as apps show it, works.
    next_step(&app);
    let next = code(&app, &secret);
    let spaced = format!("{} {}", &next[..3], &next[3..]);
    let ok = login_totp(&app, &second, &spaced).await;
    assert!(ok.session_cookie().is_some(), "{}", ok.body);

    // A code one step early or late is accepted (clock drift).
    next_step(&app);
    next_step(&app);
    let third = challenge(&app, &user).await;
    let late = totp::code_at(
        &secret,
        totp::step_at(app.state.clock.now().timestamp()) - 1,
    );
    assert!(login_totp(&app, &third, &late).await.ok());

    // A made-up challenge is refused like a used one.
    let fake = login_totp(&app, &"ab".repeat(32), &code(&app, &secret)).await;
    assert!(fake.error().unwrap().starts_with("challenge: "));
    let garbage = login_totp(&app, "not a challenge", "123456").await;
    assert!(garbage.error().unwrap().starts_with("challenge: "));
}

#[tokio::test]
async fn a_challenge_lasts_five_minutes() {
    let app = spawn_app().await;
    let (user, secret, _) = user_with_2fa(&app).await;
    let c = challenge(&app, &user).await;
    app.state
        .clock
        .advance(chrono::Duration::minutes(5) + chrono::Duration::seconds(1));
    let late = login_totp(&app, &c, &code(&app, &secret)).await;
    assert!(
        late.error().unwrap().starts_with("challenge: "),
        "{}",
        late.body
    );
    assert!(late.session_cookie().is_none());
}

#[tokio::test]
async fn recovery_codes_sign_in_once_each() {
    let app = spawn_app().await;
    let (user, _, codes) = user_with_2fa(&app).await;
    let c = challenge(&app, &user).await;
    // Typed in capitals without the dash: still the code.
    let typed = codes[0].replace('-', "").to_uppercase();
    let ok = login_totp(&app, &c, &typed).await;
    assert!(ok.session_cookie().is_some(), "{}", ok.body);

    let c = challenge(&app, &user).await;
    let again = login_totp(&app, &c, &codes[0]).await;
    assert!(
        again.error().unwrap().starts_with("code: "),
        "{}",
        again.body
    );
    assert!(login_totp(&app, &c, &codes[1]).await.ok());

    let settings = app
        .action("getSettings", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(settings.data()["twoFactor"]["enabled"], true);
    assert_eq!(settings.data()["twoFactor"]["recoveryCodesLeft"], 8);
}

#[tokio::test]
async fn wrong_codes_count_towards_the_sign_in_lock() {
    let app = spawn_app().await;
    let (user, secret, _) = user_with_2fa(&app).await;
    let c = challenge(&app, &user).await;
    let right = code(&app, &secret);
    let wrong = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    let mut locked = false;
    for _ in 0..10 {
        let reply = login_totp(&app, &c, wrong).await;
        let error = reply.error().unwrap().to_string();
        if error.contains("too many failed sign-ins") {
            locked = true;
            break;
        }
        assert!(error.starts_with("code: "), "{error}");
    }
    assert!(locked, "wrong codes lock the address like wrong passwords");
    // Locked: even the right code is refused now, and so is the password.
    let refused = login_totp(&app, &c, &right).await;
    assert!(refused
        .error()
        .unwrap()
        .contains("too many failed sign-ins"));
    assert!(refused.session_cookie().is_none());
    let password = app.login(&user.email, &user.password).await;
    assert!(password
        .error()
        .unwrap()
        .contains("too many failed sign-ins"));
}

#[tokio::test]
async fn turning_it_off_needs_the_password_and_a_code() {
    let app = spawn_app().await;
    let (user, secret, codes) = user_with_2fa(&app).await;
    let wrong_password = app
        .action(
            "disableTotp",
            json!({"password": "not it at all", "code": code(&app, &secret)}),
            Some(&user.cookie),
        )
        .await;
    assert!(wrong_password.error().unwrap().starts_with("password: "));
    let wrong_code = app
        .action(
            "disableTotp",
            json!({"password": user.password, "code": "12345"}),
            Some(&user.cookie),
        )
        .await;
    assert!(
        wrong_code.error().unwrap().starts_with("code: "),
        "{}",
        wrong_code.body
    );
    // Still on.
    challenge(&app, &user).await;

    let off = app
        .action(
            "disableTotp",
            json!({"password": user.password, "code": codes[3]}),
            Some(&user.cookie),
        )
        .await;
    assert!(off.ok(), "{}", off.body);
    let plain = app.login(&user.email, &user.password).await;
    assert!(plain.session_cookie().is_some(), "{}", plain.body);
    let settings = app
        .action("getSettings", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(settings.data()["twoFactor"]["enabled"], false);

    // It can be set up again, with a new secret.
    let setup = app
        .action(
            "beginTotpSetup",
            json!({"password": user.password}),
            Some(&user.cookie),
        )
        .await;
    assert_ne!(secret_of(setup.data()), secret);
}

#[tokio::test]
async fn the_administrator_resets_two_factor_sign_in() {
    let app = spawn_app().await;
    let (user, _, _) = user_with_2fa(&app).await;
    let data_dir = app.data_dir().to_path_buf();
    let email = user.email.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_cashkeeper"))
            .args(["user", "reset-2fa", "--email", &email])
            .env("CASHKEEPER_DATA_DIR", data_dir)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("is off"));
    let plain = app.login(&user.email, &user.password).await;
    assert!(plain.session_cookie().is_some(), "{}", plain.body);
}

#[tokio::test]
async fn a_new_password_ends_half_finished_sign_ins() {
    let app = spawn_app().await;
    let (user, secret, _) = user_with_2fa(&app).await;
    let c = challenge(&app, &user).await;
    let changed = app
        .action(
            "changePassword",
            json!({"currentPassword": user.password, "newPassword": "another fine passphrase"}),
            Some(&user.cookie),
        )
        .await;
    assert!(changed.ok(), "{}", changed.body);
    let reply = login_totp(&app, &c, &code(&app, &secret)).await;
    assert!(reply.session_cookie().is_none());
    assert!(
        reply.error().unwrap().starts_with("challenge: "),
        "{}",
        reply.body
    );
}

#[tokio::test]
async fn recovery_codes_are_stored_under_the_data_directory_key() {
    let app = spawn_app().await;
    let (user, _, codes) = user_with_2fa(&app).await;
    let id = app.user_id(&user).await;
    let stored: Vec<String> = app
        .state
        .db
        .run(move |c| {
            let mut s = c.prepare("SELECT code_hash FROM recovery_codes WHERE user_id = ?1")?;
            let rows = s
                .query_map([&id], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(rows)
        })
        .await
        .unwrap();
    assert_eq!(stored.len(), 10);
    for code in &codes {
        let plain = cashkeeper::auth::secrets::sha256_hex(&totp::normalize_recovery_code(code));
        assert!(
            !stored.contains(&plain),
            "a plain hash could be guessed offline from a copy of the database"
        );
    }
    // And they still sign in.
    let c = challenge(&app, &user).await;
    assert!(login_totp(&app, &c, &codes[3])
        .await
        .session_cookie()
        .is_some());
}

#[tokio::test]
async fn signing_in_with_a_code_again_and_again_never_locks_the_client() {
    let app = spawn_app_with(|c| c.signin_limit = 3).await;
    let (user, secret, _) = user_with_2fa(&app).await;
    for round in 0..6 {
        let c = challenge(&app, &user).await;
        let reply = login_totp(&app, &c, &code(&app, &secret)).await;
        assert!(
            reply.session_cookie().is_some(),
            "round {round}: {}",
            reply.body
        );
        next_step(&app);
    }
}

#[tokio::test]
async fn setup_asks_for_the_password_so_an_open_session_alone_binds_no_app() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other_browser = app
        .login(&user.email, &user.password)
        .await
        .session_cookie()
        .unwrap();
    for (input, why) in [
        (json!({}), "no password"),
        (json!({"password": ""}), "an empty password"),
        (json!({"password": "not the password"}), "a wrong password"),
    ] {
        let reply = app
            .action("beginTotpSetup", input, Some(&user.cookie))
            .await;
        assert!(!reply.ok(), "{why}: {}", reply.body);
        assert!(
            reply.error().unwrap().starts_with("password: "),
            "{why}: {}",
            reply.body
        );
    }
    // Nothing is waiting for a code: enableTotp has no secret to confirm.
    let enable = app
        .action("enableTotp", json!({"code": "123456"}), Some(&user.cookie))
        .await;
    assert!(!enable.ok(), "{}", enable.body);
    assert!(
        enable.error().unwrap().contains("start the setup first"),
        "{}",
        enable.body
    );
    assert!(signed_in(&app, &other_browser).await);

    // In German the refusal is German.
    app.action(
        "updateSettings",
        json!({"locale": "de"}),
        Some(&user.cookie),
    )
    .await;
    let german = app
        .action(
            "beginTotpSetup",
            json!({"password": "falsch"}),
            Some(&user.cookie),
        )
        .await;
    assert!(!german.ok());
    assert!(
        german.error().unwrap().contains("Passwort"),
        "{}",
        german.body
    );

    // The right password starts the setup.
    let setup = app
        .action(
            "beginTotpSetup",
            json!({"password": user.password}),
            Some(&user.cookie),
        )
        .await;
    assert!(setup.data()["secret"].as_str().is_some(), "{}", setup.body);
}

/// Turning two-factor sign-in off asks for the password and a code in one
/// attempt: a right password does not wipe the failures of the codes
/// guessed behind it, even with the per-client limit off.
#[tokio::test]
async fn codes_guessed_behind_a_right_password_still_lock_disabling() {
    let app = spawn_app_with(|c| c.signin_limit = 0).await;
    let (user, secret, _) = user_with_2fa(&app).await;
    let guess = |n: usize| format!("{:06}", (n * 7919) % 1_000_000);
    let mut refusals = Vec::new();
    for n in 0..6 {
        let reply = app
            .action(
                "disableTotp",
                json!({"password": user.password, "code": guess(n)}),
                Some(&user.cookie),
            )
            .await;
        assert!(!reply.ok(), "guess {n}: {}", reply.body);
        refusals.push(reply.error().unwrap().to_string());
    }
    assert!(
        refusals[..5].iter().all(|e| e.starts_with("code: ")),
        "{refusals:?}"
    );
    assert!(
        refusals[5].contains("too many failed sign-ins"),
        "the sixth try is locked out: {refusals:?}"
    );
    // Even the right code waits now.
    let locked = app
        .action(
            "disableTotp",
            json!({"password": user.password, "code": code(&app, &secret)}),
            Some(&user.cookie),
        )
        .await;
    assert!(
        locked.error().unwrap().contains("too many failed sign-ins"),
        "{}",
        locked.body
    );
}

/// Turning two-factor sign-in on in Settings, in both languages: right
/// after the code, the section no longer says "off", the recovery codes
/// are in view with none broken over two lines, and "I have saved them"
/// shows since when it is on, in the browser's time. The setup offers the
/// `otpauth://` address for an authenticator on the same phone.
async fn two_factor_right_after_enabling(width: u32, height: u32, dark: bool) {
    use crate::support::browser::{
        begin_two_factor, screenshot, sign_in, start_with, wait_for_css, wait_for_text,
    };
    use fantoccini::Locator;
    let app = spawn_app().await;
    let Some(browser) = start_with(width, height, dark).await else {
        return;
    };
    let c = &browser.client;
    for (locale, on) in [
        ("de", "Übrige Wiederherstellungscodes: 10."),
        ("en", "Recovery codes left: 10."),
    ] {
        let user = app.new_user().await;
        app.ok(&user, "updateSettings", json!({ "locale": locale }))
            .await;
        c.delete_all_cookies().await.unwrap();
        sign_in(c, &app, &user).await;
        c.goto(&app.url("/settings#two-factor")).await.unwrap();
        let at = format!("{locale} {width}px dark={dark}");
        let secret = begin_two_factor(c, &user.password).await;
        let link = c
            .find(Locator::Css(".totp-steps a.totp-link"))
            .await
            .unwrap()
            .attr("href")
            .await
            .unwrap()
            .unwrap_or_default();
        assert!(
            link.starts_with("otpauth://totp/cashkeeper:") && link.contains("secret="),
            "{at}: {link}"
        );
        c.find(Locator::Css("#f-totp-code"))
            .await
            .unwrap()
            .send_keys(&code(&app, &secret))
            .await
            .unwrap();
        c.find(Locator::Css("form[data-totp-enable] button[type=submit]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for_css(c, ".totp-recovery:not([hidden]) .recovery-codes li").await;
        let seen = c
            .execute(
                "const off = document.querySelector('#two-factor .status-off');
                 const box = document.querySelector('.totp-recovery');
                 const r = box.getBoundingClientRect();
                 const codes = [...document.querySelectorAll('.recovery-codes li')];
                 const lineHeight = parseFloat(getComputedStyle(codes[0]).lineHeight) || 24;
                 return {
                   offShown: !!off && off.offsetParent !== null,
                   focused: document.activeElement === box,
                   topInView: r.top >= 0 && r.top < window.innerHeight,
                   codes: codes.length,
                   wrapped: codes.filter(li => li.getBoundingClientRect().height > lineHeight * 1.5).length,
                   sideways: document.documentElement.scrollWidth > window.innerWidth + 1,
                 };",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(seen["offShown"], false, "{at}: {seen}");
        assert_eq!(seen["focused"], true, "{at}: {seen}");
        assert_eq!(seen["topInView"], true, "{at}: {seen}");
        assert_eq!(seen["codes"], 10, "{at}: {seen}");
        assert_eq!(seen["wrapped"], 0, "{at}: no code breaks: {seen}");
        assert_eq!(seen["sideways"], false, "{at}: {seen}");
        let scheme = if dark { "-dark" } else { "" };
        screenshot(c, &format!("two-factor-codes-{locale}-{width}{scheme}")).await;

        // "I have saved them": on, since when (in the browser's time zone:
        // the server's UTC text stays as the title).
        c.find(Locator::Css("a[data-totp-done]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for_text(c, on).await;
        let since = c
            .execute(
                "const t = document.querySelector('#two-factor .status-on time[data-local]');
                 return t && { text: t.textContent, title: t.title, datetime: t.getAttribute('datetime') };",
                vec![],
            )
            .await
            .unwrap();
        assert!(since.is_object(), "{at}: the date is a local time: {since}");
        assert!(
            !since["text"].as_str().unwrap().contains("UTC"),
            "{at}: {since}"
        );
        assert!(
            since["title"].as_str().unwrap().contains("UTC"),
            "{at}: {since}"
        );
        screenshot(c, &format!("two-factor-on-{locale}-{width}{scheme}")).await;
    }
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn two_factor_right_after_enabling_on_a_phone() {
    two_factor_right_after_enabling(390, 844, false).await;
}

#[tokio::test]
async fn two_factor_right_after_enabling_on_a_phone_in_the_dark() {
    two_factor_right_after_enabling(390, 844, true).await;
}

#[tokio::test]
async fn two_factor_right_after_enabling_on_a_desktop() {
    two_factor_right_after_enabling(1280, 900, false).await;
}

#[tokio::test]
async fn two_factor_right_after_enabling_on_a_desktop_in_the_dark() {
    two_factor_right_after_enabling(1280, 900, true).await;
}
