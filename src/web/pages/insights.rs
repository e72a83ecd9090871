//! `/insights`: the user's current insights. Stored in German; in English
//! the text is made from the insight's finding (`i18n::insights`).

use super::common::PageResult;
use crate::app::insights;
use crate::domain::insights::Finding;
use crate::http::session::SignedIn;
use crate::state::AppState;
use crate::web::components::form_error;
use crate::web::layout::page;
use axum::extract::State;
use axum::response::IntoResponse;
use maud::html;

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
) -> PageResult {
    let (t, locale) = (viewer.t(), viewer.locale);
    let list = insights::current(&state, &session.user.id).await?;
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
                @let (title, message) = insights::words(&item.insight, locale);
                @let sev = item.insight.severity.as_str();
                article.card.insight.unread[!item.is_read] data-severity=(sev) {
                    header {
                        span.badge.severity data-severity=(sev) {
                            (match sev { "critical" => t.severity_critical, "warning" => t.severity_warning, _ => t.severity_info })
                        }
                        h2 { (title) }
                    }
                    p { (message) }
                    @let links = links(item.insight.finding().as_ref(), &item.insight.created_at);
                    @if !links.is_empty() {
                        p.insight-links {
                            @for (i, (to_budget, href)) in links.iter().enumerate() {
                                @if i > 0 { " · " }
                                a href=(href) { (if *to_budget { t.insight_budget } else { t.insight_entries }) }
                            }
                        }
                    }
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

/// An insight's links, each `(to the budget?, href)`, for the month it was
/// found in (`created_at` begins `YYYY-MM`): a budget warning links to the
/// budget and to the category's one-time expenses of the month, unusual
/// spending to those expenses.
fn links(finding: Option<&Finding>, created_at: &str) -> Vec<(bool, String)> {
    let month = created_at.get(..7).unwrap_or_default();
    let entries = |id: &str| {
        (
            false,
            format!("/daily-expenses?month={month}&category={id}"),
        )
    };
    match finding {
        Some(Finding::OverLimit { category_id, .. }) => vec![
            (true, format!("/budgets?month={month}#budget-{category_id}")),
            entries(category_id),
        ],
        Some(Finding::SpendingAnomaly { category_id, .. }) => vec![entries(category_id)],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    #[test]
    fn a_budget_warning_links_to_its_budget_and_the_categorys_expenses_of_its_month() {
        let over = Finding::OverLimit {
            amount: Decimal::from(120),
            category_id: "c1".into(),
            category_name: "Lebensmittel".into(),
            currency: "EUR".into(),
            limit: Decimal::from(100),
        };
        assert_eq!(
            links(Some(&over), "2026-03-15T12:00:00Z"),
            vec![
                (true, "/budgets?month=2026-03#budget-c1".to_string()),
                (
                    false,
                    "/daily-expenses?month=2026-03&category=c1".to_string()
                ),
            ]
        );
        assert_eq!(links(None, "2026-03-15T12:00:00Z"), Vec::new());
    }
}
