//! Layout: record tables fit their panel with their row actions in sight,
//! the list starts on the first screen, charts open on their newest end on
//! a phone, the "saved" note covers nothing, paperclips only on records
//! with documents, an account with entries is not offered a delete that
//! would be refused, the import review's active filter count is readable
//! in the dark scheme, the import history's action lines up with its row's
//! contents on a phone, the category chart's text is readable there, and
//! on a phone words stay whole and the browser list's times are labelled.

use crate::support::browser::{fill, signed_in_with, submit, wait_for_css};
use crate::support::*;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap()
}

/// A phone in the light and the dark scheme, and a desktop: (width,
/// height, dark).
const PHONE_AND_DESKTOP: [(u32, u32, bool); 3] =
    [(390, 844, false), (390, 844, true), (1280, 900, false)];

/// Where the page's record table and its row actions are: whether the
/// page scrolls sideways, whether every row's Edit and Delete lie inside
/// the table's panel and the window, and the first row's top.
const TABLE_FITS: &str = r#"
const table = document.querySelector('table.records');
if (!table) return { table: false };
const panel = table.closest('.panel').getBoundingClientRect();
const inside = r => r.width > 0 && r.left >= panel.left - 0.5 && r.right <= panel.right + 0.5
  && r.left >= 0 && r.right <= window.innerWidth;
const actions = Array.from(table.querySelectorAll('tbody td.row-actions'), td => {
  const edit = td.querySelector('a'), del = td.querySelector('form button, .undeletable');
  return !!edit && !!del && inside(edit.getBoundingClientRect()) && inside(del.getBoundingClientRect());
});
const first = table.querySelector('tbody tr').getBoundingClientRect();
return {
  table: true,
  pageOverflow: document.documentElement.scrollWidth > window.innerWidth,
  panelOverflow: table.closest('.panel').scrollWidth > table.closest('.panel').clientWidth,
  rows: actions.length,
  actionsInside: actions.every(a => a),
  firstRowTop: first.top,
  height: window.innerHeight,
};
"#;

/// The sideways-scrolling charts of the page (the drawing beside a value
/// axis, or the whole chart): how far each is from its right end, the
/// hint it shows, and its value axis's labels outside the window.
const CHARTS_BODY: &str = r#"
const charts = Array.from(document.querySelectorAll('.chart'))
  .map(c => [c, c.querySelector('.chart-scroll') || c])
  .filter(([c, box]) => box.scrollWidth > box.clientWidth + 1)
  .map(([c, box]) => {
    const hint = c.querySelector('.chart-scroll-hint');
    // The value axis's labels: the axis texts anchored at their end.
    const fig = c.getBoundingClientRect();
    const axis = Array.from(c.querySelectorAll('text.chart-axis[text-anchor=end]'), t => t.getBoundingClientRect());
    return {
      fromEnd: box.scrollWidth - box.clientWidth - box.scrollLeft,
      axisLabels: axis.length,
      axisOutside: axis.filter(r => !(r.width > 0 && r.left >= Math.max(0, fig.left) - 0.5
        && r.right <= Math.min(window.innerWidth, fig.right) + 0.5)).length,
      hint: hint && !hint.hidden && hint.getBoundingClientRect().height > 0 ? hint.textContent : null,
    };
  });
"#;

/// The buttons in a form's column (`.stack`) as wide as that column.
const WIDE_BUTTONS: &str = r#"
return Array.from(document.querySelectorAll('main .stack > button'))
  .filter(b => b.getBoundingClientRect().width > 0
    && b.getBoundingClientRect().width >= b.parentElement.getBoundingClientRect().width - 1)
  .map(b => b.textContent.trim());
"#;

/// On a phone's stacked rows: the cells whose content reaches into the
/// label column (left of where the labels end), and whether the month
/// stepper's ‹ and › share a line.
const STACKED: &str = r#"
const under = [];
for (const td of document.querySelectorAll('table.records tbody td[data-col]')) {
  if (!td.textContent.trim() && !td.children.length) continue;
  const range = document.createRange();
  range.selectNodeContents(td);
  const left = Math.min(...Array.from(range.getClientRects(), r => r.left));
  if (left < td.getBoundingClientRect().left + 8.5 * 16) under.push(td.dataset.col + ': ' + td.textContent.trim());
}
const [prev, next] = Array.from(document.querySelectorAll('.month-step > a'), a => a.getBoundingClientRect().top);
return { underLabels: under.slice(0, 5), stepperOnOneLine: prev !== undefined && Math.abs(prev - next) < 1 };
"#;

/// Whether the edit form's heading is below the sticky top bar.
const HEADING_IN_SIGHT: &str = r#"
const h = document.querySelector('#record-form h2').getBoundingClientRect();
const bar = document.querySelector('.topbar').getBoundingClientRect();
return { below: h.top >= bar.bottom, heading: h.top, bar: bar.bottom };
"#;

/// The record pages, each checked for its table at desktop width.
const RECORD_PAGES: [&str; 9] = [
    "/expenses",
    "/subscriptions",
    "/incomes",
    "/transfers",
    "/daily-expenses",
    "/accounts",
    "/categories",
    "/documents",
    "/budgets",
];

#[tokio::test]
async fn record_tables_fit_their_panel_and_phone_charts_open_on_the_newest_month() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.demo_household(&user).await;
    app.ok(
        &user,
        "uploadDocument",
        json!({"fileName": "Kaufvertrag.pdf", "contentType": "application/pdf",
               "dataBase64": "JVBERi0xLjcKJSVFT0YK"}),
    )
    .await;
    for (width, height, dark) in [
        (1280, 900, false),
        (1280, 900, true),
        (390, 844, false),
        (390, 844, true),
    ] {
        let Some(browser) = signed_in_with(&app, &user, width, height, dark).await else {
            return;
        };
        let c = &browser.client;
        for (locale, hint) in [
            ("en", "Scrolls sideways: earlier months to the left."),
            ("de", "Seitlich verschiebbar: frühere Monate links."),
        ] {
            app.ok(&user, "updateSettings", json!({ "locale": locale }))
                .await;
            let at = format!("{locale} {width}px dark={dark}");
            c.goto(&app.url("/expenses")).await.unwrap();
            wait_for_css(c, &format!("html[lang={locale}]")).await;
            let seen = js(c, TABLE_FITS).await;
            assert_eq!(seen["table"], true, "{at}: {seen}");
            assert_eq!(
                seen["pageOverflow"], false,
                "no sideways scrolling: {at}: {seen}"
            );
            assert_eq!(seen["panelOverflow"], false, "{at}: {seen}");
            assert!(seen["rows"].as_u64().unwrap() > 5, "{at}: {seen}");
            assert_eq!(
                seen["actionsInside"], true,
                "Edit and Delete in sight: {at}: {seen}"
            );
            if width > 760 {
                assert!(
                    seen["firstRowTop"].as_f64().unwrap() < seen["height"].as_f64().unwrap(),
                    "the list starts on the first screen: {at}: {seen}"
                );
                // Every record page's table fits its panel (once a size is enough).
                if !dark {
                    for path in RECORD_PAGES {
                        c.goto(&app.url(path)).await.unwrap();
                        let seen = js(c, TABLE_FITS).await;
                        if seen["table"] == true {
                            assert_eq!(seen["pageOverflow"], false, "{path} {at}: {seen}");
                            assert_eq!(seen["panelOverflow"], false, "{path} {at}: {seen}");
                            assert_eq!(seen["actionsInside"], true, "{path} {at}: {seen}");
                        }
                    }
                    // A form's buttons are as wide as their words.
                    c.goto(&app.url("/settings")).await.unwrap();
                    let wide = js(c, WIDE_BUTTONS).await;
                    assert_eq!(wide, json!([]), "{at}");
                }
            } else {
                // The dashboard's charts open on this month and say they scroll.
                c.goto(&app.url("/")).await.unwrap();
                wait_for_css(c, "figure.chart svg").await;
                let charts = js(c, &format!("{CHARTS_BODY}; return charts;")).await;
                let charts = charts.as_array().unwrap();
                assert!(!charts.is_empty(), "a chart scrolls on a phone: {at}");
                for chart in charts {
                    assert!(
                        chart["fromEnd"].as_f64().unwrap() <= 1.0,
                        "starts at its right end: {at}: {chart}"
                    );
                    assert_eq!(chart["hint"], hint, "{at}");
                    assert_eq!(chart["axisOutside"], 0, "values in view: {at}: {chart}");
                }
                // "Next payments": no date runs into the name beside it.
                let payments = js(c, PAYMENTS_CLASH).await;
                assert!(payments["rows"].as_u64().unwrap() > 0, "{at}: {payments}");
                assert_eq!(payments["clashes"], json!([]), "{at}: {payments}");
                if !dark {
                    // Stacked rows: everything a cell holds right of its label;
                    // the month stepper on one line.
                    c.goto(&app.url("/daily-expenses")).await.unwrap();
                    let seen = js(c, STACKED).await;
                    assert_eq!(seen["underLabels"], json!([]), "{at}: {seen}");
                    assert_eq!(seen["stepperOnOneLine"], true, "{at}: {seen}");
                    // An edit form's heading clears the sticky top bar.
                    c.goto(&app.url("/expenses")).await.unwrap();
                    let edit = c
                        .find(Locator::Css("a[href*='edit=']"))
                        .await
                        .unwrap()
                        .attr("href")
                        .await
                        .unwrap()
                        .unwrap();
                    c.goto(&app.url(&edit)).await.unwrap();
                    wait_for_css(c, "form[data-action=updateExpense]").await;
                    let seen = js(c, HEADING_IN_SIGHT).await;
                    assert_eq!(seen["below"], true, "{at}: {seen}");
                }
            }
        }
        browser.client.clone().close().await.unwrap();
    }
}

/// The dashboard's next payments whose date (its text, not its grid cell)
/// reaches into the name beside it.
const PAYMENTS_CLASH: &str = r#"
const rows = Array.from(document.querySelectorAll('ul.payments li'));
const clashes = rows.filter(li => {
  const range = document.createRange();
  range.selectNodeContents(li.querySelector('.when'));
  const date = range.getBoundingClientRect();
  const name = li.querySelector('.what').getBoundingClientRect();
  return date.right > name.left + 0.5;
}).map(li => li.textContent);
return { rows: rows.length, clashes };
"#;

/// Whether the "saved" note is in sight and overlaps no field or button.
const TOAST_COVERS: &str = r#"
const toast = document.querySelector('.toast:not([hidden])');
if (!toast) return null;
const t = toast.getBoundingClientRect();
const covered = Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a'))
  .filter(el => !toast.contains(el))
  .map(el => [el, el.getBoundingClientRect()])
  .filter(([, r]) => r.width > 0 && r.height > 0)
  .filter(([, r]) => r.left < t.right && r.right > t.left && r.top < t.bottom && r.bottom > t.top)
  .map(([el]) => el.name || el.textContent.trim());
return { covered, text: toast.textContent, height: t.height };
"#;

#[tokio::test]
async fn the_saved_note_covers_no_field_on_a_phone() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.account(&user, "Giro", "EUR").await;
    let Some(browser) = signed_in_with(&app, &user, 390, 844, false).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url("/daily-expenses")).await.unwrap();
    // Save and add another: the note beside the buttons, the form in use.
    fill(c, "name", "Bakery").await;
    fill(c, "amount", "3.20").await;
    c.find(Locator::Css("form.stack button[data-another]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_css(c, ".toast:not([hidden])").await;
    let seen = js(c, TOAST_COVERS).await;
    assert_eq!(seen["text"], "Saved.", "{seen}");
    assert_eq!(seen["covered"], json!([]), "{seen}");
    // A save that reloads: the note on the new page, under its heading.
    fill(c, "name", "Butcher").await;
    fill(c, "amount", "12.80").await;
    submit(c).await;
    crate::support::browser::wait_for_text(c, "Butcher").await;
    wait_for_css(c, ".toast:not([hidden])").await;
    let seen = js(c, TOAST_COVERS).await;
    assert_eq!(seen["covered"], json!([]), "{seen}");
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_paperclip_shows_only_on_records_with_documents_and_the_edit_form_attaches_one() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    let today = app.state.clock.today().to_string();
    let mut ids = Vec::new();
    for name in ["Bakery", "Butcher"] {
        let made = app
            .ok(
                &user,
                "createDailyExpense",
                json!({"name": name, "amount": "3.20", "date": today, "accountId": giro}),
            )
            .await;
        ids.push(made["id"].as_str().unwrap().to_string());
    }
    app.ok(
        &user,
        "uploadDocument",
        json!({"fileName": "bon.pdf", "contentType": "application/pdf",
               "dataBase64": "JVBERi0xLjcKJSVFT0YK", "dailyExpenseId": ids[0]}),
    )
    .await;
    let page = app.page(&user, "/daily-expenses").await;
    assert_eq!(
        page.matches("class=\"paperclip\"").count(),
        1,
        "only the bakery has a document"
    );
    assert!(page.contains("bon.pdf"));
    // The butcher's edit form offers the upload, labelled.
    let edit = app
        .page(&user, &format!("/daily-expenses?edit={}", ids[1]))
        .await;
    let attach = &edit[edit.find("class=\"attach\"").expect("an attach section")..];
    assert!(attach.contains("<h3>"), "headed");
    assert!(attach.contains("Documents"));
    assert!(attach.contains(&format!("name=\"dailyExpenseId\" value=\"{}\"", ids[1])));
    assert!(attach.contains("aria-label=\"Choose files or drop them here\""));
}

#[tokio::test]
async fn an_account_with_entries_says_why_it_cannot_be_deleted_instead_of_offering_it() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let ids = [
        app.account(&user, "Giro", "EUR").await,
        app.account(&user, "Spare", "EUR").await,
    ];
    let today = app.state.clock.today().to_string();
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Bakery", "amount": "3.20", "date": today, "accountId": ids[0]}),
    )
    .await;
    for (locale, says) in [
        ("en", "Has entries: not deletable yet (see below)"),
        ("de", "Hat Einträge: noch nicht löschbar (siehe unten)"),
    ] {
        app.ok(&user, "updateSettings", json!({ "locale": locale }))
            .await;
        let page = app.page(&user, "/accounts").await;
        let deletes: Vec<&str> = page
            .split("data-action=\"deleteAccount\"")
            .skip(1)
            .map(|form| &form[..form.find("</form>").unwrap()])
            .collect();
        assert_eq!(deletes.len(), 1, "{locale}: only the unused account");
        assert!(deletes[0].contains(&ids[1]), "{locale}");
        assert_eq!(page.matches(says).count(), 1, "{locale}");
    }
    // The refusal stays what it was for a client that asks anyway.
    let refused = app
        .action("deleteAccount", json!({"id": ids[0]}), Some(&user.cookie))
        .await;
    assert!(!refused.ok());
}

/// The contrast of the active status filter's count against its own
/// background, by WCAG's relative luminance.
const COUNT_CONTRAST: &str = r#"
const count = document.querySelector('.status-filters a[aria-current=page] .count');
const rgb = c => c.match(/[\d.]+/g).slice(0, 3).map(Number);
const lum = c => {
  const [r, g, b] = rgb(c).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const fg = lum(getComputedStyle(count).color);
const bg = lum(getComputedStyle(count.closest('a')).backgroundColor);
return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
"#;

#[tokio::test]
async fn the_active_import_filters_count_is_readable_in_the_dark() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let batch = crate::import_page::seed(&app, &user, &account, 6).await;
    let Some(browser) = signed_in_with(&app, &user, 1280, 900, true).await else {
        return;
    };
    let c = &browser.client;
    c.goto(&app.url(&format!("/import?batch={batch}&status=conflict")))
        .await
        .unwrap();
    wait_for_css(c, ".status-filters a[aria-current=page] .count").await;
    let ratio = js(c, COUNT_CONTRAST).await.as_f64().unwrap();
    assert!(ratio >= 4.5, "contrast {ratio:.2}:1");
    browser.client.clone().close().await.unwrap();
}

/// The import history's stacked rows on a phone: where each labelled
/// cell's content starts (its text, not its label), and where the row's
/// action is.
const HISTORY_ACTIONS: &str = r#"
const range = document.createRange();
return Array.from(document.querySelectorAll('table.import-history-table tbody tr'), tr => {
  const starts = Array.from(tr.querySelectorAll('td[data-label]:not(.row-actions)'), td => {
    range.selectNodeContents(td);
    return Math.min(...Array.from(range.getClientRects(), r => r.left));
  });
  const action = tr.querySelector('td.row-actions a, td.row-actions button');
  const r = action.getBoundingClientRect();
  return { starts, text: action.textContent.trim(), left: r.left, right: r.right, width: window.innerWidth };
});
"#;

#[tokio::test]
async fn the_import_historys_open_lines_up_with_its_rows_contents_on_a_phone() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    crate::import_page::seed(&app, &user, &account, 3).await;
    for (width, height, dark) in PHONE_AND_DESKTOP {
        let Some(browser) = signed_in_with(&app, &user, width, height, dark).await else {
            return;
        };
        let c = &browser.client;
        for (locale, open) in [("en", "Open"), ("de", "Öffnen")] {
            app.ok(&user, "updateSettings", json!({ "locale": locale }))
                .await;
            let at = format!("{locale} {width}px dark={dark}");
            c.goto(&app.url("/import")).await.unwrap();
            wait_for_css(
                c,
                &format!("html[lang={locale}] table.import-history-table"),
            )
            .await;
            let rows = js(c, HISTORY_ACTIONS).await;
            let rows = rows.as_array().unwrap();
            assert_eq!(rows.len(), 1, "{at}: {rows:?}");
            for row in rows {
                assert_eq!(row["text"], open, "{at}: {row}");
                let (left, right) = (
                    row["left"].as_f64().unwrap(),
                    row["right"].as_f64().unwrap(),
                );
                assert!(
                    left >= 0.0 && right <= row["width"].as_f64().unwrap(),
                    "the action in sight: {at}: {row}"
                );
                if width < 760 {
                    let starts: Vec<f64> = row["starts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s.as_f64().unwrap())
                        .collect();
                    assert_eq!(starts.len(), 5, "{at}: {row}");
                    for start in starts {
                        assert!(
                            (left - start).abs() <= 2.0,
                            "the action starts where the cells' contents do: {at}: {row}"
                        );
                    }
                }
            }
        }
        browser.client.clone().close().await.unwrap();
    }
}

/// The dashboard's spending-by-category chart as drawn: its accessible
/// name, each text's size in CSS pixels (its font size times the
/// drawing's scale), the texts outside the chart's box, and the texts
/// that run into one another.
const CATEGORY_TEXT: &str = r#"
const fig = document.querySelector('figure.chart.categories');
const box = fig.getBoundingClientRect();
const svg = Array.from(fig.querySelectorAll('svg')).find(s => s.getBoundingClientRect().width > 0);
const texts = Array.from(svg.querySelectorAll('text'));
const size = t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
const rect = t => t.getBoundingClientRect();
const overlaps = [];
texts.forEach((a, i) => texts.slice(i + 1).forEach(b => {
  const [r, s] = [rect(a), rect(b)];
  if (r.left < s.right - 0.5 && s.left < r.right - 0.5 && r.top < s.bottom - 0.5 && s.top < r.bottom - 0.5)
    overlaps.push(a.textContent + ' / ' + b.textContent);
}));
return {
  name: svg.getAttribute('role') + ': ' + svg.getAttribute('aria-labelledby').split(' ')
    .map(id => document.getElementById(id).textContent).join(' | '),
  texts: texts.length,
  smallest: Math.min(...texts.map(size)),
  small: texts.filter(t => size(t) < 12).map(t => t.textContent + ': ' + size(t).toFixed(1)).slice(0, 5),
  outside: texts.filter(t => rect(t).left < box.left - 0.5 || rect(t).right > box.right + 0.5
    || rect(t).top < box.top - 0.5 || rect(t).bottom > box.bottom + 0.5).map(t => t.textContent),
  overlaps,
  scrolls: fig.scrollWidth > fig.clientWidth,
  width: box.width,
};
"#;

#[tokio::test]
async fn the_category_charts_text_is_readable_on_a_phone_and_stays_in_its_box() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.demo_household(&user).await;
    for (width, height, dark) in PHONE_AND_DESKTOP {
        let Some(browser) = signed_in_with(&app, &user, width, height, dark).await else {
            return;
        };
        let c = &browser.client;
        for (locale, title) in [
            ("en", "Spending by category"),
            ("de", "Ausgaben nach Kategorie"),
        ] {
            app.ok(&user, "updateSettings", json!({ "locale": locale }))
                .await;
            let at = format!("{locale} {width}px dark={dark}");
            c.goto(&app.url("/")).await.unwrap();
            wait_for_css(
                c,
                &format!("html[lang={locale}] figure.chart.categories svg"),
            )
            .await;
            let seen = js(c, CATEGORY_TEXT).await;
            let name = seen["name"].as_str().unwrap();
            assert!(
                name.starts_with(&format!("img: {title} | ")),
                "{at}: {seen}"
            );
            assert!(seen["texts"].as_u64().unwrap() >= 6, "{at}: {seen}");
            assert_eq!(seen["small"], json!([]), "at least 12 px: {at}: {seen}");
            assert_eq!(seen["outside"], json!([]), "{at}: {seen}");
            assert_eq!(seen["overlaps"], json!([]), "{at}: {seen}");
            assert_eq!(seen["scrolls"], false, "{at}: {seen}");
        }
        browser.client.clone().close().await.unwrap();
    }
}

/// On a phone the dashboard's twelve months, the net worth and the
/// forecast open on the newest month, and their value axis stays in view
/// beside the drawing that scrolled: every label inside the window and the
/// chart. In the light and the dark scheme, saved as screenshots.
#[tokio::test]
async fn phone_charts_keep_their_value_axis_in_view_at_the_newest_month() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.demo_household(&user).await;
    for dark in [false, true] {
        let Some(browser) = signed_in_with(&app, &user, 390, 844, dark).await else {
            return;
        };
        let c = &browser.client;
        for (path, chart) in [
            ("/", "figure.chart"),
            ("/accounts", "figure.net-worth"),
            ("/forecasts", "figure.chart"),
        ] {
            let at = format!("{path} dark={dark}");
            c.goto(&app.url(path)).await.unwrap();
            wait_for_css(c, &format!("{chart} svg[role=img]")).await;
            // Scrolled to the newest month once the page's script ran.
            let charts = crate::support::browser::wait_until(
                c,
                &format!("{CHARTS_BODY}; return charts.length && charts.every(c => c.fromEnd <= 1) && charts;"),
                vec![],
            )
            .await
            .unwrap_or_else(|| panic!("{at}: no chart scrolled to its end"));
            let charts = charts.as_array().unwrap();
            for seen in charts {
                assert!(seen["axisLabels"].as_u64().unwrap() >= 2, "{at}: {seen}");
                assert_eq!(seen["axisOutside"], 0, "the values in view: {at}: {seen}");
            }
            c.execute(
                &format!("document.querySelector({chart:?}).scrollIntoView()"),
                vec![],
            )
            .await
            .unwrap();
            let name = path.trim_start_matches('/');
            let name = if name.is_empty() { "dashboard" } else { name };
            crate::support::browser::screenshot(
                c,
                &format!("chart-axis-{name}-phone{}", if dark { "-dark" } else { "" }),
            )
            .await;
        }
        browser.client.clone().close().await.unwrap();
    }
}

/// The words under `selector` that the browser broke over two lines, and
/// how many words it looked at.
const BROKEN_WORDS: &str = r#"
const broken = [];
let words = 0;
for (const el of document.querySelectorAll(arguments[0])) {
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    for (const m of node.textContent.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects(), r => Math.round(r.top)));
      words += 1;
      if (tops.size > 1) broken.push(m[0]);
    }
  }
}
return { words, broken };
"#;

/// The cells of the settings' browser list that show no label of their own
/// on a phone (the label a stacked cell draws before its value).
const UNLABELLED_SESSION_CELLS: &str = r#"
const cells = Array.from(document.querySelectorAll('#sessions tbody td:not(.row-actions)'));
return {
  cells: cells.length,
  unlabelled: cells.filter(td => {
    const before = getComputedStyle(td, '::before').content;
    return !before || before === 'none' || before === 'normal' || before === '""';
  }).map(td => td.textContent.trim()),
};
"#;

/// On a phone: the browser list's times are labelled, "Deutschlandticket"
/// stays whole in the next payments, and an IBAN stays whole in the import
/// review.
#[tokio::test]
async fn phone_words_stay_whole_and_session_times_are_labelled() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let today = app.state.clock.today();
    app.ok(
        &user,
        "createExpense",
        json!({"name": "Deutschlandticket", "amount": "58.00", "frequency": "monthly",
               "startDate": (today + chrono::Duration::days(3)).to_string(), "accountId": account}),
    )
    .await;
    let csv = format!(
        "Datum;Betrag;Empfänger;Zweck\n{};-850,00;Hausverwaltung Sonnenhang;Miete an DE89370400440532013000 Wohnung 3\n",
        (today - chrono::Duration::days(2)).format("%d.%m.%Y")
    );
    let batch = app
        .ok(
            &user,
            "stageImport",
            json!({"accountId": account, "fileName": "k.csv", "csv": csv,
                   "mapping": {"date": "Datum", "amount": "Betrag", "payee": "Empfänger", "memo": "Zweck"}}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    for dark in [false, true] {
        let Some(browser) = signed_in_with(&app, &user, 390, 844, dark).await else {
            return;
        };
        let c = &browser.client;
        c.goto(&app.url("/settings")).await.unwrap();
        wait_for_css(c, "#sessions tbody td").await;
        let seen = js(c, UNLABELLED_SESSION_CELLS).await;
        assert!(seen["cells"].as_u64().unwrap() >= 3, "{seen}");
        assert_eq!(seen["unlabelled"], json!([]), "dark={dark}: {seen}");

        for (path, selector, word) in [
            ("/", "ul.payments .what", "Deutschlandticket"),
            (
                &format!("/import?batch={batch}") as &str,
                "table.import-rows td",
                "DE89370400440532013000",
            ),
        ] {
            c.goto(&app.url(path)).await.unwrap();
            wait_for_css(c, selector).await;
            let seen = c
                .execute(BROKEN_WORDS, vec![json!(selector)])
                .await
                .unwrap();
            let text: String = c
                .execute(
                    "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent).join(' ')",
                    vec![json!(selector)],
                )
                .await
                .unwrap()
                .as_str()
                .unwrap()
                .to_string();
            assert!(text.contains(word), "{path}: {text}");
            assert_eq!(seen["broken"], json!([]), "{path} dark={dark}: {seen}");
        }
        browser.client.clone().close().await.unwrap();
    }
}
