//! `/import`: a bank's CSV export, staged, reconciled, decided and
//! confirmed (`docs/import.md`).
//!
//! The page shows the upload form, the batch `?batch=<id>` opens (its
//! detected format, its counts and its rows, filtered by `?status=` and
//! paged by `?at=`, a row's place in the file), and the history, read through
//! [`crate::app::import`] as the actions `getImport` and `listImports`
//! read them; amounts and dates are formatted here, in the user's
//! language. The upload (`POST /api/imports` with its progress),
//! the reconcile that follows it, the decisions, the confirm, cancel and
//! undo are `assets/import.js`. An opened batch's review (its format,
//! counts, actions and rows) is `import/review.rs`.

use super::common::{PageResult, Refs};
use crate::app::import::{self, BatchView, RowPage, Start};
use crate::domain::import::read::Format;
use crate::domain::import::reconcile::Status;
use crate::domain::import::BatchStatus;
use crate::domain::locale::Locale;
use crate::http::session::SignedIn;
use crate::i18n::{format, Texts};
use crate::state::AppState;
use crate::store::categories::Category;
use crate::web::components::{form_error, select};
use crate::web::layout::page_with_scripts;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::json;
use std::collections::HashMap;

mod review;

/// Rows per page of the preview.
const PAGE: i64 = 200;

/// What the file picker offers: CSV exports and every statement format
/// the import reads (CAMT as XML, MT940 by its usual endings, OFX/QFX,
/// QIF), by ending and type, so that a phone's picker shows them all. The
/// server reads whatever it gets.
const ACCEPT: &str = ".csv,.txt,.tsv,.xml,.camt,.sta,.mt940,.940,.swi,.ofx,.qfx,.qif,\
                          text/csv,text/plain,text/tab-separated-values,application/xml,text/xml,\
                          application/x-ofx,application/vnd.intu.qfx,application/qif";

/// The date formats a mapping offers.
const DATE_FORMATS: [&str; 6] = [
    "%d.%m.%Y", "%d.%m.%y", "%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y", "%d-%m-%Y",
];

#[derive(Deserialize, Default)]
pub struct ImportQuery {
    /// The batch to open.
    batch: Option<String>,
    /// Only rows of this status.
    status: Option<String>,
    /// The file position of the first row shown (0-based): the page's key,
    /// as cheap however deep.
    at: Option<i64>,
    /// An open batch whose columns to choose anew: the upload form opens
    /// with them, for the same file again.
    columns: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<ImportQuery>,
) -> PageResult {
    let (t, locale) = (viewer.t(), viewer.locale);
    let user = &session.user;
    let refs = Refs::load(&state, &user.id).await?;
    let history = import::list(&state, &user.id).await?;
    let confirmed_empty = import::confirmed_empty(&state, &user.id, &history).await?;
    let status = q.status.as_deref().and_then(Status::from_code);
    let at = q.at.unwrap_or(0).max(0);
    let wanted = q.batch.filter(|b| !b.trim().is_empty());
    let opened = match &wanted {
        Some(id) => {
            let page = RowPage {
                status,
                start: Start::At(at),
                offset: 0,
                limit: PAGE,
            };
            // An unknown or another user's batch is not found.
            match import::get(&state, user, id.trim().to_string(), page).await {
                Ok(b) => Some(b),
                Err(e @ (crate::Error::Internal(_) | crate::Error::Busy(_))) => {
                    return Err(e.into())
                }
                Err(_) => None,
            }
        }
        None => None,
    };
    // A batch of a CSV file read by guessed or given columns, still open.
    let changing = match q.columns.filter(|c| !c.trim().is_empty()) {
        Some(id) => {
            let page = RowPage {
                status: None,
                start: Start::At(0),
                offset: 0,
                limit: 1,
            };
            match import::get(&state, user, id.trim().to_string(), page).await {
                Ok(b) if b.batch.is_open() && b.batch.format.columns.is_some() => Some(b.batch),
                Err(e @ (crate::Error::Internal(_) | crate::Error::Busy(_))) => {
                    return Err(e.into())
                }
                _ => None,
            }
        }
        None => None,
    };
    // Where the page stands among the filter's rows, for its pager.
    let place = match &opened {
        Some(b) => {
            Some(import::place(&state, &user.id, b.batch.id.clone(), status, at, PAGE).await?)
        }
        None => None,
    };
    let written = match opened
        .as_ref()
        .filter(|b| b.batch.status == BatchStatus::Confirmed)
    {
        Some(b) => Some(import::written(&state, &user.id, &b.batch.id).await?),
        None => None,
    };
    let ai = state.ai.is_some();
    let view = View {
        t,
        locale,
        refs: &refs,
        categories: refs.categories_by_id(),
        ai,
        confirmed_empty: &confirmed_empty,
    };
    let show_upload = opened
        .as_ref()
        .is_none_or(|b| b.batch.status == BatchStatus::Cancelled);
    Ok(page_with_scripts(
        &viewer,
        "/import",
        t.nav_import,
        &["import.js"],
        html! {
            div.import data-import="" data-batch=[opened.as_ref().map(|b| b.batch.id.as_str())]
                data-texts=(script_texts(t)) {
                div.page-head {
                    h1 { (t.nav_import) }
                    @if opened.is_some() { a.button href="/import" { (t.import_new) } }
                }
                noscript { p.notice { (t.import_noscript) } }
                p #import-flash .notice role="status" hidden {}
                @if wanted.is_some() && opened.is_none() {
                    p.notice role="status" { (t.import_not_found) }
                }
                @if let (Some(b), Some(place)) = (&opened, &place) {
                    (view.batch(b, status, at, place, written))
                }
                @if show_upload {
                    (view.upload(changing.as_ref()))
                    (super::bank::panel(locale, crate::i18n::bank_pages::words(locale).panel_title))
                }
                (view.history(&history))
            }
        },
    )
    .into_response())
}

/// What every part of the page needs.
struct View<'a> {
    t: &'static Texts,
    locale: Locale,
    refs: &'a Refs,
    categories: HashMap<&'a str, &'a Category>,
    ai: bool,
    /// The confirmed batches that wrote no record: shown as such, with
    /// nothing to undo.
    confirmed_empty: &'a std::collections::HashSet<String>,
}

impl View<'_> {
    /// Whether a batch has records to undo: confirmed, and wrote some.
    fn can_undo(&self, b: &BatchView) -> bool {
        b.status == BatchStatus::Confirmed && !self.confirmed_empty.contains(&b.id)
    }

    fn count(&self, n: i64) -> String {
        format::number(Decimal::from(n), 0, self.locale)
    }

    /// Partial: the upload form; with the columns of `changing` chosen, to
    /// read its file again in place of it.
    fn upload(&self, changing: Option<&BatchView>) -> Markup {
        let t = self.t;
        let accounts = &self.refs.accounts;
        let default = match changing {
            Some(b) => Some(b.account_id.as_str()),
            None => self.refs.default_account().map(|a| a.id.as_str()),
        };
        html! {
            section.panel.import-upload aria-labelledby="import-upload-title" {
                h2 #import-upload-title { (t.import_upload_title) }
                p.muted { (t.import_intro) }
                @if accounts.is_empty() {
                    p.notice { (t.import_need_account) " " a href="/accounts" { (t.nav_accounts) } }
                } @else {
                    @if changing.is_some() {
                        p.notice role="status" { (t.import_change_hint) }
                    }
                    form #import-form .stack.import-form novalidate {
                        @if let Some(b) = changing {
                            input type="hidden" name="replaces" value=(b.id);
                        }
                        (select(t.account, "accountId", &self.refs.account_options(), default, None))
                        div.field {
                            label.dropzone {
                                span { (t.import_choose) }
                                input #import-file type="file" name="file" accept=(ACCEPT) required
                                    aria-describedby="import-file-hint import-file-error";
                            }
                            small #import-file-hint .hint { (t.import_file_hint) }
                            span #import-file-error .field-error data-error-for="file" aria-live="polite" {}
                        }
                        div.field.import-pick-account hidden {
                            label for="import-account-iban" { (t.import_statement_account) }
                            select #import-account-iban name="accountIban"
                                aria-describedby="import-account-iban-hint import-account-iban-error" {}
                            small #import-account-iban-hint .hint { (t.import_pick_account) }
                            span #import-account-iban-error .field-error data-error-for="accountIban" aria-live="polite" {}
                        }
                        (self.mapping(changing.map(|b| &b.format)))
                        @if self.ai {
                            div.field.check {
                                input #import-ai type="checkbox" name="ai" aria-describedby="import-ai-hint";
                                label for="import-ai" { (t.import_ai) }
                            }
                            small #import-ai-hint .hint { (t.import_ai_hint) }
                        }
                        (progress())
                        (form_error())
                        div.buttons {
                            // Enabled by the script: without it the upload cannot run.
                            button.primary type="submit" disabled { (t.import_upload) }
                        }
                    }
                }
            }
        }
    }

    /// Partial: which column holds what, for a layout the reader does not
    /// know. Hidden until the server refuses a file for it; the script then
    /// offers the file's columns (the refusal names them) in each select
    /// and sends the choice as the upload's `mapping`. Open, with the
    /// columns `format` was read from chosen, to choose them anew.
    fn mapping(&self, format: Option<&Format>) -> Markup {
        let t = self.t;
        let read = format.and_then(|f| f.columns.as_ref());
        let found: &[String] = read.map_or(&[], |c| &c.found);
        let chosen = |key: &str| -> Option<usize> {
            let c = read?;
            let name = match key {
                "date" => Some(&c.date),
                "amount" => c.amount.as_ref(),
                "direction" => c.direction.as_ref(),
                "debit" => c.debit.as_ref(),
                "credit" => c.credit.as_ref(),
                "payee" => c.payee.as_ref(),
                "payeeIn" => c.payee_in.as_ref(),
                "memo" => c.memo.as_ref(),
                _ => None,
            }?;
            found.iter().position(|f| f == name)
        };
        let column = |key: &str, label: &str, required: bool| {
            let id = format!("import-map-{key}");
            let selected = chosen(key);
            html! {
                div.field {
                    label for=(id) { (label) }
                    select id=(id) data-map=(key) required[required] {
                        option value="" { (t.import_map_none) }
                        @for (i, name) in found.iter().enumerate() {
                            option value=(i) selected[selected == Some(i)] { (name) }
                        }
                    }
                    span.field-error data-error-for={ "mapping." (key) } aria-live="polite" {}
                }
            }
        };
        let date_format = format.and_then(|f| f.date_format.as_deref());
        let decimal = format.and_then(|f| f.decimal_separator.as_deref());
        html! {
            fieldset.import-mapping hidden[read.is_none()] {
                legend { (t.import_map_title) }
                p.hint { (t.import_map_intro) }
                div.row {
                    (column("date", t.import_map_date, true))
                    div.field {
                        label for="import-map-dateFormat" { (t.import_date_format) }
                        select #import-map-dateFormat data-map="dateFormat" {
                            @for p in DATE_FORMATS {
                                option value=(p) selected[date_format == Some(p)] { (date_pattern(t, p)) }
                            }
                        }
                        span.field-error data-error-for="mapping.dateFormat" aria-live="polite" {}
                    }
                }
                div.row {
                    (column("amount", t.import_map_amount, false))
                    div.field {
                        label for="import-map-decimalSeparator" { (t.import_decimal) }
                        select #import-map-decimalSeparator data-map="decimalSeparator" {
                            @for sep in [",", "."] {
                                option value=(sep) selected[decimal == Some(sep)] { (separator_name(t, sep)) }
                            }
                        }
                        span.field-error data-error-for="mapping.decimalSeparator" aria-live="polite" {}
                    }
                }
                p.hint { (t.import_map_split) }
                div.row {
                    (column("debit", t.import_map_debit, false))
                    (column("credit", t.import_map_credit, false))
                }
                div.row {
                    (column("direction", t.import_direction, false))
                }
                div.row {
                    (column("payee", t.import_payee, false))
                    (column("payeeIn", t.import_map_payee_in, false))
                }
                div.row {
                    (column("memo", t.import_memo, false))
                }
            }
        }
    }

    /// Partial: every import so far, newest first.
    fn history(&self, history: &[BatchView]) -> Markup {
        let t = self.t;
        html! {
            section.panel.import-history aria-labelledby="import-history-title" {
                h2 #import-history-title { (t.import_history) }
                @if history.is_empty() {
                    p.muted { (t.import_history_empty) }
                } @else {
                    table.records.import-history-table {
                        thead { tr {
                            th { (t.date) } th { (t.import_file) } th { (t.account) }
                            th { (t.import_status) } th { (t.import_rows) }
                            th { span.sr-only { (t.actions) } }
                        } }
                        tbody {
                            @for b in history {
                                tr data-batch=(b.id) {
                                    td data-label=(t.date) { span.nowrap { (self.day(&b.created_at)) } }
                                    td data-label=(t.import_file) {
                                        a href={ "/import?batch=" (b.id) } { (b.file_name) }
                                    }
                                    td data-label=(t.account) { (self.refs.account_name(&b.account_id)) }
                                    td data-label=(t.import_status) { (self.batch_badge(b)) }
                                    td data-label=(t.import_rows) { (self.history_counts(b)) }
                                    td.row-actions data-label=(t.actions) {
                                        @if self.can_undo(b) {
                                            button.link.danger type="button" data-undo=(b.id) { (t.import_undo) }
                                        } @else if b.is_open() {
                                            a href={ "/import?batch=" (b.id) } { (t.import_open) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    p.form-error.import-error role="alert" hidden {}
                }
            }
        }
    }

    /// The counts of a batch in the history: the statuses it has, or
    /// only its size once its rows are gone.
    fn history_counts(&self, b: &BatchView) -> Markup {
        let t = self.t;
        let n = self.count(b.row_count);
        html! {
            span.nowrap { (n) } " "
            @if b.counts.total() > 0 {
                span.counts {
                    @for s in Status::ALL {
                        @let c = b.counts.of(s);
                        @if c > 0 {
                            span.count-item data-status=(s.code()) { (self.count(c)) " " (status_label(t, s)) }
                        }
                    }
                }
            }
        }
    }

    /// The day of a stored timestamp.
    fn day(&self, stamp: &str) -> String {
        chrono::DateTime::parse_from_rfc3339(stamp)
            .map(|d| format::date(d.date_naive(), self.locale))
            .unwrap_or_else(|_| stamp.to_string())
    }
}

/// Partial: where the script shows how far an upload or a confirm is.
fn progress() -> Markup {
    html! {
        div.import-progress hidden {
            progress max="100" {}
            span.progress-text aria-live="polite" {}
        }
    }
}

/// A row status for people.
fn status_label(t: &Texts, status: Status) -> &'static str {
    match status {
        Status::New => t.import_status_new,
        Status::Duplicate => t.import_status_duplicate,
        Status::Matched => t.import_status_matched,
        Status::Conflict => t.import_status_conflict,
        Status::Error => t.import_status_error,
    }
}

/// Partial: a row's status as a coloured badge.
fn status_badge(t: &Texts, status: Status) -> Markup {
    html! { span class={ "badge row-status " (status.code()) } { (status_label(t, status)) } }
}

/// A recognised layout's bank for people (`read::label`), or its id as
/// stored when this version does not know it.
/// A statement format's usual spelling: `camt.053` → "CAMT.053".
fn kind_name(kind: &str) -> String {
    match kind {
        "ofx" => "OFX / QFX".to_string(),
        other => other.to_uppercase(),
    }
}

fn bank_name(id: &str) -> &str {
    crate::domain::import::read::label(id).unwrap_or(id)
}

/// An encoding's usual spelling: `utf-8` → "UTF-8", `windows-1252` →
/// "Windows-1252".
fn encoding_name(encoding: &str) -> String {
    match encoding.strip_prefix("windows") {
        Some(rest) => format!("Windows{rest}"),
        None => encoding.to_uppercase(),
    }
}

/// A delimiter or decimal separator, named and shown.
fn separator_name(t: &Texts, sep: &str) -> String {
    let name = match sep {
        ";" => t.import_sep_semicolon,
        "," => t.import_sep_comma,
        "." => t.import_sep_point,
        "\t" => return t.import_sep_tab.to_string(),
        "|" => t.import_sep_bar,
        " " => return t.import_sep_space.to_string(),
        "" => return "–".to_string(),
        other => return format!("„{other}“"),
    };
    format!("{name} ({sep})")
}

/// A chrono date pattern as people write it: `%d.%m.%y` → "DD.MM.YY"
/// (German "TT.MM.JJ").
fn date_pattern(t: &Texts, pattern: &str) -> String {
    let (day, year) = (t.import_day_letter, t.import_year_letter);
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = chars.next();
        let padded = spec != Some('-');
        if !padded {
            spec = chars.next();
        }
        let piece = match (spec, padded) {
            (Some('d'), true) => day.repeat(2),
            (Some('d' | 'e'), _) => day.to_string(),
            (Some('m'), true) => "MM".to_string(),
            (Some('m'), false) => "M".to_string(),
            (Some('Y'), _) => year.repeat(4),
            (Some('y'), _) => year.repeat(2),
            (Some('b'), _) => "MMM".to_string(),
            (Some('F'), _) => format!("{}-MM-{}", year.repeat(4), day.repeat(2)),
            (Some(other), _) => format!("%{other}"),
            (None, _) => "%".to_string(),
        };
        out.push_str(&piece);
    }
    out
}

/// The texts `import.js` shows, as JSON for `data-texts`.
fn script_texts(t: &Texts) -> String {
    json!({
        "noFile": t.import_no_file,
        "uploading": t.import_uploading,
        "reading": t.import_reading,
        "reconciling": t.import_reconciling,
        "askingAi": t.import_asking_ai,
        "aiDone": t.import_ai_done,
        "decidedAll": t.import_decided_all,
        "accepted": t.import_accepted,
        "categorySet": t.import_category_set,
        "undecided": t.import_undecided,
        "cancelConfirm": t.import_cancel_confirm,
        "undoConfirm": t.import_undo_confirm,
        "undone": t.import_undone_flash,
        "cancelled": t.import_cancelled_flash,
        "network": t.import_network,
        "showConflicts": t.import_show_conflicts,
        "mappingNeeded": t.import_map_needed,
        "tooLarge": t.import_too_large,
        "balanceSet": t.import_balance_set,
        "batchReconciled": t.import_batch_reconciled,
        "batchUndecided": t.import_batch_undecided,
        "openDecisions": t.import_open_decisions,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{DE, EN};

    #[test]
    fn bank_ids_read_like_bank_names() {
        assert_eq!(bank_name("sparkasse-camt"), "Sparkasse CSV-CAMT");
        assert_eq!(bank_name("ing-nl"), "ING NL");
        assert_eq!(bank_name("a-bank-from-later"), "a-bank-from-later");
    }

    #[test]
    fn date_patterns_read_like_dates() {
        assert_eq!(date_pattern(&EN, "%d.%m.%y"), "DD.MM.YY");
        assert_eq!(date_pattern(&DE, "%d.%m.%Y"), "TT.MM.JJJJ");
        assert_eq!(date_pattern(&EN, "%Y-%m-%d"), "YYYY-MM-DD");
        assert_eq!(date_pattern(&EN, "%-m/%-d/%Y"), "M/D/YYYY");
        assert_eq!(date_pattern(&EN, "%d %b %Y"), "DD MMM YYYY");
    }

    #[test]
    fn separators_and_encodings_are_named() {
        assert_eq!(separator_name(&EN, ";"), "semicolon (;)");
        assert_eq!(separator_name(&DE, ","), "Komma (,)");
        assert_eq!(separator_name(&EN, "\t"), "tab");
        assert_eq!(encoding_name("windows-1252"), "Windows-1252");
        assert_eq!(encoding_name("utf-8"), "UTF-8");
    }
}
