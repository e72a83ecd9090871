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
        "two-factor sign-in is already on; turn it off first to set up another app" => {
            "Die Zwei-Faktor-Anmeldung ist schon an; schalte sie erst aus, um eine andere App einzurichten"
        }
        "start the setup first: there is no secret waiting for a code" => {
            "Beginne zuerst die Einrichtung: es wartet kein Schlüssel auf einen Code"
        }
        "the setup changed meanwhile; start it again" => {
            "Die Einrichtung hat sich inzwischen geändert; beginne sie noch einmal"
        }
        "this server cannot read your two-factor secret; sign in with a recovery code, or ask the administrator to reset two-factor sign-in" => {
            "Dieser Server kann deinen Zwei-Faktor-Schlüssel nicht lesen; melde dich mit einem Wiederherstellungscode an oder bitte den Betreiber, die Zwei-Faktor-Anmeldung zurückzusetzen"
        }
        "is cancelled" => "ist abgebrochen",
        "must be import or skip" => "muss import oder skip sein",
        "must be de or en" => "muss de oder en sein",
        "must be 30, 90, 365 or null" => "muss 30, 90, 365 oder leer sein",
        "must name a file" => "muss eine Datei nennen",
        "must be text" => "muss Text sein",
        "must be a list" => "muss eine Liste sein",
        "must be a JSON object" => "muss ein JSON-Objekt sein",
        "is not valid base64" => "ist kein gültiges Base64",
        "no user with this email" => "kein Konto mit dieser E-Mail-Adresse",
        "must be a whole number from 1 to 24" => "muss eine ganze Zahl von 1 bis 24 sein",
        "your account signs in through single sign-on and has no password: sign in through it again, then repeat this within 10 minutes" => {
            "Dein Konto meldet sich über Single Sign-on an und hat kein Passwort: melde dich dort noch einmal an und wiederhole dies innerhalb von 10 Minuten"
        }
        "must be at most 365 days after from (ask for one year at a time)" => {
            "darf höchstens 365 Tage nach from liegen (frag nach einem Jahr auf einmal)"
        }
        "is required (or accountName)" => "bitte ausfüllen (oder accountName)",
        "must be a conversation's id" => "muss die Id eines Gesprächs sein",
        "must be user or assistant" => "muss user oder assistant sein",
        "is not the app's current code; check the phone's clock and try the next one" => {
            "ist nicht der aktuelle Code der App; prüfe die Uhr des Telefons und versuch den nächsten"
        }
        "only quarterly, half-yearly and yearly expenses have a reserve pot" => {
            "nur vierteljährliche, halbjährliche und jährliche Ausgaben haben einen Rücklagentopf"
        }
        "is already confirmed; undoImport takes it back" => {
            "ist schon bestätigt; undoImport nimmt ihn zurück"
        }
        "is confirmed; undoImport takes it back" => "ist bestätigt; undoImport nimmt ihn zurück",
        "give csv or csvBase64, not both" => "gib csv oder csvBase64 an, nicht beides",
        "must be one of new, duplicate, matched, conflict, error" => {
            "muss new, duplicate, matched, conflict oder error sein"
        }
        "must be one of new, duplicate, matched, conflict" => {
            "muss new, duplicate, matched oder conflict sein"
        }
        "give rowId or all, not both" => "gib rowId oder all an, nicht beides",
        "is a row that could not be read; it cannot be imported or skipped" => {
            "ist eine Zeile, die nicht gelesen werden konnte; sie lässt sich weder importieren noch überspringen"
        }
        "is being confirmed or taken back; wait until it is done" => {
            "wird gerade bestätigt oder zurückgenommen; warte, bis das fertig ist"
        }
        "was being confirmed when the service stopped; confirmImport finishes it, cancelImport takes it back" => {
            "wurde gerade bestätigt, als der Dienst anhielt; confirmImport bringt das zu Ende, cancelImport nimmt es zurück"
        }
        "is not a confirmed import; only those can be undone" => {
            "ist kein bestätigter Import; nur die lassen sich zurücknehmen"
        }
        "must be less than 366 days after start" => "muss weniger als 366 Tage nach start liegen",
        "must be at most 10 MiB" => "darf höchstens 10 MiB groß sein",
        "a document belongs to an expense or a one-time expense, not both" => {
            "ein Dokument gehört zu einer wiederkehrenden oder einer einmaligen Ausgabe, nicht zu beiden"
        }
        "must be weekly, monthly, quarterly, half_yearly or yearly" => {
            "muss weekly, monthly, quarterly, half_yearly oder yearly sein"
        }
        "must be once, weekly, monthly, quarterly, half_yearly or yearly" => {
            "muss once, weekly, monthly, quarterly, half_yearly oder yearly sein"
        }
        // The assistant's proposals and receipt photos.
        "is saved already" => "ist schon gespeichert",
        "is discarded already" => "ist schon verworfen",
        "is not a readable JPEG or PNG image" => "ist kein lesbares JPEG- oder PNG-Bild",
        "must be a JPEG or PNG image" => "muss ein JPEG- oder PNG-Bild sein",
        "is required: a JPEG or PNG photo of the receipt" => {
            "bitte ausfüllen: ein JPEG- oder PNG-Foto des Kassenbons"
        }
        "must be at most 5 MiB (5,242,880 bytes)" => {
            "darf höchstens 5 MiB (5.242.880 Bytes) groß sein"
        }
        "too large (the image may be at most 5 MiB)" => {
            "zu groß (das Bild darf höchstens 5 MiB groß sein)"
        }
        "expected a multipart/form-data upload with the image in the part \"file\"" => {
            "erwartet wird ein multipart/form-data-Upload mit dem Bild im Teil \"file\""
        }
        "unauthorized" => "Bitte melde dich an",
        "internal error" => "Interner Fehler",
        _ => "",
    };
    if !exact.is_empty() {
        return Some(exact.to_string());
    }
    if let Some(german) = archive(text) {
        return Some(german);
    }
    if let Some(n) = text
        .strip_prefix("must be at most ")
        .and_then(|r| r.strip_suffix(" characters"))
    {
        return Some(format!("höchstens {n} Zeichen"));
    }
    if let Some((size, limits)) = text
        .strip_prefix("is ")
        .and_then(|r| r.split_once(" pixels; at most "))
    {
        let (side, pixels) = limits
            .strip_suffix(" megapixels")?
            .split_once(" pixels a side and ")?;
        return Some(format!(
            "ist {size} Pixel groß; höchstens {side} Pixel je Seite und {pixels} Megapixel"
        ));
    }
    if let Some(record) = text.strip_prefix("is saved already as record ") {
        return Some(format!("ist schon gespeichert als Eintrag {record}"));
    }
    if let Some(rest) = text.strip_prefix("you have reached the limit of ") {
        let (what, _) = rest.split_once("; delete some before adding more")?;
        let (n, noun) = what.split_once(' ')?;
        let noun = match noun {
            "accounts" => "Konten",
            "categories" => "Kategorien",
            "recurring expenses, incomes and transfers" => {
                "wiederkehrenden Ausgaben, Einnahmen und Umbuchungen"
            }
            "one-time expenses" => "Einzelausgaben",
            "API tokens" => "API-Tokens",
            "documents" => "Dokumenten",
            _ => return None,
        };
        return Some(format!(
            "du hast die Grenze von {n} {noun} erreicht; lösche welche, bevor du neue anlegst"
        ));
    }
    if let Some((low, high)) = text
        .strip_prefix("must be between ")
        .and_then(|r| r.split_once(" and "))
    {
        return Some(format!("muss zwischen {low} und {high} liegen"));
    }
    if let Some(rest) = text.strip_prefix("has a field longer than ") {
        let (size, line) = rest
            .strip_suffix("; is a closing quote missing?")?
            .split_once(" starting on line ")?;
        let size = size.strip_suffix(" KiB")?;
        return Some(format!(
            "hat ein Feld, das länger als {size} KiB ist, ab Zeile {line}; fehlt ein schließendes Anführungszeichen?"
        ));
    }
    if let Some(rest) = text.strip_prefix("at most ") {
        let n =
            rest.strip_suffix(" imports may wait for confirmation; confirm or cancel one first")?;
        return Some(format!(
            "höchstens {n} Importe können auf Bestätigung warten; bestätige oder verwirf erst einen"
        ));
    }
    if let Some(rest) = text.strip_suffix(" a decision: import or skip") {
        let n = rest
            .strip_suffix(" conflict still needs")
            .or_else(|| rest.strip_suffix(" conflicts still need"))?;
        let noun = if n == "1" {
            "Konflikt braucht"
        } else {
            "Konflikte brauchen"
        };
        return Some(format!(
            "{n} {noun} noch eine Entscheidung: importieren oder überspringen"
        ));
    }
    if let Some(label) = text
        .strip_prefix("sign-in with a password is turned off here; use \"")
        .and_then(|r| r.strip_suffix("\" on the sign-in page"))
    {
        return Some(format!(
            "Die Anmeldung mit Passwort ist hier ausgeschaltet; nimm \"{label}\" auf der Anmeldeseite"
        ));
    }
    if let Some(rest) = text.strip_prefix("this file does not fit in your document storage of ") {
        let (quota, used) = rest.split_once(" MB (")?;
        let used = used.strip_suffix(" MB used); delete some documents first")?;
        return Some(format!(
            "diese Datei passt nicht mehr in deinen Dokumentenspeicher von {quota} MB ({used} MB belegt); lösche erst Dokumente"
        ));
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
            .replace("one-time expenses", "Einzelausgaben")
            .replace("incomes", "Einnahmen")
            .replace("transfers", "Umbuchungen");
        return Some(format!(
            "Das Konto wird noch verwendet ({list}); verschiebe die Einträge auf ein anderes Konto oder lösche sie zuerst"
        ));
    }
    None
}

/// The refusals of "Load an export": each names the archive's file it is
/// about (`data.json`, `documents/…`) in front, or the archive as a whole.
fn archive(text: &str) -> Option<String> {
    let exact = match text {
        "is not a cashkeeper export: not a readable zip archive" => {
            "ist kein cashkeeper-Export: kein lesbares ZIP-Archiv"
        }
        "is not a cashkeeper export: it has no data.json" => {
            "ist kein cashkeeper-Export: es fehlt data.json"
        }
        "the user has records already; load an export into a user who has none" => {
            "das Konto hat schon Einträge; lade einen Export in ein Konto ohne Einträge"
        }
        _ => "",
    };
    if !exact.is_empty() {
        return Some(exact.to_string());
    }
    if let Some(n) = text
        .strip_prefix("the archive holds more than ")
        .and_then(|r| r.strip_suffix(" files; this is not a cashkeeper export"))
    {
        return Some(format!(
            "das Archiv enthält mehr als {n} Dateien; das ist kein cashkeeper-Export"
        ));
    }
    let (name, problem) = text.split_once(": ")?;
    if name != "data.json" && !name.starts_with("documents/") {
        return None;
    }
    let german = match problem {
        "is damaged; this is not an intact cashkeeper export" => {
            "ist beschädigt; das ist kein unversehrter cashkeeper-Export".to_string()
        }
        "has another format; this is not a cashkeeper export" => {
            "hat ein anderes Format; das ist kein cashkeeper-Export".to_string()
        }
        "is of a newer export version; use a newer cashkeeper" => {
            "stammt aus einer neueren Export-Version; nimm ein neueres cashkeeper".to_string()
        }
        "cannot be read; the archive is damaged" => {
            "lässt sich nicht lesen; das Archiv ist beschädigt".to_string()
        }
        "does not match its checksum; the archive is damaged" => {
            "passt nicht zu seiner Prüfsumme; das Archiv ist beschädigt".to_string()
        }
        _ => {
            if let Some(n) = problem
                .strip_prefix("expands more than ")
                .and_then(|r| r.strip_suffix(" times; this is not a cashkeeper export"))
            {
                format!(
                    "wird beim Entpacken mehr als {n}-mal so groß; das ist kein cashkeeper-Export"
                )
            } else if let Some(n) = problem
                .strip_prefix("the archive expands to more than ")
                .and_then(|r| r.strip_suffix(" MB"))
            {
                format!("das Archiv wird entpackt größer als {n} MB")
            } else if let Some(n) = problem
                .strip_prefix("expands to more than ")
                .and_then(|r| r.strip_suffix(" MB"))
            {
                format!("wird entpackt größer als {n} MB")
            } else if let Some((table, rest)) = problem
                .strip_prefix("a record of ")
                .and_then(|r| r.split_once(' '))
            {
                if let Some(parent) = rest
                    .strip_prefix("refers to a record of ")
                    .and_then(|r| r.strip_suffix(" that is not in this archive"))
                {
                    format!("ein Eintrag aus {table} verweist auf einen Eintrag aus {parent}, der nicht in diesem Archiv ist")
                } else if rest == "cannot be loaded; the archive is damaged" {
                    format!(
                        "ein Eintrag aus {table} lässt sich nicht laden; das Archiv ist beschädigt"
                    )
                } else {
                    return None;
                }
            } else {
                german(problem)?
            }
        }
    };
    Some(format!("{name}: {german}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal messages of every `Error::invalid(field, "…")` and
    /// `Error::refused("…")` in the sources.
    fn literal_messages() -> Vec<(String, String)> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        // A Rust string literal starting at `s[0] == '"'`, with `\` line
        // continuations and escaped quotes undone.
        fn literal(s: &str) -> Option<String> {
            let mut out = String::new();
            let mut chars = s[1..].chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '"' => return Some(out),
                    '\\' => match chars.next()? {
                        '\n' => {
                            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                                chars.next();
                            }
                        }
                        '"' => out.push('"'),
                        other => {
                            out.push('\\');
                            out.push(other);
                        }
                    },
                    c => out.push(c),
                }
            }
            None
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut found = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            // Only the code before the file's tests.
            let code = text.split("#[cfg(test)]").next().unwrap();
            for (call, skip_field) in [("Error::invalid(", true), ("Error::refused(", false)] {
                for (at, _) in code.match_indices(call) {
                    let mut rest = code[at + call.len()..].trim_start();
                    if skip_field {
                        // The field: a literal or an expression, up to its comma.
                        let Some(comma) = rest.find(',') else {
                            continue;
                        };
                        rest = rest[comma + 1..].trim_start();
                    }
                    if rest.starts_with('"') {
                        if let Some(m) = literal(rest) {
                            found.push((file.display().to_string(), m));
                        }
                    }
                }
            }
        }
        found
    }

    #[test]
    fn formatted_refusals_speak_german_too() {
        for (en, de) in [
            (
                "you have reached the limit of 200 accounts; delete some before adding more",
                "du hast die Grenze von 200 Konten erreicht; lösche welche, bevor du neue anlegst",
            ),
            (
                "at most 5 imports may wait for confirmation; confirm or cancel one first",
                "höchstens 5 Importe können auf Bestätigung warten; bestätige oder verwirf erst einen",
            ),
            (
                "has a field longer than 64 KiB starting on line 2; is a closing quote missing?",
                "hat ein Feld, das länger als 64 KiB ist, ab Zeile 2; fehlt ein schließendes Anführungszeichen?",
            ),
            (
                "1 conflict still needs a decision: import or skip",
                "1 Konflikt braucht noch eine Entscheidung: importieren oder überspringen",
            ),
            (
                "3 conflicts still need a decision: import or skip",
                "3 Konflikte brauchen noch eine Entscheidung: importieren oder überspringen",
            ),
            (
                "sign-in with a password is turned off here; use \"Sign in with Authelia\" on the sign-in page",
                "Die Anmeldung mit Passwort ist hier ausgeschaltet; nimm \"Sign in with Authelia\" auf der Anmeldeseite",
            ),
            (
                "this file does not fit in your document storage of 500 MB (499 MB used); delete some documents first",
                "diese Datei passt nicht mehr in deinen Dokumentenspeicher von 500 MB (499 MB belegt); lösche erst Dokumente",
            ),
        ] {
            assert_eq!(localize(en, Locale::De), de);
        }
    }

    /// Errors are worded in English in the code and translated by their
    /// text: a new or reworded message without German fails here.
    #[test]
    fn an_archives_refusals_name_its_file_in_german_too() {
        for (english, german) in [
            (
                "file: documents/0191/Vertrag.pdf: must be at most 10 MiB",
                "file: documents/0191/Vertrag.pdf: darf höchstens 10 MiB groß sein",
            ),
            (
                "file: data.json: expands more than 100 times; this is not a cashkeeper export",
                "file: data.json: wird beim Entpacken mehr als 100-mal so groß; das ist kein cashkeeper-Export",
            ),
            (
                "file: the archive holds more than 10000 files; this is not a cashkeeper export",
                "file: das Archiv enthält mehr als 10000 Dateien; das ist kein cashkeeper-Export",
            ),
            (
                "file: data.json: a record of expenses refers to a record of accounts that is not in this archive",
                "file: data.json: ein Eintrag aus expenses verweist auf einen Eintrag aus accounts, der nicht in diesem Archiv ist",
            ),
        ] {
            assert_eq!(localize(english, Locale::De), german);
            assert_eq!(localize(english, Locale::En), english);
        }
    }

    #[test]
    fn every_literal_error_has_german_wording() {
        let messages = literal_messages();
        assert!(messages.len() > 40, "found only {}", messages.len());
        let missing: Vec<String> = messages
            .iter()
            .filter(|(_, m)| german(m).is_none())
            .map(|(file, m)| format!("{file}: {m}"))
            .collect();
        assert!(missing.is_empty(), "no German for:\n{}", missing.join("\n"));
    }

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
            "Das Konto wird noch verwendet (2 Einzelausgaben, 1 Einnahmen); verschiebe die Einträge auf ein anderes Konto oder lösche sie zuerst"
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
