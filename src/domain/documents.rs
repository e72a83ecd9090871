//! Documents: which files are accepted, decided by their first bytes, and
//! how a user's file name is kept and sent back. See `docs/documents.md`.

/// The most one document may hold.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;

/// The longest file name kept (in characters); longer ones are cut.
pub const NAME_MAX: usize = 255;

/// The kinds of file a document may be. Nothing else is stored: a file
/// that could run script in the browser (SVG, HTML) is never accepted,
/// whatever it is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Pdf,
    Jpeg,
    Png,
    Webp,
}

impl Kind {
    /// The kind of a file from its first bytes, or `None`.
    pub fn sniff(bytes: &[u8]) -> Option<Kind> {
        if bytes.starts_with(b"%PDF-") {
            Some(Kind::Pdf)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Kind::Jpeg)
        } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Kind::Png)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(Kind::Webp)
        } else {
            None
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Kind::Pdf => "application/pdf",
            Kind::Jpeg => "image/jpeg",
            Kind::Png => "image/png",
            Kind::Webp => "image/webp",
        }
    }

    /// The kind of a stored content type (as [`Kind::content_type`] wrote it).
    pub fn from_content_type(ct: &str) -> Option<Kind> {
        [Kind::Pdf, Kind::Jpeg, Kind::Png, Kind::Webp]
            .into_iter()
            .find(|k| k.content_type() == ct)
    }

    pub fn is_image(self) -> bool {
        self != Kind::Pdf
    }
}

/// The user's file name as kept: only its last path part (a browser may
/// send `C:\fakepath\x.pdf`), control characters removed, trimmed, at most
/// [`NAME_MAX`] characters; `None` when nothing is left. It is metadata
/// only: the bytes are stored under the document's id.
pub fn clean_name(raw: &str) -> Option<String> {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or(raw);
    let name: String = last
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .chars()
        .take(NAME_MAX)
        .collect();
    (!name.is_empty() && name != "." && name != "..").then_some(name)
}

/// The `Content-Disposition` of a document shown in the browser: the name
/// percent-encoded as RFC 8187 `filename*` asks, so any character is safe
/// in the header.
pub fn content_disposition(name: &str) -> String {
    let mut encoded = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("inline; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_by_their_first_bytes_only() {
        assert_eq!(Kind::sniff(b"%PDF-1.7\n..."), Some(Kind::Pdf));
        assert_eq!(Kind::sniff(&[0xFF, 0xD8, 0xFF, 0xE0, 0]), Some(Kind::Jpeg));
        assert_eq!(Kind::sniff(b"\x89PNG\r\n\x1a\n\0\0"), Some(Kind::Png));
        assert_eq!(Kind::sniff(b"RIFF\x10\0\0\0WEBPVP8 "), Some(Kind::Webp));
        for refused in [
            &b"GIF89a\x01\0"[..],
            b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>",
            b"<!DOCTYPE html><html>",
            b"RIFF\x10\0\0\0WAVEfmt ",
            b"%PD",
            b"",
            b" %PDF-1.4",
        ] {
            assert_eq!(Kind::sniff(refused), None, "{refused:?}");
        }
        for k in [Kind::Pdf, Kind::Jpeg, Kind::Png, Kind::Webp] {
            assert_eq!(Kind::from_content_type(k.content_type()), Some(k));
        }
        assert_eq!(Kind::from_content_type("image/svg+xml"), None);
    }

    #[test]
    fn names_keep_their_last_part_without_control_characters() {
        assert_eq!(clean_name("../../etc/passwd").as_deref(), Some("passwd"));
        assert_eq!(
            clean_name("C:\\fakepath\\Beleg.pdf").as_deref(),
            Some("Beleg.pdf")
        );
        assert_eq!(
            clean_name(" Rechnung\n\u{0}März.pdf ").as_deref(),
            Some("RechnungMärz.pdf")
        );
        assert_eq!(clean_name("<script>.png").as_deref(), Some("<script>.png"));
        assert_eq!(clean_name(".."), None);
        assert_eq!(clean_name("a/"), None);
        assert_eq!(clean_name("   "), None);
        assert_eq!(
            clean_name(&"x".repeat(400)).unwrap().chars().count(),
            NAME_MAX
        );
    }

    #[test]
    fn the_disposition_encodes_every_unsafe_byte() {
        assert_eq!(
            content_disposition("Beleg März \"1\";.pdf"),
            "inline; filename*=UTF-8''Beleg%20M%C3%A4rz%20%221%22%3B.pdf"
        );
        assert_eq!(
            content_disposition("a\r\nb"),
            "inline; filename*=UTF-8''a%0D%0Ab"
        );
    }
}
