//! How a person reads a refusal ([`Reason`], [`Error`]), in English and in
//! German. English is also what the log and the API's English callers read.
//! A new `Reason` without German wording does not compile.

use std::fmt;

use crate::domain::locale::Locale;
use crate::error::{AiTask, Counted, Error, FileKind, Part, Reason, Uses, LAYOUT_COLUMNS_NAMED};

impl Error {
    /// What the client reads, in `locale`: `field: reason` for a field's
    /// error (the pages put it next to that field), the reason alone for a
    /// refusal of the whole request.
    pub fn text(&self, locale: Locale) -> String {
        let de = locale == Locale::De;
        match self {
            Error::Invalid { field, reason } => format!("{field}: {}", reason.text(locale)),
            Error::Several(all) => all.first().map(|e| e.text(locale)).unwrap_or_default(),
            Error::NotFound => pick(de, "not found", "nicht gefunden").into(),
            Error::UnknownId(field) => {
                format!("{field}: {}", pick(de, "not found", "nicht gefunden"))
            }
            Error::Unauthorized => pick(de, "unauthorized", "Bitte melde dich an").into(),
            Error::Refused(reason) => reason.text(locale),
            Error::Busy(_) => pick(
                de,
                "the service is busy right now; please try again in a few seconds",
                "Der Dienst ist gerade ausgelastet; bitte versuch es in ein paar Sekunden noch einmal",
            )
            .into(),
            Error::Internal(_) => pick(de, "internal error", "Interner Fehler").into(),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(Locale::En))
    }
}

fn pick(de: bool, en: &'static str, german: &'static str) -> &'static str {
    if de {
        german
    } else {
        en
    }
}

/// A file format's code with its English article, as it is said: "an
/// OFX", "an MT940" (a vowel sound: "oh", "em"), "a CAMT", "a QIF".
fn a_kind(kind: &str) -> String {
    let name = kind.to_uppercase();
    let vowel_sound =
        name.starts_with(['A', 'E', 'F', 'H', 'I', 'L', 'M', 'N', 'O', 'R', 'S', 'X']);
    format!("{} {name}", if vowel_sound { "an" } else { "a" })
}

/// The first columns of an unknown layout, as its refusal names them.
fn named_columns(columns: &[String]) -> String {
    columns
        .iter()
        .take(LAYOUT_COLUMNS_NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

impl Reason {
    /// The reason in `locale`, after the field's name.
    pub fn text(&self, locale: Locale) -> String {
        let de = locale == Locale::De;
        let words = |en: &'static str, german: &'static str| pick(de, en, german).to_string();
        match self {
            Reason::Required => words("is required", "bitte ausfüllen"),
            // The decoder's words are for the log; a person reads that the
            // value has the wrong form.
            Reason::Malformed(_) => words(
                "is not in the form this field takes",
                "hat nicht die erwartete Form",
            ),
            Reason::MaxChars(n) if de => format!("höchstens {n} Zeichen"),
            Reason::MaxChars(n) => format!("must be at most {n} characters"),
            Reason::NotText => words("must be text", "muss Text sein"),
            Reason::NotAWholeNumber => words("must be a whole number", "muss eine ganze Zahl sein"),
            Reason::NotTrueOrFalse => words("must be true or false", "muss true oder false sein"),
            Reason::OneOf(values) if de => format!("muss eines davon sein: {}", values.join(", ")),
            Reason::OneOf(values) => format!("must be one of: {}", values.join(", ")),
            Reason::NotAList => words("must be a list", "muss eine Liste sein"),
            Reason::NotAnObject => words("must be a JSON object", "muss ein JSON-Objekt sein"),
            Reason::NotBase64 => words("is not valid base64", "ist kein gültiges Base64"),
            Reason::WholeNumber(low, high) if de => {
                format!("muss eine ganze Zahl von {low} bis {high} sein")
            }
            Reason::WholeNumber(low, high) => {
                format!("must be a whole number from {low} to {high}")
            }
            Reason::Between(low, high) if de => format!("muss zwischen {low} und {high} liegen"),
            Reason::Between(low, high) => format!("must be between {low} and {high}"),
            Reason::NotBefore("from") if de => {
                "darf nicht vor dem Anfang des Zeitraums liegen".into()
            }
            Reason::NotBefore(_) if de => "darf nicht vor dem Beginn liegen".into(),
            Reason::NotBefore(field) => format!("must not be before {field}"),
            Reason::Empty => words("is empty", "ist leer"),
            Reason::InFile(file, reason) => format!("{file}: {}", reason.text(locale)),

            Reason::Positive => words("must be greater than 0", "muss größer als 0 sein"),
            Reason::NotNegative => words("must not be negative", "darf nicht negativ sein"),
            Reason::TwoDecimals => words(
                "must have at most two decimals",
                "höchstens zwei Nachkommastellen",
            ),
            Reason::AmountTooLarge => {
                words("must be at most 999,999,999.99", "höchstens 999.999.999,99")
            }
            Reason::NotANumber => words(
                "must be a number such as 12.50",
                "muss eine Zahl sein, etwa 12,50",
            ),
            Reason::NotADate => words("must be a date YYYY-MM-DD", "muss ein Datum sein"),
            Reason::NotAValidDate => {
                words("must be a valid date YYYY-MM-DD", "muss ein Datum sein")
            }
            Reason::YearOutOfRange => words(
                "must be between 1900 and 2200",
                "muss zwischen 1900 und 2200 liegen",
            ),
            Reason::NotAMonth => words("must be a month YYYY-MM", "muss ein Monat sein"),
            Reason::AtMostAYear => words(
                "must be at most 365 days after from (ask for one year at a time)",
                "darf höchstens 365 Tage nach from liegen (frag nach einem Jahr auf einmal)",
            ),
            Reason::UnknownCurrency(code) if de => format!(
                "unbekannte Währung „{code}“; nimm einen Code wie EUR, USD oder CHF"
            ),
            Reason::UnknownCurrency(code) => {
                format!("unknown currency {code:?}; use a code such as EUR, USD or CHF")
            }
            Reason::Frequency => words(
                "must be weekly, monthly, quarterly, half_yearly or yearly",
                "muss weekly, monthly, quarterly, half_yearly oder yearly sein",
            ),
            Reason::FrequencyOrOnce => words(
                "must be once, weekly, monthly, quarterly, half_yearly or yearly",
                "muss once, weekly, monthly, quarterly, half_yearly oder yearly sein",
            ),

            Reason::AccountType => words(
                "must be checking, savings or etf",
                "muss Girokonto, Sparkonto oder Depot sein",
            ),
            Reason::AnotherAccount => {
                words("must be another account", "muss ein anderes Konto sein")
            }
            Reason::AnotherThanSource => words(
                "must be another account than fromAccountId",
                "muss ein anderes Konto sein als das, von dem umgebucht wird",
            ),
            Reason::AccountInUse(uses) => {
                let list = uses
                    .iter()
                    .map(|(n, what)| format!("{n} {}", uses_noun(*what, de)))
                    .collect::<Vec<_>>()
                    .join(", ");
                if de {
                    format!(
                        "Das Konto wird noch verwendet ({list}); verschiebe die Einträge auf ein \
                         anderes Konto oder lösche sie zuerst"
                    )
                } else {
                    format!(
                        "account is still used by {list}; move them to another account (moveTo) \
                         or delete them first"
                    )
                }
            }
            Reason::CategoryExists => words(
                "a category with this name exists",
                "eine Kategorie mit diesem Namen gibt es schon",
            ),
            Reason::NotAnEmoji => words(
                "must be a single emoji such as 🛒",
                "muss ein einzelnes Emoji sein, etwa 🛒",
            ),
            Reason::NotAColour => words(
                "must be a colour such as #1e88e5",
                "muss eine Farbe sein, etwa #1e88e5",
            ),
            Reason::LimitReached(max, what) if de => format!(
                "du hast die Grenze von {max} {} erreicht; lösche welche, bevor du neue anlegst",
                counted_noun(*what, true)
            ),
            Reason::LimitReached(max, what) => format!(
                "you have reached the limit of {max} {}; delete some before adding more",
                counted_noun(*what, false)
            ),
            Reason::NoReservePot => words(
                "only quarterly, half-yearly and yearly expenses have a reserve pot",
                "nur vierteljährliche, halbjährliche und jährliche Ausgaben haben einen Rücklagentopf",
            ),
            Reason::NotARepeat => words(
                "is not among one-time entries repeated every month with the same payee and amount",
                "gehört nicht zu einmaligen Einträgen, die sich jeden Monat mit demselben Empfänger und Betrag wiederholen",
            ),
            Reason::NoticeNeeded => words(
                "the notice is missing: give noticeMonths or noticeDays with termEnd",
                "die Kündigungsfrist fehlt: gib noticeMonths oder noticeDays zu termEnd an",
            ),
            Reason::TermEndNeeded => words(
                "the end of the term is missing: a notice needs termEnd, unless renewalMonths is 0",
                "das Ende der Laufzeit fehlt: eine Kündigungsfrist braucht termEnd, außer renewalMonths ist 0",
            ),
            Reason::OneNotice => words(
                "the notice is given in months or in days, not both",
                "die Kündigungsfrist steht in Monaten oder in Tagen, nicht in beidem",
            ),
            Reason::CancelledByAction => words(
                "the cancellation is recorded by cancelContract; only null takes it back",
                "die Kündigung trägt cancelContract ein; nur null nimmt sie zurück",
            ),
            Reason::NoContractTerms => words(
                "this item has no contract terms: give the end of the term and the notice first",
                "dieser Posten hat keine Vertragslaufzeit: gib zuerst das Laufzeitende und die Kündigungsfrist an",
            ),
            Reason::AfterCancelBy(day) => {
                let day = crate::i18n::format::date(*day, locale);
                if de {
                    format!("die Kündigung ist zu spät: der Vertrag war nur bis {day} kündbar")
                } else {
                    format!("the cancellation is too late: the contract could be cancelled up to {day}")
                }
            }
            Reason::DeOrEn => words("must be de or en", "muss de oder en sein"),
            Reason::TokenLifetime => words(
                "must be 30, 90, 365 or null",
                "muss 30, 90, 365 oder leer sein",
            ),

            Reason::NotADocument => words(
                "must be a PDF, JPEG, PNG or WebP file",
                "muss eine PDF-, JPEG-, PNG- oder WebP-Datei sein",
            ),
            Reason::DocumentTooLarge => {
                words("must be at most 10 MiB", "darf höchstens 10 MiB groß sein")
            }
            Reason::DocumentOwners => words(
                "a document belongs to an expense or a one-time expense, not both",
                "ein Dokument gehört zu einer wiederkehrenden oder einer einmaligen Ausgabe, nicht zu beiden",
            ),
            Reason::QuotaFull { quota_mb, used_mb } if de => format!(
                "diese Datei passt nicht mehr in deinen Dokumentenspeicher von {quota_mb} MB \
                 ({used_mb} MB belegt); lösche erst Dokumente"
            ),
            Reason::QuotaFull { quota_mb, used_mb } => format!(
                "this file does not fit in your document storage of {quota_mb} MB ({used_mb} MB \
                 used); delete some documents first"
            ),
            Reason::ImageUnreadable => words(
                "is not a readable JPEG or PNG image",
                "ist kein lesbares JPEG- oder PNG-Bild",
            ),
            Reason::ImagePixels {
                width,
                height,
                max_side,
                max_megapixels,
            } if de => format!(
                "ist {width}×{height} Pixel groß; höchstens {max_side} Pixel je Seite und \
                 {max_megapixels} Megapixel"
            ),
            Reason::ImagePixels {
                width,
                height,
                max_side,
                max_megapixels,
            } => format!(
                "is {width}×{height} pixels; at most {max_side} pixels a side and \
                 {max_megapixels} megapixels"
            ),
            Reason::NotJpegOrPng => words(
                "must be a JPEG or PNG image",
                "muss ein JPEG- oder PNG-Bild sein",
            ),
            Reason::ReceiptRequired => words(
                "is required: a JPEG or PNG photo of the receipt",
                "bitte ausfüllen: ein JPEG- oder PNG-Foto des Kassenbons",
            ),
            Reason::ReceiptTooLarge => words(
                "must be at most 5 MiB (5,242,880 bytes)",
                "darf höchstens 5 MiB (5.242.880 Bytes) groß sein",
            ),
            Reason::ReceiptUploadTooLarge => words(
                "too large (the image may be at most 5 MiB)",
                "zu groß (das Bild darf höchstens 5 MiB groß sein)",
            ),
            Reason::ExpectedMultipart => words(
                "expected a multipart/form-data upload with the image in the part \"file\"",
                "erwartet wird ein multipart/form-data-Upload mit dem Bild im Teil \"file\"",
            ),
            Reason::MalformedUpload(_) if de => {
                "die hochgeladene Datei kam nicht vollständig an; bitte noch einmal".into()
            }
            Reason::MalformedUpload(detail) => {
                format!("the multipart/form-data body is malformed ({detail})")
            }
            Reason::NotAnUpload => words(
                "expected a multipart/form-data upload",
                "erwartet wird ein Datei-Upload (multipart/form-data)",
            ),
            Reason::FileTooLarge(mib) if de => format!("darf höchstens {mib} MiB groß sein"),
            Reason::FileTooLarge(mib) => format!("must be at most {mib} MiB"),
            Reason::NotAnId => words("must be a UUID", "muss eine Id (UUID) sein"),
            Reason::NotJson => words("is not JSON", "ist kein JSON"),

            Reason::AiOff(task) => ai_off(*task, de).into(),
            Reason::AiBusy {
                task,
                per_minute,
                wait,
            } => ai_busy(*task, *per_minute, *wait, de),
            Reason::AiUnavailable(task) => ai_failed(*task, false, de).into(),
            Reason::AiUnusable(task) => ai_failed(*task, true, de).into(),
            Reason::BankAddress(problem) => super::bank::address(*problem, de).into(),
            Reason::Bank(failure) => super::bank::failure(failure, de),
            Reason::BankSync(problem) => super::bank::sync_problem(problem, de),
            Reason::AiNoTools => words(
                "The AI model set up on this server cannot look things up, so the assistant \
                 cannot answer. Whoever runs this cashkeeper can choose another model (AI_MODEL).",
                "Das auf diesem Server eingerichtete KI-Modell kann nichts nachschlagen, darum kann \
                 der Assistent nicht antworten. Wer dieses cashkeeper betreibt, kann ein anderes \
                 Modell wählen (AI_MODEL).",
            ),

            Reason::NotAnEmail => words(
                "must be an email address such as name@example.org",
                "muss eine E-Mail-Adresse sein, etwa name@example.org",
            ),
            Reason::PasswordTooShort => {
                words("must be at least 8 characters", "mindestens 8 Zeichen")
            }
            Reason::NotYourPassword => words(
                "is not your current password",
                "ist nicht dein aktuelles Passwort",
            ),
            Reason::AlreadyRegistered => words("is already registered", "ist schon registriert"),
            Reason::MixedAlphabets => words(
                "mixes letters of different alphabets (a Cyrillic \"а\" among Latin letters, say); \
                 type it in one",
                "mischt Buchstaben verschiedener Alphabete (etwa ein kyrillisches „а“ unter \
                 lateinischen); tippe sie in einem",
            ),
            Reason::BadCredentials => words(
                "invalid email or password",
                "E-Mail-Adresse oder Passwort stimmt nicht",
            ),
            Reason::RegistrationClosed => words(
                "registration is closed",
                "Die Registrierung ist geschlossen",
            ),
            Reason::AccountDisabled => words(
                "this account is disabled; ask the administrator of this cashkeeper",
                "Dieses Konto ist deaktiviert; frag den Betreiber dieses cashkeeper",
            ),
            Reason::PasswordSignInOff(label) => {
                let label = label.as_deref().unwrap_or(locale.texts().sso_button);
                if de {
                    format!(
                        "Die Anmeldung mit Passwort ist hier ausgeschaltet; nimm \"{label}\" auf \
                         der Anmeldeseite"
                    )
                } else {
                    format!(
                        "sign-in with a password is turned off here; use \"{label}\" on the \
                         sign-in page"
                    )
                }
            }
            Reason::TooManyRegistrations { network, seconds } if de => format!(
                "zu viele neue Konten {}; versuch es in {seconds} {} wieder",
                if *network { "aus deinem Netz" } else { "in der letzten Minute" },
                if *seconds == 1 { "Sekunde" } else { "Sekunden" }
            ),
            Reason::TooManyRegistrations { network, seconds } => format!(
                "too many new accounts {}; try again in {seconds} {}",
                if *network { "from your network" } else { "in the last minute" },
                plural(*seconds as usize, "second", "seconds")
            ),
            Reason::TooManySignIns { address, minutes } => {
                let one = *minutes == 1;
                match (de, address) {
                    (true, _) => format!(
                        "zu viele fehlgeschlagene Anmeldungen {}; versuch es in {minutes} {} wieder",
                        if *address { "für diese Adresse" } else { "aus deinem Netz" },
                        if one { "Minute" } else { "Minuten" }
                    ),
                    (false, _) => format!(
                        "too many failed sign-ins {}; try again in {minutes} minute{}",
                        if *address { "for this address" } else { "from your network" },
                        if one { "" } else { "s" }
                    ),
                }
            }
            Reason::SingleSignOnOnly => words(
                "your account signs in through single sign-on and has no password: sign in \
                 through it again, then repeat this within 10 minutes",
                "Dein Konto meldet sich über Single Sign-on an und hat kein Passwort: melde dich \
                 dort noch einmal an und wiederhole dies innerhalb von 10 Minuten",
            ),
            Reason::InvalidOrExpired => {
                words("is invalid or expired", "ist ungültig oder abgelaufen")
            }
            Reason::ChallengeGone => words(
                "has expired or was used; sign in again",
                "ist abgelaufen oder wurde schon benutzt; melde dich noch einmal an",
            ),
            Reason::NotACode => words(
                "is not a current or recovery code",
                "ist weder der aktuelle Code noch ein Wiederherstellungscode",
            ),
            Reason::NotCurrentCode => words(
                "is not the app's current code; check the phone's clock and try the next one",
                "ist nicht der aktuelle Code der App; prüfe die Uhr des Telefons und versuch den nächsten",
            ),
            Reason::TwoFactorOn => words(
                "two-factor sign-in is already on",
                "Die Zwei-Faktor-Anmeldung ist schon an",
            ),
            Reason::TwoFactorOnTurnOffFirst => words(
                "two-factor sign-in is already on; turn it off first to set up another app",
                "Die Zwei-Faktor-Anmeldung ist schon an; schalte sie erst aus, um eine andere App einzurichten",
            ),
            Reason::SetupNotStarted => words(
                "start the setup first: there is no secret waiting for a code",
                "Beginne zuerst die Einrichtung: es wartet kein Schlüssel auf einen Code",
            ),
            Reason::SetupExpired => words(
                "the setup has expired; start it again",
                "Die Einrichtung ist abgelaufen; beginne sie noch einmal",
            ),
            Reason::SetupChanged => words(
                "the setup changed meanwhile; start it again",
                "Die Einrichtung hat sich inzwischen geändert; beginne sie noch einmal",
            ),
            Reason::SecretUnreadable => words(
                "this server cannot read your two-factor secret; sign in with a recovery code, \
                 or ask the administrator to reset two-factor sign-in",
                "Dieser Server kann deinen Zwei-Faktor-Schlüssel nicht lesen; melde dich mit einem \
                 Wiederherstellungscode an oder bitte den Betreiber, die Zwei-Faktor-Anmeldung \
                 zurückzusetzen",
            ),
            Reason::NoSuchUser => words(
                "no user with this email",
                "kein Konto mit dieser E-Mail-Adresse",
            ),
            Reason::NameAFile => words("must name a file", "muss eine Datei nennen"),

            Reason::NotCsv => words("is not a CSV text file", "ist keine CSV-Textdatei"),
            Reason::NotABankFile(kind) => {
                let (en, german) = match kind {
                    FileKind::Pdf => ("a PDF document", "ein PDF-Dokument"),
                    FileKind::Image => ("an image", "ein Bild"),
                    FileKind::Zip => (
                        "a ZIP archive (an Excel sheet is one)",
                        "ein ZIP-Archiv (wie eine Excel-Tabelle)",
                    ),
                };
                if de {
                    format!(
                        "ist {german}, keine Umsatzdatei; lade bei deiner Bank CSV, CAMT, MT940, \
                         OFX oder QIF herunter"
                    )
                } else {
                    format!(
                        "is {en}, not a bank export; download CSV, CAMT, MT940, OFX or QIF \
                         from your bank"
                    )
                }
            }
            Reason::NoRows => words(
                "is empty: the file has no rows",
                "ist leer: die Datei hat keine Zeilen",
            ),
            Reason::TooManyRows(n) if de => {
                format!("hat mehr als {n} Zeilen; teile die Datei auf")
            }
            Reason::TooManyRows(n) => format!("has more than {n} rows; split the file"),
            Reason::FieldTooLong { kib, line } if de => format!(
                "hat ein Feld, das länger als {kib} KiB ist, ab Zeile {line}; fehlt ein \
                 schließendes Anführungszeichen?"
            ),
            Reason::FieldTooLong { kib, line } => format!(
                "has a field longer than {kib} KiB starting on line {line}; is a closing quote \
                 missing?"
            ),
            Reason::UnknownLayout { columns, total } if de => format!(
                "bitte ausfüllen: der Aufbau der Datei ist unbekannt; gefundene Spalten: {}{}",
                named_columns(columns),
                match total.saturating_sub(LAYOUT_COLUMNS_NAMED) {
                    0 => String::new(),
                    n => format!(" … und {n} weitere"),
                }
            ),
            Reason::UnknownLayout { columns, total } => format!(
                "is required: the file's layout is not recognised; columns found: {}{}",
                named_columns(columns),
                match total.saturating_sub(LAYOUT_COLUMNS_NAMED) {
                    0 => String::new(),
                    n => format!(" … and {n} more"),
                }
            ),
            Reason::StatementFieldTooLong { kind, kib, line } if de => format!(
                "ist eine {}-Datei mit einem Wert, der länger als {kib} KiB ist, ab Zeile \
                 {line}; ist sie vollständig und unverändert aus der Bank exportiert?",
                kind.to_uppercase()
            ),
            Reason::StatementFieldTooLong { kind, kib, line } => format!(
                "is {} file with a value longer than {kib} KiB from line {line} on; is it \
                 complete and exported from the bank unchanged?",
                a_kind(kind)
            ),
            Reason::TooMuchInFile { part, most, line } => {
                let (en, german) = match part {
                    Part::Fields => (
                        format!("has more than {most} fields on line {line}"),
                        format!("hat mehr als {most} Felder in Zeile {line}"),
                    ),
                    Part::Lines => (
                        format!("has more than {most} lines in one field or booking by line {line}"),
                        format!(
                            "hat mehr als {most} Zeilen in einem Feld oder einer Buchung bis Zeile \
                             {line}"
                        ),
                    ),
                    Part::Elements => (
                        format!("has more than {most} XML elements besides its bookings by line {line}"),
                        format!(
                            "hat mehr als {most} XML-Elemente neben den Buchungen bis Zeile {line}"
                        ),
                    ),
                    Part::OpenTags => (
                        format!("has more than {most} tags open at once on line {line}"),
                        format!("hat in Zeile {line} mehr als {most} Tags zugleich offen"),
                    ),
                };
                if de {
                    format!("{german}; eine Datei einer Bank hat weit weniger")
                } else {
                    format!("{en}; a bank's file has far fewer")
                }
            }
            Reason::TooManyAccounts(n) if de => {
                format!("enthält Auszüge von mehr als {n} Konten; teile die Datei auf")
            }
            Reason::TooManyAccounts(n) => {
                format!("holds statements of more than {n} accounts; split the file")
            }
            Reason::ReadTooLong(seconds) if de => format!(
                "hat zu lange zum Lesen gebraucht (mehr als {seconds} Sekunden); ist es eine Datei \
                 deiner Bank?"
            ),
            Reason::ReadTooLong(seconds) => format!(
                "took too long to read (more than {seconds} seconds); is it a file of your bank?"
            ),
            Reason::BodyTooLarge(mib) if de => format!("ist zu groß (höchstens {mib} MiB)"),
            Reason::BodyTooLarge(mib) => format!("too large (at most {mib} MiB)"),
            Reason::BodyLate => words("did not arrive in time", "ist nicht rechtzeitig angekommen"),
            Reason::ReadCalledOff => words(
                "was not read to its end: the upload was called off",
                "wurde nicht zu Ende gelesen: das Hochladen wurde abgebrochen",
            ),
            Reason::ReadersBusy(seconds) if de => format!(
                "kann gerade nicht gelesen werden: andere Dateien werden seit {seconds} Sekunden \
                 gelesen; versuch es in einer Minute wieder"
            ),
            Reason::ReadersBusy(seconds) => format!(
                "cannot be read now: other files have been read for {seconds} seconds; try again \
                 in a minute"
            ),
            Reason::StatementUnreadable { kind, line } if de => format!(
                "ist eine {}-Datei, die ab Zeile {line} nicht gelesen werden kann; ist sie \
                 vollständig?",
                kind.to_uppercase()
            ),
            Reason::StatementUnreadable { kind, line } => format!(
                "is {} file that cannot be read from line {line} on; is it complete?",
                a_kind(kind)
            ),
            Reason::StatementAccounts(accounts) if de => format!(
                "bitte ausfüllen: die Datei enthält Auszüge mehrerer Konten; wähle eines: {}",
                accounts.join(", ")
            ),
            Reason::StatementAccounts(accounts) => format!(
                "is required: the file holds statements of several accounts; choose one: {}",
                accounts.join(", ")
            ),
            Reason::AccountNotInFile(accounts) if de => format!(
                "steht nicht in der Datei; sie enthält: {}",
                accounts.join(", ")
            ),
            Reason::AccountNotInFile(accounts) => format!(
                "is not in the file; it holds: {}",
                accounts.join(", ")
            ),
            Reason::BalanceCurrency { file, account } if de => format!(
                "geht nicht: der Kontostand der Datei ist in {file}, das Konto in {account}"
            ),
            Reason::BalanceCurrency { file, account } => format!(
                "is not possible: the file's balance is in {file}, the account in {account}"
            ),
            Reason::DecimalSeparator => words("must be \",\" or \".\"", "muss \",\" oder \".\" sein"),
            Reason::DatePattern => words(
                "must be a pattern such as %d.%m.%Y",
                "muss ein Muster sein, etwa %d.%m.%Y",
            ),
            Reason::NoSuchLine(line) if de => {
                format!("Zeile {line} enthält keine Zeile der Datei")
            }
            Reason::NoSuchLine(line) => format!("line {line} holds no row of the file"),
            Reason::NoSuchColumn { name, found } if de => format!(
                "keine Spalte \"{name}\"; die Datei hat: {}",
                found.join(", ")
            ),
            Reason::NoSuchColumn { name, found } => {
                format!("no column \"{name}\"; the file has: {}", found.join(", "))
            }
            Reason::NoSuchIndex { index, count } if de => format!(
                "keine Spalte {index}: die Datei hat {count} (0 bis {})",
                count.saturating_sub(1)
            ),
            Reason::NoSuchIndex { index, count } => format!(
                "no column {index}: the file has {count} (0 to {})",
                count.saturating_sub(1)
            ),
            Reason::RequiredWithDebit => {
                words("is required with debit", "bitte ausfüllen, wenn debit angegeben ist")
            }
            Reason::RequiredWithCredit => words(
                "is required with credit",
                "bitte ausfüllen, wenn credit angegeben ist",
            ),
            Reason::AmountOrDebitAndCredit => words(
                "is required (or debit and credit)",
                "bitte ausfüllen (oder debit und credit)",
            ),
            Reason::CsvOrBase64 => words(
                "give csv or csvBase64, not both",
                "gib csv oder csvBase64 an, nicht beides",
            ),
            Reason::OpenImports(n) if de => format!(
                "höchstens {n} Importe können auf Bestätigung warten; bestätige oder verwirf erst \
                 einen"
            ),
            Reason::OpenImports(n) => format!(
                "at most {n} imports may wait for confirmation; confirm or cancel one first"
            ),
            Reason::RowStatus => words(
                "must be one of new, duplicate, matched, conflict, error",
                "muss new, duplicate, matched, conflict oder error sein",
            ),
            Reason::DecidableStatus => words(
                "must be one of new, duplicate, matched, conflict",
                "muss new, duplicate, matched oder conflict sein",
            ),
            Reason::ImportOrSkip => words("must be import or skip", "muss import oder skip sein"),
            Reason::RowOrAll => words(
                "give rowId or all, not both",
                "gib rowId oder all an, nicht beides",
            ),
            Reason::UnreadableRow => words(
                "is a row that could not be read; it cannot be imported or skipped",
                "ist eine Zeile, die nicht gelesen werden konnte; sie lässt sich weder importieren \
                 noch überspringen",
            ),
            Reason::MoneyInHasNoCategory => words(
                "is money in; only money out gets a category",
                "ist ein Geldeingang; nur Ausgaben bekommen eine Kategorie",
            ),
            Reason::ConflictsOpen(n) if de => format!(
                "{n} {} noch eine Entscheidung: importieren oder überspringen",
                plural(*n, "Konflikt braucht", "Konflikte brauchen")
            ),
            Reason::ConflictsOpen(n) => format!(
                "{n} {} a decision: import or skip",
                plural(*n, "conflict still needs", "conflicts still need")
            ),
            Reason::ExportRunning => words(
                "an export of your data is being made already; wait until it has downloaded",
                "ein Export deiner Daten wird bereits erstellt; warte, bis er heruntergeladen ist",
            ),
            Reason::ImportBusy => words(
                "is being confirmed or taken back; wait until it is done",
                "wird gerade bestätigt oder zurückgenommen; warte, bis das fertig ist",
            ),
            Reason::ImportInterrupted => words(
                "was being confirmed when the service stopped; confirmImport finishes it, \
                 cancelImport takes it back",
                "wurde gerade bestätigt, als der Dienst anhielt; confirmImport bringt das zu Ende, \
                 cancelImport nimmt es zurück",
            ),
            Reason::OtherImportConfirming => words(
                "cannot be confirmed while another import into this account is being confirmed \
                 or was interrupted; finish or cancel that one first",
                "kann nicht bestätigt werden, solange ein anderer Import in dieses Konto bestätigt \
                 wird oder unterbrochen wurde; bring den erst zu Ende oder brich ihn ab",
            ),
            Reason::AlreadyConfirmed => words(
                "is already confirmed; undoImport takes it back",
                "ist schon bestätigt; undoImport nimmt ihn zurück",
            ),
            Reason::Confirmed => words(
                "is confirmed; undoImport takes it back",
                "ist bestätigt; undoImport nimmt ihn zurück",
            ),
            Reason::Cancelled => words("is cancelled", "ist abgebrochen"),
            Reason::NotConfirmedImport => words(
                "is not a confirmed import; only those can be undone",
                "ist kein bestätigter Import; nur die lassen sich zurücknehmen",
            ),

            Reason::NotAConversation => words(
                "must be a conversation's id",
                "muss die Id eines Gesprächs sein",
            ),
            Reason::UserOrAssistant => {
                words("must be user or assistant", "muss user oder assistant sein")
            }
            Reason::LastMessageUsers => words(
                "the last message must be the user's",
                "die letzte Nachricht muss vom Nutzer sein",
            ),
            Reason::MaxMessages(n) if de => format!("höchstens {n} Nachrichten"),
            Reason::MaxMessages(n) => format!("must be at most {n} messages"),
            Reason::AccountOrName => words(
                "is required (or accountName)",
                "bitte ausfüllen (oder accountName)",
            ),
            Reason::NoAccountNamed { wanted, accounts } => {
                let list = if accounts.is_empty() {
                    pick(de, "none", "keine").to_string()
                } else {
                    accounts.join(", ")
                };
                if de {
                    format!("kein Konto „{wanted}“; die Konten sind: {list}")
                } else {
                    format!("no account {wanted:?}; the accounts are: {list}")
                }
            }
            Reason::SeveralAccounts { wanted, accounts } if de => format!(
                "„{wanted}“ passt auf mehrere Konten ({}); gib accountId an",
                accounts.join(", ")
            ),
            Reason::SeveralAccounts { wanted, accounts } => format!(
                "{wanted:?} matches several accounts ({}); give accountId",
                accounts.join(", ")
            ),
            Reason::UnknownTool { name, tools } if de => format!(
                "unbekanntes Werkzeug „{name}“; die Werkzeuge sind {}",
                tools.join(", ")
            ),
            Reason::UnknownTool { name, tools } => {
                format!("unknown tool {name:?}; the tools are {}", tools.join(", "))
            }
            Reason::NotPreviewable {
                name,
                read_tool,
                tools,
            } if de => format!(
                "„{name}“ {}; eine Vorschau gibt es für {}",
                pick(*read_tool, "ist kein Werkzeug", "ist ein Lesewerkzeug"),
                tools.join(", ")
            ),
            Reason::NotPreviewable {
                name,
                read_tool,
                tools,
            } => format!(
                "{name:?} {}; previews are for {}",
                pick(*read_tool, "is not a tool", "is a read tool"),
                tools.join(", ")
            ),
            Reason::NotAWriteTool(name) if de => format!("„{name}“ ist kein Schreibwerkzeug"),
            Reason::NotAWriteTool(name) => format!("{name:?} is not a write tool"),
            Reason::ProposalSaved(Some(record)) if de => {
                format!("ist schon gespeichert als Eintrag {record}")
            }
            Reason::ProposalSaved(Some(record)) => {
                format!("is saved already as record {record}")
            }
            Reason::ProposalSaved(None) => words("is saved already", "ist schon gespeichert"),
            Reason::ProposalDiscarded => words("is discarded already", "ist schon verworfen"),

            Reason::NotAnExport => words(
                "is not a cashkeeper export: not a readable zip archive",
                "ist kein cashkeeper-Export: kein lesbares ZIP-Archiv",
            ),
            Reason::NoDataJson => words(
                "is not a cashkeeper export: it has no data.json",
                "ist kein cashkeeper-Export: es fehlt data.json",
            ),
            Reason::HasRecords => words(
                "the account has records already: an export loads only into an account without \
                 any (a new one, say); if this is your own export, its records are here already",
                "dein Konto hat schon Einträge: ein Export lässt sich nur in ein Konto ohne \
                 Einträge laden (etwa ein neu angelegtes); ist es dein eigener Export, sind seine \
                 Einträge schon hier",
            ),
            Reason::TooManyFiles(n) if de => {
                format!("das Archiv enthält mehr als {n} Dateien; das ist kein cashkeeper-Export")
            }
            Reason::TooManyFiles(n) => format!(
                "the archive holds more than {n} files; this is not a cashkeeper export"
            ),
            Reason::Damaged => words(
                "is damaged; this is not an intact cashkeeper export",
                "ist beschädigt; das ist kein unversehrter cashkeeper-Export",
            ),
            Reason::OtherFormat => words(
                "has another format; this is not a cashkeeper export",
                "hat ein anderes Format; das ist kein cashkeeper-Export",
            ),
            Reason::NewerVersion => words(
                "is of a newer export version; use a newer cashkeeper",
                "stammt aus einer neueren Export-Version; nimm ein neueres cashkeeper",
            ),
            Reason::CannotRead => words(
                "cannot be read; the archive is damaged",
                "lässt sich nicht lesen; das Archiv ist beschädigt",
            ),
            Reason::Checksum => words(
                "does not match its checksum; the archive is damaged",
                "passt nicht zu seiner Prüfsumme; das Archiv ist beschädigt",
            ),
            Reason::ExpandsTimes(n) if de => format!(
                "wird beim Entpacken mehr als {n}-mal so groß; das ist kein cashkeeper-Export"
            ),
            Reason::ExpandsTimes(n) => {
                format!("expands more than {n} times; this is not a cashkeeper export")
            }
            Reason::ExpandsTo(mb) if de => format!("wird entpackt größer als {mb} MB"),
            Reason::ExpandsTo(mb) => format!("expands to more than {mb} MB"),
            Reason::ArchiveExpandsTo(mb) if de => {
                format!("das Archiv wird entpackt größer als {mb} MB")
            }
            Reason::ArchiveExpandsTo(mb) => format!("the archive expands to more than {mb} MB"),
            Reason::DanglingRecord { table, parent } if de => format!(
                "ein Eintrag aus {table} verweist auf einen Eintrag aus {parent}, der nicht in \
                 diesem Archiv ist"
            ),
            Reason::DanglingRecord { table, parent } => format!(
                "a record of {table} refers to a record of {parent} that is not in this archive"
            ),
            Reason::UnloadableRecord(table) if de => format!(
                "ein Eintrag aus {table} lässt sich nicht laden; das Archiv ist beschädigt"
            ),
            Reason::UnloadableRecord(table) => {
                format!("a record of {table} cannot be loaded; the archive is damaged")
            }
        }
    }
}

fn ai_off(task: AiTask, de: bool) -> &'static str {
    match task {
        AiTask::Receipt => pick(
            de,
            "receipt scanning is off: the server has no AI provider (AI_API_KEY is not set)",
            "Das Lesen von Kassenbons ist aus: auf diesem Server ist kein KI-Dienst eingerichtet \
             (AI_API_KEY)",
        ),
        AiTask::Assistant => pick(
            de,
            "the assistant is off: the server has no AI provider (AI_API_KEY is not set)",
            "Der Assistent ist aus: auf diesem Server ist kein KI-Dienst eingerichtet (AI_API_KEY)",
        ),
        AiTask::ImportSuggestions => pick(
            de,
            "No AI suggestions: the server has no AI provider (AI_API_KEY is not set).",
            "Keine KI-Vorschläge: auf diesem Server ist kein KI-Dienst eingerichtet (AI_API_KEY).",
        ),
    }
}

fn ai_busy(task: AiTask, per_minute: u32, wait: i64, de: bool) -> String {
    let what = match task {
        AiTask::Receipt => pick(de, "receipt scans", "Kassenbons gelesen"),
        AiTask::Assistant => pick(de, "messages", "Nachrichten"),
        AiTask::ImportSuggestions => pick(de, "AI requests", "KI-Anfragen"),
    };
    if de {
        format!(
            "zu viele {what}: höchstens {per_minute} in der Minute; versuch es in {wait} s noch \
             einmal"
        )
    } else {
        format!("too many {what}: at most {per_minute} a minute; try again in {wait} s")
    }
}

/// The AI failed at `task`: unreachable (or too late, or an error), or
/// its answer cannot be used.
fn ai_failed(task: AiTask, unusable: bool, de: bool) -> &'static str {
    let (en, german) = match (task, unusable) {
        (AiTask::Receipt, false) => (
            "The AI service cannot be reached right now. Try again later, or enter the details \
             by hand.",
            "Der KI-Dienst ist gerade nicht erreichbar. Versuch es später noch einmal oder trag \
             die Angaben von Hand ein.",
        ),
        (AiTask::Receipt, true) => (
            "The AI could not read this receipt. Try a sharper photo, or enter the details by \
             hand.",
            "Die KI konnte diesen Kassenbon nicht lesen. Versuch es mit einem schärferen Foto \
             oder trag die Angaben von Hand ein.",
        ),
        (AiTask::Assistant, false) => (
            "The AI service cannot be reached right now. Try again later.",
            "Der KI-Dienst ist gerade nicht erreichbar. Versuch es später noch einmal.",
        ),
        (AiTask::Assistant, true) => (
            "The AI gave an answer that cannot be used. Try again, perhaps in other words.",
            "Die KI hat keine brauchbare Antwort gegeben. Versuch es noch einmal, vielleicht mit \
             anderen Worten.",
        ),
        (AiTask::ImportSuggestions, false) => (
            "No AI suggestions: the AI service cannot be reached right now. The rows can be \
             checked and confirmed without them.",
            "Keine KI-Vorschläge: der KI-Dienst ist gerade nicht erreichbar. Die Zeilen lassen \
             sich auch ohne sie prüfen und bestätigen.",
        ),
        (AiTask::ImportSuggestions, true) => (
            "No AI suggestions: the AI's answer could not be used. The rows can be checked and \
             confirmed without them.",
            "Keine KI-Vorschläge: die Antwort der KI war nicht zu gebrauchen. Die Zeilen lassen \
             sich auch ohne sie prüfen und bestätigen.",
        ),
    };
    pick(de, en, german)
}

fn counted_noun(what: Counted, de: bool) -> &'static str {
    match what {
        Counted::Accounts => pick(de, "accounts", "Konten"),
        Counted::Categories => pick(de, "categories", "Kategorien"),
        Counted::Recurring => pick(
            de,
            "recurring expenses, incomes and transfers",
            "wiederkehrenden Ausgaben, Einnahmen und Umbuchungen",
        ),
        Counted::DailyExpenses => pick(de, "one-time expenses", "Einzelausgaben"),
        Counted::ApiTokens => pick(de, "API tokens", "API-Tokens"),
        Counted::Documents => pick(de, "documents", "Dokumenten"),
    }
}

fn uses_noun(what: Uses, de: bool) -> &'static str {
    match what {
        Uses::RecurringExpenses => pick(de, "recurring expenses", "Fixkosten"),
        Uses::DailyExpenses => pick(de, "one-time expenses", "Einzelausgaben"),
        Uses::Incomes => pick(de, "incomes", "Einnahmen"),
        Uses::Transfers => pick(de, "transfers", "Umbuchungen"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de(e: Error) -> String {
        e.text(Locale::De)
    }

    #[test]
    fn field_errors_keep_their_field_and_speak_german() {
        assert_eq!(
            de(Error::invalid("name", Reason::Required)),
            "name: bitte ausfüllen"
        );
        assert_eq!(
            de(Error::invalid("toAccountId", Reason::AnotherThanSource)),
            "toAccountId: muss ein anderes Konto sein als das, von dem umgebucht wird"
        );
        assert_eq!(
            de(Error::invalid("name", Reason::MaxChars(100))),
            "name: höchstens 100 Zeichen"
        );
        let english = Error::invalid("name", Reason::Required);
        assert_eq!(english.text(Locale::En), "name: is required");
        assert_eq!(
            english.to_string(),
            "name: is required",
            "the log reads English"
        );
        assert_eq!(de(Error::unknown("accountId")), "accountId: nicht gefunden");
    }

    #[test]
    fn a_statement_format_takes_the_article_it_is_said_with() {
        let unreadable = |kind| Reason::StatementUnreadable { kind, line: 3 }.text(Locale::En);
        assert_eq!(
            unreadable("mt940"),
            "is an MT940 file that cannot be read from line 3 on; is it complete?"
        );
        assert!(unreadable("ofx").starts_with("is an OFX file"));
        assert!(unreadable("camt.053").starts_with("is a CAMT.053 file"));
        assert!(unreadable("qif").starts_with("is a QIF file"));
        let long = Reason::StatementFieldTooLong {
            kind: "mt940",
            kib: 64,
            line: 2,
        };
        assert!(long
            .text(Locale::En)
            .starts_with("is an MT940 file with a value"));
    }

    #[test]
    fn refusals_with_numbers_speak_german_too() {
        for (reason, en, german) in [
            (
                Reason::LimitReached(200, Counted::Accounts),
                "you have reached the limit of 200 accounts; delete some before adding more",
                "du hast die Grenze von 200 Konten erreicht; lösche welche, bevor du neue anlegst",
            ),
            (
                Reason::OpenImports(5),
                "at most 5 imports may wait for confirmation; confirm or cancel one first",
                "höchstens 5 Importe können auf Bestätigung warten; bestätige oder verwirf erst einen",
            ),
            (
                Reason::FieldTooLong { kib: 64, line: 2 },
                "has a field longer than 64 KiB starting on line 2; is a closing quote missing?",
                "hat ein Feld, das länger als 64 KiB ist, ab Zeile 2; fehlt ein schließendes Anführungszeichen?",
            ),
            (
                Reason::TooMuchInFile { part: Part::OpenTags, most: 1000, line: 3 },
                "has more than 1000 tags open at once on line 3; a bank's file has far fewer",
                "hat in Zeile 3 mehr als 1000 Tags zugleich offen; eine Datei einer Bank hat weit weniger",
            ),
            (
                Reason::ReadTooLong(60),
                "took too long to read (more than 60 seconds); is it a file of your bank?",
                "hat zu lange zum Lesen gebraucht (mehr als 60 Sekunden); ist es eine Datei deiner Bank?",
            ),
            (
                Reason::ConflictsOpen(1),
                "1 conflict still needs a decision: import or skip",
                "1 Konflikt braucht noch eine Entscheidung: importieren oder überspringen",
            ),
            (
                Reason::ConflictsOpen(3),
                "3 conflicts still need a decision: import or skip",
                "3 Konflikte brauchen noch eine Entscheidung: importieren oder überspringen",
            ),
            (
                Reason::PasswordSignInOff(Some("Sign in with Authelia".into())),
                "sign-in with a password is turned off here; use \"Sign in with Authelia\" on the sign-in page",
                "Die Anmeldung mit Passwort ist hier ausgeschaltet; nimm \"Sign in with Authelia\" auf der Anmeldeseite",
            ),
            (
                Reason::QuotaFull { quota_mb: 500, used_mb: 499 },
                "this file does not fit in your document storage of 500 MB (499 MB used); delete some documents first",
                "diese Datei passt nicht mehr in deinen Dokumentenspeicher von 500 MB (499 MB belegt); lösche erst Dokumente",
            ),
            (
                Reason::TooManySignIns { address: true, minutes: 15 },
                "too many failed sign-ins for this address; try again in 15 minutes",
                "zu viele fehlgeschlagene Anmeldungen für diese Adresse; versuch es in 15 Minuten wieder",
            ),
            (
                Reason::TooManySignIns { address: false, minutes: 1 },
                "too many failed sign-ins from your network; try again in 1 minute",
                "zu viele fehlgeschlagene Anmeldungen aus deinem Netz; versuch es in 1 Minute wieder",
            ),
            (
                Reason::AccountInUse(vec![(2, Uses::DailyExpenses), (1, Uses::Incomes)]),
                "account is still used by 2 one-time expenses, 1 incomes; move them to another account (moveTo) or delete them first",
                "Das Konto wird noch verwendet (2 Einzelausgaben, 1 Einnahmen); verschiebe die Einträge auf ein anderes Konto oder lösche sie zuerst",
            ),
        ] {
            assert_eq!(reason.text(Locale::En), en);
            assert_eq!(reason.to_string(), en);
            assert_eq!(reason.text(Locale::De), german);
        }
    }

    #[test]
    fn the_password_sign_in_refusal_names_the_button_in_the_users_language() {
        let off = Reason::PasswordSignInOff(None);
        assert!(off.text(Locale::De).contains(Locale::De.texts().sso_button));
        assert!(off.text(Locale::En).contains(Locale::En.texts().sso_button));
    }

    #[test]
    fn an_archives_refusals_name_its_file_in_german_too() {
        for (reason, english, german) in [
            (
                Reason::InFile(
                    "documents/0191/Vertrag.pdf".into(),
                    Box::new(Reason::DocumentTooLarge),
                ),
                "file: documents/0191/Vertrag.pdf: must be at most 10 MiB",
                "file: documents/0191/Vertrag.pdf: darf höchstens 10 MiB groß sein",
            ),
            (
                Reason::InFile("data.json".into(), Box::new(Reason::ExpandsTimes(100))),
                "file: data.json: expands more than 100 times; this is not a cashkeeper export",
                "file: data.json: wird beim Entpacken mehr als 100-mal so groß; das ist kein cashkeeper-Export",
            ),
            (
                Reason::TooManyFiles(10000),
                "file: the archive holds more than 10000 files; this is not a cashkeeper export",
                "file: das Archiv enthält mehr als 10000 Dateien; das ist kein cashkeeper-Export",
            ),
            (
                Reason::InFile(
                    "data.json".into(),
                    Box::new(Reason::DanglingRecord {
                        table: "expenses".into(),
                        parent: "accounts".into(),
                    }),
                ),
                "file: data.json: a record of expenses refers to a record of accounts that is not in this archive",
                "file: data.json: ein Eintrag aus expenses verweist auf einen Eintrag aus accounts, der nicht in diesem Archiv ist",
            ),
        ] {
            let e = Error::invalid("file", reason);
            assert_eq!(e.text(Locale::En), english);
            assert_eq!(e.text(Locale::De), german);
        }
    }

    /// Where a message for people is made: an error for a page or a
    /// session route, an `error` event, a failure's words.
    const SINKS: &[&str] = &[
        "Error::invalid(",
        "Error::refused(",
        "Error::Invalid {",
        "Error::Refused(",
        "ApiError::new(",
        "ApiError::bad_request(",
        "error(StatusCode",
        "failure(StatusCode",
        "Event::Error",
        "error: Some(",
        "Failure::",
    ];
    /// A lower error's own words (a provider's, a parser's, SQLite's).
    const CAUSES: &[&str] = &[
        "e.to_string()",
        "err.to_string()",
        "why.to_string()",
        "cause.to_string()",
        ".body_text()",
        "{e}",
        "{e:?}",
        "{err}",
        "{why}",
        "{cause}",
    ];
    /// Reasons that carry a decoder's words for API clients and the log
    /// (their German leaves them out), and the internal error, whose cause
    /// only the log reads.
    const FOR_PROGRAMS: &[&str] = &[
        "Reason::Malformed(",
        "Reason::MalformedUpload(",
        "Error::Internal(",
    ];

    /// Whether `cause` stands in `statement` as a name of its own
    /// (`e.to_string()`, not `name.to_string()`).
    fn names(statement: &str, cause: &str) -> bool {
        statement.match_indices(cause).any(|(i, _)| {
            !cause.starts_with(|c: char| c.is_alphanumeric())
                || !statement[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    }

    /// The statements of `code` that hand a person a lower error's words.
    fn lower_words(code: &str) -> Vec<String> {
        code.split(';')
            .filter(|s| SINKS.iter().any(|sink| s.contains(sink)))
            .filter(|s| !FOR_PROGRAMS.iter().any(|d| s.contains(d)))
            .filter(|s| CAUSES.iter().any(|c| names(s, c)))
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[test]
    fn the_check_for_lower_words_finds_what_it_is_for() {
        for bad in [
            "return Err(ScanFailure::Provider(e.to_string()));",
            "return error(StatusCode::BAD_REQUEST, format!(\"file: {}\", e.body_text()));",
            "Failure::Provider(e) => format!(\"the AI provider failed: {e}\"),\n};",
            "return Ok(Summary { error: Some(e.to_string()) });",
        ] {
            assert_eq!(lower_words(bad).len(), 1, "{bad}");
        }
        for good in [
            "tracing::warn!(error = %e, \"the AI provider failed\"); return Err(ScanFailure::Provider);",
            "Error::invalid(\"file\", Reason::MalformedUpload(e.body_text()));",
            "Error::refused(Reason::UnknownTool { name: name.to_string() });",
        ] {
            assert!(lower_words(good).is_empty(), "{good}");
        }
    }

    /// What people read is a `Reason` worded here (the compiler asks for
    /// both languages) or another text of `i18n`; the cause of a failure
    /// goes to the log. No door or use case hands a person a lower error's
    /// words: a provider's, a parser's, SQLite's. The REST API (`api::v1`)
    /// answers programs, in English, and is left out.
    #[test]
    fn no_message_for_people_carries_a_lower_errors_words() {
        let mut found = Vec::new();
        for (module, source) in crate::layers::modules() {
            let top = module.split("::").next().unwrap_or_default();
            if !["app", "actions", "api", "web"].contains(&top) || module.starts_with("api::v1") {
                continue;
            }
            for statement in lower_words(&crate::layers::code(&source)) {
                found.push(format!("{module}: {statement}"));
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
    }

    #[test]
    fn the_ai_and_file_refusals_speak_german_without_technical_words() {
        let mut reasons = vec![
            Reason::AiNoTools,
            Reason::NotAnUpload,
            Reason::FileTooLarge(64),
            Reason::BodyTooLarge(1),
            Reason::BodyLate,
            Reason::NotAnId,
            Reason::NotJson,
            Reason::NotCsv,
            Reason::NoRows,
            Reason::NotADocument,
            Reason::NotJpegOrPng,
            Reason::HasRecords,
            Reason::MalformedUpload("missing boundary".into()),
        ];
        for task in [
            AiTask::Receipt,
            AiTask::Assistant,
            AiTask::ImportSuggestions,
        ] {
            reasons.extend([
                Reason::AiOff(task),
                Reason::AiBusy {
                    task,
                    per_minute: 5,
                    wait: 42,
                },
                Reason::AiUnavailable(task),
                Reason::AiUnusable(task),
            ]);
        }
        for reason in reasons {
            let (en, german) = (reason.text(Locale::En), reason.text(Locale::De));
            assert_ne!(en, german, "{reason:?}");
            for english in ["must ", " is ", "the ", "could not", "provider", "boundary"] {
                assert!(!german.contains(english), "{reason:?}: {german}");
            }
        }
    }

    #[test]
    fn plain_errors_speak_german_too() {
        assert_eq!(
            de(Error::refused(Reason::BadCredentials)),
            "E-Mail-Adresse oder Passwort stimmt nicht"
        );
        assert_eq!(de(Error::Unauthorized), "Bitte melde dich an");
        assert_eq!(
            de(Error::Internal(anyhow::anyhow!("disk on fire"))),
            "Interner Fehler",
            "never the cause"
        );
        let several = Error::Several(vec![
            Error::invalid("name", Reason::Required),
            Error::invalid("amount", Reason::Positive),
        ]);
        assert_eq!(de(several), "name: bitte ausfüllen", "reads as the first");
    }
}
