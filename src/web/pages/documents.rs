//! `/documents`: upload (file picker or drag and drop), list with
//! thumbnails, open, attach, delete. See `docs/documents.md`.

use super::common::{EditQuery, PageResult};
use crate::app::{self, documents::Overview};
use crate::domain::documents::Kind;
use crate::http::session::SignedIn;
use crate::i18n::format;
use crate::i18n::Texts;
use crate::state::AppState;
use crate::store::daily_expenses::DailyExpense;
use crate::store::documents::{Document, Named};
use crate::store::expenses::Expense;
use crate::web::components::form_error;
use crate::web::layout::page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};

/// What the file picker offers; the server decides by the bytes anyway.
pub const ACCEPT: &str =
    "application/pdf,image/jpeg,image/png,image/webp,.pdf,.jpg,.jpeg,.png,.webp";

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<EditQuery>,
) -> PageResult {
    let (t, locale, user) = (viewer.t(), viewer.locale, &session.user);
    let Overview {
        documents: docs,
        used_bytes: used,
        recurring,
        recent,
    } = app::documents::overview(&state, &user.id).await?;
    let quota = state.config.document_quota;
    let editing = q.find(&docs, |(d, _)| d.id.as_str());
    Ok(page(
        &viewer,
        "/documents",
        t.nav_documents,
        html! {
            h1 { (t.nav_documents) }
            @if let Some((d, record)) = editing {
                section.panel {
                    h2 { (t.doc_attach) ": " (d.file_name) }
                    form.stack data-action="attachDocument" data-redirect="/documents" {
                        input type="hidden" name="id" value=(d.id);
                        (attach_select(t, locale, "doc-reattach", &recurring, &recent, Some((d, record.as_ref().map(|r| r.name.as_str())))))
                        (form_error())
                        div.buttons {
                            button.primary type="submit" { (t.save_changes) }
                            a.button href="/documents" { (t.cancel) }
                        }
                    }
                }
            }
            section.panel {
                p.muted { (t.doc_intro) }
                form.stack.upload data-upload="/api/documents" {
                    label.dropzone {
                        span { (t.doc_choose) }
                        input type="file" name="file" accept=(ACCEPT) multiple required;
                    }
                    (attach_select(t, locale, "doc-attach", &recurring, &recent, None))
                    span.field-error data-error-for="file" aria-live="polite" {}
                    (form_error())
                    div.buttons { button.primary type="submit" { (t.doc_upload) } }
                    p.muted {
                        (format::file_size(used as u64, locale)) " " (t.doc_used) " "
                        (format::file_size(quota, locale))
                    }
                }
            }
            section.panel {
                @if docs.is_empty() {
                    p.muted { (t.doc_none) }
                } @else {
                    table.records.documents {
                        thead { tr {
                            th { span.sr-only { (t.doc_file) } } th { (t.name) } th { (t.doc_attach_to) }
                            th.num { (t.doc_size) } th { (t.doc_uploaded) } th { span.sr-only { (t.actions) } }
                        } }
                        tbody {
                            @for (d, record) in &docs {
                                tr {
                                    td { (thumbnail(d)) }
                                    td { a href={ "/api/documents/" (d.id) } target="_blank" rel="noopener" { (d.file_name) } }
                                    td { @match record {
                                        Some(r) => @match record_href(d, r) {
                                            Some(href) => a href=(href) { (r.name) },
                                            None => (r.name),
                                        },
                                        None => span.muted { "–" },
                                    } }
                                    td.num { (format::file_size(d.size_bytes as u64, locale)) }
                                    td { (created_day(d, locale)) }
                                    td.row-actions {
                                        a href={ "/documents?edit=" (d.id) } { (t.doc_attach) }
                                        (delete_document(t, &d.id))
                                    }
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

/// The page of the record a document belongs to, with that record open
/// for editing: a recurring expense's, or a one-time expense's in its month.
fn record_href(d: &Document, r: &Named) -> Option<String> {
    if let Some(id) = &d.expense_id {
        return Some(format!("/expenses?edit={id}"));
    }
    let id = d.daily_expense_id.as_ref()?;
    let month = r.date.as_deref().and_then(|date| date.get(..7))?;
    Some(format!("/daily-expenses?month={month}&edit={id}"))
}

/// The choice of the record a document belongs to: none, a recurring
/// expense, or one of the latest one-time expenses (the document's own,
/// when `current` names it, is offered even if older). The script sends
/// the choice as `expenseId` or `dailyExpenseId`.
fn attach_select(
    t: &Texts,
    locale: crate::domain::locale::Locale,
    id: &str,
    recurring: &[Expense],
    recent: &[DailyExpense],
    current: Option<(&Document, Option<&str>)>,
) -> Markup {
    let chosen = current.and_then(|(d, _)| {
        d.expense_id
            .as_ref()
            .map(|e| format!("expenseId:{e}"))
            .or_else(|| {
                d.daily_expense_id
                    .as_ref()
                    .map(|x| format!("dailyExpenseId:{x}"))
            })
    });
    let older = current.and_then(|(d, name)| {
        let x = d.daily_expense_id.as_deref()?;
        (!recent.iter().any(|r| r.id == x)).then(|| (x.to_string(), name.unwrap_or("").to_string()))
    });
    let selected = |value: &str| chosen.as_deref() == Some(value);
    html! {
        div.field {
            label for=(id) { (t.doc_attach_to) }
            select id=(id) name="attach" {
                option value="" selected[chosen.is_none()] { (t.doc_no_record) }
                @if !recurring.is_empty() {
                    optgroup label=(t.doc_recurring) {
                        @for e in recurring {
                            @let v = format!("expenseId:{}", e.id);
                            option value=(v) selected[selected(&v)] { (e.name) }
                        }
                    }
                }
                @if !recent.is_empty() || older.is_some() {
                    optgroup label=(t.doc_one_time) {
                        @if let Some((x, name)) = &older {
                            option value={ "dailyExpenseId:" (x) } selected { (name) }
                        }
                        @for d in recent {
                            @let v = format!("dailyExpenseId:{}", d.id);
                            option value=(v) selected[selected(&v)] {
                                (format::date(d.entry.date, locale)) " · " (d.entry.name)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A small preview: the image itself, or a PDF badge.
pub fn thumbnail(d: &Document) -> Markup {
    html! {
        @if d.kind().is_some_and(Kind::is_image) {
            img.thumb src={ "/api/documents/" (d.id) } alt="" loading="lazy" width="48" height="48";
        } @else {
            span.thumb.pdf aria-hidden="true" { "PDF" }
        }
    }
}

fn created_day(d: &Document, locale: crate::domain::locale::Locale) -> String {
    chrono::DateTime::parse_from_rfc3339(&d.created_at)
        .map(|t| format::date(t.date_naive(), locale))
        .unwrap_or_else(|_| d.created_at.clone())
}

fn delete_document(t: &Texts, id: &str) -> Markup {
    crate::web::components::delete_button("deleteDocument", id, t.doc_confirm_delete, t.delete)
}

/// A paperclip drawn inline (no emoji font needed), in the text colour.
fn paperclip_icon() -> Markup {
    html! {
        svg.icon width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor"
            stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" {
            path d="M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" {}
        }
    }
}

/// The paperclip of a record on the expense pages: shown only on a record
/// with documents, it opens them and an upload attaching more (`field` is
/// `expenseId` or `dailyExpenseId`). A record without documents gets its
/// first one in its edit form ([`attach`]).
pub fn paperclip(t: &Texts, docs: &[&Document], field: &str, record_id: &str) -> Markup {
    if docs.is_empty() {
        return html! {};
    }
    html! {
        details.paperclip {
            summary title=(t.doc_of_entry) {
                (paperclip_icon())
                " " (docs.len())
                span.sr-only { (t.doc_of_entry) }
            }
            div.paperclip-body { (documents_and_upload(t, docs, field, record_id)) }
        }
    }
}

/// Partial: under an edited expense's form, its documents and an upload
/// attaching one to it.
pub fn attach(t: &Texts, docs: &[&Document], field: &str, record_id: &str) -> Markup {
    html! {
        div.attach {
            h3 { (paperclip_icon()) " " (t.doc_of_entry) }
            (documents_and_upload(t, docs, field, record_id))
        }
    }
}

/// A record's documents as links, and the upload form attaching another.
fn documents_and_upload(t: &Texts, docs: &[&Document], field: &str, record_id: &str) -> Markup {
    html! {
        @if !docs.is_empty() {
            ul {
                @for d in docs {
                    li { a href={ "/api/documents/" (d.id) } target="_blank" rel="noopener" { (d.file_name) } }
                }
            }
        }
        form.upload.inline-upload data-upload="/api/documents" {
            input type="hidden" name=(field) value=(record_id);
            input type="file" name="file" accept=(ACCEPT) aria-label=(t.doc_choose) required;
            button type="submit" { (t.doc_upload) }
            span.field-error data-error-for="file" aria-live="polite" {}
            (form_error())
        }
    }
}
