//! Web push: the routes, and reminders end to end through a push service
//! the test runs on loopback, which decrypts what it receives.

use crate::support::*;
use cashkeeper::config::{Secret, Vapid};
use chrono::{TimeZone, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use web_push_native::jwt_simple::prelude::*;

/// A browser's side of a subscription: its key pair and auth secret.
pub struct BrowserKeys {
    pub secret: web_push_native::p256::SecretKey,
    pub auth: [u8; 16],
}

impl BrowserKeys {
    pub fn new() -> BrowserKeys {
        use rand::RngCore;
        let mut rng = rand::rng();
        let secret = loop {
            let mut b = [0u8; 32];
            rng.fill_bytes(&mut b);
            if let Ok(k) = web_push_native::p256::SecretKey::from_slice(&b) {
                break k;
            }
        };
        let mut auth = [0u8; 16];
        rng.fill_bytes(&mut auth);
        BrowserKeys { secret, auth }
    }

    pub fn json(&self, endpoint: &str) -> Value {
        use base64::Engine;
        use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint;
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        json!({
            "endpoint": endpoint,
            "expirationTime": null,
            "keys": {
                "p256dh": b64.encode(self.secret.public_key().to_encoded_point(false).as_bytes()),
                "auth": b64.encode(self.auth),
            }
        })
    }
}

pub async fn subscribe(app: &TestApp, cookie: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/push/subscribe"))
        .header("cookie", format!("cashkeeper_session={cookie}"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

pub fn vapid() -> Vapid {
    let (public_key, private_key) = cashkeeper::config::Vapid::generate();
    Vapid {
        public_key,
        private_key: Secret::new(private_key),
        subject: "mailto:ops@example.org".into(),
    }
}

#[tokio::test]
async fn the_public_key_route_needs_a_session_and_the_configuration() {
    let app = spawn_app().await;
    assert_eq!(
        app.get("/api/push/vapid-public-key", None).await.status(),
        401
    );
    let user = app.new_user().await;
    let res = app
        .get("/api/push/vapid-public-key", Some(&user.cookie))
        .await;
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"key": null}));
    let keys = vapid();
    let public = keys.public_key.clone();
    let app = spawn_app_with(move |c| c.vapid = Some(keys)).await;
    let user = app.new_user().await;
    let res = app
        .get("/api/push/vapid-public-key", Some(&user.cookie))
        .await;
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"key": public}));
}

#[tokio::test]
async fn subscriptions_are_checked_stored_updated_limited_and_removed() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let keys = BrowserKeys::new();
    let no_session = app
        .client
        .post(app.url("/api/push/subscribe"))
        .body(keys.json("https://push.example.org/a").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(no_session.status(), 401);
    let endpoint = "https://fcm.googleapis.com/fcm/send/abc";
    assert_eq!(
        subscribe(&app, &user.cookie, &keys.json(endpoint))
            .await
            .status(),
        201
    );
    assert_eq!(
        subscribe(&app, &user.cookie, &keys.json(endpoint))
            .await
            .status(),
        200,
        "an update"
    );
    for bad in [
        json!(""),
        json!(null),
        json!(42),
        json!("http://fcm.googleapis.com/x"),
        json!("https://127.0.0.1/x"),
        json!("https://10.0.0.1/x"),
        json!("https://192.168.0.2/x"),
        json!("https://[::1]/"),
        json!("https://localhost/x"),
        json!("https://169.254.169.254/"),
        json!("https://0x7f000001/x"),
        json!("https://user:pw@push.example.org/x"),
        json!("http://127.0.0.1:9/push/1"),
        json!(format!("https://push.example.org/{}", "a".repeat(2100))),
    ] {
        let mut body = keys.json("https://push.example.org/ok");
        body["endpoint"] = bad.clone();
        let res = subscribe(&app, &user.cookie, &body).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert!(
            body["error"].as_str().unwrap().starts_with("endpoint: "),
            "{body}"
        );
    }
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let not_a_point = b64.encode([4u8; 65]);
    for (path, value, named) in [
        ("/keys/p256dh", json!("AAAA"), "keys.p256dh"),
        ("/keys/p256dh", json!(not_a_point), "keys.p256dh"),
        ("/keys/p256dh", json!(null), "keys.p256dh"),
        ("/keys/auth", json!(b64.encode([1u8; 15])), "keys.auth"),
        ("/keys/auth", json!("not base64!"), "keys.auth"),
        ("/keys", json!(null), "keys.p256dh"),
    ] {
        let mut body = keys.json("https://push.example.org/k");
        *body.pointer_mut(path).unwrap() = value;
        let res = subscribe(&app, &user.cookie, &body).await;
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let err = res.json::<Value>().await.unwrap()["error"].clone();
        assert!(err.as_str().unwrap().starts_with(named), "{err}");
    }
    let malformed = app
        .client
        .post(app.url("/api/push/subscribe"))
        .header("cookie", format!("cashkeeper_session={}", user.cookie))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), 400);
    // At most ten per user.
    for i in 1..10 {
        let res = subscribe(
            &app,
            &user.cookie,
            &keys.json(&format!("https://push.example.org/{i}")),
        )
        .await;
        assert_eq!(res.status(), 201);
    }
    let eleventh = subscribe(
        &app,
        &user.cookie,
        &keys.json("https://push.example.org/11"),
    )
    .await;
    assert_eq!(eleventh.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(eleventh.json::<Value>().await.unwrap()["error"]
        .as_str()
        .unwrap()
        .contains("at most 10"));
    // Subscribing again where one already is stays fine at the limit.
    assert_eq!(
        subscribe(&app, &user.cookie, &keys.json(endpoint))
            .await
            .status(),
        200
    );
    // Another user cannot remove mine; I can.
    let other = app.new_user().await;
    let delete = |cookie: String| {
        app.client
            .delete(app.url("/api/push/subscribe"))
            .header("cookie", format!("cashkeeper_session={cookie}"))
            .body(json!({"endpoint": endpoint}).to_string())
            .send()
    };
    assert_eq!(delete(other.cookie.clone()).await.unwrap().status(), 200);
    let count = |user_id: cashkeeper::store::users::UserId| async {
        app.state
            .db
            .run(move |c| {
                Ok(cashkeeper::store::push_subscriptions::list_for_user(c, &user_id)?.len())
            })
            .await
            .unwrap()
    };
    assert_eq!(count(app.user_id(&user).await).await, 10);
    assert_eq!(delete(user.cookie.clone()).await.unwrap().status(), 200);
    assert_eq!(count(app.user_id(&user).await).await, 9);
    assert!(stored(&app, &user)
        .await
        .iter()
        .all(|s| s.endpoint != endpoint));
    // Idempotent, and only with a session.
    assert_eq!(delete(user.cookie.clone()).await.unwrap().status(), 200);
    let anonymous = app
        .client
        .delete(app.url("/api/push/subscribe"))
        .body(json!({"endpoint": endpoint}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert_eq!(count(app.user_id(&user).await).await, 9);
}

async fn stored(
    app: &TestApp,
    user: &TestUser,
) -> Vec<cashkeeper::store::push_subscriptions::Subscription> {
    let user_id = app.user_id(user).await;
    app.state
        .db
        .run(move |c| cashkeeper::store::push_subscriptions::list_for_user(c, &user_id))
        .await
        .unwrap()
}

#[tokio::test]
async fn an_endpoint_subscribed_in_another_account_moves_there() {
    let app = spawn_app().await;
    let (alice, bob) = (app.new_user().await, app.new_user().await);
    let endpoint = "https://updates.push.services.mozilla.com/wpush/v2/shared-browser";
    let (first, second) = (BrowserKeys::new(), BrowserKeys::new());
    assert_eq!(
        subscribe(&app, &alice.cookie, &first.json(endpoint))
            .await
            .status(),
        201
    );
    // The same browser, now signed in as Bob, subscribes again.
    assert_eq!(
        subscribe(&app, &bob.cookie, &second.json(endpoint))
            .await
            .status(),
        200
    );
    assert!(stored(&app, &alice).await.is_empty());
    let bobs = stored(&app, &bob).await;
    assert_eq!(bobs.len(), 1);
    assert_eq!(bobs[0].p256dh, second.json(endpoint)["keys"]["p256dh"]);
}

/// One request the loopback push service received.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

/// A push service on loopback: /push/gone404 answers 404, /push/gone410
/// 410, /push/fail 500, anything else 201; every request is recorded.
pub async fn push_service() -> (String, Arc<Mutex<Vec<Received>>>) {
    let log: Arc<Mutex<Vec<Received>>> = Arc::default();
    let seen = log.clone();
    let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
        let seen = seen.clone();
        async move {
            let (parts, body) = req.into_parts();
            let body = axum::body::to_bytes(body, 1 << 20).await.unwrap().to_vec();
            let path = parts.uri.path().to_string();
            seen.lock().unwrap().push(Received {
                path: path.clone(),
                headers: parts.headers,
                body,
            });
            match path.as_str() {
                "/push/gone404" => StatusCode::NOT_FOUND,
                "/push/gone410" => StatusCode::GONE,
                "/push/fail" => StatusCode::INTERNAL_SERVER_ERROR,
                _ => StatusCode::CREATED,
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), log)
}

#[tokio::test]
async fn a_reminder_is_encrypted_signed_delivered_and_gone_subscriptions_are_removed() {
    let (base, received) = push_service().await;
    let keys = vapid();
    let vapid_public = keys.public_key.clone();
    let app = spawn_app_with(move |c| {
        c.vapid = Some(keys);
        c.push_allow_loopback_http = true;
        c.cron_secret = Some(Secret::new("k"));
    })
    .await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 4, 29, 8, 0, 0).unwrap());
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    app.ok(&user, "createExpense", json!({"name": "Miete", "amount": "950", "frequency": "monthly", "startDate": "2025-01-30", "accountId": a})).await;
    app.ok(&user, "createExpense", json!({"name": "Später", "amount": 5, "frequency": "monthly", "startDate": "2025-01-15", "accountId": a})).await;
    let browsers: Vec<(BrowserKeys, String)> = ["ok", "gone404", "gone410"]
        .iter()
        .map(|p| (BrowserKeys::new(), format!("{base}/push/{p}")))
        .collect();
    for (k, endpoint) in &browsers {
        assert_eq!(
            subscribe(&app, &user.cookie, &k.json(endpoint))
                .await
                .status(),
            201
        );
    }

    let res = app
        .client
        .get(app.url("/api/cron/upcoming-payments"))
        .header("authorization", "Bearer k")
        .send()
        .await
        .unwrap();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body, json!({"success": true, "notified": 1, "total": 1}));

    let got = received.lock().unwrap().clone();
    assert_eq!(got.len(), 3, "one message per subscription");
    let ok = got.iter().find(|r| r.path == "/push/ok").unwrap();
    assert_eq!(ok.headers["content-encoding"], "aes128gcm");
    assert!(ok.headers["ttl"].to_str().unwrap().parse::<u64>().unwrap() > 0);
    // VAPID: "vapid t=<JWT>, k=<our public key>", signed with our key.
    let auth = ok.headers["authorization"].to_str().unwrap();
    let rest = auth.strip_prefix("vapid t=").expect(auth);
    let (jwt, k) = rest.split_once(", k=").unwrap();
    assert_eq!(k, vapid_public);
    use base64::Engine;
    let public = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&vapid_public)
        .unwrap();
    let verifier = ES256PublicKey::from_bytes(&public).unwrap();
    let claims = verifier
        .verify_token::<NoCustomClaims>(jwt, None)
        .expect("signed with the VAPID key");
    assert_eq!(claims.subject.as_deref(), Some("mailto:ops@example.org"));
    assert!(claims.audiences.unwrap().into_set().contains(&base));
    // The body decrypts with the browser's private key and auth secret.
    let (keys, _) = &browsers[0];
    let mut secret = web_push_native::Auth::default();
    secret.copy_from_slice(&keys.auth);
    let plain = web_push_native::decrypt(ok.body.clone(), &keys.secret, &secret).expect("decrypts");
    let payload: Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(payload["title"], "Due tomorrow: Miete");
    assert_eq!(payload["body"], "€950.00 will be paid tomorrow.");
    assert_eq!(payload["url"], "/expenses");

    // 404 and 410 removed their subscriptions; the working one stays.
    let uid = app.user_id(&user).await;
    let left: Vec<String> = app
        .state
        .db
        .run(move |c| {
            Ok(
                cashkeeper::store::push_subscriptions::list_for_user(c, &uid)?
                    .into_iter()
                    .map(|s| s.endpoint)
                    .collect(),
            )
        })
        .await
        .unwrap();
    assert_eq!(left, vec![format!("{base}/push/ok")]);
}

#[tokio::test]
async fn the_service_worker_and_manifest_are_served_for_the_whole_site() {
    let app = spawn_app().await;
    let sw = app.get("/sw.js", None).await;
    assert_eq!(sw.status(), 200);
    assert!(sw.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    assert_eq!(sw.headers()["service-worker-allowed"], "/");
    let js = sw.text().await.unwrap();
    assert!(js.contains("showNotification") && js.contains("/expenses"));
    let user = app.new_user().await;
    let html = app
        .get("/settings", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("data-push-toggle"));
    let start = html.find("/assets/manifest.webmanifest").unwrap();
    let url = &html[start..start + html[start..].find('"').unwrap()];
    let manifest: Value = app.get(url, None).await.json().await.unwrap();
    assert_eq!(manifest["start_url"], "/");
    assert_eq!(manifest["display"], "standalone");
}

#[tokio::test]
async fn the_push_service_sends_rfc_8291_and_8292_messages_and_reports_each_outcome() {
    use base64::Engine;
    use cashkeeper::services::push::{notify_payload, Outcome, PushService};
    let (base, received) = push_service().await;
    let keys = vapid();
    let vapid_public = keys.public_key.clone();
    let app = spawn_app_with(move |c| {
        c.vapid = Some(keys);
        c.push_allow_loopback_http = true;
    })
    .await;
    let user = app.new_user().await;
    let browsers: Vec<(BrowserKeys, String)> = ["ok/tok3n", "gone404", "gone410", "fail"]
        .iter()
        .map(|p| (BrowserKeys::new(), format!("{base}/push/{p}")))
        .collect();
    for (k, endpoint) in &browsers {
        let res = subscribe(&app, &user.cookie, &k.json(endpoint)).await;
        assert_eq!(res.status(), 201, "{endpoint}");
    }
    let subs = stored(&app, &user).await;
    assert_eq!(subs.len(), 4);
    let push = PushService::from_config(&app.state.config).expect("configured");
    assert_eq!(push.public_key(), vapid_public);
    let message = notify_payload(
        "Due tomorrow: Miete",
        "€950.00 will be paid tomorrow.",
        "/expenses",
    );
    // Stored in any order; send in the order subscribed.
    let subs: Vec<_> = browsers
        .iter()
        .map(|(_, e)| subs.iter().find(|s| &s.endpoint == e).unwrap().clone())
        .collect();
    let mut outcomes = Vec::new();
    for sub in &subs {
        outcomes.push(push.send(sub, &message).await);
    }
    assert_eq!(outcomes[0], Outcome::Delivered);
    assert_eq!(outcomes[1], Outcome::Gone, "404");
    assert_eq!(outcomes[2], Outcome::Gone, "410");
    let Outcome::Failed(why) = &outcomes[3] else {
        panic!("500 is a failure: {:?}", outcomes[3]);
    };
    assert!(
        why.contains("500") && why.contains("127.0.0.1") && !why.contains("/push/"),
        "{why}"
    );

    let got = received.lock().unwrap().clone();
    assert_eq!(got.len(), 4);
    let ok = got.iter().find(|r| r.path == "/push/ok/tok3n").unwrap();
    assert_eq!(ok.headers["content-encoding"], "aes128gcm");
    assert_eq!(ok.headers["content-type"], "application/octet-stream");
    assert_eq!(ok.headers["ttl"], "86400");
    // VAPID (RFC 8292): t = an ES256 JWT for the endpoint's origin, k = our key.
    let auth = ok.headers["authorization"].to_str().unwrap();
    let (jwt, k) = auth
        .strip_prefix("vapid t=")
        .and_then(|r| r.split_once(", k="))
        .expect(auth);
    assert_eq!(k, vapid_public);
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let verifier = ES256PublicKey::from_bytes(&b64.decode(&vapid_public).unwrap()).unwrap();
    let claims = verifier
        .verify_token::<NoCustomClaims>(jwt, None)
        .expect("signed with the VAPID key");
    assert_eq!(
        claims.audiences.unwrap().into_set(),
        [base.clone()].into_iter().collect(),
        "aud is the origin, port included"
    );
    assert_eq!(claims.subject.as_deref(), Some("mailto:ops@example.org"));
    let now = Utc::now().timestamp() as u64;
    let exp = claims.expires_at.expect("exp").as_secs();
    assert!(
        exp > now && exp <= now + 24 * 3600,
        "exp within 24 h: {exp} vs {now}"
    );
    // RFC 8291: the body decrypts with the browser's private key and auth secret.
    let (keys, _) = &browsers[0];
    let mut secret = web_push_native::Auth::default();
    secret.copy_from_slice(&keys.auth);
    let plain = web_push_native::decrypt(ok.body.clone(), &keys.secret, &secret).expect("decrypts");
    assert_eq!(
        serde_json::from_slice::<Value>(&plain).unwrap(),
        json!({"title": "Due tomorrow: Miete", "body": "€950.00 will be paid tomorrow.", "url": "/expenses"})
    );
    // Another browser's keys do not open it.
    let (other, _) = &browsers[1];
    assert!(web_push_native::decrypt(ok.body.clone(), &other.secret, &secret).is_err());

    // The endpoint is checked again when sending: without the loopback
    // allowance the stored loopback endpoint is refused and nothing is sent.
    let mut strict = app.state.config.clone();
    strict.push_allow_loopback_http = false;
    let strict = PushService::from_config(&strict).unwrap();
    assert!(matches!(
        strict.send(&subs[0], &message).await,
        Outcome::Failed(_)
    ));
    assert_eq!(received.lock().unwrap().len(), 4, "nothing sent");
}

#[tokio::test]
async fn a_push_service_that_does_not_answer_is_a_failure_not_a_hang() {
    use cashkeeper::services::push::{Outcome, PushService};
    // A listener that accepts and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    let keys = vapid();
    let app = spawn_app_with(move |c| {
        c.vapid = Some(keys);
        c.push_allow_loopback_http = true;
    })
    .await;
    let user = app.new_user().await;
    let endpoint = format!("http://{addr}/push/silent");
    let res = subscribe(&app, &user.cookie, &BrowserKeys::new().json(&endpoint)).await;
    assert_eq!(res.status(), 201);
    let sub = stored(&app, &user).await.remove(0);
    let push = PushService::from_config(&app.state.config).unwrap();
    let started = std::time::Instant::now();
    let outcome = push.send(&sub, b"{}").await;
    assert!(
        matches!(&outcome, Outcome::Failed(why) if !why.contains("/push/silent")),
        "{outcome:?}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}
