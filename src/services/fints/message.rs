//! Building the messages the client sends (the PIN/TAN envelope around the
//! order segments) and reading the bank's answers: the dialog id, the
//! segments inside the encryption envelope, and the return codes.

use super::syntax::{self, Element, Item, Segment, SyntaxError};

/// Country code of Germany in FinTS bank ids.
pub const COUNTRY: &str = "280";

/// The security function of one-step PIN/TAN (no TAN).
pub const ONE_STEP: &str = "999";

/// The customer id of an anonymous dialog.
pub const ANONYMOUS_CUSTOMER: &str = "9999999999";

/// Who signs a message and how.
#[derive(Clone, Debug)]
pub struct Signer<'a> {
    pub bank_code: &'a str,
    pub login: &'a str,
    pub system_id: &'a str,
    /// The TAN method's code, or [`ONE_STEP`].
    pub security_function: &'a str,
    pub pin: &'a str,
    pub tan: Option<&'a str>,
}

/// Builds a message: header, the segments (signed and wrapped in the
/// PIN/TAN encryption envelope when there is a signer), trailer.
pub fn build(
    dialog_id: &str,
    message_number: u32,
    segments: Vec<Segment>,
    signer: Option<&Signer<'_>>,
    control_reference: &str,
    timestamp: (&str, &str),
) -> Vec<u8> {
    let mut body: Vec<Segment> = Vec::new();
    let mut n = 2;
    match signer {
        None => {
            for mut s in segments {
                s.set_number(n);
                n += 1;
                body.push(s);
            }
        }
        Some(sig) => {
            let profile = if sig.security_function == ONE_STEP {
                "1"
            } else {
                "2"
            };
            let mut inner = Vec::new();
            let mut head = Segment::new(
                "HNSHK",
                4,
                vec![
                    Element::group(&["PIN", profile]),
                    Element::text(sig.security_function),
                    Element::text(control_reference),
                    Element::text("1"),
                    Element::text("1"),
                    Element::group(&["1", "", sig.system_id]),
                    Element::text("1"),
                    Element::group(&["1", timestamp.0, timestamp.1]),
                    Element::group(&["1", "999", "1"]),
                    Element::group(&["6", "10", "19"]),
                    Element::group(&[COUNTRY, sig.bank_code, sig.login, "S", "0", "0"]),
                ],
            );
            head.set_number(n);
            n += 1;
            inner.push(head);
            for mut s in segments {
                s.set_number(n);
                n += 1;
                inner.push(s);
            }
            let mut pin = vec![Item::text(sig.pin)];
            if let Some(tan) = sig.tan {
                pin.push(Item::text(tan));
            }
            let mut tail = Segment::new(
                "HNSHA",
                2,
                vec![
                    Element::text(control_reference),
                    Element::empty(),
                    Element(pin),
                ],
            );
            tail.set_number(n);
            n += 1;
            inner.push(tail);
            let mut vsk = Segment::new(
                "HNVSK",
                3,
                vec![
                    Element::group(&["PIN", profile]),
                    Element::text("998"),
                    Element::text("1"),
                    Element::group(&["1", "", sig.system_id]),
                    Element::group(&["1", timestamp.0, timestamp.1]),
                    Element(vec![
                        Item::text("2"),
                        Item::text("2"),
                        Item::text("13"),
                        Item::binary(b"00000000".to_vec()),
                        Item::text("5"),
                        Item::text("1"),
                    ]),
                    Element::group(&[COUNTRY, sig.bank_code, sig.login, "V", "0", "0"]),
                    Element::text("0"),
                ],
            );
            vsk.set_number(998);
            let mut vsd = Segment::new("HNVSD", 1, vec![Element::binary(syntax::write(&inner))]);
            vsd.set_number(999);
            body.push(vsk);
            body.push(vsd);
        }
    }
    let mut trailer = Segment::new("HNHBS", 1, vec![Element::text(&message_number.to_string())]);
    trailer.set_number(n);
    body.push(trailer);
    let rest = syntax::write(&body);
    // The header states the whole message's size, its own 12 digits included.
    let header_for = |size: usize| {
        let mut h = Segment::new(
            "HNHBK",
            3,
            vec![
                Element::text(&format!("{size:012}")),
                Element::text("300"),
                Element::text(dialog_id),
                Element::text(&message_number.to_string()),
            ],
        );
        h.set_number(1);
        syntax::write(&[h])
    };
    let size = header_for(0).len() + rest.len();
    let mut out = header_for(size);
    out.extend_from_slice(&rest);
    out
}

/// One return code of the bank: `0xxx` success, `3xxx` a warning or note,
/// `9xxx` an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    pub code: String,
    pub text: String,
    pub params: Vec<String>,
    /// The number of the sent segment it answers; `None` for the message.
    pub segment: Option<u32>,
}

impl Code {
    pub fn is_error(&self) -> bool {
        self.code.starts_with('9')
    }
}

/// An answer of the bank.
#[derive(Clone, Debug)]
pub struct Response {
    pub dialog_id: String,
    /// All segments, those inside the encryption envelope in its place.
    pub segments: Vec<Segment>,
    pub codes: Vec<Code>,
}

impl Response {
    pub fn parse(bytes: &[u8]) -> Result<Response, SyntaxError> {
        let outer = syntax::parse(bytes)?;
        let mut segments = Vec::with_capacity(outer.len());
        for s in outer {
            if s.kind() == "HNVSD" {
                let inner = s
                    .element(1)
                    .and_then(|e| e.0.first())
                    .map(|i| i.bytes.clone())
                    .unwrap_or_default();
                segments.extend(syntax::parse(&inner)?);
            } else {
                segments.push(s);
            }
        }
        let dialog_id = segments
            .iter()
            .find(|s| s.kind() == "HNHBK")
            .map(|s| s.text(3, 0))
            .unwrap_or_default();
        let mut codes = Vec::new();
        for s in &segments {
            let kind = s.kind();
            if kind != "HIRMG" && kind != "HIRMS" {
                continue;
            }
            let segment = if kind == "HIRMS" { s.reference() } else { None };
            for e in s.elements() {
                codes.push(Code {
                    code: e.at(0),
                    text: e.at(2),
                    params: e.0.iter().skip(3).map(Item::as_text).collect(),
                    segment,
                });
            }
        }
        Ok(Response {
            dialog_id,
            segments,
            codes,
        })
    }

    /// The segments of `kind`.
    pub fn all<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Segment> + 'a {
        self.segments.iter().filter(move |s| s.kind() == kind)
    }

    pub fn first(&self, kind: &str) -> Option<&Segment> {
        self.segments.iter().find(|s| s.kind() == kind)
    }

    pub fn has(&self, code: &str) -> bool {
        self.codes.iter().any(|c| c.code == code)
    }

    pub fn code(&self, code: &str) -> Option<&Code> {
        self.codes.iter().find(|c| c.code == code)
    }

    /// The continuation point (3040) answering segment `segment`.
    pub fn touchdown(&self, segment: u32) -> Option<String> {
        self.codes
            .iter()
            .find(|c| c.code == "3040" && (c.segment == Some(segment) || c.segment.is_none()))
            .and_then(|c| c.params.first().cloned())
            .filter(|t| !t.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_message_states_its_own_size_and_hides_the_order_inside() {
        let signer = Signer {
            bank_code: "12030000",
            login: "test@user",
            system_id: "0",
            security_function: ONE_STEP,
            pin: "12345",
            tan: None,
        };
        let msg = build(
            "0",
            1,
            vec![Segment::new("HKSYN", 3, vec![Element::text("0")])],
            Some(&signer),
            "9999999",
            ("20190102", "030405"),
        );
        let text = String::from_utf8_lossy(&msg).into_owned();
        assert!(
            text.starts_with(&format!("HNHBK:1:3+{:012}+300+0+1'", msg.len())),
            "{text}"
        );
        assert!(text.contains("HNVSK:998:3+PIN:1+998+1+1::0+1:20190102:030405+2:2:13:@8@00000000:5:1+280:12030000:test?@user:V:0:0+0'"), "{text}");
        assert!(
            text.contains("HKSYN:3:3+0'HNSHA:4:2+9999999++12345''HNHBS:5:1+1'"),
            "{text}"
        );
        let parsed = Response::parse(&msg).unwrap();
        assert!(parsed.first("HKSYN").is_some());
    }

    #[test]
    fn codes_and_the_continuation_point_are_read() {
        let r = Response::parse(b"HNHBK:1:3+000000000100+300+DIALOG1+2+DIALOG1:2'HIRMG:3:2+3060::Hinweise'HIRMS:4:2:3+0020::ok+3040::Es liegen weitere Informationen vor.:9978-12-08-12.12.22.?:9789'HNHBS:5:1+2'").unwrap();
        assert_eq!(r.dialog_id, "DIALOG1");
        assert!(r.has("3060"));
        assert_eq!(r.touchdown(3).as_deref(), Some("9978-12-08-12.12.22.:9789"));
        assert_eq!(r.touchdown(4), None);
    }
}
