//! A new user's first steps, from the outside: the dashboard's next steps
//! after the first account (shown, ticked, gone once done or hidden), its
//! quick "+ Expense", the start day a new recurring item starts from, the
//! account a form remembered, the search that marks, counts and sums what
//! it found and finds a category's records, the merchant hint read out,
//! and the cursor after "save and add another", in English and German, on
//! a phone and a desktop.

use crate::plain_words::user_in;
use crate::support::browser::{self, screenshot, sign_in, start_with, wait_for_css, wait_for_path};
use crate::support::*;
use cashkeeper::domain::locale::Locale;
use cashkeeper::i18n::format;
use chrono::Datelike;
use fantoccini::{Client, Locator};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::str::FromStr;

const CARD: &str = "id=\"next-steps-title\"";

/// What a page says in `locale`: `en` or `de`.
fn say(locale: Locale, en: &'static str, de: &'static str) -> &'static str {
    match locale {
        Locale::De => de,
        Locale::En => en,
    }
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

/// The `value` of the input named `name` in `html`.
fn input_value(html: &str, name: &str) -> String {
    let at = html
        .find(&format!("name=\"{name}\""))
        .unwrap_or_else(|| panic!("no field {name}"));
    let (start, end) = (
        html[..at].rfind('<').unwrap(),
        at + html[at..].find('>').unwrap(),
    );
    let tag = &html[start..end];
    tag.split("value=\"")
        .nth(1)
        .map(|v| v[..v.find('"').unwrap()].to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn after_the_first_account_the_next_steps_lead_on_until_they_are_done() {
    let app = spawn_app().await;
    for locale in [Locale::En, Locale::De] {
        let user = user_in(&app, locale.code()).await;
        let words = |en, de| say(locale, en, de);
        // No account yet: the welcome says to make one; no next steps, no
        // "+ Expense" (its form would only ask for an account).
        let page = app.page(&user, "/").await;
        assert!(page.contains(words("Welcome,", "Willkommen,")), "{page}");
        assert!(!page.contains(CARD) && !page.contains("quick-add"));

        let account = app.account(&user, "Giro", "EUR").await;
        let page = app.page(&user, "/").await;
        assert!(!page.contains(words("Welcome,", "Willkommen,")));
        assert!(page.contains(CARD), "{page}");
        assert!(page.contains(words("Next steps", "Nächste Schritte")));
        for (href, text) in [
            (
                "/incomes?focus=name#record-form",
                words("Add your salary", "Gehalt eintragen"),
            ),
            (
                "/expenses?focus=name#record-form",
                words("Add your rent", "Miete eintragen"),
            ),
            (
                "/import",
                words("Import a bank file", "Kontoauszug importieren"),
            ),
        ] {
            assert!(
                page.contains(&format!("<a href=\"{href}\">{text}</a>")),
                "{href} {text}: {page}"
            );
        }
        assert!(page.contains(&format!(
            "href=\"/daily-expenses?focus=amount#record-form\" title=\"{}\">{}</a>",
            words("Add a one-time expense", "Einmalige Ausgabe erfassen"),
            words("+ Expense", "+ Ausgabe")
        )));

        // The salary is in: that step is ticked, the others still lead on.
        app.ok(&user, "createIncome", json!({"name": "Gehalt", "amount": "2500", "frequency": "monthly", "startDate": "2026-01-01", "accountId": account}))
            .await;
        let page = app.page(&user, "/").await;
        assert!(page.contains(CARD));
        assert!(page.contains(&format!(
            "<s>{}</s>",
            words("Add your salary", "Gehalt eintragen")
        )));
        assert!(page.contains("href=\"/expenses?focus=name#record-form\""));

        // And the rent: nothing is left to suggest.
        app.ok(&user, "createExpense", json!({"name": "Miete", "amount": "900", "frequency": "monthly", "startDate": "2026-01-01", "accountId": account}))
            .await;
        let page = app.page(&user, "/").await;
        assert!(!page.contains(CARD), "{page}");
        assert!(page.contains("quick-add"), "the quick expense stays");
    }
}

/// An import ticks its step but ends no other: the salary and the rent it
/// brings are one-time entries, offered to be made recurring (in both
/// languages); made so, they tick their steps.
#[tokio::test]
async fn an_import_ends_no_step_and_its_monthly_rows_can_be_made_recurring() {
    use cashkeeper::domain::recurrence::{add_months, month_start};
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let this_month = month_start(app.state.clock.today());
    let day = |months_back: i32, day: u32| {
        let m = add_months(this_month, -months_back);
        m.with_day(day).unwrap().to_string()
    };
    let days: Vec<(String, String)> = (1..=3).rev().map(|b| (day(b, 1), day(b, 27))).collect();
    let mut rows = Vec::new();
    for (first, late) in &days {
        rows.push((first.as_str(), "-900,00", "Vermieter", "Miete"));
        rows.push((late.as_str(), "2500,00", "Arbeitgeber GmbH", "Gehalt"));
    }
    rows.push((days[0].0.as_str(), "-23,99", "REWE Markt", "Einkauf"));
    let csv = crate::imports::sparkasse(&rows);
    let batch = id(&crate::imports::stage(&app, &user, &account, &csv).await);
    app.ok(&user, "reconcileImport", json!({"id": batch})).await;
    app.ok(&user, "confirmImport", json!({"id": batch})).await;

    // The steps stand, the import ticked, the salary and the rent not.
    let page = app.page(&user, "/").await;
    assert!(page.contains(CARD), "{page}");
    assert!(page.contains("<s>Import a bank file</s>"), "{page}");
    assert!(page.contains("<a href=\"/incomes?focus=name#record-form\">Add your salary</a>"));
    assert!(page.contains("<a href=\"/expenses?focus=name#record-form\">Add your rent</a>"));
    // Both repeats are offered, the REWE purchase is not.
    assert!(page.contains("Repeated every month"), "{page}");
    assert_eq!(page.matches("data-action=\"makeRecurring\"").count(), 2);
    assert!(
        page.contains("Arbeitgeber GmbH: €2,500.00 a month, 3 times since"),
        "{page}"
    );
    assert!(
        page.contains("Vermieter: €900.00 a month, 3 times since"),
        "{page}"
    );
    assert!(!page.contains("REWE Markt:"));
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let page = app.page(&user, "/").await;
    assert!(page.contains("Jeden Monat wiederholt"), "{page}");
    let salary_de = format::money(Decimal::from(2500), "EUR", Locale::De);
    assert!(
        page.contains(&format!(
            "Arbeitgeber GmbH: {salary_de} im Monat, 3-mal seit"
        )),
        "{page}"
    );
    assert_eq!(page.matches("Wiederkehrend machen").count(), 2);

    let incomes = app.ok(&user, "listIncomes", json!({})).await;
    let salary: Vec<String> = incomes.as_array().unwrap().iter().map(id).collect();
    assert_eq!(salary.len(), 3, "{incomes}");
    let daily = app.ok(&user, "listDailyExpenses", json!({})).await;
    let daily = daily.as_array().unwrap();
    let rent = id(daily.iter().find(|d| d["name"] == "Vermieter").unwrap());
    let rewe = id(daily.iter().find(|d| d["name"] == "REWE Markt").unwrap());

    // What is not a repeat, or not the user's, or no kind, is refused by name.
    for (who, input, field) in [
        (&user, json!({"kind": "expense", "id": rewe}), "id: "),
        (&user, json!({"kind": "income", "id": rent}), "id: "),
        (&user, json!({"kind": "monthly", "id": rent}), "kind: "),
        (&user, json!({"kind": "expense"}), "id: "),
        (&other, json!({"kind": "expense", "id": rent}), "id: "),
    ] {
        let e = app.refused(who, "makeRecurring", input.clone()).await;
        assert!(e.starts_with(field), "{input}: {e}");
    }
    let e = app
        .refused(
            &user,
            "makeRecurring",
            json!({"kind": "expense", "id": rewe}),
        )
        .await;
    assert!(e.contains("jeden Monat"), "German: {e}");

    // The salary becomes one monthly income from its first day.
    let made = app
        .ok(
            &user,
            "makeRecurring",
            json!({"kind": "income", "id": salary[1]}),
        )
        .await;
    assert_eq!(made["replaced"], 3);
    let incomes = app.ok(&user, "listIncomes", json!({})).await;
    let incomes = incomes.as_array().unwrap();
    assert_eq!(incomes.len(), 1, "{incomes:?}");
    assert_eq!(incomes[0]["id"], made["id"]);
    assert_eq!(incomes[0]["frequency"], "monthly");
    assert_eq!(incomes[0]["startDate"], days[0].1);
    assert_eq!(incomes[0]["amount"], json!(2500.0));
    assert_eq!(incomes[0]["name"], "Arbeitgeber GmbH");
    let page = app.page(&user, "/").await;
    assert!(page.contains("<s>Gehalt eintragen</s>"), "{page}");
    assert_eq!(page.matches("Wiederkehrend machen").count(), 1);

    // And the rent a monthly expense: nothing is left to suggest.
    let made = app
        .ok(
            &user,
            "makeRecurring",
            json!({"kind": "expense", "id": rent}),
        )
        .await;
    assert_eq!(made["replaced"], 3);
    let expenses = app.ok(&user, "listExpenses", json!({})).await;
    assert_eq!(expenses[0]["frequency"], "monthly");
    assert_eq!(expenses[0]["startDate"], days[0].0);
    let daily = app.ok(&user, "listDailyExpenses", json!({})).await;
    assert_eq!(
        daily.as_array().unwrap().len(),
        1,
        "only REWE is left: {daily}"
    );
    assert!(!app.page(&user, "/").await.contains(CARD));
}

#[tokio::test]
async fn hidden_next_steps_stay_hidden_in_every_session_of_that_user_only() {
    let app = spawn_app().await;
    let (user, other) = (app.new_user().await, app.new_user().await);
    for u in [&user, &other] {
        app.account(u, "Giro", "EUR").await;
    }
    let page = app.page(&user, "/").await;
    assert!(page.contains("data-action=\"dismissNextSteps\""), "{page}");
    app.ok(&user, "dismissNextSteps", json!({})).await;
    assert!(!app.page(&user, "/").await.contains(CARD));
    // Kept on the server: a new sign-in (another browser) has them hidden too.
    let again = app.login(&user.email, &user.password).await;
    let elsewhere = TestUser {
        cookie: again.session_cookie().unwrap(),
        email: user.email.clone(),
        password: user.password.clone(),
        id: user.id.clone(),
    };
    assert!(!app.page(&elsewhere, "/").await.contains(CARD));
    // Twice is no error; another user still has theirs.
    app.ok(&user, "dismissNextSteps", json!({})).await;
    assert!(app.page(&other, "/").await.contains(CARD));
    // Signed out, the action is refused.
    let r = app.action("dismissNextSteps", json!({}), None).await;
    assert_eq!(r.status, 401, "{}", r.body);
}

#[tokio::test]
async fn a_new_recurring_item_starts_today_and_an_edited_one_keeps_its_start() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    app.account(&user, "Tagesgeld", "EUR").await;
    app.state.clock.set(
        "2026-03-15T21:30:00Z"
            .parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap(),
    );
    for path in ["/expenses", "/subscriptions", "/incomes", "/transfers"] {
        let page = app.page(&user, path).await;
        assert_eq!(input_value(&page, "startDate"), "2026-03-15", "{path}");
        assert_eq!(input_value(&page, "endDate"), "", "{path}");
    }
    let rent = app
        .ok(&user, "createExpense", json!({"name": "Miete", "amount": "900", "frequency": "monthly", "startDate": "2025-10-01", "accountId": account}))
        .await;
    let page = app
        .page(&user, &format!("/expenses?edit={}", id(&rent)))
        .await;
    assert_eq!(input_value(&page, "startDate"), "2025-10-01");
}

#[tokio::test]
async fn the_merchant_hint_is_read_out_when_it_appears() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.account(&user, "Giro", "EUR").await;
    let page = app.page(&user, "/daily-expenses").await;
    let at = page
        .find("class=\"hint merchant-hint\"")
        .expect("the hint is in the page");
    let tag = &page[page[..at].rfind('<').unwrap()..at + page[at..].find('>').unwrap()];
    assert!(tag.contains("aria-live=\"polite\""), "{tag}");
    // In the page and empty (a live region announces what is put into it),
    // its words ready for the script.
    assert!(!tag.contains("hidden"), "{tag}");
    assert!(
        tag.contains("data-text=\"Known merchant: category pre-selected.\""),
        "{tag}"
    );
}

fn money(amount: &str, currency: &str, locale: Locale) -> String {
    format::money(Decimal::from_str(amount).unwrap(), currency, locale)
}

#[tokio::test]
async fn search_marks_counts_and_sums_what_it_found_and_finds_a_categorys_records() {
    let app = spawn_app().await;
    for locale in [Locale::En, Locale::De] {
        let user = user_in(&app, locale.code()).await;
        let account = app.account(&user, "Giro", "EUR").await;
        let groceries = id(&app
            .ok(
                &user,
                "createCategory",
                json!({"name": "Lebensmittel", "icon": "🛒", "color": "#22AA55"}),
            )
            .await);
        for (name, amount, currency, category) in [
            ("Rewe", "12.40", "EUR", Some(&groceries)),
            ("Aldi", "7.60", "EUR", Some(&groceries)),
            ("REWE Markt", "3.00", "EUR", None),
            ("Rewe to go", "5.25", "USD", None),
            // Its own name says so too: found once, by its name.
            ("Lebensmittel Kiosk", "1.00", "EUR", Some(&groceries)),
        ] {
            app.ok(&user, "createDailyExpense", json!({"name": name, "amount": amount, "currency": currency, "date": "2026-01-10", "accountId": account, "categoryId": category}))
                .await;
        }

        // A word of the names: each place marked, counted, summed per currency.
        let page = app.page(&user, "/search?q=rewe").await;
        for marked in [
            "<mark>Rewe</mark>",
            "<mark>REWE</mark> Markt",
            "<mark>Rewe</mark> to go",
        ] {
            assert!(page.contains(marked), "{marked}: {page}");
        }
        let found = say(locale, "3 found", "3 Treffer");
        assert!(
            page.contains(&format!("<strong>{found}</strong>")),
            "{page}"
        );
        let sum = say(locale, "One-time expenses", "Einzelausgaben");
        assert!(
            page.contains(&format!(
                " · {sum}: <span class=\"amount\">{}</span>, <span class=\"amount\">{}</span>",
                money("15.40", "EUR", locale),
                money("5.25", "USD", locale)
            )),
            "{page}"
        );

        // A category's name finds the category and the records in it.
        let page = app.page(&user, "/search?q=Lebensmittel").await;
        let found = say(locale, "4 found", "4 Treffer");
        assert!(
            page.contains(&format!("<strong>{found}</strong>")),
            "{page}"
        );
        for name in ["Rewe", "Aldi", "<mark>Lebensmittel</mark> Kiosk"] {
            assert!(page.contains(&format!("{name}</a>")), "{name}: {page}");
        }
        let in_category = say(locale, "in category", "in Kategorie");
        assert!(
            page.contains(&format!("{in_category} <mark>Lebensmittel</mark>")),
            "{page}"
        );
        assert!(page.contains(&money("21.00", "EUR", locale)), "{page}");
        assert!(!page.contains("REWE Markt"));

        // The action says how each was found: the category's records last.
        let hits = app
            .ok(&user, "search", json!({"query": "lebensmittel"}))
            .await;
        let hits = hits.as_array().unwrap();
        let summary: Vec<(String, u64, Option<&str>)> = hits
            .iter()
            .map(|h| {
                (
                    h["name"].as_str().unwrap().to_string(),
                    h["rank"].as_u64().unwrap(),
                    h["category"].as_str(),
                )
            })
            .collect();
        assert_eq!(summary.len(), 4, "{summary:?}");
        assert_eq!(summary[0], ("Lebensmittel".into(), 0, None));
        assert_eq!(summary[1], ("Lebensmittel Kiosk".into(), 1, None));
        assert!(summary[2..]
            .iter()
            .all(|(n, rank, k)| (n == "Rewe" || n == "Aldi")
                && *rank == 4
                && *k == Some("Lebensmittel")));

        // Found by its text in a way LIKE does not fold ("Äpfel" for
        // "äpfel": the full-text match does) and by its category too: it
        // is counted and summed once.
        let fruit = id(&app
            .ok(&user, "createCategory", json!({"name": "Obst und äpfel"}))
            .await);
        app.ok(&user, "createDailyExpense", json!({"name": "Äpfel", "amount": "2.00", "date": "2026-01-11", "accountId": account, "categoryId": fruit}))
            .await;
        let page = app.page(&user, "/search?q=%C3%A4pfel").await;
        let found = say(locale, "2 found", "2 Treffer");
        assert!(
            page.contains(&format!("<strong>{found}</strong>")),
            "{page}"
        );
        assert!(
            page.contains(&format!(
                " · {sum}: <span class=\"amount\">{}</span>",
                money("2.00", "EUR", locale)
            )),
            "{page}"
        );
    }
}

// ------------------------------------------------------------ in a browser

/// A browser whose page is `width` by `height` pixels, also below the
/// 500 pixels headless Chromium's window keeps to.
async fn browser_at(width: u32, height: u32, dark: bool) -> Option<browser::Browser> {
    let b = start_with(width.max(500), height, dark).await?;
    crate::support::browser::resize(&b.client, width, height).await;
    Some(b)
}

/// `document.activeElement`'s name (or tag, without one).
async fn focused(c: &Client) -> String {
    c.execute(
        "const a = document.activeElement; return a ? (a.name || a.tagName) : '';",
        vec![],
    )
    .await
    .unwrap()
    .as_str()
    .unwrap_or("")
    .to_string()
}

/// Waits until the focused field is `name`.
async fn wait_for_focus(c: &Client, name: &str) {
    let reached = browser::wait_until(
        c,
        "const a = document.activeElement; return (a ? (a.name || a.tagName) : '') === arguments[0];",
        vec![name.into()],
    )
    .await;
    if reached.is_some() {
        return;
    }
    panic!(
        "the focus never went to {name}, it is on {}",
        focused(c).await
    );
}

#[tokio::test]
async fn the_dashboards_quick_expense_opens_the_form_with_the_amount_focused() {
    for (width, height, locale) in [
        (390, 844, Locale::De),
        (390, 844, Locale::En),
        (1280, 900, Locale::De),
    ] {
        let Some(b) = browser_at(width, height, false).await else {
            return;
        };
        let c = &b.client;
        let app = spawn_app().await;
        let user = user_in(&app, locale.code()).await;
        app.account(&user, "Giro", "EUR").await;
        sign_in(c, &app, &user).await;
        let quick = wait_for_css(c, "a.quick-add").await;
        screenshot(c, &format!("quick-expense-{width}-{}", locale.code())).await;
        assert_eq!(
            quick.text().await.unwrap(),
            say(locale, "+ Expense", "+ Ausgabe")
        );
        // In sight as the page opens, above the fold of a phone.
        let in_sight = c
            .execute(
                "const r = document.querySelector('a.quick-add').getBoundingClientRect();\
                 return r.top >= 0 && r.bottom <= window.innerHeight && r.width > 0;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(in_sight, Value::Bool(true), "{width}");
        quick.click().await.unwrap();
        wait_for_path(c, "/daily-expenses").await;
        wait_for_focus(c, "amount").await;
        b.client.clone().close().await.unwrap();
    }
}

#[tokio::test]
async fn save_and_add_another_leaves_the_cursor_in_the_first_field_and_a_form_says_its_account() {
    for (width, locale) in [(390, Locale::De), (390, Locale::En), (1280, Locale::En)] {
        let Some(b) = browser_at(width, 900, false).await else {
            return;
        };
        let c = &b.client;
        // With the receipt scan offered, whose file input comes first.
        let app = crate::receipts::app_with_ai("http://127.0.0.1:9/v1").await;
        let user = user_in(&app, locale.code()).await;
        app.account(&user, "Giro", "EUR").await;
        let savings = id(&app
            .ok(
                &user,
                "createAccount",
                json!({"name": "Tagesgeld", "type": "savings", "currency": "EUR", "balance": "0"}),
            )
            .await);
        sign_in(c, &app, &user).await;
        c.goto(&app.url("/daily-expenses")).await.unwrap();
        wait_for_css(c, "form.stack [data-scan]").await;
        // The page's own default: no word about it.
        assert!(c.find(Locator::Css(".account-hint")).await.is_err());
        c.execute(
            "document.querySelector('form.stack [name=accountId]').value = arguments[0];",
            vec![json!(savings)],
        )
        .await
        .unwrap();
        for (name, amount) in [("Bäcker", "3"), ("Metzger", "12")] {
            browser::fill(c, "name", name).await;
            browser::fill(c, "amount", amount).await;
            c.find(Locator::Css("form.stack button[data-another]"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            wait_for_css(c, ".toast:not([hidden])").await;
            wait_for_focus(c, "name").await;
            let name_now = c
                .find(Locator::Css("form.stack [name=name]"))
                .await
                .unwrap()
                .prop("value")
                .await
                .unwrap();
            assert_eq!(name_now.as_deref(), Some(""), "ready for the next one");
            c.execute("document.querySelector('.toast').hidden = true;", vec![])
                .await
                .unwrap();
        }

        // The next visit starts on the account last chosen, and says so
        // (in the form behind "+ New", now that the month lists entries).
        c.goto(&app.url("/daily-expenses")).await.unwrap();
        browser::open_form(c).await;
        let hint = wait_for_css(c, ".account-hint").await;
        assert_eq!(
            hint.text().await.unwrap(),
            say(
                locale,
                "Last used in this form: Tagesgeld",
                "Zuletzt in diesem Formular gewählt: Tagesgeld"
            )
        );
        let described = c
            .find(Locator::Css("form.stack [name=accountId]"))
            .await
            .unwrap()
            .attr("aria-describedby")
            .await
            .unwrap()
            .unwrap();
        assert!(described.contains("f-accountId-last-used"), "{described}");
        b.client.clone().close().await.unwrap();
    }
}

#[tokio::test]
async fn the_next_steps_on_a_phone_light_and_dark() {
    for (dark, locale) in [(false, Locale::De), (true, Locale::De), (false, Locale::En)] {
        let Some(b) = browser_at(390, 844, dark).await else {
            return;
        };
        let c = &b.client;
        let app = spawn_app().await;
        let user = user_in(&app, locale.code()).await;
        let account = app.account(&user, "Girokonto", "EUR").await;
        app.ok(&user, "createIncome", json!({"name": "Gehalt", "amount": "2500", "frequency": "monthly", "startDate": "2026-01-01", "accountId": account}))
            .await;
        sign_in(c, &app, &user).await;
        wait_for_css(c, "#next-steps-title").await;
        let name = format!(
            "next-steps-phone{}-{}",
            if dark { "-dark" } else { "" },
            locale.code()
        );
        screenshot(c, &name).await;
        // The card, its ticked step and its links pass axe-core's checks.
        if let Some(found) = crate::axe::violations_here(c).await {
            assert!(found.is_empty(), "{name}: {found:#?}");
        }
        // Hiding them: the page comes back without them.
        c.find(Locator::Css("form[data-action=dismissNextSteps] button"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        browser::wait_until(
            c,
            "return document.querySelector('#next-steps-title') === null",
            vec![],
        )
        .await;
        assert!(c.find(Locator::Css("#next-steps-title")).await.is_err());
        b.client.clone().close().await.unwrap();
    }
}
