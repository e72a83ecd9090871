//! `/search`: one box over every record; what was found is marked, counted,
//! its one-time entries summed per kind, a page of 50 hits at a time.

use super::common::PageResult;
use crate::app::search::{self, Found};
use crate::http::session::SignedIn;
use crate::i18n::format;
use crate::i18n::guide;
use crate::state::AppState;
use crate::web::components::{page_links, pager, query_value, Pages};
use crate::web::layout::page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub struct SearchQuery {
    q: Option<String>,
    /// From 1; anything else is the first page.
    page: Option<String>,
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
    let asked = q
        .page
        .and_then(|p| p.trim().parse::<i64>().ok())
        .and_then(|p| search::page(Some(p)).ok())
        .unwrap_or(1);
    let Found {
        hits,
        page: shown_page,
        pages,
        total,
        recurring,
        sums,
    } = if query.is_empty() {
        Found::default()
    } else {
        search::find(&state, &session.user.id, &query, asked).await?
    };
    let number = |n: usize| format::number(n.into(), 0, locale);
    let at_page = |n: usize| {
        let mut href = format!("/search?q={}", query_value(&query));
        if n > 1 {
            href.push_str(&format!("&page={n}"));
        }
        href
    };
    let from = (shown_page.max(1) - 1) * search::PAGE_SIZE;
    let paged = (pages > 1).then(|| Pages {
        label: g.search_pages,
        shown: g
            .search_hits_of
            .replace("{from}", &number(from + 1))
            .replace("{to}", &number(from + hits.len()))
            .replace("{n}", &number(total)),
        prev: (shown_page > 1).then(|| (at_page(shown_page - 1), g.search_better)),
        next: (shown_page < pages).then(|| (at_page(shown_page + 1), g.search_further)),
        jumps: Some(page_links(
            t.page_word,
            shown_page as u32,
            &(1..=pages).map(at_page).collect::<Vec<_>>(),
        )),
    });
    let sum_label = |kind: &str| match kind {
        "income" => g.search_sum_income,
        "transfer" => g.search_sum_transfer,
        _ => g.search_sum_daily,
    };
    let link = |kind: &str, id: &str| match kind {
        "account" => format!("/accounts?edit={id}"),
        "category" => format!("/categories?edit={id}"),
        "expense" => format!("/expenses?edit={id}"),
        "income" => format!("/incomes?edit={id}"),
        "transfer" => format!("/transfers?edit={id}"),
        _ => format!("/daily-expenses?edit={id}"),
    };
    let kind_label = |kind: &str| crate::i18n::export::kind(kind, locale);
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
                            @for (i, sum) in sums.iter().enumerate() {
                                @if i == 0 || sums[i - 1].kind != sum.kind {
                                    " · " (sum_label(sum.kind)) ": "
                                } @else {
                                    ", "
                                }
                                span.amount { (format::money(sum.amount, &sum.currency, locale)) }
                            }
                            @if recurring > 0 {
                                " · " (g.search_recurring.replace("{n}", &number(recurring)))
                            }
                        }
                        p.sheet-link {
                            a href={ "/api/export/search?q=" (query_value(&query)) } download { (t.as_spreadsheet) }
                        }
                        @if let Some(p) = &paged { (pager(p)) }
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
                                    @if let (true, Some(f)) = (h.is_recurring(), h.frequency) {
                                        // A recurring item: its rhythm and what it costs today,
                                        // not the day it started as if it were a booking.
                                        " " small.muted { (locale.frequency(f)) }
                                        @if let (Some(a), Some(c)) = (h.amount_today, &h.currency) {
                                            " " span.amount { (format::money(a, c, locale)) }
                                            @if let (Some(from), Some(latest)) = (h.amount_from, h.amount) {
                                                " " small.muted {
                                                    "(" (g.search_price_from
                                                        .replace("{date}", &format::date(from, locale))
                                                        .replace("{amount}", &format::money(latest, c, locale))) ")"
                                                }
                                            }
                                        }
                                    } @else {
                                        @if let Some(d) = h.date { " " small.muted { (format::date(d, locale)) } }
                                        @if let (Some(a), Some(c)) = (h.amount, &h.currency) { " " span.amount { (format::money(a, c, locale)) } }
                                    }
                                }
                            }
                        }
                        @if let Some(p) = &paged { (pager(&Pages { label: g.search_pages_end, ..p.clone() })) }
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
    fn a_query_in_a_link_is_percent_encoded() {
        use crate::web::components::query_value;
        assert_eq!(query_value("Rewe & Co"), "Rewe%20%26%20Co");
        assert_eq!(query_value("äpfel"), "%C3%A4pfel");
        assert_eq!(query_value("a-b_c.d~e"), "a-b_c.d~e");
    }

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
