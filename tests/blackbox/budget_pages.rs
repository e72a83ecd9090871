//! The budgets in a real browser: set on their page, seen as bars on the
//! dashboard at desktop and phone width in light and dark, and the one-time
//! expense form's hint once a category is chosen.

use crate::support::browser::{screenshot, signed_in, signed_in_with, wait_for_css, wait_for_text};
use crate::support::*;
use fantoccini::Locator;
use serde_json::json;

#[tokio::test]
async fn a_person_sets_a_budget_and_sees_it_fill_on_the_dashboard_at_every_size() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let giro = app.account(&user, "Giro", "EUR").await;
    let food = app
        .ok(
            &user,
            "createCategory",
            json!({"name": "Essen", "icon": "🛒"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let fun = app
        .ok(
            &user,
            "createCategory",
            json!({"name": "Ausgehen mit Freunden und Familie", "icon": "🍻"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let today = app.state.clock.today().to_string();
    for (amount, category) in [("275.50", &food), ("95", &fun)] {
        app.ok(&user, "createDailyExpense", json!({"name": "Einkauf", "amount": amount, "date": today, "accountId": giro, "categoryId": category}))
            .await;
    }
    app.ok(&user, "setBudget", json!({"categoryId": fun, "amount": 80}))
        .await;

    let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
        return;
    };

    let c = &browser.client;
    c.goto(&app.url("/budgets")).await.unwrap();
    // The form: category, amount in German style, rollover.
    let form = wait_for_css(c, "form[data-action=setBudget]").await;
    form.find(Locator::Css("select[name=categoryId]"))
        .await
        .unwrap()
        .select_by_value(&food)
        .await
        .unwrap();
    let amount = form.find(Locator::Css("input[name=amount]")).await.unwrap();
    amount.send_keys("400,00").await.unwrap();
    form.find(Locator::Css("input[name=rollover]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    form.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(c, "noch 124,50").await;
    let list = app.ok(&user, "listBudgets", json!({})).await;
    let saved = list["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["categoryId"] == food.as_str())
        .unwrap()
        .clone();
    assert_eq!(saved["rollover"], true);
    assert_eq!(saved["status"], "ok");
    browser.client.clone().close().await.unwrap();

    for (name, width, dark) in [
        ("desktop", 1280, false),
        ("desktop-dark", 1280, true),
        ("phone", 390, false),
        ("phone-dark", 390, true),
    ] {
        let Some(browser) = signed_in_with(&app, &user, width, 900, dark).await else {
            return;
        };
        let c = &browser.client;
        let over = wait_for_css(c, ".budgets-card li.budget[data-budget=over]").await;
        // Not colour alone: the status is written next to the bar, and the
        // bar is a progress bar with its figures as its value.
        assert!(
            over.text().await.unwrap().contains("überschritten"),
            "{name}"
        );
        let bar = over.find(Locator::Css("[role=progressbar]")).await.unwrap();
        assert_eq!(
            bar.attr("aria-valuenow").await.unwrap().as_deref(),
            Some("100")
        );
        let text = bar.attr("aria-valuetext").await.unwrap().unwrap();
        assert!(text.contains("95,00") && text.contains("80,00"), "{text}");
        // The marker of today is on this month's bars.
        c.find(Locator::Css(".budgets-card .budget-today"))
            .await
            .unwrap();
        // Nothing sticks out of the page, on a phone neither.
        let wide: bool = c
            .execute(
                "const b = document.querySelector('.budgets-card'); \
                 return b.scrollWidth > b.clientWidth + 1 \
                   || document.documentElement.scrollWidth > window.innerWidth + 1;",
                vec![],
            )
            .await
            .unwrap()
            .as_bool()
            .unwrap();
        assert!(!wide, "{name}: the budget card is wider than the screen");
        c.execute(
            "document.querySelector('.budgets-card').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
        screenshot(c, &format!("budgets-dashboard-{name}")).await;
        c.goto(&app.url("/budgets")).await.unwrap();
        wait_for_css(c, "ul.budget-bars").await;
        screenshot(c, &format!("budgets-{name}")).await;
        browser.client.clone().close().await.unwrap();
    }
}

#[tokio::test]
async fn the_expense_form_says_what_is_left_of_the_chosen_categorys_budget() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let giro = app.account(&user, "Giro", "EUR").await;
    let food = app
        .ok(&user, "createCategory", json!({"name": "Essen"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(
        &user,
        "setBudget",
        json!({"categoryId": food, "amount": 400}),
    )
    .await;
    let today = app.state.clock.today().to_string();
    app.ok(&user, "createDailyExpense", json!({"name": "Markt", "amount": "275.50", "date": today, "accountId": giro, "categoryId": food}))
        .await;
    let Some(browser) = signed_in(&app, &user, 390, 900).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    let hint = wait_for_css(c, ".budget-hint").await;
    assert!(
        !hint.is_displayed().await.unwrap(),
        "no category chosen yet"
    );
    crate::support::browser::open_form(c).await;
    c.find(Locator::Css(
        "form[data-action=createDailyExpense] select[name=categoryId]",
    ))
    .await
    .unwrap()
    .select_by_value(&food)
    .await
    .unwrap();
    // The hint asks listBudgets first; WebDriver reads its non-breaking
    // spaces as spaces.
    crate::support::browser::wait_for_shown(c, ".budget-hint", "noch 124,50").await;
    assert_eq!(
        hint.text().await.unwrap().replace('\u{a0}', " "),
        "Budget: noch 124,50 € von 400,00 €"
    );
    browser.client.clone().close().await.unwrap();
}
