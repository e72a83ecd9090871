//! The status-code rules of the action layer (`docs/actions.md`), the
//! JSON routes' errors, health, and panics.

use crate::support::*;
use serde_json::json;

#[tokio::test]
async fn a_session_action_without_a_session_is_401() {
    let app = spawn_app().await;
    let reply = app.action("getSettings", json!({}), None).await;
    assert_eq!(reply.status, 401);
    assert_eq!(
        reply.body,
        json!({"success": false, "error": "unauthorized"})
    );
    let bogus = app
        .action("getSettings", json!({}), Some(&"ab".repeat(32)))
        .await;
    assert_eq!(bogus.status, 401);
}

#[tokio::test]
async fn a_request_that_is_not_json_is_403() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ] {
        let reply = app
            .reply(
                app.client
                    .post(app.url("/actions/getSettings"))
                    .header("content-type", content_type)
                    .header("cookie", format!("cashkeeper_session={}", user.cookie))
                    .body("{}"),
            )
            .await;
        assert_eq!(reply.status, 403, "{content_type}");
        assert_eq!(reply.body["success"], false);
    }
    let missing = app
        .reply(
            app.client
                .post(app.url("/actions/login"))
                .body(json!({"email": user.email, "password": user.password}).to_string()),
        )
        .await;
    assert_eq!(missing.status, 403);
}

#[tokio::test]
async fn a_foreign_origin_is_403_and_the_own_origin_passes() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let call = |origin: &str| {
        app.client
            .post(app.url("/actions/getSettings"))
            .header("content-type", "application/json; charset=utf-8")
            .header("origin", origin)
            .header("cookie", format!("cashkeeper_session={}", user.cookie))
            .body("{}")
    };
    assert_eq!(app.reply(call("https://evil.example")).await.status, 403);
    assert_eq!(app.reply(call("null")).await.status, 403);
    let own = app.reply(call(&app.base)).await;
    assert_eq!(own.status, 200);
    assert!(own.ok());
}

#[tokio::test]
async fn an_unknown_action_is_404() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let reply = app
        .action("noSuchAction", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.body["success"], false);
    assert!(reply.error().unwrap().contains("noSuchAction"));
}

#[tokio::test]
async fn a_body_over_one_mebibyte_is_413() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let big = json!({"name": "x".repeat(1024 * 1024 + 10)});
    let reply = app
        .action("updateSettings", big.clone(), Some(&user.cookie))
        .await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.body["success"], false);
    assert_eq!(
        reply.error(),
        Some("body: The request is too large: it may be at most 1 MiB")
    );
    // Nothing was written.
    let settings = app
        .action("getSettings", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(settings.data()["name"], "");
    // In the user's language.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let reply = app.action("updateSettings", big, Some(&user.cookie)).await;
    assert_eq!(reply.status, 413);
    assert_eq!(
        reply.error(),
        Some("body: Die Anfrage ist zu groß: Sie darf höchstens 1 MiB groß sein")
    );
}

#[tokio::test]
async fn a_streamed_body_over_the_limit_is_413_too() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // No Content-Length: the limit holds while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..20).map(|_| Ok(vec![b' '; 64 * 1024])).collect();
    let body = reqwest::Body::wrap_stream(futures_stream(chunks));
    let reply = app
        .reply(
            app.client
                .post(app.url("/actions/getSettings"))
                .header("content-type", "application/json")
                .header("cookie", format!("cashkeeper_session={}", user.cookie))
                .body(body),
        )
        .await;
    assert_eq!(reply.status, 413);
}

fn futures_stream(
    chunks: Vec<Result<Vec<u8>, std::io::Error>>,
) -> impl futures_core::Stream<Item = Result<Vec<u8>, std::io::Error>> {
    struct Iter(std::vec::IntoIter<Result<Vec<u8>, std::io::Error>>);
    impl futures_core::Stream for Iter {
        type Item = Result<Vec<u8>, std::io::Error>;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Self::Item>> {
            std::task::Poll::Ready(self.0.next())
        }
    }
    Iter(chunks.into_iter())
}

#[tokio::test]
async fn malformed_json_is_400_and_other_refusals_are_200() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let malformed = app
        .reply(
            app.client
                .post(app.url("/actions/updateSettings"))
                .header("content-type", "application/json")
                .header("cookie", format!("cashkeeper_session={}", user.cookie))
                .body("{\"name\": "),
        )
        .await;
    assert_eq!(malformed.status, 400);
    assert_eq!(malformed.body["success"], false);
    assert!(malformed.error().unwrap().starts_with("body: "));

    let not_object = app
        .reply(
            app.client
                .post(app.url("/actions/updateSettings"))
                .header("content-type", "application/json")
                .header("cookie", format!("cashkeeper_session={}", user.cookie))
                .body("[1,2]"),
        )
        .await;
    assert_eq!(not_object.status, 200);
    assert_eq!(not_object.error(), Some("body: must be a JSON object"));

    let wrong_credentials = app.login(&user.email, "wrong password").await;
    assert_eq!(wrong_credentials.status, 200);
    assert_eq!(wrong_credentials.body["success"], false);
}

#[tokio::test]
async fn an_empty_body_counts_as_an_empty_object() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let reply = app
        .reply(
            app.client
                .post(app.url("/actions/getSettings"))
                .header("content-type", "application/json")
                .header("cookie", format!("cashkeeper_session={}", user.cookie)),
        )
        .await;
    assert_eq!(reply.data()["email"], user.email);
}

#[tokio::test]
async fn a_panicking_handler_answers_500_in_each_surfaces_shape() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let action = app.action("__panic", json!({}), Some(&user.cookie)).await;
    assert_eq!(action.status, 500);
    assert_eq!(
        action.body,
        json!({"success": false, "error": "internal error"})
    );

    let api = app.get("/api/__panic", None).await;
    assert_eq!(api.status(), 500);
    assert_eq!(
        api.json::<serde_json::Value>().await.unwrap(),
        json!({"error": "internal error"})
    );

    let v1 = app.get("/api/v1/__panic", None).await;
    assert_eq!(v1.status(), 500);
    assert_eq!(v1.headers()["cache-control"], "no-store");
    assert_eq!(
        v1.json::<serde_json::Value>().await.unwrap(),
        json!({"error": {"code": "internal_error", "message": "internal error"}})
    );

    let page = app.get("/__panic", None).await;
    assert_eq!(page.status(), 500);
    assert!(page.text().await.unwrap().contains("Something went wrong"));

    // The server is still there.
    assert_eq!(app.get("/api/v1/health", None).await.status(), 200);
}

#[tokio::test]
async fn health_reports_version_and_api_version_without_caching() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(app.url("/api/v1/health"))
        .header("authorization", "Bearer csk_not-a-token")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-store");
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(
        body,
        json!({"status": "ok", "version": env!("CARGO_PKG_VERSION"), "apiVersion": 1})
    );
}

#[tokio::test]
async fn unknown_api_paths_are_json_404s() {
    let app = spawn_app().await;
    let v1 = app.get("/api/v1/nothing-here", None).await;
    assert_eq!(v1.status(), 404);
    assert_eq!(v1.headers()["cache-control"], "no-store");
    let body: serde_json::Value = v1.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
    let api = app.get("/api/nothing-here", None).await;
    assert_eq!(api.status(), 404);
    assert!(api.json::<serde_json::Value>().await.unwrap()["error"].is_string());
}

#[tokio::test]
async fn the_session_route_is_401_without_a_session() {
    let app = spawn_app().await;
    let res = app.get("/api/auth/session", None).await;
    assert_eq!(res.status(), 401);
    assert!(res.json::<serde_json::Value>().await.unwrap()["error"].is_string());
}
