//! The bank sync pages (docs/bank-sync.md): `/bank` lists the user's
//! connections, each with its accounts and where each is fetched into, the
//! last fetch and its error, "Fetch now", the automatic fetch, "Forget the
//! PIN" and remove; `/bank/connect` connects a bank; `/bank/{id}` is one
//! connection: the step its bank asks for (a TAN method, a TAN, an
//! approval in the bank's app, which the page waits for by itself), or,
//! once connected, the connection with its accounts to link.
//!
//! The forms call the bank actions through `assets/app.js`; the bank
//! search, the waiting screen, the fetch's result and "a new account" are
//! `assets/bank.js`.
//!
//! This file: the connect page, the panel that leads here, the shell of
//! every bank page and what they share; a connection's pages are
//! `bank/connection.rs`.

use super::common::PageResult;
use crate::domain::locale::Locale;
use crate::http::session::{SignedIn, Viewer};
use crate::i18n::bank_pages::{self, Words};
use crate::i18n::Texts;
use crate::web::components::{form_error, Field};
use crate::web::layout::page_with_scripts;
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde_json::json;

mod connection;
pub use connection::{list, show};

/// The navigation entry the bank pages belong to: bank sync is a way to
/// import.
const NAV: &str = "/import";

/// `GET /bank/connect`: the form that connects a bank.
pub async fn connect(SignedIn { viewer, .. }: SignedIn) -> PageResult {
    let w = bank_pages::words(viewer.locale);
    Ok(shell(
        &viewer,
        w.connect,
        html! {
            h1 { (w.connect) }
            p.muted { (w.intro) }
            p.hint { (w.read_only) }
            section.panel {
                (connect_form(w))
            }
            p { a href="/bank" { (w.back) } }
        },
    ))
}

/// Partial: where the import page and Settings lead to bank sync, under
/// `heading`: connect a bank, or see the connections.
pub fn panel(locale: Locale, heading: &str) -> Markup {
    let w = bank_pages::words(locale);
    html! {
        section.panel.bank-panel #bank aria-labelledby="bank-panel-title" {
            h2 #bank-panel-title { (heading) }
            p.muted { (w.panel_intro) " " (w.read_only) }
            p.buttons {
                a.button.primary href="/bank/connect" { (w.connect) }
                a.button href="/bank" { (w.connections) }
            }
        }
    }
}

/// A bank page in the layout, with its words for the script.
fn shell(viewer: &Viewer, title: &str, content: Markup) -> axum::response::Response {
    let w = bank_pages::words(viewer.locale);
    page_with_scripts(
        viewer,
        NAV,
        title,
        &["bank.js"],
        html! {
            div.bank data-bank="" data-texts=(script_texts(w, viewer.t())) { (content) }
        },
    )
    .into_response()
}

/// Partial: bank search, login, customer id (folded away), PIN and "save
/// the PIN"; the bank's address only when the bank chosen has none.
fn connect_form(w: &Words) -> Markup {
    html! {
        form #bank-connect.stack data-action="connectBank" data-busy-text=(w.connecting) novalidate {
            div.field {
                label for="f-bankCode" { (w.bank) }
                input #f-bankCode name="bankCode" type="text" required autocomplete="off"
                    spellcheck="false" data-bank-search="" aria-controls="bank-results"
                    aria-describedby="f-bankCode-hint f-bankCode-chosen f-bankCode-error";
                small.hint #f-bankCode-hint { (w.bank_hint) }
                p.bank-chosen #f-bankCode-chosen role="status" hidden {}
                p.hint.bank-search-status role="status" hidden {}
                ul #bank-results.bank-results aria-label=(w.bank_results) hidden {}
                span.field-error #f-bankCode-error data-error-for="bankCode" aria-live="polite" {}
            }
            div.bank-url hidden {
                (Field::new(w.url, "url", "url").inputmode("url").autocomplete("off")
                    .nullable().hint(w.url_hint).render())
            }
            (Field::new(w.login_name, "loginName", "text").autocomplete("username")
                .required().hint(w.login_hint).render())
            details.bank-more {
                summary { (w.more) }
                (Field::new(w.customer_id, "customerId", "text").autocomplete("off")
                    .nullable().hint(w.customer_id_hint).render())
            }
            (Field::new(w.pin, "pin", "password").autocomplete("off").required()
                .hint(w.pin_hint).render())
            (save_pin("f-savePin", w, false))
            p.bank-busy role="status" hidden {}
            (form_error())
            button.primary type="submit" { (w.connect_submit) }
        }
    }
}

/// Partial: a box sent as a JSON boolean, with what it means under it;
/// `id` is unique on the page (a page may show several connections).
fn check(id: &str, name: &str, checked: bool, label: &str, hint: &str) -> Markup {
    let hint_id = format!("{id}-hint");
    html! {
        div.field.check {
            input id=(id) type="checkbox" name=(name) data-type="bool" checked[checked]
                aria-describedby=(hint_id);
            label for=(id) { (label) }
            span.field-error data-error-for=(name) aria-live="polite" {}
        }
        small.hint id=(hint_id) { (hint) }
    }
}

/// Partial: the "save the PIN" box and what it means.
fn save_pin(id: &str, w: &Words, checked: bool) -> Markup {
    check(id, "savePin", checked, w.save_pin, w.save_pin_hint)
}

/// The texts `bank.js` shows, as JSON for `data-texts`.
fn script_texts(w: &Words, t: &Texts) -> String {
    json!({
        "chosen": w.bank_chosen,
        "found": w.banks_found,
        "none": w.bank_none,
        "network": t.import_network,
        "failed": w.wait_failed,
        "waiting": w.wait_status,
        "still": w.wait_still,
        "syncing": w.wait_syncing,
        "done": w.wait_done,
        "syncDone": w.sync_done,
        "syncNothing": w.sync_nothing,
        "bookings": w.bookings,
        "review": w.review,
    })
    .to_string()
}

/// A login name as the pages show it: enough to tell two apart, not
/// enough to sign in with ("er•••67").
pub fn mask_login(login: &str) -> String {
    let chars: Vec<char> = login.trim().chars().collect();
    let keep = match chars.len() {
        0 => return String::new(),
        1..=3 => 1,
        4..=7 => 2,
        _ => 3,
    };
    let head: String = chars.iter().take(keep.min(chars.len())).collect();
    let tail: String = if chars.len() > 3 {
        chars[chars.len() - (keep - 1).max(1)..].iter().collect()
    } else {
        String::new()
    };
    format!("{head}•••{tail}")
}

/// An IBAN in groups of four, as banks print it.
fn iban_groups(iban: &str) -> String {
    let compact: Vec<char> = iban.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .chunks(4)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_shows_enough_to_tell_it_apart_and_no_more() {
        assert_eq!(mask_login("test@user"), "tes•••er");
        assert_eq!(mask_login("erika67"), "er•••7");
        assert_eq!(mask_login("abc"), "a•••");
        assert_eq!(mask_login("  "), "");
        assert_eq!(mask_login("Jürgen Müller"), "Jür•••er");
        for login in ["test@user", "1234567890", "abcd"] {
            let shown = mask_login(login);
            assert!(!shown.contains(login), "{shown}");
            assert!(shown.chars().filter(|c| *c != '•').count() < login.len());
        }
    }

    #[test]
    fn an_iban_reads_in_groups_of_four() {
        assert_eq!(
            iban_groups("DE89120300001234567890"),
            "DE89 1203 0000 1234 5678 90"
        );
        assert_eq!(iban_groups("DE89 1203"), "DE89 1203");
    }
}
