//! Helpers shared by the statement readers: decoding bytes to text, line
//! numbers, amounts, dates and whitespace rules.

use chrono::NaiveDate;
use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use rust_decimal::Decimal;
use std::borrow::Cow;
use std::str::FromStr;

/// Decodes a file to text.
///
/// A byte order mark wins. Otherwise bytes that are valid UTF-8 are read as
/// UTF-8 (plain ASCII included; a declared single-byte charset on a file that
/// is valid UTF-8 with non-ASCII characters is almost always a wrong label).
/// Otherwise the
/// declared charset is used when it is known, and Windows-1252 (a superset of
/// the printable ISO-8859-1 range) when nothing usable is declared.
///
/// Returns the text (the bytes themselves when they are UTF-8) and the
/// name of the encoding it was read with.
pub fn decode<'b>(bytes: &'b [u8], declared: Option<&str>) -> (Cow<'b, str>, &'static str) {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let rest = bytes.get(bom_len..).unwrap_or_default();
        let (text, _) = enc.decode_without_bom_handling(rest);
        return (text, encoding_name(enc, None));
    }
    let declared_enc = declared.and_then(|d| Encoding::for_label(d.trim().as_bytes()));
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.into(), "utf-8");
    }
    let enc = match declared_enc {
        Some(enc) if enc != UTF_8 && enc.is_ascii_compatible() => enc,
        _ => WINDOWS_1252,
    };
    let (text, _) = enc.decode_without_bom_handling(bytes);
    (text, encoding_name(enc, declared))
}

/// The lower-case name of an encoding as the caller should report it.
/// encoding_rs maps ISO-8859-1 labels to Windows-1252; report the label the
/// file used in that case.
fn encoding_name(enc: &'static Encoding, declared: Option<&str>) -> &'static str {
    if enc == UTF_8 {
        return "utf-8";
    }
    if enc == WINDOWS_1252 {
        let latin1 = declared.is_some_and(|d| {
            let d = d.trim().to_ascii_lowercase();
            d == "iso-8859-1" || d == "iso8859-1" || d == "latin1" || d == "latin-1"
        });
        return if latin1 { "iso-8859-1" } else { "windows-1252" };
    }
    match enc.name() {
        "UTF-16LE" => "utf-16le",
        "UTF-16BE" => "utf-16be",
        other => other,
    }
}

/// Maps byte offsets of a text to 1-based line numbers, counting the line
/// breaks as the offsets asked for move on, so a file of many lines takes
/// no memory for them. A line ends at CR LF, a lone CR or a lone LF.
pub struct Lines<'t> {
    bytes: &'t [u8],
    counted_to: usize,
    line: usize,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        Lines {
            bytes: text.as_bytes(),
            counted_to: 0,
            line: 1,
        }
    }

    /// The 1-based line that holds the byte at `offset`; cheap for offsets
    /// that grow, as a reader's do.
    pub fn line_of(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.bytes.len());
        if offset < self.counted_to {
            self.counted_to = 0;
            self.line = 1;
        }
        let Some(part) = self.bytes.get(self.counted_to..offset) else {
            return self.line;
        };
        for (i, &b) in part.iter().enumerate() {
            let at = self.counted_to + i;
            let ends = match b {
                b'\n' => true,
                b'\r' => self.bytes.get(at + 1) != Some(&b'\n'),
                _ => false,
            };
            if ends {
                self.line += 1;
            }
        }
        self.counted_to = offset;
        self.line
    }
}

/// Splits a text into lines (CR LF, CR or LF), each with its 1-based
/// number, one at a time.
pub fn split_lines(text: &str) -> SplitLines<'_> {
    SplitLines { rest: text, no: 1 }
}

/// The lines of [`split_lines`].
pub struct SplitLines<'t> {
    rest: &'t str,
    no: usize,
}

impl<'t> Iterator for SplitLines<'t> {
    type Item = (usize, &'t str);

    fn next(&mut self) -> Option<(usize, &'t str)> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        let line = match rest.find(['\r', '\n']) {
            Some(pos) => {
                let skip = if rest.get(pos..pos + 2) == Some("\r\n") {
                    2
                } else {
                    1
                };
                self.rest = rest.get(pos + skip..).unwrap_or_default();
                rest.get(..pos).unwrap_or_default()
            }
            None => {
                self.rest = "";
                rest
            }
        };
        let no = self.no;
        self.no += 1;
        Some((no, line))
    }
}

/// Collapses every run of whitespace to one space and trims both ends.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses an unsigned or signed decimal written with `.` or `,` as the
/// decimal mark. Thousands separators are not accepted here; callers strip
/// them where the format allows them.
pub fn parse_decimal(s: &str) -> Option<Decimal> {
    let t = s.trim();
    if t.is_empty() || t.len() > 40 {
        return None;
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let normal: String = if t.contains(',') && !t.contains('.') {
        t.replace(',', ".")
    } else {
        t.to_string()
    };
    let body = normal.strip_prefix('-').unwrap_or(&normal);
    if body.is_empty()
        || !body.chars().all(|c| c.is_ascii_digit() || c == '.')
        || body.matches('.').count() > 1
        || body == "."
    {
        return None;
    }
    // "80." and ".5" are valid amounts in bank files.
    let fixed = if normal.ends_with('.') {
        format!("{normal}0")
    } else {
        normal.clone()
    };
    let fixed = if fixed.starts_with('.') {
        format!("0{fixed}")
    } else if let Some(r) = fixed.strip_prefix("-.") {
        format!("-0.{r}")
    } else {
        fixed
    };
    Decimal::from_str(&fixed).ok().map(at_least_cents)
}

/// Gives an amount at least two decimals, so "80" reads as 80.00.
pub fn at_least_cents(mut d: Decimal) -> Decimal {
    if d.scale() < 2 {
        d.rescale(2);
    }
    d
}

/// Reads `YYYYMMDD` at the start of `s` (OFX dates, ISO dates without dashes).
pub fn ymd_compact(s: &str) -> Option<NaiveDate> {
    let y: i32 = digits(s, 0, 4)?;
    let m: u32 = digits(s, 4, 2)?;
    let d: u32 = digits(s, 6, 2)?;
    NaiveDate::from_ymd_opt(y, m, d)
}

/// Reads `YYYY-MM-DD` at the start of `s` (XML dates and date-times).
pub fn ymd_iso(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    if s.get(4..5) != Some("-") || s.get(7..8) != Some("-") {
        return None;
    }
    let y: i32 = digits(s, 0, 4)?;
    let m: u32 = digits(s, 5, 2)?;
    let d: u32 = digits(s, 8, 2)?;
    NaiveDate::from_ymd_opt(y, m, d)
}

/// Parses `len` ASCII digits at byte `start` of `s`.
pub fn digits<T: FromStr>(s: &str, start: usize, len: usize) -> Option<T> {
    let part = s.get(start..start + len)?;
    if !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    part.parse().ok()
}

/// Replaces the five predefined XML/SGML entities and numeric character
/// references; anything else is left as written (no DTD entities are ever
/// expanded).
pub fn unescape_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(rest.get(..pos).unwrap_or_default());
        let after = rest.get(pos..).unwrap_or_default();
        let end = after.find(';').filter(|&e| e <= 12);
        let replaced = end.and_then(|e| {
            let name = after.get(1..e)?;
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((c, e))
        });
        match replaced {
            Some((c, e)) => {
                out.push(c);
                rest = after.get(e + 1..).unwrap_or_default();
            }
            None => {
                out.push('&');
                rest = after.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal("80,"), Decimal::from_str("80.00").ok());
        assert_eq!(
            parse_decimal("000000006098,75"),
            Decimal::from_str("6098.75").ok()
        );
        assert_eq!(parse_decimal("-5.50"), Decimal::from_str("-5.50").ok());
        assert_eq!(parse_decimal("1.2.3"), None);
        assert_eq!(parse_decimal("abc"), None);
        assert_eq!(parse_decimal("-"), None);
    }

    #[test]
    fn line_numbers() {
        let mut l = Lines::new("a\r\nb\rc\nd");
        assert_eq!(l.line_of(0), 1);
        assert_eq!(l.line_of(3), 2);
        assert_eq!(l.line_of(5), 3);
        assert_eq!(l.line_of(7), 4);
        // Back to an earlier offset, and a CR LF split by the offset.
        assert_eq!(l.line_of(2), 1);
        assert_eq!(l.line_of(3), 2);
        let v: Vec<_> = split_lines("a\r\nb\rc\nd").collect();
        assert_eq!(v, vec![(1, "a"), (2, "b"), (3, "c"), (4, "d")]);
    }

    #[test]
    fn decoding() {
        assert_eq!(
            decode(b"caf\xe9", None),
            (Cow::from("café"), "windows-1252")
        );
        assert_eq!(decode("café".as_bytes(), Some("1252")).1, "utf-8");
        assert_eq!(decode(b"\xe0", Some("ISO-8859-1")).1, "iso-8859-1");
        assert_eq!(decode(b"x", Some("ISO-8859-1")).1, "utf-8");
    }

    #[test]
    fn entities() {
        assert_eq!(unescape_entities("A &amp; B &#233; &foo;"), "A & B é &foo;");
    }
}
