//! Single sign-on against a real OpenID provider: the certified
//! `oidc-provider` package run by Node on loopback (`tests/oidc/`), driven
//! by a small "browser" here that keeps cookies and follows redirects by
//! hand, so a test can stop at the way back and replay or alter it.
//!
//! `npm ci` in `tests/oidc/` runs on first use when its packages are
//! missing. Without Node the tests say so and pass, unless
//! `CASHKEEPER_OIDC_TEST=required` (CI) makes that a failure.

use crate::support::{spawn_app_with, unique_email, TestApp};
use cashkeeper::config::{Oidc, Registration, Secret};
use reqwest::{StatusCode, Url};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::OnceLock;
use tokio::io::{AsyncBufReadExt, BufReader};

const CLIENT_ID: &str = "cashkeeper-test";
const CLIENT_SECRET: &str = "a-client-secret-for-the-tests";

fn provider_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oidc")
}

/// Installs the provider's packages once per test run; `Err` says why not.
fn packages() -> &'static Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let dir = provider_dir();
        if dir.join("node_modules/oidc-provider/package.json").exists() {
            return Ok(());
        }
        let out = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("npm is not available ({e})"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "npm ci in tests/oidc failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    })
}

/// The running provider and its control API.
struct Provider {
    issuer: String,
    http: reqwest::Client,
    _child: tokio::process::Child,
}

impl Provider {
    /// `None` (after saying so loudly) when Node or the packages are missing
    /// and the tests are not required.
    async fn start() -> Option<Provider> {
        let required = std::env::var("CASHKEEPER_OIDC_TEST").as_deref() == Ok("required");
        if let Err(why) = packages() {
            assert!(!required, "the OpenID provider cannot run: {why}");
            eprintln!("SKIPPED: single sign-on tests need Node.js and npm: {why}");
            return None;
        }
        let mut child = match tokio::process::Command::new("node")
            .arg("provider.mjs")
            .current_dir(provider_dir())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                assert!(!required, "node cannot start: {e}");
                eprintln!("SKIPPED: single sign-on tests need Node.js: {e}");
                return None;
            }
        };
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = loop {
            let line = lines
                .next_line()
                .await
                .unwrap()
                .expect("the provider prints READY <port>");
            if let Some(p) = line.strip_prefix("READY ") {
                break p.trim().to_string();
            }
        };
        // Keep reading, so the provider never writes into a closed pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Some(Provider {
            issuer: format!("http://127.0.0.1:{port}"),
            http: cashkeeper::outbound::http_client().build().unwrap(),
            _child: child,
        })
    }

    async fn control(&self, path: &str, body: Value) -> Value {
        let res = self
            .http
            .post(format!("{}/test/{path}", self.issuer))
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success(), "/test/{path}: {}", res.status());
        res.json().await.unwrap()
    }

    async fn stats(&self) -> Value {
        self.http
            .get(format!("{}/test/stats", self.issuer))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Who signs in at the provider next.
    async fn account(&self, sub: &str, email: &str, verified: bool) {
        self.control(
            "account",
            json!({"sub": sub, "email": email, "email_verified": verified, "name": "Alice Example"}),
        )
        .await;
    }

    async fn tamper(&self, mode: Option<&str>) {
        self.control("tamper", json!({ "mode": mode })).await;
    }
}

fn oidc_config(issuer: &str) -> Oidc {
    Oidc {
        issuer: issuer.to_string(),
        client_id: CLIENT_ID.into(),
        client_secret: Some(Secret::new(CLIENT_SECRET)),
        button_label: Some("Sign in with Test ID".into()),
        only: false,
    }
}

/// A provider and an app that signs in through it.
async fn setup(tweak: impl FnOnce(&mut cashkeeper::config::Config)) -> Option<(Provider, TestApp)> {
    let provider = Provider::start().await?;
    let issuer = provider.issuer.clone();
    let app = spawn_app_with(|c| {
        c.oidc = Some(oidc_config(&issuer));
        tweak(c);
    })
    .await;
    provider
        .control(
            "setup",
            json!({
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "redirect_uri": app.url("/api/auth/oidc/callback"),
            }),
        )
        .await;
    Some((provider, app))
}

/// Enough of a browser: cookies per host (names only, which is all these
/// two servers need) and redirects followed by hand.
#[derive(Default)]
struct Browser {
    jars: HashMap<String, BTreeMap<String, String>>,
}

struct Page {
    status: StatusCode,
    location: Option<Url>,
    body: String,
}

impl Browser {
    fn host(url: &Url) -> String {
        format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(80))
    }

    async fn get(&mut self, url: &Url) -> Page {
        let client = cashkeeper::outbound::http_client()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let jar = self.jars.entry(Self::host(url)).or_default();
        let mut req = client.get(url.clone());
        if !jar.is_empty() {
            let cookie = jar
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; ");
            req = req.header("cookie", cookie);
        }
        let res = req.send().await.unwrap();
        for c in res.headers().get_all("set-cookie") {
            let c = c.to_str().unwrap();
            let (pair, attrs) = c.split_once(';').unwrap_or((c, ""));
            let (k, v) = pair.split_once('=').unwrap();
            if attrs.to_ascii_lowercase().contains("max-age=0") {
                jar.remove(k.trim());
            } else {
                jar.insert(k.trim().to_string(), v.to_string());
            }
        }
        let location = res
            .headers()
            .get("location")
            .map(|l| url.join(l.to_str().unwrap()).unwrap());
        Page {
            status: res.status(),
            location,
            body: res.text().await.unwrap(),
        }
    }

    fn cookie(&self, base: &str, name: &str) -> Option<String> {
        let url = Url::parse(base).unwrap();
        self.jars.get(&Self::host(&url))?.get(name).cloned()
    }

    /// Clicks the sign-in button and goes through the provider; returns
    /// the URL the provider sends the browser back to, not yet opened.
    async fn through_provider(&mut self, app: &TestApp) -> Url {
        let mut page = self
            .get(&Url::parse(&app.url("/api/auth/oidc/start")).unwrap())
            .await;
        for _ in 0..10 {
            let next = page
                .location
                .clone()
                .unwrap_or_else(|| panic!("no redirect ({}): {}", page.status, page.body));
            if next.as_str().starts_with(&app.base) {
                return next;
            }
            page = self.get(&next).await;
        }
        panic!("too many redirects");
    }

    /// A whole sign-in: where the app sends the browser at the end.
    async fn sign_in(&mut self, app: &TestApp) -> String {
        let back = self.through_provider(app).await;
        self.finish(app, &back).await
    }

    async fn finish(&mut self, app: &TestApp, back: &Url) -> String {
        let page = self.get(back).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.body);
        let to = page.location.unwrap();
        to.as_str().strip_prefix(&app.base).unwrap().to_string()
    }

    fn session(&self, app: &TestApp) -> Option<String> {
        self.cookie(&app.base, "cashkeeper_session")
    }
}

fn with_param(url: &Url, name: &str, value: &str) -> Url {
    let mut out = url.clone();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let v = if k == name {
                value.to_string()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    out.query_pairs_mut().clear().extend_pairs(pairs);
    out
}

async fn signed_in_as(app: &TestApp, session: &str) -> Value {
    let res = app.get("/api/auth/session", Some(session)).await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json::<Value>().await.unwrap()["user"].clone()
}

async fn count_users(app: &TestApp) -> i64 {
    app.state
        .db
        .run(|c| cashkeeper::store::users::count(c))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_new_person_signs_in_through_the_provider_and_comes_back_as_the_same_user() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    let email = unique_email();
    provider.account("sub-new-1", &email, true).await;

    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/");
    let session = browser.session(&app).expect("signed in");
    assert!(
        browser.cookie(&app.base, "cashkeeper_oidc").is_none(),
        "the started sign-in's cookie is removed"
    );
    let user = signed_in_as(&app, &session).await;
    assert_eq!(user["email"], json!(email));
    assert_eq!(user["name"], json!("Alice Example"));

    // Again, in another browser: the same account, and the provider's
    // discovery document and keys came from the cache.
    let mut other = Browser::default();
    assert_eq!(other.sign_in(&app).await, "/");
    let again = signed_in_as(&app, &other.session(&app).unwrap()).await;
    assert_eq!(again["id"], user["id"]);
    let stats = provider.stats().await;
    assert_eq!(stats["discovery"], json!(1), "{stats}");
    assert_eq!(stats["jwks"], json!(1), "{stats}");
    assert_eq!(count_users(&app).await, 1);

    // The session is an ordinary one: listed, and it can sign out.
    let sessions = app.action("listSessions", json!({}), Some(&session)).await;
    assert_eq!(sessions.data().as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn an_existing_account_is_linked_by_verified_email_only_and_then_by_subject() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    let owner = app.new_user().await;

    // The provider does not vouch for the address: no session, no link.
    provider.account("sub-link-1", &owner.email, false).await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/login?sso=email_unverified");
    assert!(browser.session(&app).is_none());

    provider
        .account("sub-link-1", &owner.email.to_uppercase(), true)
        .await;
    assert_eq!(browser.sign_in(&app).await, "/");
    let user = signed_in_as(&app, &browser.session(&app).unwrap()).await;
    assert_eq!(user["id"], json!(owner.id));

    // Linked now: a changed address at the provider still finds the account,
    // and the password keeps working too.
    provider
        .account("sub-link-1", "renamed@example.net", true)
        .await;
    let mut later = Browser::default();
    assert_eq!(later.sign_in(&app).await, "/");
    let user = signed_in_as(&app, &later.session(&app).unwrap()).await;
    assert_eq!(user["id"], json!(owner.id));
    assert!(app.login(&owner.email, &owner.password).await.ok());
    assert_eq!(count_users(&app).await, 1);
}

#[tokio::test]
async fn a_wrong_state_a_missing_cookie_and_a_replayed_code_are_refused() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    provider.account("sub-state-1", &unique_email(), true).await;

    // Another state than this browser's.
    let mut browser = Browser::default();
    let back = browser.through_provider(&app).await;
    let forged = with_param(&back, "state", "someone-elses-state");
    assert_eq!(browser.finish(&app, &forged).await, "/login?sso=state");
    assert!(browser.session(&app).is_none());

    // The way back opened in another browser (a forwarded link).
    let back = browser.through_provider(&app).await;
    let mut stranger = Browser::default();
    assert_eq!(stranger.finish(&app, &back).await, "/login?sso=state");
    assert!(stranger.session(&app).is_none());

    // Used once: fine. Opened again: the started sign-in is gone.
    assert_eq!(browser.finish(&app, &back).await, "/");
    assert!(browser.session(&app).is_some());
    let mut replay = Browser::default();
    assert_eq!(replay.finish(&app, &back).await, "/login?sso=state");

    // The used code with a fresh, valid state: the provider refuses it.
    let fresh = replay.through_provider(&app).await;
    let fresh_state = fresh
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let replayed = with_param(&back, "state", &fresh_state);
    let tokens_before = provider.stats().await["token"].as_i64().unwrap();
    assert_eq!(replay.finish(&app, &replayed).await, "/login?sso=token");
    assert!(replay.session(&app).is_none());
    assert_eq!(
        provider.stats().await["token"].as_i64().unwrap(),
        tokens_before + 1,
        "the code was offered to the provider and refused there"
    );
    assert_eq!(count_users(&app).await, 1);
}

#[tokio::test]
async fn id_tokens_for_another_audience_expired_from_another_issuer_or_forged_are_refused() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    provider
        .account("sub-tamper-1", &unique_email(), true)
        .await;
    for mode in ["audience", "expired", "issuer", "nonce", "foreign-key"] {
        provider.tamper(Some(mode)).await;
        let mut browser = Browser::default();
        assert_eq!(browser.sign_in(&app).await, "/login?sso=token", "{mode}");
        assert!(browser.session(&app).is_none(), "{mode}");
    }
    assert_eq!(count_users(&app).await, 0);

    // Untampered, the same account signs in.
    provider.tamper(None).await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/");
}

#[tokio::test]
async fn a_new_signing_key_at_the_provider_is_fetched_once() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    provider
        .account("sub-rotate-1", &unique_email(), true)
        .await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/");
    provider.control("rotate", json!({})).await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/");
    let stats = provider.stats().await;
    assert_eq!(stats["jwks"], json!(2), "{stats}");
}

#[tokio::test]
async fn closed_registration_refuses_strangers_and_a_disabled_account_stays_out() {
    let Some((provider, app)) = setup(|c| c.registration = Registration::Closed).await else {
        return;
    };
    provider
        .account("sub-closed-1", &unique_email(), true)
        .await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/login?sso=no_account");
    assert_eq!(count_users(&app).await, 0);

    // An account made by the administrator signs in; disabled, it does not.
    let email = unique_email();
    let now = cashkeeper::clock::timestamp(chrono::Utc::now());
    let e = email.clone();
    app.state
        .db
        .transaction(move |tx| {
            cashkeeper::app::users::open(
                tx,
                &cashkeeper::store::users::NewUser {
                    email: &e,
                    name: "",
                    password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA",
                    locale: cashkeeper::domain::locale::Locale::En,
                    now: &now,
                },
            )
        })
        .await
        .unwrap();
    provider.account("sub-closed-2", &email, true).await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/");

    let e = email.clone();
    app.state
        .db
        .run(move |c| {
            let u = cashkeeper::store::users::find_by_email(c, &e)?.unwrap();
            cashkeeper::app::users::disable_in(c, &u.id, "2026-01-01T00:00:00Z")
        })
        .await
        .unwrap();
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/login?sso=disabled");
    assert!(browser.session(&app).is_none());
}

#[tokio::test]
async fn the_provider_saying_no_and_a_provider_out_of_reach_lead_back_to_the_login_page() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    provider
        .account("sub-cancel-1", &unique_email(), true)
        .await;
    let mut browser = Browser::default();
    let back = browser.through_provider(&app).await;
    let state = back
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let mut cancelled = Url::parse(&app.url("/api/auth/oidc/callback")).unwrap();
    cancelled
        .query_pairs_mut()
        .append_pair("error", "access_denied")
        .append_pair("error_description", "the user said no")
        .append_pair("state", &state);
    assert_eq!(
        browser.finish(&app, &cancelled).await,
        "/login?sso=provider"
    );
    assert!(browser.session(&app).is_none());

    // The login page explains each reason.
    let page = app
        .get("/login?sso=provider", None)
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("did not sign you in"), "{page}");
    let page = app
        .get("/login?sso=no_account", None)
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("no cashkeeper account"), "{page}");

    // Nothing listens at the issuer: back to the login page, no 500.
    let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let app = spawn_app_with(|c| c.oidc = Some(oidc_config(&issuer))).await;
    let mut browser = Browser::default();
    let page = browser
        .get(&Url::parse(&app.url("/api/auth/oidc/start")).unwrap())
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.location.unwrap().path(), "/login");
}

#[tokio::test]
async fn the_login_page_offers_the_provider_and_oidc_only_turns_passwords_off() {
    let Some((_provider, app)) = setup(|_| {}).await else {
        return;
    };
    let page = app.get("/login", None).await.text().await.unwrap();
    assert!(page.contains("href=\"/api/auth/oidc/start\""), "{page}");
    assert!(page.contains("Sign in with Test ID"));
    assert!(
        page.contains("data-action=\"login\""),
        "the password form stays"
    );
    let user = app.new_user().await;

    let Some((_provider, only)) = setup(|c| c.oidc.as_mut().unwrap().only = true).await else {
        return;
    };
    let page = only.get("/login", None).await.text().await.unwrap();
    assert!(page.contains("href=\"/api/auth/oidc/start\""), "{page}");
    assert!(!page.contains("data-action=\"login\""), "{page}");
    assert!(!page.contains("type=\"password\""), "{page}");
    let reply = only.login(&user.email, &user.password).await;
    assert!(!reply.ok());
    assert!(
        reply.error().unwrap().contains("Sign in with Test ID"),
        "{}",
        reply.body
    );
    let reply = only
        .register(&unique_email(), "correct horse battery")
        .await;
    assert!(!reply.ok());
    assert_eq!(count_users(&only).await, 0);
    let reply = only
        .action("forgotPassword", json!({"email": user.email}), None)
        .await;
    assert!(!reply.ok());
}

#[tokio::test]
async fn without_single_sign_on_its_routes_are_not_found() {
    let app = crate::support::spawn_app().await;
    let res = app.get("/api/auth/oidc/start", None).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = app
        .get("/api/auth/oidc/callback?code=x&state=y", None)
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let page = app.get("/login", None).await.text().await.unwrap();
    assert!(!page.contains("/api/auth/oidc/start"));
}

#[tokio::test]
async fn an_account_made_by_single_sign_on_confirms_changes_by_a_fresh_sign_in_there() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    let email = unique_email();
    provider.account("sub-nopw-1", &email, true).await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/");
    let session = browser.session(&app).unwrap();

    // Nobody knows the account's password: a password sign-in fails, and the
    // settings page explains how to confirm.
    assert!(!app.login(&email, "").await.ok());
    let page = app
        .get("/settings", Some(&session))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("has no password"), "{page}");
    assert!(page.contains("/api/auth/oidc/start?return=/settings"));

    // Just signed in through the provider: an API token needs no password.
    let token = app
        .action(
            "createApiToken",
            json!({"name": "Home Assistant", "password": ""}),
            Some(&session),
        )
        .await;
    assert!(token.ok(), "{}", token.body);

    // Ten minutes later it does; signing in again (back to Settings) helps.
    let old = "2000-01-01T00:00:00Z";
    app.state
        .db
        .run(move |c| {
            c.execute("UPDATE sessions SET created_at = ?1", [old])?;
            Ok(())
        })
        .await
        .unwrap();
    let refused = app
        .action(
            "createApiToken",
            json!({"name": "later", "password": ""}),
            Some(&session),
        )
        .await;
    assert!(!refused.ok());
    let error = refused.error().unwrap();
    assert!(error.starts_with("password: "), "{error}");
    assert!(error.contains("sign in through it again"), "{error}");

    let mut page = browser
        .get(&Url::parse(&app.url("/api/auth/oidc/start?return=/settings")).unwrap())
        .await;
    while let Some(next) = page
        .location
        .clone()
        .filter(|l| !l.as_str().starts_with(&app.base))
    {
        page = browser.get(&next).await;
    }
    let back = page.location.unwrap();
    assert_eq!(browser.finish(&app, &back).await, "/settings");
    let fresh = browser.session(&app).unwrap();
    assert_ne!(fresh, session);
    // One browser, one session: the old one ended.
    assert_eq!(
        app.get("/api/auth/session", Some(&session)).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let sessions = app.action("listSessions", json!({}), Some(&fresh)).await;
    assert_eq!(sessions.data().as_array().unwrap().len(), 1);

    // Setting a password the same way makes it an ordinary account.
    let set = app
        .action(
            "changePassword",
            json!({"currentPassword": "", "newPassword": "a brand new passphrase"}),
            Some(&fresh),
        )
        .await;
    assert!(set.ok(), "{}", set.body);
    assert!(app.login(&email, "a brand new passphrase").await.ok());
    let page = app.get("/settings", Some(&fresh)).await;
    // changePassword signed the other sessions out; this one stays.
    assert_eq!(page.status(), StatusCode::OK);
    assert!(!page.text().await.unwrap().contains("has no password"));
}

#[tokio::test]
async fn two_factor_sign_in_is_asked_after_the_provider_too() {
    use cashkeeper::auth::totp;
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    let owner = app.new_user().await;
    let setup = app
        .action(
            "beginTotpSetup",
            json!({"password": owner.password}),
            Some(&owner.cookie),
        )
        .await;
    let secret = data_encoding::BASE32_NOPAD
        .decode(setup.data()["secret"].as_str().unwrap().as_bytes())
        .unwrap();
    let code =
        |app: &TestApp| totp::code_at(&secret, totp::step_at(app.state.clock.now().timestamp()));
    let on = app
        .action(
            "enableTotp",
            json!({"code": code(&app)}),
            Some(&owner.cookie),
        )
        .await;
    assert!(on.ok(), "{}", on.body);
    app.state.clock.advance(chrono::Duration::seconds(30));

    provider.account("sub-2fa-1", &owner.email, true).await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/login?step=code");
    assert!(
        browser.session(&app).is_none(),
        "no session before the code"
    );
    let challenge = browser
        .cookie(&app.base, "cashkeeper_challenge")
        .expect("the challenge waits for the login page");

    // The login page asks for the code, holding the challenge.
    let page = browser
        .get(&Url::parse(&app.url("/login?step=code")).unwrap())
        .await;
    assert!(
        page.body.contains(&format!("value=\"{challenge}\"")),
        "{}",
        page.body
    );
    assert!(!page.body.contains("data-action=\"login\""));

    let wrong = app
        .action(
            "loginTotp",
            json!({"challenge": challenge, "code": "000000"}),
            None,
        )
        .await;
    assert!(wrong.session_cookie().is_none() || code(&app) == "000000");
    let right = app
        .action(
            "loginTotp",
            json!({"challenge": challenge, "code": code(&app)}),
            None,
        )
        .await;
    let session = right.session_cookie().expect("signed in after the code");
    assert_eq!(signed_in_as(&app, &session).await["id"], json!(owner.id));
    let hash = cashkeeper::auth::secrets::sha256_hex(&session);
    let via: i64 = app
        .state
        .db
        .run(move |c| {
            Ok(c.query_row(
                "SELECT via_provider FROM sessions WHERE token_hash = ?1",
                [hash],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(via, 1, "the session counts as the provider's");
}

#[tokio::test]
async fn an_address_handed_on_at_the_provider_does_not_open_the_first_owners_account() {
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    let owner = app.new_user().await;
    provider
        .account("sub-first-owner", &owner.email, true)
        .await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&app).await, "/");

    // Another person at the provider now has the same (verified) address.
    provider.account("sub-next-owner", &owner.email, true).await;
    let mut other = Browser::default();
    assert_eq!(other.sign_in(&app).await, "/login?sso=linked");
    assert!(other.session(&app).is_none());
    assert_eq!(count_users(&app).await, 1);
}

#[tokio::test]
async fn in_a_real_browser_the_button_signs_in_through_the_provider() {
    use crate::support::browser::{click, screenshot, start, wait_for_css, wait_for_path};
    let Some((provider, app)) = setup(|_| {}).await else {
        return;
    };
    let Some(browser) = start(1280, 900).await else {
        return;
    };
    let c = &browser.client;
    provider
        .account("sub-browser-1", &unique_email(), true)
        .await;

    c.goto(&app.url("/login")).await.unwrap();
    screenshot(c, "login-single-sign-on").await;
    click(c, "a.sso").await;
    wait_for_path(c, "/").await;
    // Signed in: the app's navigation is there, and Settings opens.
    wait_for_css(c, "nav.mainnav a[href='/settings']").await;
    c.goto(&app.url("/settings")).await.unwrap();
    wait_for_path(c, "/settings").await;
    wait_for_css(
        c,
        "p.notice a[href='/api/auth/oidc/start?return=/settings']",
    )
    .await;
}
