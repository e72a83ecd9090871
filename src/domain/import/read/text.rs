//! The bytes and the text of a CSV file: what a binary file is, the
//! encoding, the delimiter, fields too long to read, the records with their
//! lines, and what a line before the header or a header says.

use super::values::{self, parse_amount};
use super::ReadError;
use crate::error::{FileKind, Part};
use chrono::NaiveDate;
use rust_decimal::Decimal;

/// The balance a line before the header states (`Kontostand vom
/// 30.12.2024:;3.600,00 €`, `Saldo;1.234,56;EUR`): its day when the line
/// names one, the amount and the currency. An opening balance is not one.
pub(super) fn preamble_balance(
    records: &[Record],
    decimal: char,
) -> Option<(Option<NaiveDate>, Decimal, Option<String>)> {
    const BALANCE: &[&str] = &[
        "kontostand",
        "saldo",
        "balance",
        "solde",
        "zůstatek",
        "stan konta",
    ];
    const OPENING: &[&str] = &[
        "anfang",
        "opening",
        "start",
        "alter",
        "previous",
        "begin",
        "počáteční",
        "eröffnung",
    ];
    let day = |cell: &str| {
        cell.split(|c: char| c.is_whitespace() || c == ':' || c == ',')
            .find_map(|token| {
                values::DateFormat::DETECTED
                    .iter()
                    .find_map(|f| f.parse(token))
            })
    };
    records.iter().rev().find_map(|rec| {
        let cells: Vec<&str> = rec.fields.iter().map(str::trim).collect();
        let key = cells.iter().position(|c| {
            let c = c.to_lowercase();
            BALANCE.iter().any(|w| c.contains(w)) && !OPENING.iter().any(|w| c.contains(w))
        })?;
        let (at, amount) = cells.iter().enumerate().skip(key + 1).find_map(|(i, c)| {
            (day(c).is_none() && c.chars().any(|ch| ch.is_ascii_digit()))
                .then(|| parse_amount(c, decimal))
                .flatten()
                .map(|a| (i, a))
        })?;
        let date = cells.iter().find_map(|c| day(c));
        let currency = cells[at..].iter().find_map(|c| {
            if c.contains('€') {
                return Some("EUR".to_string());
            }
            c.split_whitespace()
                .find(|t| t.len() == 3 && t.chars().all(|ch| ch.is_ascii_uppercase()))
                .map(str::to_string)
        });
        Some((date, amount, currency))
    })
}

/// What a binary file is, by its first bytes.
pub(super) fn file_kind(bytes: &[u8]) -> Option<FileKind> {
    const KINDS: &[(&[u8], FileKind)] = &[
        (b"%PDF", FileKind::Pdf),
        (b"\x89PNG", FileKind::Image),
        (b"\xff\xd8\xff", FileKind::Image),
        (b"GIF8", FileKind::Image),
        (b"RIFF", FileKind::Image),
        (b"PK\x03\x04", FileKind::Zip),
    ];
    KINDS
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, kind)| *kind)
}

/// Files that are not text: NUL bytes, or the start of a common binary
/// format, or many control characters.
pub(super) fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    const MAGIC: &[&[u8]] = &[
        b"%PDF",
        b"\x89PNG",
        b"\xff\xd8\xff",
        b"PK\x03\x04",
        b"GIF8",
        b"RIFF",
    ];
    if MAGIC.iter().any(|m| head.starts_with(m)) || head.contains(&0) {
        return true;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        .count();
    controls * 100 > head.len()
}

/// UTF-8 (a BOM is dropped), or else the single-byte encoding the bytes
/// look like: Windows-1252 (the superset of ISO-8859-1 that German banks
/// write), Windows-1250 or ISO-8859-2 (Czech, Polish), … as Mozilla's
/// detector judges from the first MiB.
pub(super) fn decode(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, &'static str) {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.into(), "utf-8"),
        Err(_) => {
            let mut detector = chardetng::EncodingDetector::new();
            detector.feed(&bytes[..bytes.len().min(1 << 20)], true);
            let guess = detector.guess(None, true);
            // A bank file is never in a multi-byte legacy encoding; such a
            // guess on a few odd bytes is read as the common case instead.
            let encoding = if guess.is_single_byte() {
                guess
            } else {
                encoding_rs::WINDOWS_1252
            };
            (
                encoding.decode_without_bom_handling(bytes).0,
                encoding.name(),
            )
        }
    }
}

/// The delimiter that occurs most often outside quotes in the first lines.
pub(super) fn detect_delimiter(text: &str) -> u8 {
    let mut best = (0usize, b',');
    for candidate in [b';', b',', b'\t', b'|'] {
        let mut count = 0;
        for line in text.lines().take(60) {
            let mut quoted = false;
            for b in line.bytes() {
                match b {
                    b'"' => quoted = !quoted,
                    b if b == candidate && !quoted => count += 1,
                    _ => {}
                }
            }
        }
        if count > best.0 {
            best = (count, candidate);
        }
    }
    best.1
}

/// A field longer than `max` bytes ([`ReadError::FieldTooLong`]) or a
/// record of more than `max_fields` fields ([`ReadError::TooMuch`]), with
/// the 1-based line on which it starts, read as the CSV reader reads
/// quotes: a quote opens a quoted field only at the start of a field, and
/// `""` inside one is a quote. One pass without allocating, so that such a
/// file is refused before the reader would gather the rest of the file
/// into one field, or one line of empty fields into a record.
pub(super) fn long_field(
    bytes: &[u8],
    delimiter: u8,
    max: usize,
    max_fields: usize,
) -> Option<ReadError> {
    #[derive(PartialEq)]
    enum State {
        Start,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let (mut state, mut len, mut line, mut field_line) = (State::Start, 0usize, 1usize, 1usize);
    let (mut fields, mut record_line) = (1usize, 1usize);
    for &b in bytes {
        if state == State::Quoted {
            if b == b'"' {
                state = State::QuoteInQuoted;
            } else if b == b'\n' {
                line += 1;
            }
        } else if b == delimiter || b == b'\n' || b == b'\r' {
            if b == delimiter {
                fields += 1;
                if fields > max_fields {
                    return Some(ReadError::TooMuch {
                        part: Part::Fields,
                        line: record_line,
                    });
                }
            } else {
                if b == b'\n' {
                    line += 1;
                }
                fields = 1;
                record_line = line;
            }
            state = State::Start;
            len = 0;
            field_line = line;
            continue;
        } else {
            state = match (state, b) {
                (State::Start | State::QuoteInQuoted, b'"') => State::Quoted,
                _ => State::Unquoted,
            };
        }
        len += 1;
        if len > max {
            return Some(ReadError::FieldTooLong { line: field_line });
        }
    }
    None
}

/// A record of the file and the 1-based line it starts on.
pub(super) struct Record {
    pub(super) line: usize,
    pub(super) fields: csv::StringRecord,
}

/// The records of a file in order, each with the line it starts on.
pub(super) struct Records<'t> {
    reader: csv::Reader<&'t [u8]>,
    bytes: &'t [u8],
    counted_to: usize,
    pub(super) line: usize,
}

impl<'t> Records<'t> {
    pub(super) fn new(text: &'t str, delimiter: u8) -> Records<'t> {
        Records {
            reader: csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .has_headers(false)
                .flexible(true)
                .from_reader(text.as_bytes()),
            bytes: text.as_bytes(),
            counted_to: 0,
            line: 1,
        }
    }
}

impl Iterator for Records<'_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        let mut fields = csv::StringRecord::new();
        // The text is valid UTF-8 and the reader is flexible: nothing can
        // fail but the end.
        if !self.reader.read_record(&mut fields).ok()? {
            return None;
        }
        // Lines are counted here: the reader's position of a record may lie
        // on the line terminator before it.
        let mut start = fields.position().map_or(0, |p| p.byte() as usize);
        while start < self.bytes.len() && matches!(self.bytes[start], b'\r' | b'\n') {
            start += 1;
        }
        let start = start.max(self.counted_to);
        self.line += self.bytes[self.counted_to..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.counted_to = start;
        Some(Record {
            line: self.line,
            fields,
        })
    }
}

/// How many records are read before the layout is decided: the header
/// must be among the first 60 lines, and the separators and the date
/// format are decided from the rows that follow.
pub(super) const HEAD_RECORDS: usize = 2_100;

/// A line that is not a booking: no cell, or a single one (a title, a
/// note or a footnote such as "* noch nicht ausgeführte Umsätze").
pub(super) fn is_note(fields: &csv::StringRecord) -> bool {
    fields.iter().filter(|f| !f.trim().is_empty()).count() < 2
}

/// A header name as compared: trimmed, without quotes, lower case.
pub(super) fn norm(name: &str) -> String {
    name.trim()
        .trim_start_matches('\u{feff}')
        .trim_matches('"')
        .trim()
        .to_lowercase()
}

/// The header's names without the empty ones a trailing delimiter adds.
pub(super) fn header_names(fields: &csv::StringRecord) -> Vec<String> {
    let mut names: Vec<String> = fields.iter().map(norm).collect();
    while names.last().is_some_and(|n| n.is_empty()) {
        names.pop();
    }
    names
}

/// What to show when no layout is recognised: the most header-like line.
pub(super) fn likely_header(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .take(40)
        .filter(|r| !is_note(&r.fields))
        .find(|r| r.fields.iter().all(|f| !looks_numeric(f)))
        .or_else(|| records.first())
        .map(|r| r.fields.iter().map(|f| f.trim().to_string()).collect())
        .unwrap_or_default()
}

pub(super) fn looks_numeric(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_digit() || "+-.,'/ :€$£".contains(c))
}
