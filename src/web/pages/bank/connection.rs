//! A connection's pages: `/bank` lists them all, `/bank/{id}` is one, or
//! the step its bank asks for next.

use super::{check, iban_groups, mask_login, save_pin, shell};
use crate::app::bank::{self, AccountView, ConnectionState, ConnectionView};
use crate::app::import::{self, BatchView};
use crate::domain::import::Source;
use crate::domain::locale::Locale;
use crate::http::session::{SignedIn, Viewer};
use crate::i18n::bank_pages::{self, Words};
use crate::state::AppState;
use crate::web::components::{form_error, local_time, Field};
use crate::web::pages::common::{PageResult, Refs};
use axum::extract::{Path, State};
use maud::{html, Markup};
use serde_json::json;
use std::collections::HashMap;

/// `GET /bank`: every connection of the user.
pub async fn list(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
) -> PageResult {
    let uid = &session.user.id;
    let connections = bank::list(&state, &session.user).await?;
    let refs = Refs::load(&state, uid).await?;
    let batches = import::list(&state, uid).await?;
    let view = View::new(&viewer, &refs, &batches);
    let w = view.w;
    Ok(shell(
        &viewer,
        w.title,
        html! {
            div.page-head {
                h1 { (w.title) }
                a.button.primary href="/bank/connect" { (w.connect) }
            }
            p.muted { (w.intro) }
            p.hint { (w.read_only) }
            @if connections.is_empty() {
                section.panel {
                    p.muted { (w.none) }
                }
            }
            @for c in &connections {
                (view.connection(c))
            }
        },
    ))
}

/// `GET /bank/{id}`: what the connection's bank asks for next, or the
/// connection. Another user's connection is not found.
pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let uid = &session.user.id;
    let w = bank_pages::words(viewer.locale);
    let found = match bank::get(&state, &session.user, id.trim().to_string()).await {
        Ok(c) => Some(c),
        Err(e @ (crate::Error::Internal(_) | crate::Error::Busy(_))) => return Err(e.into()),
        Err(_) => None,
    };
    let Some(c) = found else {
        return Ok(shell(
            &viewer,
            w.title,
            html! {
                h1 { (w.title) }
                p.notice role="status" { (w.not_found) }
                p { a href="/bank" { (w.back) } " · " a href="/bank/connect" { (w.connect) } }
            },
        ));
    };
    let refs = Refs::load(&state, uid).await?;
    let batches = import::list(&state, uid).await?;
    let view = View::new(&viewer, &refs, &batches);
    Ok(shell(
        &viewer,
        &bank_title(&c, w),
        html! {
            @match c.state {
                ConnectionState::ChooseTanMethod => {
                    h1 { (bank_title(&c, w)) }
                    (view.choose_method(&c))
                }
                ConnectionState::Tan | ConnectionState::Syncing => {
                    h1 { (bank_title(&c, w)) }
                    (view.tan_step(&c))
                }
                ConnectionState::Ready => {
                    h1 { (w.title) }
                    @if c.accounts.iter().all(|a| a.account_id.is_none()) && !c.accounts.is_empty() {
                        p.notice role="status" { strong { (w.connected) ". " } (w.connected_intro) }
                    }
                    (view.connection(&c))
                }
            }
            p { a href="/bank" { (w.back) } }
        },
    ))
}

/// A connection's name: the bank's, or, while only its code is known
/// (a bank the table does not know, before it named itself), "Bank" and
/// the code.
fn bank_title(c: &ConnectionView, w: &Words) -> String {
    if c.bank_name.is_empty() || c.bank_name == c.bank_code {
        format!("{} {}", w.bank, c.bank_code)
    } else {
        c.bank_name.clone()
    }
}

/// What the parts of a bank page need.
struct View<'a> {
    w: &'static Words,
    locale: Locale,
    refs: &'a Refs,
    /// Batches still open, by account: what a fetch left for review.
    open: HashMap<&'a str, Vec<&'a BatchView>>,
}

impl<'a> View<'a> {
    fn new(viewer: &Viewer, refs: &'a Refs, batches: &'a [BatchView]) -> View<'a> {
        let mut open: HashMap<&str, Vec<&BatchView>> = HashMap::new();
        for b in batches
            .iter()
            .filter(|b| b.is_open() && b.source == Source::Fints)
        {
            open.entry(b.account_id.as_str()).or_default().push(b);
        }
        View {
            w: bank_pages::words(viewer.locale),
            locale: viewer.locale,
            refs,
            open,
        }
    }

    /// Partial: a connection: its facts and last error, its accounts and
    /// where each is fetched into, "Fetch now" and what waits for review,
    /// the automatic fetch, "Forget the PIN" and remove.
    fn connection(&self, c: &ConnectionView) -> Markup {
        let w = self.w;
        let id = &c.id;
        let title = format!("bank-{id}-title");
        let names: HashMap<&str, String> = c
            .accounts
            .iter()
            .filter_map(|a| a.account_id.as_deref())
            .map(|a| (a, self.refs.account_name(a)))
            .collect();
        let linked = !names.is_empty();
        let waiting: Vec<&BatchView> = names
            .keys()
            .flat_map(|a| self.open.get(a).into_iter().flatten().copied())
            .collect();
        let pending = matches!(
            c.state,
            ConnectionState::ChooseTanMethod | ConnectionState::Tan | ConnectionState::Syncing
        );
        html! {
            // An article, not a landmark: two connections may share a
            // bank and a login name.
            article.panel.bank-connection #{ "bank-" (id) } data-id=(id)
                data-accounts=(json!(names).to_string()) aria-labelledby=(title) {
                div.bank-connection-head {
                    h2 id=(title) { (bank_title(c, w)) }
                    p.muted { (w.login_name) ": " span.login { (mask_login(&c.login_name)) } }
                }
                @if pending {
                    p.notice.bank-pending {
                        span { (w.pending) }
                        a.button href={ "/bank/" (id) } { (w.go_on) }
                    }
                }
                @if let Some(error) = &c.last_error {
                    div.notice.error.bank-last-error {
                        strong { (w.last_error) }
                        (error)
                    }
                }
                dl.bank-facts {
                    dt { (w.last_sync) }
                    dd { @match &c.last_sync_at { Some(at) => (local_time(at, self.locale)), None => (w.never) } }
                    dt { (w.pin) }
                    dd { @if c.pin_saved { (w.saved_state) } @else { (w.not_saved_state) } }
                    dt { (w.settings) }
                    dd { @if c.auto_sync { (w.on) } @else { (w.off) } }
                }
                h3 { (w.accounts) }
                @if c.accounts.is_empty() {
                    p.muted { (w.no_accounts) }
                } @else {
                    ul.bank-accounts {
                        @for (n, a) in c.accounts.iter().enumerate() {
                            (self.account(c, n, a))
                        }
                    }
                }
                div.bank-sync {
                    @if !linked { p.hint { (w.sync_needs_link) } }
                    form data-action="syncBank" data-busy-text=(w.syncing) novalidate {
                        input type="hidden" name="id" value=(id);
                        @if !c.pin_saved {
                            (Field::new(w.pin, "pin", "password").id(&format!("bank-{id}-pin"))
                                .autocomplete("off").required().render())
                        }
                        button.primary type="submit" { (w.sync_now) }
                        p.bank-busy role="status" hidden {}
                        (form_error())
                    }
                    div.bank-sync-result aria-live="polite" hidden {}
                }
                @if !waiting.is_empty() {
                    div.bank-review {
                        p { strong { (w.to_review) } }
                        ul.bank-batches {
                            @for b in &waiting {
                                li {
                                    (self.refs.account_name(&b.account_id)) ": "
                                    (bank_pages::bookings(b.counts.total() - b.counts.duplicate, self.locale)) " "
                                    a href={ "/import?batch=" (b.id) } { (w.review) }
                                }
                            }
                        }
                    }
                }
                (self.settings(c))
                div.bank-actions {
                    @if c.pin_saved {
                        form data-action="forgetBankPin" data-confirm=(w.forget_pin_confirm) data-reload="" {
                            input type="hidden" name="id" value=(id);
                            button type="submit" { (w.forget_pin) }
                            (form_error())
                        }
                    }
                    form data-action="deleteBankConnection" data-redirect="/bank"
                        data-confirm=(w.remove_confirm.replace("{bank}", &bank_title(c, w))) {
                        input type="hidden" name="id" value=(id);
                        button.danger type="submit" { (w.remove) }
                        (form_error())
                    }
                }
            }
        }
    }

    /// Partial: a bank account and which of the user's accounts (of its
    /// currency) it is fetched into, or "a new account".
    fn account(&self, c: &ConnectionView, n: usize, a: &AccountView) -> Markup {
        let w = self.w;
        let select = format!("bank-{}-account-{n}", c.id);
        let name = a
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .unwrap_or(&a.account_number)
            .to_string();
        let currency = a.currency.as_deref().unwrap_or_default();
        // Of the same currency (any, when the bank names none).
        let same: Vec<_> = self
            .refs
            .accounts
            .iter()
            .filter(|mine| currency.is_empty() || mine.currency.eq_ignore_ascii_case(currency))
            .collect();
        html! {
            li.bank-account {
                div {
                    p.bank-account-name { (name) }
                    @if !a.iban.is_empty() { p.iban.muted { (iban_groups(&a.iban)) } }
                    p.muted {
                        (currency)
                        @if let Some(owner) = a.owner_name.as_deref().filter(|o| !o.trim().is_empty()) {
                            @if !currency.is_empty() { " · " } (owner)
                        }
                    }
                }
                form.bank-link data-action="linkBankAccount" data-reload="" data-flash=(w.saved)
                    data-name=(name) data-currency=(currency) novalidate {
                    input type="hidden" name="id" value=(c.id);
                    input type="hidden" name="iban" value=(a.iban);
                    div.field {
                        label for=(select) { (w.linked_to) }
                        select id=(select) name="accountId" data-nullable=""
                            aria-describedby={ (select) "-error" } {
                            option value="" selected[a.account_id.is_none()] { (w.not_linked) }
                            @for mine in &same {
                                option value=(mine.id) selected[a.account_id.as_deref() == Some(mine.id.as_str())] {
                                    (mine.name) " (" (mine.currency) ")"
                                }
                            }
                            option value="new" { (w.new_account) }
                        }
                        span.field-error id={ (select) "-error" } data-error-for="accountId" aria-live="polite" {}
                    }
                    button type="submit" { (w.link) }
                    (form_error())
                }
            }
        }
    }

    /// Partial: the automatic fetch and auto-confirm; turning the first on
    /// without a saved PIN asks for it.
    fn settings(&self, c: &ConnectionView) -> Markup {
        let w = self.w;
        let id = &c.id;
        let (sync, confirm) = (format!("bank-{id}-auto"), format!("bank-{id}-confirm"));
        html! {
            div.bank-settings {
                h3 id={ "bank-" (id) "-settings" } { (w.settings) }
                form.stack data-action="setBankSync" data-reload="" data-flash=(w.saved) novalidate {
                    input type="hidden" name="id" value=(id);
                    (check(&sync, "autoSync", c.auto_sync, w.auto_sync, w.auto_sync_hint))
                    @if !c.pin_saved {
                        div.bank-pin-needed.stack hidden {
                            p.hint { (w.auto_needs_pin) }
                            (Field::new(w.pin, "pin", "password").id(&format!("bank-{id}-auto-pin"))
                                .autocomplete("off").required().render())
                            (save_pin(&format!("bank-{id}-save-pin"), w, true))
                        }
                    }
                    (check(&confirm, "autoConfirm", c.auto_confirm, w.auto_confirm, w.auto_confirm_hint))
                    (form_error())
                    button type="submit" { (w.save) }
                }
            }
        }
    }

    /// Partial: the TAN methods the bank offers, to choose one.
    fn choose_method(&self, c: &ConnectionView) -> Markup {
        let w = self.w;
        html! {
            section.panel aria-labelledby="bank-step-title" {
                h2 #bank-step-title { (w.method_title) }
                p { (w.method_intro) }
                form.stack data-action="chooseTanMethod" data-reload="" data-busy-text=(w.connecting) novalidate {
                    input type="hidden" name="id" value=(c.id);
                    fieldset.tan-methods aria-describedby="bank-code-error" {
                        legend.sr-only { (w.method_title) }
                        @for (n, m) in c.tan_methods.iter().flatten().enumerate() {
                            label {
                                input type="radio" name="code" value=(m.code) required checked[n == 0];
                                span {
                                    (m.name)
                                    @if m.decoupled { " " span.muted { "(" (w.method_decoupled) ")" } }
                                }
                            }
                        }
                    }
                    span.field-error #bank-code-error data-error-for="code" aria-live="polite" {}
                    p.bank-busy role="status" hidden {}
                    (form_error())
                    button.primary type="submit" { (w.go_on_button) }
                }
            }
        }
    }

    /// Partial: a TAN to type, with the bank's challenge (and its image),
    /// or the waiting screen of an approval in the bank's app (or of a
    /// fetch that goes on), which follows the connection by itself.
    fn tan_step(&self, c: &ConnectionView) -> Markup {
        let w = self.w;
        let tan = c.tan.as_ref();
        let decoupled = tan.is_none_or(|t| t.decoupled) || c.state == ConnectionState::Syncing;
        let challenge = tan.map(|t| t.challenge.trim()).filter(|t| !t.is_empty());
        if decoupled {
            let (title, status) = if c.state == ConnectionState::Syncing {
                (w.syncing, w.wait_syncing)
            } else {
                (w.wait_title, w.wait_status)
            };
            return html! {
                section.panel.bank-wait data-bank-wait=(c.id)
                    data-error-before=(c.last_error.as_deref().unwrap_or_default())
                    aria-labelledby="bank-step-title" {
                    div.bank-spinner aria-hidden="true" {}
                    h2 #bank-step-title { (title) }
                    @if c.state != ConnectionState::Syncing { p { (w.wait_intro) } }
                    @if let Some(text) = challenge { p.tan-challenge { (text) } }
                    p.bank-wait-status role="status" aria-live="polite" { (status) }
                    p.form-error role="alert" hidden {}
                    p.bank-wait-failed.buttons hidden {
                        a.button.primary href="/bank/connect" { (w.start_again) }
                        a href={ "/bank#bank-" (c.id) } { (w.back) }
                    }
                }
            };
        }
        html! {
            section.panel aria-labelledby="bank-step-title" {
                h2 #bank-step-title { (w.tan_title) }
                @if let Some(text) = challenge {
                    p { (w.tan_intro) }
                    p.tan-challenge { (text) }
                }
                @if let Some(image) = tan.and_then(|t| t.image.as_deref()) {
                    img.tan-image src=(image) alt=(w.tan_image);
                }
                @if tan.is_some_and(|t| t.hhd_uc.is_some()) {
                    p.hint { (w.tan_flicker) }
                }
                form.stack data-action="sendTan" data-reload="" data-busy-text=(w.connecting) novalidate {
                    input type="hidden" name="id" value=(c.id);
                    (Field::new(w.tan_label, "tan", "text").autocomplete("one-time-code")
                        .required().autofocus().render())
                    p.bank-busy role="status" hidden {}
                    (form_error())
                    button.primary type="submit" { (w.tan_send) }
                }
            }
        }
    }
}
