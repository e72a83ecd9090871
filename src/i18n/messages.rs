//! The actions' error messages in the user's language. Actions word their
//! errors once, in English (`field: message`, the form of `Error`); the
//! action layer passes each through [`localize`] for the caller's language,
//! keeping the field name in front so the pages can put the message next
//! to that field.

use crate::domain::locale::Locale;

/// `message` (`"field: text"` or plain text) in `locale`. Text without a
/// translation stays as it is.
pub fn localize(message: &str, locale: Locale) -> String {
    if locale == Locale::En {
        return message.to_string();
    }
    let (field, text) = split_field(message);
    let german = german(text).unwrap_or_else(|| text.to_string());
    match field {
        Some(f) => format!("{f}: {german}"),
        None => german,
    }
}

/// The field name in front of a field error, as `Error` writes it.
fn split_field(message: &str) -> (Option<&str>, &str) {
    if let Some((field, text)) = message.split_once(": ") {
        let mut chars = field.chars();
        let name_like = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if name_like {
            return (Some(field), text);
        }
    }
    (None, message)
}

/// The German wording of an English error text, when there is one.
fn german(text: &str) -> Option<String> {
    let exact = match text {
        "is required" => "bitte ausfüllen",
        "not found" => "nicht gefunden",
        "must not be negative" => "darf nicht negativ sein",
        "must be greater than 0" => "muss größer als 0 sein",
        "must have at most two decimals" => "höchstens zwei Nachkommastellen",
        "must be at most 999,999,999.99" => "höchstens 999.999.999,99",
        "must be a number such as 12.50" => "muss eine Zahl sein, etwa 12,50",
        "must be at least 8 characters" => "mindestens 8 Zeichen",
        "must be an email address such as name@example.org" => {
            "muss eine E-Mail-Adresse sein, etwa name@example.org"
        }
        "must be a valid date YYYY-MM-DD"
        | "must be a date YYYY-MM-DD"
        | "is required (YYYY-MM-DD)" => "muss ein Datum sein",
        "must be a month YYYY-MM" => "muss ein Monat sein",
        "must not be before startDate" | "must not be before start" => {
            "darf nicht vor dem Beginn liegen"
        }
        "must not be before from" => "darf nicht vor dem Anfang des Zeitraums liegen",
        "must be between 1 and 12" => "muss zwischen 1 und 12 liegen",
        "must be between 1900 and 2200" => "muss zwischen 1900 und 2200 liegen",
        "must be another account" => "muss ein anderes Konto sein",
        "must be another account than fromAccountId" => {
            "muss ein anderes Konto sein als das, von dem umgebucht wird"
        }
        "is not your current password" => "ist nicht dein aktuelles Passwort",
        "is already registered" => "ist schon registriert",
        "a category with this name exists" => "eine Kategorie mit diesem Namen gibt es schon",
        "must be a single emoji such as 🛒" => "muss ein einzelnes Emoji sein, etwa 🛒",
        "must be a colour such as #1e88e5" => "muss eine Farbe sein, etwa #1e88e5",
        "must be a PDF, JPEG, PNG or WebP file" => {
            "muss eine PDF-, JPEG-, PNG- oder WebP-Datei sein"
        }
        "is invalid or expired" => "ist ungültig oder abgelaufen",
        "is not a current or recovery code" => {
            "ist weder der aktuelle Code noch ein Wiederherstellungscode"
        }
        "is empty" => "ist leer",
        "is not a CSV text file" => "ist keine CSV-Textdatei",
        "is empty: the file has no rows" => "ist leer: die Datei hat keine Zeilen",
        "must be checking, savings or etf" => "muss Girokonto, Sparkonto oder Depot sein",
        "invalid email or password" => "E-Mail-Adresse oder Passwort stimmt nicht",
        "registration is closed" => "Die Registrierung ist geschlossen",
        "this account is disabled; ask the administrator of this cashkeeper" => {
            "Dieses Konto ist deaktiviert; frag den Betreiber dieses cashkeeper"
        }
        "two-factor sign-in is already on" => "Die Zwei-Faktor-Anmeldung ist schon an",
        "the setup has expired; start it again" => {
            "Die Einrichtung ist abgelaufen; beginne sie noch einmal"
        }
        "has expired or was used; sign in again" => {
            "ist abgelaufen oder wurde schon benutzt; melde dich noch einmal an"
        }
        "unauthorized" => "Bitte melde dich an",
        "internal error" => "Interner Fehler",
        _ => "",
    };
    if !exact.is_empty() {
        return Some(exact.to_string());
    }
    if let Some(n) = text
        .strip_prefix("must be at most ")
        .and_then(|r| r.strip_suffix(" characters"))
    {
        return Some(format!("höchstens {n} Zeichen"));
    }
    if let Some(rest) = text.strip_prefix("too many failed sign-ins ") {
        let (whom, wait) = rest.split_once("; try again in ")?;
        let minutes = wait.split(' ').next()?;
        let whom = match whom {
            "for this address" => "für diese Adresse",
            "from your network" => "aus deinem Netz",
            _ => return None,
        };
        let unit = if minutes == "1" { "Minute" } else { "Minuten" };
        return Some(format!(
            "zu viele fehlgeschlagene Anmeldungen {whom}; versuch es in {minutes} {unit} wieder"
        ));
    }
    if let Some(list) = text
        .strip_prefix("account is still used by ")
        .and_then(|r| {
            r.strip_suffix("; move them to another account (moveTo) or delete them first")
        })
    {
        let list = list
            .replace("recurring expenses", "Fixkosten")
            .replace("one-time expenses", "Ausgaben")
            .replace("incomes", "Einnahmen")
            .replace("transfers", "Umbuchungen");
        return Some(format!(
            "Das Konto wird noch verwendet ({list}); verschiebe die Einträge auf ein anderes Konto oder lösche sie zuerst"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_errors_keep_their_field_and_speak_german() {
        assert_eq!(
            localize("name: is required", Locale::De),
            "name: bitte ausfüllen"
        );
        assert_eq!(
            localize(
                "toAccountId: must be another account than fromAccountId",
                Locale::De
            ),
            "toAccountId: muss ein anderes Konto sein als das, von dem umgebucht wird"
        );
        assert_eq!(
            localize("name: must be at most 100 characters", Locale::De),
            "name: höchstens 100 Zeichen"
        );
        assert_eq!(
            localize("name: is required", Locale::En),
            "name: is required"
        );
    }

    #[test]
    fn plain_errors_speak_german_too() {
        assert_eq!(
            localize("invalid email or password", Locale::De),
            "E-Mail-Adresse oder Passwort stimmt nicht"
        );
        assert_eq!(
            localize(
                "too many failed sign-ins for this address; try again in 15 minutes",
                Locale::De
            ),
            "zu viele fehlgeschlagene Anmeldungen für diese Adresse; versuch es in 15 Minuten wieder"
        );
        assert_eq!(
            localize(
                "account is still used by 2 one-time expenses, 1 incomes; move them to another account (moveTo) or delete them first",
                Locale::De
            ),
            "Das Konto wird noch verwendet (2 Ausgaben, 1 Einnahmen); verschiebe die Einträge auf ein anderes Konto oder lösche sie zuerst"
        );
    }

    #[test]
    fn what_has_no_translation_stays_as_it_is() {
        assert_eq!(
            localize("csv: something new", Locale::De),
            "csv: something new"
        );
        assert_eq!(
            localize("Some sentence: with a colon", Locale::De),
            "Some sentence: with a colon"
        );
    }
}
