//! `/categories`: list, create, edit, delete.

use super::common::{category_chip, EditQuery, PageResult, Refs};
use super::record_page::{amount_value, Editing, RecordForm, RecordList, Row};
use crate::app::records::CategoryInput;
use crate::app::reports;
use crate::http::session::SignedIn;
use crate::i18n::format;
use crate::state::AppState;
use crate::web::components::Field;
use crate::web::layout::page;
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
    let editing = q.find(&refs.categories, |k| k.id.as_str());
    // The column and the field show this month's budget (`/budgets` has
    // the months and the rollover).
    let budgets = reports::budgets::kept(&state, user, state.clock.today()).await?;
    let budget = |id: &str| budgets.of(id).map(|b| b.amount);
    let limit = amount_value((editing.and_then(|k| budget(&k.id))).map(|m| m.0), locale);
    let list = RecordList::new::<CategoryInput>(
        t,
        "/categories?edit=",
        html! {
            th { (t.name) } th.num { (t.budget_per_month) }
        },
    );
    let form = RecordForm::new::<CategoryInput>(t, t.new_category, "/categories")
        .editing(editing.map(|k| Editing::named(&k.id, &k.name)))
        .collapsed(!refs.categories.is_empty());
    Ok(page(
        &viewer,
        "/categories",
        t.nav_categories,
        html! {
            h1 { (t.nav_categories) }
            (form.render(html! {
                (Field::new(t.name, "name", "text").value(editing.map(|k| k.name.as_str()).unwrap_or("")).required().render())
                (Field::new(t.icon, "icon", "text").value(editing.map(|k| k.icon.as_str()).unwrap_or("")).render())
                (Field::new(t.color, "color", "color").value(editing.map(|k| k.color.as_str()).unwrap_or("#64748b")).render())
                (Field::new(t.monthly_limit, "monthlyLimit", "text").value(&limit).decimal().nullable().render())
            }))
            (list.render(&refs.categories, |k| Row::new(&k.id, html! {
                td { (category_chip(Some(k), locale)) }
                td.num { @if let Some(l) = budget(&k.id) { (format::money(l, &user.base_currency, locale)) } }
            }).confirm(k.monthly_limit.map(|_| t.confirm_delete_category_budget))))
        },
    )
    .into_response())
}
