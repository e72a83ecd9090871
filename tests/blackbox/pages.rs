//! Pages: redirects, 404s, languages, security headers, assets.

use crate::helpers::*;
use serde_json::json;

#[tokio::test]
async fn an_anonymous_visitor_is_sent_to_the_sign_in_page() {
    let app = spawn_app().await;
    for path in ["/", "/settings"] {
        let res = app.get(path, None).await;
        assert_eq!(res.status(), 303, "{path}");
        assert_eq!(res.headers()["location"], "/login");
    }
    let login = app.get("/login", None).await;
    assert_eq!(login.status(), 200);
    assert!(login.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = login.text().await.unwrap();
    assert!(html.contains("<form") && html.contains("type=\"password\""));
}

#[tokio::test]
async fn a_signed_in_user_gets_the_dashboard_with_navigation_for_every_area() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let res = app.get("/", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    for href in [
        "/accounts",
        "/expenses",
        "/daily-expenses",
        "/subscriptions",
        "/incomes",
        "/transfers",
        "/categories",
        "/documents",
        "/reserves",
        "/forecasts",
        "/insights",
        "/import",
        "/search",
        "/assistant",
        "/settings",
    ] {
        assert!(
            html.contains(&format!("href=\"{href}\"")),
            "nav lacks {href}"
        );
    }
    assert!(html.contains(&user.email));
    // Signed in, the sign-in page sends you home.
    assert_eq!(app.get("/login", Some(&user.cookie)).await.status(), 303);
}

#[tokio::test]
async fn unknown_paths_get_a_proper_404_page() {
    let app = spawn_app().await;
    let res = app.get("/no/such/page", None).await;
    assert_eq!(res.status(), 404);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = res.text().await.unwrap();
    assert!(html.contains("Page not found") && html.contains("<html"));
}

#[tokio::test]
async fn pages_speak_the_users_language() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let en = app.get("/", Some(&user.cookie)).await.text().await.unwrap();
    assert!(en.contains("lang=\"en\"") && en.contains(">Dashboard<"));
    app.action(
        "updateSettings",
        json!({"locale": "de"}),
        Some(&user.cookie),
    )
    .await
    .data();
    let de = app.get("/", Some(&user.cookie)).await.text().await.unwrap();
    assert!(
        de.contains("lang=\"de\"") && de.contains(">Übersicht<"),
        "{de}"
    );
}

#[tokio::test]
async fn anonymous_pages_follow_the_browsers_language() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(app.url("/login"))
        .header("accept-language", "de-AT,de;q=0.9")
        .send()
        .await
        .unwrap();
    let html = res.text().await.unwrap();
    assert!(html.contains("lang=\"de\"") && html.contains("Anmelden"));
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let app = spawn_app().await;
    for path in ["/login", "/no-such-page", "/api/v1/health"] {
        let res = app.get(path, None).await;
        let h = res.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{csp}"
        );
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert!(h.contains_key("referrer-policy"), "{path}");
    }
}

#[tokio::test]
async fn pages_have_no_inline_script() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let html = app.get("/", Some(&user.cookie)).await.text().await.unwrap();
    for tag in html.split("<script").skip(1) {
        assert!(tag.trim_start().starts_with("src="), "inline script: {tag}");
    }
    assert!(!html.contains(" onclick=") && !html.contains(" style="));
}

#[tokio::test]
async fn assets_are_cached_for_a_year_by_content_hash_and_revalidate_by_etag() {
    let app = spawn_app().await;
    let html = app.get("/login", None).await.text().await.unwrap();
    let start = html.find("/assets/app.css?v=").unwrap();
    let url = &html[start..html[start..].find('"').unwrap() + start];
    let res = app.get(url, None).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/css"));
    assert_eq!(
        res.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let etag = res.headers()["etag"].to_str().unwrap().to_string();

    let unversioned = app.get("/assets/app.css", None).await;
    assert_eq!(unversioned.headers()["cache-control"], "no-cache");
    let revalidated = app
        .client
        .get(app.url("/assets/app.css"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(revalidated.status(), 304);
    assert_eq!(app.get("/assets/nope.css", None).await.status(), 404);
}
