//! Pages: redirects, 404s, languages, security headers, assets.

use crate::support::*;
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
        "/budgets",
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

#[tokio::test]
async fn every_record_page_renders_and_shows_a_write_on_the_next_load() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let call = |name: &'static str, body: serde_json::Value| {
        let app = &app;
        let cookie = user.cookie.clone();
        async move {
            let r = app.action(name, body, Some(&cookie)).await;
            r.data().clone()
        }
    };
    // Empty pages render.
    for path in [
        "/accounts",
        "/categories",
        "/expenses",
        "/subscriptions",
        "/daily-expenses",
        "/incomes",
        "/transfers",
        "/search",
        "/search?q=x",
    ] {
        let res = app.get(path, Some(&user.cookie)).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(
            app.get(path, None).await.status(),
            303,
            "{path} needs a session"
        );
    }
    let giro = call("createAccount", json!({"name": "Girokonto Alpha", "type": "checking", "currency": "EUR", "balance": "12.5"})).await;
    let spar = call(
        "createAccount",
        json!({"name": "Spar Beta", "type": "savings", "currency": "USD", "balance": "100"}),
    )
    .await;
    let today = app.state.clock.today();
    call(
        "createCategory",
        json!({"name": "Kategorie Gamma", "icon": "🐈"}),
    )
    .await;
    call("createExpense", json!({"name": "Miete Delta", "amount": 950, "frequency": "monthly", "startDate": today.to_string(), "accountId": giro["id"]})).await;
    call("createExpense", json!({"name": "Abo Epsilon", "amount": "9.99", "frequency": "monthly", "startDate": today.to_string(), "accountId": giro["id"], "isSubscription": true})).await;
    call("createDailyExpense", json!({"name": "Einkauf Zeta", "amount": "23.45", "date": today.to_string(), "accountId": giro["id"]})).await;
    call("createIncome", json!({"name": "Gehalt Eta", "amount": 3000, "frequency": "monthly", "startDate": today.to_string(), "accountId": giro["id"]})).await;
    call("createTransfer", json!({"fromAccountId": giro["id"], "toAccountId": spar["id"], "amount": 100, "frequency": "monthly", "startDate": today.to_string(), "note": "Sparen Theta"})).await;
    for (path, needle) in [
        ("/accounts", "Girokonto Alpha"),
        ("/accounts", "Spar Beta"),
        ("/categories", "Kategorie Gamma"),
        ("/expenses", "Miete Delta"),
        ("/subscriptions", "Abo Epsilon"),
        ("/daily-expenses", "Einkauf Zeta"),
        ("/incomes", "Gehalt Eta"),
        ("/transfers", "Sparen Theta"),
        ("/search?q=zeta", "Einkauf <mark>Zeta</mark>"),
        ("/", "Miete Delta"),
    ] {
        let res = app.get(path, Some(&user.cookie)).await;
        assert_eq!(res.status(), 200, "{path}");
        let html = res.text().await.unwrap();
        assert!(html.contains(needle), "{path} lacks {needle}");
    }
    // The subscription page does not list ordinary expenses.
    let subs = app
        .get("/subscriptions", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(!subs.contains("Miete Delta"));
    // An edit form comes filled in.
    let id = giro["id"].as_str().unwrap();
    let edit = app
        .get(&format!("/accounts?edit={id}"), Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(edit.contains("data-action=\"updateAccount\"") && edit.contains("value=\"12.50\""));
    // Another user's id in ?edit= shows the create form, not their record.
    let other = app.new_user().await;
    let foreign = app
        .get(&format!("/accounts?edit={id}"), Some(&other.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(!foreign.contains("Girokonto Alpha"));
    // After an update, the next load shows it (no stale cache).
    app.action(
        "updateAccount",
        json!({"id": id, "name": "Girokonto Omega"}),
        Some(&user.cookie),
    )
    .await
    .data();
    let html = app
        .get("/accounts", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Girokonto Omega") && !html.contains("Girokonto Alpha"));
}

#[tokio::test]
async fn the_dashboard_shows_the_month_and_navigates_between_months() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let html = app
        .get("/?month=2025-03", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("March 2025"));
    assert!(html.contains("href=\"/?month=2025-02\"") && html.contains("href=\"/?month=2025-04\""));
    // A nonsense month falls back to the current one instead of failing.
    assert_eq!(
        app.get("/?month=2025-13", Some(&user.cookie))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn the_dashboard_and_one_time_expenses_show_this_month_for_a_blank_or_unreadable_one() {
    use chrono::{TimeZone, Utc};
    let app = spawn_app().await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2026, 3, 15, 12, 0, 0).unwrap());
    let user = app.new_user().await;
    for (query, shown, value) in [
        ("", "March 2026", "2026-03"),
        ("?month=", "March 2026", "2026-03"),
        ("?month=%20%20", "March 2026", "2026-03"),
        ("?month=2025-13", "March 2026", "2026-03"),
        ("?month=march", "March 2026", "2026-03"),
        ("?month=%202026-02%20", "February 2026", "2026-02"),
    ] {
        let dashboard = app.page(&user, &format!("/{query}")).await;
        assert!(
            dashboard.contains(&format!("<strong>{shown}</strong>")),
            "/{query}"
        );
        let daily = app.page(&user, &format!("/daily-expenses{query}")).await;
        assert!(
            daily.contains(&format!("name=\"month\" value=\"{value}\"")),
            "/daily-expenses{query}"
        );
    }
}

#[tokio::test]
async fn the_settings_page_lists_tokens_without_showing_them() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let created = app
        .action(
            "createApiToken",
            json!({"name": "Wohnzimmer-Tablet", "expiresInDays": 30, "password": user.password}),
            Some(&user.cookie),
        )
        .await;
    let token = created.data()["token"].as_str().unwrap().to_string();
    let html = app
        .get("/settings", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Wohnzimmer-Tablet"));
    assert!(!html.contains(&token), "a token is shown only once");
    assert!(
        html.contains("data-action=\"createApiToken\"")
            && html.contains("data-action=\"revokeApiToken\"")
    );
}

#[tokio::test]
async fn the_assistant_page_explains_the_ai_settings_when_ai_is_off_and_shows_the_chat_when_on() {
    let app = spawn_app().await;
    let res = app.get("/assistant", None).await;
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "/login");

    // AI off: what to set, with examples, and where to read more; no chat.
    let user = app.new_user().await;
    let res = app.get("/assistant", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    for text in [
        "needs an AI provider",
        "AI_API_KEY",
        "AI_BASE_URL",
        "AI_MODEL",
        "http://localhost:11434/v1",
        "docs/assistant.md",
    ] {
        assert!(html.contains(text), "lacks {text}: {html}");
    }
    assert!(!html.contains("<textarea") && !html.contains("assistant.js"));
    assert!(html.contains("href=\"/assistant\" aria-current=\"page\""));
    app.action(
        "updateSettings",
        json!({"locale": "de"}),
        Some(&user.cookie),
    )
    .await
    .data();
    let de = app
        .get("/assistant", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        de.contains("Der Assistent braucht einen KI-Anbieter"),
        "{de}"
    );

    // AI on: the chat form, its script, the conversation list.
    let app = crate::receipts::app_with_ai("http://127.0.0.1:9/v1").await;
    let user = app.new_user().await;
    let res = app.get("/assistant", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    for text in [
        "data-assistant",
        "id=\"chat-form\"",
        "<textarea id=\"chat-input\"",
        "<label class=\"sr-only\" for=\"chat-input\">Message</label>",
        "role=\"log\" aria-live=\"polite\"",
        "/assets/assistant.js?v=",
        ">Send</button>",
        ">New conversation</a>",
        "No conversations yet.",
    ] {
        assert!(html.contains(text), "lacks {text}: {html}");
    }
    assert!(!html.contains("AI_API_KEY"));
    for tag in html.split("<script").skip(1) {
        assert!(tag.trim_start().starts_with("src="), "inline script: {tag}");
    }
    assert!(!html.contains(" style=") && !html.contains(" onclick="));
    let script = app.get("/assets/assistant.js", None).await;
    assert_eq!(script.status(), 200);
    assert!(script.headers()["content-type"]
        .to_str()
        .unwrap()
        .contains("javascript"));

    // An unknown (or another user's) conversation: said so, and a new one can start.
    let html = app
        .get(
            "/assistant?c=00000000-0000-4000-8000-000000000000",
            Some(&user.cookie),
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("does not exist") && html.contains("id=\"chat-form\""));
}

#[tokio::test]
async fn pages_keep_ids_unique_name_their_forms_and_the_404_keeps_the_navigation() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.action(
        "updateSettings",
        json!({"locale": "de"}),
        Some(&user.cookie),
    )
    .await;
    for path in [
        "/",
        "/settings",
        "/expenses",
        "/subscriptions",
        "/daily-expenses",
        "/accounts",
    ] {
        let html = app
            .get(path, Some(&user.cookie))
            .await
            .text()
            .await
            .unwrap();
        let mut ids: Vec<&str> = html
            .split(" id=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        let all = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all, "{path} repeats an id");
        // The phone menu's toggle is focusable, so it is not hidden from
        // assistive technology (axe: aria-hidden-focus).
        let toggle = html
            .split('<')
            .find(|tag| tag.contains("id=\"nav-toggle\""))
            .unwrap_or_else(|| panic!("{path} has the menu toggle"));
        assert!(!toggle.contains("aria-hidden"), "{path}: {toggle}");
    }
    let subs = app
        .get("/subscriptions", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(subs.contains("Neues Abo"), "the form says what it adds");
    assert!(!subs.contains("Neue Fixkosten"));

    let res = app.get("/no-such-page", Some(&user.cookie)).await;
    assert_eq!(res.status(), 404);
    let html = res.text().await.unwrap();
    assert!(html.contains("nav class=\"mainnav\""), "{html}");
}

#[tokio::test]
async fn home_screens_get_png_icons() {
    let app = spawn_app().await;
    let html = app.get("/login", None).await.text().await.unwrap();
    let href = html
        .split("rel=\"apple-touch-icon\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("an apple-touch-icon link")
        .to_string();
    let res = app.get(&href, None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "image/png");
    let png = res.bytes().await.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 180);

    let manifest: serde_json::Value = app
        .get("/assets/manifest.webmanifest", None)
        .await
        .json()
        .await
        .unwrap();
    let icons = manifest["icons"].as_array().unwrap();
    for icon in icons {
        let src = icon["src"].as_str().unwrap();
        assert_eq!(app.get(src, None).await.status(), 200, "{src}");
    }
    assert!(icons
        .iter()
        .any(|i| i["type"] == "image/png" && i["sizes"] == "512x512"));
}

#[tokio::test]
async fn search_names_the_matched_merchant_and_how_many_matches_there_are() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app
        .action(
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "0"}),
            Some(&user.cookie),
        )
        .await;
    let account = account.data()["id"].as_str().unwrap().to_string();
    for i in 0..60 {
        let r = app
            .action(
                "createDailyExpense",
                json!({"name": format!("Coffee {i}"), "merchant": if i == 7 { "Café Zentral" } else { "" },
                       "amount": "3.20", "date": "2026-01-05", "accountId": account}),
                Some(&user.cookie),
            )
            .await;
        assert!(r.ok(), "{}", r.body);
    }
    let page = app
        .get("/search?q=coffee", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Hits 1–50 of 60"), "{page}");
    let page = app
        .get("/search?q=zentral", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Coffee 7"), "{page}");
    assert!(
        page.contains("Merchant: Café <mark>Zentral</mark>"),
        "{page}"
    );
    assert!(!page.contains("Hits 1–"), "few hits need no pager");
}

#[tokio::test]
async fn another_months_dashboard_says_assets_and_payments_are_todays() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let this = app.get("/", Some(&user.cookie)).await.text().await.unwrap();
    assert!(!this.contains("(from today)"), "this month needs no note");
    use chrono::Datelike;
    let today = app.state.clock.today();
    let back = cashkeeper::domain::recurrence::add_months(
        cashkeeper::domain::recurrence::month_start(today),
        -2,
    );
    let other = format!("{:04}-{:02}", back.year(), back.month());
    let page = app
        .get(&format!("/?month={other}"), Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Total assets (today)"), "{page}");
    assert!(page.contains("(from today)"), "{page}");
}

#[tokio::test]
async fn the_categories_page_heads_its_column_budget_and_labels_the_field_so() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for (locale, column, field) in [
        ("en", "Budget per month", "Budget (monthly, optional)"),
        ("de", "Budget pro Monat", "Budget (monatlich, optional)"),
    ] {
        app.ok(&user, "updateSettings", json!({ "locale": locale }))
            .await;
        let html = app
            .get("/categories", Some(&user.cookie))
            .await
            .text()
            .await
            .unwrap();
        assert!(
            html.contains(&format!("<th class=\"num\">{column}</th>")),
            "{html}"
        );
        assert!(
            html.contains(&format!("<label for=\"f-monthlyLimit\">{field}</label>")),
            "{html}"
        );
        assert!(!html.contains("limit (optional)") && !html.contains("Limit (optional)"));
    }
}
