//! How a person reads what went wrong with a bank (docs/bank-sync.md): the
//! bank's refusals made plain, in English and German. The bank's return
//! code and the technical cause are for the log; only a refusal the client
//! does not know by its code shows the bank's own words.

use crate::error::{BankAddressProblem, BankFailure, BankSyncProblem};

/// Where a FinTS product registration is had, free of charge.
const REGISTRATION: &str = "https://www.hbci-zka.de/register/prod_register.htm";

pub(super) fn address(problem: BankAddressProblem, de: bool) -> &'static str {
    let (en, german) = match problem {
        BankAddressProblem::NotAUrl => (
            "must be the bank's FinTS address, such as https://fints.example-bank.de/fints",
            "muss die FinTS-Adresse der Bank sein, etwa https://fints.beispielbank.de/fints",
        ),
        BankAddressProblem::NotHttps => (
            "must begin with https:// (banks answer FinTS only encrypted)",
            "muss mit https:// beginnen (Banken antworten auf FinTS nur verschlüsselt)",
        ),
        BankAddressProblem::Local => (
            "must be a bank's public address, not one in a local or private network",
            "muss eine öffentliche Adresse der Bank sein, keine im lokalen oder privaten Netz",
        ),
    };
    if de {
        german
    } else {
        en
    }
}

pub(super) fn failure(failure: &BankFailure, de: bool) -> String {
    let (en, german) = match failure {
        BankFailure::WrongPin => (
            "The bank did not accept the PIN. Check the login name and the PIN and try again: \
             after several wrong tries the bank locks the online access.",
            "Die Bank hat die PIN nicht angenommen. Prüf Anmeldenamen und PIN und versuch es \
             noch einmal: nach mehreren falschen Versuchen sperrt die Bank den Online-Zugang.",
        ),
        BankFailure::Locked => (
            "The bank has locked the online access. Unlock it with your bank (in its app, on \
             its website or by phone), then connect again.",
            "Die Bank hat den Online-Zugang gesperrt. Lass ihn von deiner Bank entsperren (in \
             ihrer App, auf ihrer Website oder am Telefon) und verbinde dich dann neu.",
        ),
        BankFailure::TanRejected => (
            "The bank did not accept the TAN, or it has expired. Start again to get a new one.",
            "Die Bank hat die TAN nicht angenommen, oder sie ist abgelaufen. Fang noch einmal \
             an, um eine neue zu bekommen.",
        ),
        BankFailure::ProductRefused => {
            return product(
                de,
                "The bank does not accept this server's FinTS product registration.",
                "Die Bank erkennt die FinTS-Produktregistrierung dieses Servers nicht an.",
            )
        }
        BankFailure::ProductIdMissing => {
            return product(
                de,
                "Bank sync is not set up on this server: it has no FinTS product registration.",
                "Die Bankanbindung ist auf diesem Server nicht eingerichtet: ihm fehlt die \
                 FinTS-Produktregistrierung.",
            )
        }
        BankFailure::Unreachable => (
            "The bank cannot be reached right now. Try again later; if it stays so, check the \
             bank's FinTS address.",
            "Die Bank ist gerade nicht erreichbar. Versuch es später noch einmal; bleibt es so, \
             prüf die FinTS-Adresse der Bank.",
        ),
        BankFailure::Timeout => (
            "The bank did not answer in time. Try again later.",
            "Die Bank hat nicht rechtzeitig geantwortet. Versuch es später noch einmal.",
        ),
        BankFailure::ApprovalTimedOut => (
            "The approval in your banking app did not come in time. Start again and approve \
             it in the app.",
            "Die Freigabe in deiner Banking-App kam nicht rechtzeitig. Fang noch einmal an und \
             gib sie in der App frei.",
        ),
        BankFailure::Refused { text } => {
            let text = text.trim();
            return match (de, text.is_empty()) {
                (false, true) => "The bank refused the request.".into(),
                (true, true) => "Die Bank hat die Anfrage abgelehnt.".into(),
                (false, false) => format!("The bank refused the request: “{text}”"),
                (true, false) => format!("Die Bank hat die Anfrage abgelehnt: „{text}“"),
            };
        }
        BankFailure::Unreadable => (
            "The bank's answer cannot be read. Try again later.",
            "Die Antwort der Bank lässt sich nicht lesen. Versuch es später noch einmal.",
        ),
        BankFailure::NotOffered => (
            "This bank does not offer account statements or balances over FinTS.",
            "Diese Bank bietet Kontoumsätze oder Salden nicht über FinTS an.",
        ),
        BankFailure::UnknownTanMethod => (
            "The bank does not offer the chosen TAN method. Choose another one.",
            "Die Bank bietet das gewählte TAN-Verfahren nicht an. Wähl ein anderes.",
        ),
    };
    if de { german } else { en }.to_string()
}

pub(super) fn sync_problem(problem: &BankSyncProblem, de: bool) -> String {
    let (en, german) = match problem {
        BankSyncProblem::Busy => (
            "A sync of this bank connection is already running or waiting for a TAN. Finish \
             it or wait until it is done.",
            "Ein Abruf dieser Bankverbindung läuft schon oder wartet auf eine TAN. Schließ ihn \
             ab oder warte, bis er fertig ist.",
        ),
        BankSyncProblem::NotWaiting => (
            "The bank is not waiting for this now. Start again.",
            "Die Bank wartet gerade nicht darauf. Fang noch einmal an.",
        ),
        BankSyncProblem::UrlNeeded => (
            "is needed: the bank's FinTS address is not known for this bank code",
            "wird gebraucht: die FinTS-Adresse dieser Bankleitzahl ist nicht bekannt",
        ),
        BankSyncProblem::AutoSyncNeedsPin => (
            "needs the PIN saved: automatic sync logs in without asking",
            "braucht die gespeicherte PIN: der automatische Abruf meldet sich ohne Nachfrage an",
        ),
        BankSyncProblem::Currency(currency) => {
            return if de {
                format!("muss ein Konto in {currency} sein, der Währung des Bankkontos")
            } else {
                format!("must be an account in {currency}, the bank account's currency")
            }
        }
        BankSyncProblem::BankCode => (
            "must be the bank's eight-digit bank code",
            "muss die achtstellige Bankleitzahl sein",
        ),
        BankSyncProblem::PinNeeded => (
            "is required: no PIN is saved for this connection",
            "bitte ausfüllen: für diese Verbindung ist keine PIN gespeichert",
        ),
    };
    if de { german } else { en }.to_string()
}

/// A product registration problem, and how whoever runs the server gets one.
fn product(de: bool, en: &str, german: &str) -> String {
    if de {
        format!(
            "{german} Wer dieses cashkeeper betreibt, kann sie kostenlos bei der Deutschen \
             Kreditwirtschaft beantragen ({REGISTRATION}) und als \
             CASHKEEPER_FINTS_PRODUCT_ID eintragen."
        )
    } else {
        format!(
            "{en} Whoever runs this cashkeeper can register it, free of charge, with the \
             German banking industry (Deutsche Kreditwirtschaft, {REGISTRATION}) and set it \
             as CASHKEEPER_FINTS_PRODUCT_ID."
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::domain::locale::Locale;
    use crate::error::{BankAddressProblem, BankFailure, BankSyncProblem, Reason};

    fn all() -> Vec<Reason> {
        let mut reasons: Vec<Reason> = BankFailure::PLAIN
            .into_iter()
            .chain([
                BankFailure::Refused {
                    text: "Auftrag abgelehnt".into(),
                },
                BankFailure::Refused { text: " ".into() },
            ])
            .map(Reason::Bank)
            .collect();
        reasons.extend(
            [
                BankSyncProblem::Busy,
                BankSyncProblem::NotWaiting,
                BankSyncProblem::UrlNeeded,
                BankSyncProblem::AutoSyncNeedsPin,
                BankSyncProblem::Currency("EUR".into()),
                BankSyncProblem::PinNeeded,
                BankSyncProblem::BankCode,
            ]
            .map(Reason::BankSync),
        );
        reasons.extend(
            [
                BankAddressProblem::NotAUrl,
                BankAddressProblem::NotHttps,
                BankAddressProblem::Local,
            ]
            .map(Reason::BankAddress),
        );
        reasons
    }

    #[test]
    fn every_failure_is_read_back_from_its_stored_code() {
        for failure in BankFailure::PLAIN {
            assert_eq!(BankFailure::from_code(failure.code(), None), failure);
        }
        let refused = BankFailure::from_code("refused", Some("Auftrag abgelehnt"));
        assert_eq!(refused.bank_text(), Some("Auftrag abgelehnt"));
        // No wildcard: a new failure makes this fail to build until it is
        // in `PLAIN` (and so worded and read back) or carries words.
        let listed = |f: &BankFailure| match f {
            BankFailure::Refused { .. } => true,
            BankFailure::WrongPin
            | BankFailure::Locked
            | BankFailure::TanRejected
            | BankFailure::ProductRefused
            | BankFailure::ProductIdMissing
            | BankFailure::Unreachable
            | BankFailure::Timeout
            | BankFailure::ApprovalTimedOut
            | BankFailure::Unreadable
            | BankFailure::NotOffered
            | BankFailure::UnknownTanMethod => BankFailure::PLAIN.contains(f),
        };
        assert!(BankFailure::PLAIN.iter().all(listed));
        let codes: std::collections::BTreeSet<_> =
            BankFailure::PLAIN.iter().map(BankFailure::code).collect();
        assert_eq!(codes.len(), BankFailure::PLAIN.len(), "codes are unique");
        assert!(!codes.contains("refused"));
    }

    #[test]
    fn every_bank_failure_speaks_both_languages_without_codes() {
        for reason in all() {
            let (en, german) = (reason.text(Locale::En), reason.text(Locale::De));
            assert_ne!(en, german, "{reason:?}");
            for text in [&en, &german] {
                assert!(
                    !text
                        .chars()
                        .collect::<Vec<_>>()
                        .windows(4)
                        .any(|w| w.iter().all(char::is_ascii_digit)),
                    "no return code for people: {text}"
                );
            }
            for english in [" the ", "bank ", "must ", "could not", "error"] {
                assert!(!german.contains(english), "{reason:?}: {german}");
            }
        }
    }

    #[test]
    fn the_product_id_refusal_says_how_to_get_one_for_free() {
        for failure in [BankFailure::ProductRefused, BankFailure::ProductIdMissing] {
            let en = Reason::Bank(failure.clone()).text(Locale::En);
            let german = Reason::Bank(failure).text(Locale::De);
            assert!(
                en.contains("free of charge") && german.contains("kostenlos"),
                "{en}"
            );
            for text in [&en, &german] {
                assert!(
                    text.contains("CASHKEEPER_FINTS_PRODUCT_ID")
                        && text.contains("hbci-zka.de/register"),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn a_refusal_the_client_does_not_know_shows_the_banks_words() {
        let r = Reason::Bank(BankFailure::Refused {
            text: "Konto gesperrt wegen Kontopfändung".into(),
        });
        assert_eq!(
            r.text(Locale::De),
            "Die Bank hat die Anfrage abgelehnt: „Konto gesperrt wegen Kontopfändung“"
        );
        assert_eq!(
            r.text(Locale::En),
            "The bank refused the request: “Konto gesperrt wegen Kontopfändung”"
        );
        let r = Reason::Bank(BankFailure::Refused { text: "".into() });
        assert_eq!(r.text(Locale::En), "The bank refused the request.");
    }

    #[test]
    fn the_wrong_pin_and_the_lock_are_told_apart() {
        let pin = Reason::Bank(BankFailure::WrongPin).text(Locale::De);
        let locked = Reason::Bank(BankFailure::Locked).text(Locale::De);
        assert!(pin.contains("PIN") && !pin.contains("gesperrt"), "{pin}");
        assert!(
            locked.contains("gesperrt") && locked.contains("entsperren"),
            "{locked}"
        );
        let field =
            crate::error::Error::invalid("url", Reason::BankAddress(BankAddressProblem::NotHttps));
        assert_eq!(
            field.text(Locale::En),
            "url: must begin with https:// (banks answer FinTS only encrypted)"
        );
    }

    #[test]
    fn a_last_error_is_stored_as_a_code_and_read_back_the_same() {
        for reason in all() {
            let Reason::Bank(failure) = reason else {
                continue;
            };
            let back = BankFailure::from_code(failure.code(), failure.bank_text());
            assert_eq!(back, failure);
        }
        assert_eq!(
            BankFailure::from_code("no-such-code", None),
            BankFailure::Refused {
                text: String::new()
            }
        );
        assert!(BankFailure::WrongPin.is_pin_problem() && BankFailure::Locked.is_pin_problem());
        assert!(!BankFailure::Timeout.is_pin_problem());
    }
}
