//! `/search`: one box over every record; what was found is marked, counted
//! and summed.

use super::common::PageResult;
use crate::app::search::{self, Found};
use crate::i18n::format;
use crate::i18n::guide;
use crate::state::AppState;
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};
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
    let g = guide::words(locale);
    let Found { hits, total, sums } = if query.is_empty() {
        Found::default()
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
                        p.search-summary {
                            strong { (guide::found(total, locale)) }
                            @if !sums.is_empty() {
                                " · " (g.search_sum) ": "
                                @for (i, (currency, sum)) in sums.iter().enumerate() {
                                    @if i > 0 { ", " }
                                    span.amount { (format::money(*sum, currency, locale)) }
                                }
                            }
                        }
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
                                    a href=(link(h.kind, &h.id)) { (marked(&h.name, &query)) }
                                    @if let Some(m) = h.merchant.as_deref().filter(|m| *m != h.name) {
                                        " " small.muted { (t.merchant) ": " (marked(m, &query)) }
                                    }
                                    @if let Some(k) = &h.category {
                                        " " small.muted { (g.search_in_category) " " (marked(k, &query)) }
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

/// Partial: `text` with each place that matches `query` (as the search
/// matches: without regard to case) in a `<mark>`.
fn marked(text: &str, query: &str) -> Markup {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let wanted: Vec<char> = query.trim().chars().map(fold).collect();
    let mut parts: Vec<(&str, bool)> = Vec::new();
    let (mut plain_from, mut i) = (0, 0);
    while !wanted.is_empty() && i + wanted.len() <= chars.len() {
        let here = chars[i..i + wanted.len()]
            .iter()
            .map(|(_, c)| fold(*c))
            .eq(wanted.iter().copied());
        if !here {
            i += 1;
            continue;
        }
        let (start, end) = (
            chars[i].0,
            chars.get(i + wanted.len()).map_or(text.len(), |(b, _)| *b),
        );
        parts.push((&text[plain_from..start], false));
        parts.push((&text[start..end], true));
        plain_from = end;
        i += wanted.len();
    }
    parts.push((&text[plain_from..], false));
    html! {
        @for (part, matched) in parts {
            @if matched { mark { (part) } } @else { (part) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::marked;

    #[test]
    fn every_match_is_marked_whatever_its_case() {
        assert_eq!(
            marked("REWE Markt, Rewe City", "rewe").into_string(),
            "<mark>REWE</mark> Markt, <mark>Rewe</mark> City"
        );
        assert_eq!(marked("Bäckerei Süß", "SÜSS").into_string(), "Bäckerei Süß");
        assert_eq!(
            marked("Äpfel & <b>", "äpfel").into_string(),
            "<mark>Äpfel</mark> &amp; &lt;b&gt;"
        );
        assert_eq!(marked("nothing", "").into_string(), "nothing");
    }
}
