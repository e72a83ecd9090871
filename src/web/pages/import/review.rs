//! The review of an opened batch on `/import`: what was detected, the
//! counts as filters, what can be done with the batch, and its rows with
//! their matches, categories and decisions, paged.

use super::{
    bank_name, date_pattern, encoding_name, kind_name, progress, separator_name, status_badge,
    status_label, View,
};
use crate::app::import::{BatchView, BatchWithRows, MatchView, Place, RowView};
use crate::domain::import::read::{ClosingBalance, Columns};
use crate::domain::import::reconcile::{Kind, Status};
use crate::domain::import::{BatchStatus, Decision};
use crate::i18n::format;
use crate::store::categories::Category;
use crate::web::pages::common::category_chip;
use maud::{html, Markup};

impl View<'_> {
    /// Partial: an opened batch: what was detected, the counts as filters,
    /// what can be done with it, and its rows.
    pub(super) fn batch(
        &self,
        opened: &BatchWithRows,
        status: Option<Status>,
        at: i64,
        place: &Place,
        written: Option<i64>,
    ) -> Markup {
        let (t, b) = (self.t, &opened.batch);
        let account = self.refs.account_name(&b.account_id);
        let rows_total = b.counts.total();
        let shown_total = status.map_or(rows_total, |s| b.counts.of(s));
        html! {
            section.panel.import-batch aria-labelledby="import-batch-title" data-status=(b.status.code()) {
                div.batch-head {
                    h2 #import-batch-title { (b.file_name) }
                    (self.batch_badge(b))
                }
                p.muted.batch-meta {
                    (account) " · " (t.doc_uploaded) " " (self.day(&b.created_at))
                }
                (self.format(b))
                @if b.status == BatchStatus::Confirmed && !self.can_undo(b) {
                    p.notice.import-done {
                        (t.import_confirmed_nothing
                            .replace("{date}", &self.day(b.confirmed_at.as_deref().unwrap_or(&b.created_at))))
                    }
                } @else if b.status == BatchStatus::Confirmed {
                    p.notice.import-done {
                        (t.import_confirmed_notice
                            .replace("{date}", &self.day(b.confirmed_at.as_deref().unwrap_or(&b.created_at)))
                            .replace("{n}", &self.count(written.unwrap_or(0)))
                            .replace("{account}", &account))
                        " "
                        button.link.danger type="button" data-undo=(b.id) { (t.import_undo) }
                    }
                    p.form-error.import-error role="alert" hidden {}
                } @else if b.is_undone() {
                    p.notice { (t.import_undone_notice) }
                } @else if b.status == BatchStatus::Cancelled {
                    p.notice { (t.import_cancelled_notice) }
                }
                @if b.is_open() {
                    @let suggestions = opened.rows.iter().any(|r| r.category_id.is_none() && r.suggested_category_id.is_some());
                    (self.batch_actions(b, rows_total, suggestions))
                }
            }
            @if b.status != BatchStatus::Cancelled {
                // The rows and, while the batch is open, the confirm bar
                // that stays at the screen's foot while they are in view.
                div.import-review {
                    section.panel.import-preview aria-labelledby="import-rows-title" {
                        h2 #import-rows-title { (t.import_rows) }
                        (self.filters(b, status))
                        @if opened.rows.is_empty() {
                            p.muted { (t.import_no_rows) }
                        } @else {
                            (self.rows(opened))
                            (self.pager(opened, status, (at, place), shown_total))
                        }
                    }
                    @if b.is_open() && !opened.rows.is_empty() {
                        (self.confirm_bar(b, rows_total))
                    }
                }
            }
        }
    }

    /// The batch's status as a badge.
    pub(super) fn batch_badge(&self, b: &BatchView) -> Markup {
        html! { span class={ "badge batch-status " (b.status.code()) } { (self.batch_label(b)) } }
    }

    /// The batch's status for people.
    fn batch_label(&self, b: &BatchView) -> &'static str {
        let t = self.t;
        match b.status {
            BatchStatus::Staged => t.import_batch_staged,
            BatchStatus::Reconciled if b.undecided > 0 => t.import_batch_undecided,
            BatchStatus::Reconciled => t.import_batch_reconciled,
            BatchStatus::Confirmed if self.confirmed_empty.contains(&b.id) => {
                t.import_batch_confirmed_nothing
            }
            BatchStatus::Confirmed => t.import_batch_confirmed,
            _ if b.is_undone() => t.import_batch_undone,
            BatchStatus::Cancelled => t.import_batch_cancelled,
        }
    }

    /// Partial: under the rows of an open batch, kept at the screen's foot
    /// while they are in view: how many decisions are open (the script
    /// updates it after each) and a second confirm, which does what the
    /// one above the rows does (the balance box there counts for both).
    fn confirm_bar(&self, b: &BatchView, rows_total: i64) -> Markup {
        let t = self.t;
        let open = if b.status == BatchStatus::Reconciled && b.undecided > 0 {
            t.import_open_decisions
                .replace("{n}", &self.count(b.undecided))
        } else {
            self.batch_label(b).to_string()
        };
        html! {
            div.import-confirm-bar {
                span.open-decisions role="status" data-open-decisions="" { (open) }
                button.primary type="button" data-confirm-import=""
                    data-busy=(t.import_confirming.replace("{n}", &self.count(rows_total))) {
                    (t.import_confirm)
                }
                (progress())
                p.form-error.import-error role="alert" hidden {}
            }
        }
    }

    /// Partial: how the file was read.
    fn format(&self, b: &BatchView) -> Markup {
        let (t, f) = (self.t, &b.format);
        let csv = f.kind == "csv";
        html! {
            dl.import-format {
                @if csv {
                    div { dt { (t.import_bank) } dd { @match &f.bank {
                        Some(id) => strong { (bank_name(id)) },
                        None => span.muted { (t.import_bank_unknown) },
                    } } }
                } @else {
                    div { dt { (t.import_kind) } dd { strong { (kind_name(&f.kind)) } } }
                }
                @if let Some(account) = &f.account_iban {
                    div { dt { (t.import_statement_account) } dd { (account) } }
                }
                div { dt { (t.import_encoding) } dd { (encoding_name(&f.encoding)) } }
                @if let (Some(delimiter), Some(decimal), Some(dates)) =
                    (&f.delimiter, &f.decimal_separator, &f.date_format) {
                    div { dt { (t.import_delimiter) } dd { (separator_name(t, delimiter)) } }
                    div { dt { (t.import_decimal) } dd { (separator_name(t, decimal)) } }
                    div { dt { (t.import_date_format) } dd { (date_pattern(t, dates)) } }
                    div { dt { (t.import_header) } dd { @match f.header_line {
                        Some(n) => (t.import_line.replace("{n}", &n.to_string())),
                        None => (t.import_no_header),
                    } } }
                }
                @if let Some(c) = &f.columns {
                    div.import-columns { dt { (t.import_columns) } dd {
                        (self.columns(c))
                        @if b.is_open() {
                            a href={ "/import?columns=" (b.id) } { (t.import_change_columns) }
                        }
                    } }
                }
                @if let Some(closing) = &f.closing_balance {
                    div { dt { (t.import_closing_balance) } dd {
                        (self.closing_text(t.import_closing_on, b, closing))
                    } }
                }
                div { dt { (t.import_rows) } dd { (self.count(b.row_count)) } }
            }
        }
    }

    /// Partial: which column was read as what, for a layout no bank has.
    fn columns(&self, c: &Columns) -> Markup {
        let t = self.t;
        let payee = match (&c.payee, &c.payee_in) {
            (Some(out), Some(inn)) => Some(
                t.import_payee_out_in
                    .replace("{out}", out)
                    .replace("{in}", inn),
            ),
            (p, _) => p.clone(),
        };
        let read = [
            (t.import_map_date, Some(c.date.clone())),
            (t.amount, c.amount.clone()),
            (t.import_direction, c.direction.clone()),
            (t.import_map_debit, c.debit.clone()),
            (t.import_map_credit, c.credit.clone()),
            (t.import_payee, payee),
            (t.import_memo, c.memo.clone()),
            (t.currency, c.currency.clone()),
        ];
        html! {
            ul {
                @for (what, column) in read {
                    @if let Some(column) = column {
                        li { (what) ": " q { (column) } }
                    }
                }
            }
        }
    }

    /// Whether the file's balance is newer than the account's: of a day on
    /// or after the one its balance was last set.
    fn newer_balance(&self, b: &BatchView, closing: &ClosingBalance) -> bool {
        let set = self
            .refs
            .accounts
            .iter()
            .find(|a| a.id == b.account_id)
            .and_then(|a| a.balance_set_at.as_deref())
            .and_then(crate::clock::parse_timestamp)
            .map(|set| set.date_naive());
        closing.is_newer_than(set)
    }

    /// `template` with the closing balance's `{amount}` and `{date}`, and
    /// the batch's `{account}`.
    fn closing_text(&self, template: &str, b: &BatchView, closing: &ClosingBalance) -> String {
        let currency = closing
            .currency
            .clone()
            .unwrap_or_else(|| self.refs.account_currency(&b.account_id));
        template
            .replace(
                "{amount}",
                &format::money(closing.amount, &currency, self.locale),
            )
            .replace("{date}", &format::date(closing.date, self.locale))
            .replace("{account}", &self.refs.account_name(&b.account_id))
    }

    /// Partial: decide every conflict, AI suggestions, confirm, cancel.
    fn batch_actions(&self, b: &BatchView, rows_total: i64, suggestions: bool) -> Markup {
        let t = self.t;
        html! {
            div.import-actions {
                @if b.status == BatchStatus::Staged {
                    p.notice {
                        (t.import_staged_hint) " "
                        button.link type="button" data-reconcile="" { (t.import_reconcile) }
                    }
                }
                @if b.counts.conflict > 0 {
                    div.decide-all role="group" aria-labelledby="decide-all-label" {
                        span #decide-all-label {
                            (t.import_decide_all.replace("{n}", &self.count(b.counts.conflict)))
                        }
                        button type="button" data-decide-all=(Decision::Import.code()) { (t.import_import_all) }
                        button type="button" data-decide-all=(Decision::Skip.code()) { (t.import_skip_all) }
                    }
                }
                @if suggestions {
                    div.accept-suggestions {
                        button type="button" data-accept-suggestions="" { (t.import_accept_all) }
                    }
                }
                @if self.ai {
                    div.ai-suggest {
                        button type="button" data-ai="" aria-describedby="import-ai-batch-hint" { (t.import_ai_button) }
                        small #import-ai-batch-hint .hint { (t.import_ai_hint) }
                        // Why there are no suggestions: the script shows it
                        // here and moves the focus to it.
                        p #import-ai-error .ai-error role="alert" tabindex="-1" hidden {}
                    }
                }
                @if let Some(closing) = &b.format.closing_balance {
                    div.field.check.set-balance {
                        input #import-set-balance type="checkbox" checked[self.newer_balance(b, closing)]
                            data-set-balance="";
                        label for="import-set-balance" {
                            (self.closing_text(t.import_set_balance, b, closing))
                        }
                    }
                }
                div.buttons {
                    button.primary type="button" data-confirm-import=""
                        data-busy=(t.import_confirming.replace("{n}", &self.count(rows_total))) {
                        (t.import_confirm)
                    }
                    button.danger type="button" data-cancel-import="" { (t.import_cancel) }
                }
                (progress())
                p.form-error.import-error role="alert" hidden {}
                p.form-success.import-status role="status" hidden {}
            }
        }
    }

    /// Partial: one link per status with its count; the current one marked.
    fn filters(&self, b: &BatchView, current: Option<Status>) -> Markup {
        let t = self.t;
        let href = |status: Option<Status>| match status {
            Some(s) => format!("/import?batch={}&status={}", b.id, s.code()),
            None => format!("/import?batch={}", b.id),
        };
        html! {
            nav.status-filters aria-label=(t.import_filter) {
                a href=(href(None)) aria-current=[current.is_none().then_some("page")] {
                    (t.all) " " span.count { (self.count(b.counts.total())) }
                }
                @for s in Status::ALL {
                    a href=(href(Some(s))) data-status=(s.code()) aria-current=[(current == Some(s)).then_some("page")] {
                        (status_label(t, s)) " " span.count { (self.count(b.counts.of(s))) }
                    }
                }
            }
        }
    }

    /// Partial: the table of rows.
    fn rows(&self, b: &BatchWithRows) -> Markup {
        let t = self.t;
        html! {
            table.records.import-rows {
                thead { tr {
                    th { (t.date) }
                    th { (t.import_payee) }
                    th.num { (t.amount) }
                    th { (t.category) }
                    th { (t.import_status) }
                    th { (t.import_decision) }
                } }
                tbody {
                    @for r in &b.rows { (self.row(&b.batch, r)) }
                }
            }
        }
    }

    fn row(&self, b: &BatchView, r: &RowView) -> Markup {
        let t = self.t;
        let undecided = b.is_open() && r.status == Status::Conflict && r.decision.is_none();
        html! {
            tr data-row=(r.id) data-status=(r.status.code()) class=[undecided.then_some("undecided")] {
                td data-label=(t.date) {
                    @match r.date {
                        Some(d) => span.nowrap { (format::date(d, self.locale)) },
                        None => span.muted { "–" },
                    }
                    small.muted.line { (t.import_line.replace("{n}", &r.line.to_string())) }
                }
                td.payee data-label=(t.import_payee) {
                    @if r.payee.is_empty() && r.memo.is_empty() { span.muted { "–" } }
                    @if !r.payee.is_empty() { span.payee-name { (r.payee) } }
                    @if !r.memo.is_empty() {
                        span.memo title=(r.memo) {
                            span.sr-only { (t.import_memo) ": " }
                            (r.memo)
                        }
                    }
                }
                td.num data-label=(t.amount) {
                    @match r.amount {
                        Some(a) => span.amount.negative[a.is_sign_negative()] {
                            (format::money(a, &r.currency, self.locale))
                        },
                        None => span.muted { "–" },
                    }
                }
                td.category data-label=(t.category) { (self.category(b, r)) }
                td.why data-label=(t.import_status) {
                    (status_badge(t, r.status))
                    @if let Some(reason) = &r.reason { span.reason { (reason) } }
                    @if let Some(f) = &r.found { (self.found(f, &r.currency)) }
                }
                td.decision data-label=(t.import_decision) { (self.decision(b, r)) }
            }
        }
    }

    /// Partial: a row's category. While the batch is open, a row of money
    /// out (it becomes a one-time expense) offers every category, and the
    /// AI's suggestion to take over; otherwise the category it has.
    fn category(&self, b: &BatchView, r: &RowView) -> Markup {
        let t = self.t;
        let money_out = r.amount.is_some_and(|a| a.is_sign_negative());
        if !(b.is_open() && money_out && r.status != Status::Error) {
            return html! {
                @match r.category_id.as_deref() {
                    Some(id) => (category_chip(self.categories.get(id).copied(), self.locale)),
                    None => span.muted { "–" },
                }
            };
        }
        let suggested = r
            .suggested_category_id
            .as_deref()
            .filter(|_| r.category_id.is_none())
            .and_then(|id| self.categories.get(id).copied());
        let id = format!("import-category-{}", r.id);
        let mut options: Vec<&Category> = self.categories.values().copied().collect();
        options.sort_by_key(|c| c.name.to_lowercase());
        html! {
            label.sr-only for=(id) { (t.category) " · " (t.import_line.replace("{n}", &r.line.to_string())) }
            select #(id) data-row-category="" {
                option value="" selected[r.category_id.is_none()] { "– " (t.import_no_category) " –" }
                @for c in options {
                    option value=(c.id) selected[r.category_id.as_deref() == Some(c.id.as_str())] {
                        (c.icon) " " (c.name)
                    }
                }
            }
            @if let Some(c) = suggested {
                span.suggestion {
                    (t.import_suggested.replace("{name}", &c.name)) " "
                    button.link type="button" data-use-category=(c.id) { (t.import_use_suggestion) }
                }
            }
        }
    }

    /// Partial: the record a row matches, linked to its page (its amount
    /// in the row's currency, as reconciliation compared them).
    fn found(&self, f: &MatchView, currency: &str) -> Markup {
        let t = self.t;
        let (kind, href) = match f.kind {
            Kind::Income => (t.kind_income, format!("/incomes?edit={}", f.id)),
            Kind::Expense => (t.kind_expense, format!("/expenses?edit={}", f.id)),
            Kind::Transfer => (t.kind_transfer, format!("/transfers?edit={}", f.id)),
            Kind::DailyExpense => (
                t.kind_daily_expense,
                format!("/daily-expenses?edit={}", f.id),
            ),
        };
        html! {
            span.found {
                (t.import_matches) ": "
                a href=(href) { (f.name) }
                " · " (kind)
                " · " span.nowrap { (format::date(f.date, self.locale)) }
                " · " span.amount.nowrap { (format::money(f.amount, currency, self.locale)) }
            }
        }
    }

    /// Partial: a row's decision: Import / Skip while the batch is open,
    /// what happened to it after.
    fn decision(&self, b: &BatchView, r: &RowView) -> Markup {
        let t = self.t;
        if r.status == Status::Error {
            return html! { span.muted { (t.import_never) } };
        }
        let imports = match r.decision {
            Some(d) => d == Decision::Import,
            None => r.status == Status::New,
        };
        if !b.is_open() {
            let done = if b.status == BatchStatus::Confirmed {
                if imports {
                    t.import_was_imported
                } else {
                    t.import_was_skipped
                }
            } else {
                "–"
            };
            return html! { span.muted { (done) } };
        }
        let pressed = |d: Decision| {
            if r.decision == Some(d) {
                "true"
            } else {
                "false"
            }
        };
        let note = match (r.decision, r.status) {
            (Some(_), _) => None,
            (None, Status::Conflict) => Some(t.import_undecided),
            (None, Status::New) => Some(t.import_default_import),
            (None, _) => Some(t.import_default_skip),
        };
        let label = format!(
            "{} · {}",
            t.import_decision,
            t.import_line.replace("{n}", &r.line.to_string())
        );
        html! {
            div.decide role="group" aria-label=(label) {
                button type="button" data-decide=(Decision::Import.code()) aria-pressed=(pressed(Decision::Import)) { (t.import_do_import) }
                button type="button" data-decide=(Decision::Skip.code()) aria-pressed=(pressed(Decision::Skip)) { (t.import_do_skip) }
            }
            @if let Some(note) = note { small.decision-note { (note) } }
        }
    }

    /// Partial: which rows are shown, and the links to the pages around,
    /// each by the file position of its first row (its key).
    fn pager(
        &self,
        b: &BatchWithRows,
        status: Option<Status>,
        (at, place): (i64, &Place),
        total: i64,
    ) -> Markup {
        let t = self.t;
        let shown = b.rows.len() as i64;
        let first = place.before;
        if first == 0 && shown >= total {
            return html! {};
        }
        let href = |at: i64| {
            let mut h = format!("/import?batch={}", b.batch.id);
            if let Some(s) = status {
                h.push_str("&status=");
                h.push_str(s.code());
            }
            if at > 0 {
                h.push_str(&format!("&at={at}"));
            }
            h
        };
        let text = t
            .import_rows_of
            .replace("{from}", &self.count(first + 1))
            .replace("{to}", &self.count(first + shown))
            .replace("{n}", &self.count(total));
        let next = b.rows.last().map(|r| r.position + 1);
        crate::web::components::pager(&crate::web::components::Pages {
            label: t.import_pages,
            shown: text,
            prev: (first > 0 && at > 0).then(|| (href(place.previous), t.import_prev)),
            next: next
                .filter(|_| first + shown < total)
                .map(|next| (href(next), t.import_next)),
            jumps: None,
        })
    }
}
