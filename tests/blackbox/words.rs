//! What a German user reads is German: every page of a German user with a
//! year of the demo household's data, in the states a household sees
//! (a month with entries, a search with hits, the budgets, net worth),
//! read as text (with the words of titles, labels, placeholders and the
//! pages' scripts) and searched for English words and English number
//! formats.

use crate::support::*;
use serde_json::json;

/// Words that are English and not German (whole words, case as written;
/// "offline" is German too: "Du bist offline, …").
const ENGLISH: &[&str] = &[
    "the",
    "and",
    "of",
    "your",
    "you",
    "with",
    "for",
    "from",
    "to",
    "than",
    "more",
    "less",
    "last",
    "this",
    "next",
    "per",
    "vs",
    "Daily",
    "daily",
    "Expense",
    "Expenses",
    "expenses",
    "expense",
    "Income",
    "Incomes",
    "income",
    "Total",
    "total",
    "Save",
    "Delete",
    "Edit",
    "Cancel",
    "Search",
    "Loading",
    "Error",
    "error",
    "network",
    "Month",
    "month",
    "months",
    "Account",
    "Accounts",
    "account",
    "Settings",
    "Next",
    "Previous",
    "Show",
    "Hide",
    "Balance",
    "balance",
    "Amount",
    "amount",
    "Date",
    "Category",
    "Categories",
    "category",
    "Subscriptions",
    "Subscription",
    "Transfers",
    "Transfer",
    "Forecast",
    "Reserves",
    "Insights",
    "Documents",
    "yearly",
    "monthly",
    "weekly",
    "quarterly",
    "Sign",
    "out",
    "Add",
    "New",
    "None",
    "Close",
    "Open",
    "Saved",
    "Undo",
    "Today",
    "today",
    "Yes",
    "spending",
    "Spending",
    "left",
    "over",
    "budget",
    "entries",
    "entry",
    "page",
    "Page",
    "scroll",
    "Scroll",
    "chart",
    "Chart",
    "Net",
    "worth",
    "assets",
    "Assets",
    "Fixed",
    "costs",
    "payments",
    "Payments",
    "Upcoming",
    "due",
];

/// The text of a page a person reads: text between tags, the values of
/// `title`, `aria-label`, `placeholder` and `alt`, and the words of the
/// pages' scripts: `data-*` values that are phrases (with a space) and the
/// string values of JSON ones (`data-texts`), without scripts' and styles'
/// code.
fn readable(html: &str) -> String {
    let unescaped = |s: &str| {
        s.replace("&quot;", "\"")
            .replace("&#34;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    };
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        out.push_str(&unescaped(&rest[..start]));
        out.push(' ');
        let tag_end = rest[start..]
            .find('>')
            .map_or(rest.len(), |e| start + e + 1);
        let tag = &rest[start..tag_end];
        for (name, value) in attributes(tag) {
            let value = unescaped(value);
            let value = value.as_str();
            if ["title", "aria-label", "placeholder", "alt"].contains(&name) {
                out.push_str(&format!(" {value} "));
            } else if name.starts_with("data-") {
                match serde_json::from_str::<serde_json::Value>(value) {
                    Ok(json @ serde_json::Value::Object(_)) => strings(&json, &mut out),
                    _ if value.contains(' ') => out.push_str(&format!(" {value} ")),
                    _ => {}
                }
            }
        }
        rest = &rest[tag_end..];
        for skipped in ["script", "style"] {
            if tag.starts_with(&format!("<{skipped}")) {
                let close = format!("</{skipped}>");
                rest = rest.find(&close).map_or("", |e| &rest[e + close.len()..]);
            }
        }
    }
    out.push_str(&unescaped(rest));
    out
}

/// A tag's attributes with double-quoted values.
fn attributes(tag: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let mut t = tag;
    while let Some(eq) = t.find("=\"") {
        let name = t[..eq]
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("");
        let value = &t[eq + 2..];
        let end = value.find('"').unwrap_or(value.len());
        found.push((name, &value[..end]));
        t = &value[(end + 1).min(value.len())..];
    }
    found
}

/// Every string value in `json`, to `out`.
fn strings(json: &serde_json::Value, out: &mut String) {
    match json {
        serde_json::Value::String(s) => out.push_str(&format!(" {s} ")),
        serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The English words and number formats in `text`.
fn english_in(text: &str) -> Vec<String> {
    // The scripts' templates name what they fill in ("{account}"): not read.
    let mut text = text.to_string();
    while let Some(open) = text.find('{') {
        match text[open..].find('}') {
            Some(close)
                if text[open + 1..open + close]
                    .chars()
                    .all(|c| c.is_ascii_alphabetic() || c == '_') =>
            {
                text.replace_range(open..=open + close, " ");
            }
            _ => {
                text.replace_range(open..=open, " ");
            }
        }
    }
    let text = text.as_str();
    let mut found = Vec::new();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for w in &words {
        if ENGLISH.contains(w) && !found.contains(&w.to_string()) {
            found.push(w.to_string());
        }
    }
    // "+32.1 %", "1,234.56": a decimal point or a thousands comma.
    let chars: Vec<char> = text.chars().collect();
    for i in 1..chars.len().saturating_sub(1) {
        let (a, c, b) = (chars[i - 1], chars[i], chars[i + 1]);
        if !(a.is_ascii_digit() && b.is_ascii_digit()) {
            continue;
        }
        let tail: String = chars[i + 1..].iter().take(8).collect();
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        let after = tail.chars().skip(digits).collect::<String>();
        let percent = c == '.' && after.trim_start().starts_with('%');
        let thousands = c == ',' && digits == 3 && after.starts_with('.');
        if percent || thousands {
            let from = i.saturating_sub(8);
            let around: String = chars[from..(i + 10).min(chars.len())].iter().collect();
            found.push(format!("number {around:?}"));
        }
    }
    found
}

#[test]
fn the_search_finds_english_words_and_numbers_and_leaves_german_alone() {
    assert_eq!(
        english_in("Daily expenses: +32.1 % vs. last month, 1,234.56 €"),
        [
            "Daily",
            "expenses",
            "vs",
            "last",
            "month",
            "number \"ses: +32.1 % vs. l\"",
            "number \"month, 1,234.56 €\""
        ]
    );
    assert!(english_in(
        "Ausgaben: +32,1 % ggü. Vormonat, 1.234,56 € am 14.03.2026, zuletzt {account}"
    )
    .is_empty());
    assert_eq!(
        readable(
            "<p title=\"Saved\" data-type=\"amount\" data-texts=\"{&quot;network&quot;:&quot;No network&quot;}\">\
             Hallo<script>var x = 'the';</script> <b data-msg=\"Try again\">Welt</b></p>"
        )
        .split_whitespace()
        .collect::<Vec<_>>(),
        ["Saved", "No", "network", "Hallo", "Try", "again", "Welt"]
    );
}

/// A user registered from a German browser (so the default categories
/// are German) who chose German.
async fn german_user(app: &TestApp) -> TestUser {
    let email = unique_email();
    let reply = app
        .reply(
            app.client
                .post(app.url("/actions/register"))
                .header("content-type", "application/json")
                .header("accept-language", "de-DE,de;q=0.9")
                .body(json!({"email": email, "password": "correct horse battery"}).to_string()),
        )
        .await;
    let user = TestUser {
        cookie: reply.session_cookie().unwrap(),
        id: reply.data()["id"].as_str().unwrap().to_string(),
        email,
        password: "correct horse battery".into(),
    };
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    user
}

#[tokio::test]
async fn a_german_user_reads_no_english_on_any_page() {
    // With an AI provider set up, so the assistant's page is its chat
    // (nothing asks the provider here).
    let app = crate::assistant::app_with_chat("http://127.0.0.1:9/v1").await;
    let month = app.state.clock.today().format("%Y-%m").to_string();
    let mut paths: Vec<String> = cashkeeper::web::SCREENS
        .iter()
        .map(|s| s.path.to_string())
        .filter(|p| !p.contains('{'))
        .filter(|p| {
            !["/login", "/register", "/forgot-password", "/reset-password"].contains(&p.as_str())
        })
        .collect();
    paths.extend([
        format!("/?month={month}"),
        format!("/daily-expenses?month={month}"),
        format!("/budgets?month={month}"),
        "/search?q=Netflix".to_string(),
        "/search?q=e".to_string(),
        "/search?q=nichts-davon".to_string(),
        "/accounts?months=all".to_string(),
        "/expenses?focus=name".to_string(),
    ]);
    let mut said = Vec::new();
    // A household with a year of data, and a newcomer with none.
    for demo in [true, false] {
        let user = german_user(&app).await;
        if demo {
            app.demo_household(&user).await;
        }
        for path in &paths {
            let res = app.get(path, Some(&user.cookie)).await;
            assert_eq!(res.status(), 200, "{path}");
            let page = res.text().await.unwrap();
            let english = english_in(&readable(&page));
            if !english.is_empty() {
                said.push(format!("{path} (demo data: {demo}): {english:?}"));
            }
        }
    }
    // The signed-out pages, for a German browser.
    for path in ["/login", "/register", "/forgot-password"] {
        let page = app
            .client
            .get(app.url(path))
            .header("accept-language", "de-DE,de;q=0.9")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let english = english_in(&readable(&page));
        if !english.is_empty() {
            said.push(format!("{path}: {english:?}"));
        }
    }
    assert!(
        said.is_empty(),
        "English on German pages:\n{}",
        said.join("\n")
    );
}

/// What a German page's scripts say when a reply is not the server's:
/// a gateway's HTML page instead of JSON, a browser's own English error.
#[tokio::test]
async fn the_scripts_say_a_failed_request_in_the_pages_language() {
    use crate::support::browser::{fill, sign_in, start, submit, wait_for_css, wait_until};
    use fantoccini::Locator;
    let Some(browser) = start(1280, 1000).await else {
        return;
    };
    let c = &browser.client;
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    app.account(&user, "Girokonto", "EUR").await;
    sign_in(c, &app, &user).await;

    // A proxy in front answers 502 with its own HTML page.
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    c.execute(
        "const real = window.fetch;
         window.fetch = function (url, init) {
           if (String(url).startsWith('/actions/createDailyExpense')) {
             return Promise.resolve(new Response('<html><body>502 Bad Gateway</body></html>',
               { status: 502, headers: { 'Content-Type': 'text/html' } }));
           }
           return real.apply(this, arguments);
         };",
        vec![],
    )
    .await
    .unwrap();
    fill(c, "name", "Bäcker").await;
    fill(c, "amount", "3,20").await;
    submit(c).await;
    let said = wait_for_css(c, "form.stack .form-error:not([hidden])")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(said, "Keine Verbindung zum Server; versuch es noch einmal.");

    // The browser's push flow fails with its own English message.
    c.goto(&app.url("/settings")).await.unwrap();
    let button = wait_for_css(c, "[data-push-toggle] button:not([hidden])").await;
    c.execute(
        "Notification.requestPermission = function () {
           return Promise.reject(new Error('Registration failed - push service error'));
         };",
        vec![],
    )
    .await
    .unwrap();
    button.click().await.unwrap();
    let failed = "Die Erinnerungen ließen sich in diesem Browser nicht ein- oder ausschalten. \
                  Bitte später noch einmal versuchen.";
    wait_until(
        c,
        "return document.querySelector('.push-state').textContent === arguments[0]",
        vec![failed.into()],
    )
    .await
    .unwrap_or_else(|| panic!("the push state never said {failed:?}"));
    let state = c.find(Locator::Css(".push-state")).await.unwrap();
    assert!(!state.text().await.unwrap().contains("Registration"));
    browser.client.clone().close().await.unwrap();
}
