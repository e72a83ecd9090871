//! `/insights`: the user's current insights. Stored in German; in English
//! the text is made from the insight's language-independent metadata.

use super::common::PageResult;
use crate::clock::timestamp;
use crate::i18n::format;
use crate::i18n::Locale;
use crate::state::AppState;
use crate::store::insights::{self, Insight, LIMIT};
use crate::web::components::form_error;
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::State;
use axum::response::IntoResponse;
use maud::html;
use rust_decimal::Decimal;
use serde_json::Value;

fn amount(meta: &Value, key: &str, locale: Locale) -> String {
    let currency = meta["currency"].as_str().unwrap_or("EUR");
    let value = meta[key]
        .as_str()
        .and_then(|s| Decimal::from_str_exact(s).ok())
        .unwrap_or_default();
    format::money(value, currency, locale)
}

/// The insight's title and message in `locale`: as stored for German, made
/// from the metadata for English.
pub fn text(i: &Insight, locale: Locale) -> (String, String) {
    if locale == Locale::De {
        return (i.title.clone(), i.message.clone());
    }
    let m = i.metadata.clone().unwrap_or(Value::Null);
    let s = |k: &str| m[k].as_str().unwrap_or("").to_string();
    match i.kind.as_str() {
        "spending_anomaly" => (
            format!("Unusually high spending: {}", s("categoryName")),
            format!(
                "You have spent {} on {} this month so far, {} % more than the average of the last three months ({}).",
                amount(&m, "amount", locale), s("categoryName"), s("percent"), amount(&m, "average", locale)
            ),
        ),
        "budget_warning" if m.get("limit").is_some() => (
            format!("Limit exceeded: {}", s("categoryName")),
            format!("You have spent {} on {} this month; your limit is {}.", amount(&m, "amount", locale), s("categoryName"), amount(&m, "limit", locale)),
        ),
        "budget_warning" => (
            "More expenses than income".to_string(),
            format!(
                "This month {} of expenses face {} of income: {} more than comes in.",
                amount(&m, "expenses", locale), amount(&m, "income", locale), amount(&m, "shortfall", locale)
            ),
        ),
        "saving_opportunity" if m.get("count").is_some() => (
            format!("{} subscriptions in {}", m["count"], s("categoryName")),
            format!(
                "You pay {} a month for {} subscriptions in {} ({}). Do you need them all?",
                amount(&m, "monthlyTotal", locale),
                m["count"],
                s("categoryName"),
                m["subscriptions"].as_array().map(|a| a.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>().join(", ")).unwrap_or_default()
            ),
        ),
        "saving_opportunity" => (
            format!("{} costs more than similar subscriptions", s("name")),
            format!(
                "{} costs {} a month; the other subscriptions in {} average {}.",
                s("name"), amount(&m, "monthly", locale), s("categoryName"), amount(&m, "othersAverage", locale)
            ),
        ),
        "subscription_alert" if m.get("previousAmount").is_some() => (
            format!("{} {}", s("name"), if s("change") == "up" { "gets more expensive" } else { "gets cheaper" }),
            format!(
                "{} costs {} instead of {} since {} ({}{} %).",
                s("name"),
                amount(&m, "amount", locale),
                amount(&m, "previousAmount", locale),
                s("since"),
                if s("change") == "up" { "+" } else { "−" },
                s("percent")
            ),
        ),
        "subscription_alert" => (
            format!("{} is due soon", s("name")),
            format!("{} for {} is due on {}.", amount(&m, "amount", locale), s("name"), s("date")),
        ),
        "trend_info" => {
            let up = s("direction") == "up";
            (
                if up { "Expenses are rising" } else { "Expenses are falling" }.to_string(),
                format!(
                    "Your expenses have {} three months in a row, since {}.",
                    if up { "risen" } else { "fallen" },
                    s("from")
                ),
            )
        }
        _ => (i.title.clone(), i.message.clone()),
    }
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
) -> PageResult {
    let (t, locale) = (viewer.t(), viewer.locale);
    let (user, now) = (session.user.id.clone(), timestamp(state.clock.now()));
    let list = state
        .db
        .run(move |c| insights::current(c, &user, &now, LIMIT))
        .await?;
    Ok(page(
        &viewer,
        "/insights",
        t.nav_insights,
        html! {
            h1 { (t.nav_insights) }
            p.hint { (t.insights_intro) }
            @if list.is_empty() {
                section.panel { p.muted { (t.no_insights) } }
            }
            @for item in &list {
                @let (title, message) = text(&item.insight, locale);
                @let sev = item.insight.severity.as_str();
                article.card.insight.unread[!item.is_read] data-severity=(sev) {
                    header {
                        span.badge.severity data-severity=(sev) {
                            (match sev { "critical" => t.severity_critical, "warning" => t.severity_warning, _ => t.severity_info })
                        }
                        h2 { (title) }
                    }
                    p { (message) }
                    div.buttons {
                        @if !item.is_read {
                            form.inline data-action="markInsightRead" data-reload="" {
                                input type="hidden" name="id" value=(item.insight.id);
                                button.link type="submit" { (t.mark_read) }
                                (form_error())
                            }
                        }
                        form.inline data-action="dismissInsight" data-reload="" {
                            input type="hidden" name="id" value=(item.insight.id);
                            button.link type="submit" { (t.dismiss) }
                            (form_error())
                        }
                    }
                }
            }
        },
    )
    .into_response())
}
