//! `/categories`: list, create, edit, delete.

use super::common::{category_chip, EditQuery, PageResult, Refs};
use crate::i18n::format;
use crate::state::AppState;
use crate::web::components::{delete_button, form_error, Field};
use crate::web::layout::page;
use crate::web::SignedIn;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::html;

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<EditQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let refs = Refs::load(&state, &user.id).await?;
    let editing = q
        .edit
        .as_deref()
        .and_then(|id| refs.categories.iter().find(|k| k.id == id));
    let limit = editing
        .and_then(|k| k.monthly_limit)
        .map(|l| format!("{l:.2}"))
        .unwrap_or_default();
    Ok(page(
        &viewer,
        "/categories",
        t.nav_categories,
        html! {
            h1 { (t.nav_categories) }
            section.panel {
                @if refs.categories.is_empty() {
                    p.muted { (t.empty_list) }
                } @else {
                    table.records {
                        thead { tr { th { (t.name) } th.num { (t.monthly_limit) } th { span.sr-only { (t.actions) } } } }
                        tbody {
                            @for k in &refs.categories {
                                tr {
                                    td { (category_chip(Some(k), locale)) }
                                    td.num { @if let Some(l) = k.monthly_limit { (format::money(l, &user.base_currency, locale)) } }
                                    td.row-actions {
                                        a href={ "/categories?edit=" (k.id) } { (t.edit) }
                                        (delete_button("deleteCategory", &k.id, t.confirm_delete, t.delete))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            section.panel {
                h2 { @if let Some(k) = editing { (t.edit) ": " (k.name) } @else { (t.new_category) } }
                form.stack data-action=(if editing.is_some() { "updateCategory" } else { "createCategory" })
                    data-redirect="/categories" novalidate {
                    @if let Some(k) = editing { input type="hidden" name="id" value=(k.id); }
                    (Field::new(t.name, "name", "text").value(editing.map(|k| k.name.as_str()).unwrap_or("")).required().render())
                    (Field::new(t.icon, "icon", "text").value(editing.map(|k| k.icon.as_str()).unwrap_or("")).render())
                    (Field::new(t.color, "color", "color").value(editing.map(|k| k.color.as_str()).unwrap_or("#64748b")).render())
                    (Field::new(t.monthly_limit, "monthlyLimit", "text").value(&limit).nullable().render())
                    (form_error())
                    div.buttons {
                        button.primary type="submit" { @if editing.is_some() { (t.save_changes) } @else { (t.add) } }
                        @if editing.is_some() { a.button href="/categories" { (t.cancel) } }
                    }
                }
            }
        },
    )
    .into_response())
}
