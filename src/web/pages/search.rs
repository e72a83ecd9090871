//! `/search`: one box over every record.

use super::common::PageResult;
use crate::app::search::{self, Found};
use crate::i18n::format;
use crate::state::AppState;
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::html;
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub struct SearchQuery {
    q: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<SearchQuery>,
) -> PageResult {
    let (t, locale) = (viewer.t(), viewer.locale);
    let query: String =
        q.q.unwrap_or_default()
            .trim()
            .chars()
            .take(search::QUERY_MAX)
            .collect();
    let Found { hits, total } = if query.is_empty() {
        Found {
            hits: vec![],
            total: 0,
        }
    } else {
        search::find(&state, &session.user.id, &query).await?
    };
    let link = |kind: &str, id: &str| match kind {
        "account" => format!("/accounts?edit={id}"),
        "category" => format!("/categories?edit={id}"),
        "expense" => format!("/expenses?edit={id}"),
        "income" => format!("/incomes?edit={id}"),
        "transfer" => format!("/transfers?edit={id}"),
        _ => format!("/daily-expenses?edit={id}"),
    };
    let kind_label = |kind: &str| match kind {
        "account" => t.kind_account,
        "category" => t.kind_category,
        "expense" => t.kind_expense,
        "income" => t.kind_income,
        "transfer" => t.kind_transfer,
        _ => t.kind_daily_expense,
    };
    Ok(page(
        &viewer,
        "/search",
        t.nav_search,
        html! {
            h1 { (t.nav_search) }
            form.filters role="search" method="get" action="/search" {
                div.field.grow {
                    label.sr-only for="q" { (t.nav_search) }
                    input #q type="search" name="q" value=(query) placeholder=(t.search_placeholder) autofocus;
                }
                button.primary type="submit" { (t.search_button) }
            }
            @if !query.is_empty() {
                section.panel {
                    h2 { (t.results) }
                    @if hits.is_empty() {
                        p.muted { (t.no_results) }
                    } @else {
                        @if total > hits.len() {
                            p.notice {
                                (t.search_more
                                    .replace("{shown}", &format::number(hits.len().into(), 0, locale))
                                    .replace("{total}", &format::number(total.into(), 0, locale)))
                            }
                        }
                        ul.hits {
                            @for h in &hits {
                                li {
                                    a href=(link(h.kind, &h.id)) { (h.name) }
                                    @if let Some(m) = h.merchant.as_deref().filter(|m| *m != h.name) {
                                        " " small.muted { (t.merchant) ": " (m) }
                                    }
                                    " " span.badge { (kind_label(h.kind)) }
                                    @if let Some(d) = h.date { " " small.muted { (format::date(d, locale)) } }
                                    @if let (Some(a), Some(c)) = (h.amount, &h.currency) { " " span.amount { (format::money(a, c, locale)) } }
                                }
                            }
                        }
                    }
                }
            }
        },
    )
    .into_response())
}
