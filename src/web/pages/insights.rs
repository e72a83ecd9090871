//! `/insights`: the user's current insights. Stored in German; in English
//! the text is made from the insight's finding (`i18n::insights`).

use super::common::PageResult;
use crate::app::insights;
use crate::state::AppState;
use crate::web::components::form_error;
use crate::web::layout::page;
use crate::web::SignedIn;
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
