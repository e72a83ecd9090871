//! FinTS 3.0 message syntax: a message is segments ending in `'`, a
//! segment is data elements separated by `+`, an element is items
//! separated by `:` (a data element group), `?` escapes the next byte and
//! `@n@` starts `n` bytes of binary data taken as they are.
//!
//! Parsing is a pure function over bytes, bounded by [`MAX_MESSAGE`] and
//! [`MAX_SEGMENTS`], that never panics: a hostile answer is an error, not
//! a crash. Text is ISO 8859-1, the character set FinTS uses.

use std::fmt;

/// The largest message read or written: a statement of many thousand
/// bookings is a few MiB.
pub const MAX_MESSAGE: usize = 64 << 20;

/// The most segments one message may hold.
pub const MAX_SEGMENTS: usize = 100_000;

/// One item of a data element group: text (unescaped, ISO 8859-1 bytes)
/// or binary data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub bytes: Vec<u8>,
    pub binary: bool,
}

impl Item {
    pub fn text(s: &str) -> Item {
        Item {
            bytes: latin1(s),
            binary: false,
        }
    }
    pub fn binary(bytes: Vec<u8>) -> Item {
        Item {
            bytes,
            binary: true,
        }
    }
    /// The item as text, read as ISO 8859-1.
    pub fn as_text(&self) -> String {
        self.bytes.iter().map(|&b| b as char).collect()
    }
}

/// A data element: one item, or several for a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element(pub Vec<Item>);

impl Element {
    pub fn text(s: &str) -> Element {
        Element(vec![Item::text(s)])
    }
    /// A group of text items.
    pub fn group(items: &[&str]) -> Element {
        Element(items.iter().map(|s| Item::text(s)).collect())
    }
    pub fn binary(bytes: Vec<u8>) -> Element {
        Element(vec![Item::binary(bytes)])
    }
    pub fn empty() -> Element {
        Element(vec![Item::text("")])
    }
    /// The item at `i` as text, `""` when absent.
    pub fn at(&self, i: usize) -> String {
        self.0.get(i).map(Item::as_text).unwrap_or_default()
    }
}

/// A segment; element 0 is the header `kind:number:version[:reference]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment(pub Vec<Element>);

impl Segment {
    /// A segment to send: the number is set when the message is built.
    pub fn new(kind: &str, version: u32, elements: Vec<Element>) -> Segment {
        let mut all = vec![Element::group(&[kind, "0", &version.to_string()])];
        all.extend(elements);
        Segment(all)
    }
    /// The segment's kind, e.g. `HIRMS`.
    pub fn kind(&self) -> String {
        self.header(0)
    }
    pub fn number(&self) -> u32 {
        self.header(1).parse().unwrap_or(0)
    }
    pub fn version(&self) -> u32 {
        self.header(2).parse().unwrap_or(0)
    }
    /// The number of the segment this one answers, if any.
    pub fn reference(&self) -> Option<u32> {
        self.header(3).parse().ok()
    }
    fn header(&self, i: usize) -> String {
        self.0.first().map(|e| e.at(i)).unwrap_or_default()
    }
    pub fn set_number(&mut self, n: u32) {
        if let Some(item) = self.0.first_mut().and_then(|e| e.0.get_mut(1)) {
            *item = Item::text(&n.to_string());
        }
    }
    /// Data element `i` (1 is the first after the header).
    pub fn element(&self, i: usize) -> Option<&Element> {
        self.0.get(i)
    }
    /// Item `j` of element `i` as text, `""` when absent.
    pub fn text(&self, i: usize, j: usize) -> String {
        self.element(i).map(|e| e.at(j)).unwrap_or_default()
    }
    /// The data elements after the header.
    pub fn elements(&self) -> &[Element] {
        self.0.get(1..).unwrap_or(&[])
    }
}

/// Why bytes are not a FinTS message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    TooLarge,
    TooManySegments,
    /// Ends inside a segment, an escape or binary data.
    Truncated,
    /// `@…@` without a valid length.
    BadBinaryLength {
        at: usize,
    },
    Empty,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyntaxError::TooLarge => write!(f, "message larger than {MAX_MESSAGE} bytes"),
            SyntaxError::TooManySegments => write!(f, "more than {MAX_SEGMENTS} segments"),
            SyntaxError::Truncated => write!(f, "message cut off"),
            SyntaxError::BadBinaryLength { at } => write!(f, "bad binary length at byte {at}"),
            SyntaxError::Empty => write!(f, "empty message"),
        }
    }
}

impl std::error::Error for SyntaxError {}

/// Parses a message into its segments.
pub fn parse(bytes: &[u8]) -> Result<Vec<Segment>, SyntaxError> {
    if bytes.len() > MAX_MESSAGE {
        return Err(SyntaxError::TooLarge);
    }
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace() && *b != 0)
        .map_or(0, |p| p + 1);
    let bytes = &bytes[..end];
    if bytes.is_empty() {
        return Err(SyntaxError::Empty);
    }
    let mut segments = Vec::new();
    let mut elements: Vec<Element> = Vec::new();
    let mut items: Vec<Item> = Vec::new();
    let mut current = Item::text("");
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'?' => {
                let next = *bytes.get(i + 1).ok_or(SyntaxError::Truncated)?;
                current.bytes.push(next);
                i += 2;
                continue;
            }
            b'@' if current.bytes.is_empty() && !current.binary => {
                let digits_end = bytes[i + 1..]
                    .iter()
                    .position(|&c| c == b'@')
                    .map(|p| i + 1 + p)
                    .ok_or(SyntaxError::Truncated)?;
                let digits = &bytes[i + 1..digits_end];
                if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit)
                {
                    return Err(SyntaxError::BadBinaryLength { at: i });
                }
                let n: usize = std::str::from_utf8(digits)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or(SyntaxError::BadBinaryLength { at: i })?;
                let start = digits_end + 1;
                let stop = start.checked_add(n).ok_or(SyntaxError::Truncated)?;
                let data = bytes.get(start..stop).ok_or(SyntaxError::Truncated)?;
                current = Item::binary(data.to_vec());
                i = stop;
                continue;
            }
            b':' => items.push(std::mem::replace(&mut current, Item::text(""))),
            b'+' => {
                items.push(std::mem::replace(&mut current, Item::text("")));
                elements.push(Element(std::mem::take(&mut items)));
            }
            b'\'' => {
                items.push(std::mem::replace(&mut current, Item::text("")));
                elements.push(Element(std::mem::take(&mut items)));
                segments.push(Segment(std::mem::take(&mut elements)));
                if segments.len() > MAX_SEGMENTS {
                    return Err(SyntaxError::TooManySegments);
                }
            }
            _ => {
                if current.binary {
                    // Text after binary data in the same item: not FinTS.
                    return Err(SyntaxError::BadBinaryLength { at: i });
                }
                current.bytes.push(b)
            }
        }
        i += 1;
    }
    if !current.bytes.is_empty() || current.binary || !items.is_empty() || !elements.is_empty() {
        return Err(SyntaxError::Truncated);
    }
    Ok(segments)
}

/// Writes segments as a message, escaping text and framing binary data.
pub fn write(segments: &[Segment]) -> Vec<u8> {
    let mut out = Vec::new();
    for segment in segments {
        write_segment(segment, &mut out);
    }
    out
}

fn write_segment(segment: &Segment, out: &mut Vec<u8>) {
    for (ei, element) in segment.0.iter().enumerate() {
        if ei > 0 {
            out.push(b'+');
        }
        for (ii, item) in element.0.iter().enumerate() {
            if ii > 0 {
                out.push(b':');
            }
            if item.binary {
                out.extend_from_slice(format!("@{}@", item.bytes.len()).as_bytes());
                out.extend_from_slice(&item.bytes);
            } else {
                for &b in &item.bytes {
                    if matches!(b, b'?' | b'@' | b'\'' | b'+' | b':') {
                        out.push(b'?');
                    }
                    out.push(b);
                }
            }
        }
    }
    out.push(b'\'');
}

/// Text as ISO 8859-1 bytes; a character outside it becomes `?`.
pub fn latin1(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_escapes_groups_and_binary() {
        let msg =
            b"HIRMS:4:2:3+3040::Weitere Daten:9978-12-08?:9789+0020::ok'HIKAZ:7:5:3+@5@a'b+c'";
        let segs = parse(msg).unwrap();
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[0].kind(), "HIRMS");
        assert_eq!(segs[0].reference(), Some(3));
        assert_eq!(segs[0].text(1, 3), "9978-12-08:9789");
        assert_eq!(segs[0].text(2, 0), "0020");
        assert_eq!(
            segs[1].element(1).unwrap().0[0],
            Item::binary(b"a'b+c".to_vec())
        );
    }

    #[test]
    fn hostile_input_is_an_error_not_a_panic() {
        for bad in [
            &b"HNHBK:1:3+@99@abc'"[..],
            b"HNHBK:1:3+@x@abc'",
            b"HNHBK:1:3+@",
            b"HNHBK:1:3+abc?",
            b"HNHBK:1:3+abc",
            b"HNHBK:1:3+@18446744073709551615@'",
            b"HNHBK:1:3+@2@abc'",
            b"   ",
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn trailing_whitespace_is_ignored() {
        assert_eq!(parse(b"HNHBS:5:1+1'\r\n").unwrap().len(), 1);
    }

    #[test]
    fn text_is_latin1() {
        let seg = Segment::new("HKTST", 1, vec![Element::text("Käse €")]);
        let bytes = write(&[seg]);
        assert!(bytes.contains(&0xe4));
        assert_eq!(parse(&bytes).unwrap()[0].text(1, 0), "Käse ?");
    }

    fn item() -> impl Strategy<Value = Item> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(|b| Item {
                bytes: b,
                binary: false
            }),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(Item::binary),
        ]
    }

    fn segment() -> impl Strategy<Value = Segment> {
        proptest::collection::vec(
            proptest::collection::vec(item(), 1..4).prop_map(Element),
            1..5,
        )
        .prop_map(Segment)
    }

    proptest! {
        #[test]
        fn write_then_parse_round_trips(segs in proptest::collection::vec(segment(), 1..5)) {
            prop_assert_eq!(parse(&write(&segs)).unwrap(), segs);
        }

        #[test]
        fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn parse_never_panics_on_fints_like_bytes(
            bytes in proptest::collection::vec(prop_oneof![Just(b'?'), Just(b'@'), Just(b'\''), Just(b'+'), Just(b':'), Just(b'1'), Just(b'A')], 0..60)
        ) {
            let _ = parse(&bytes);
        }
    }
}
