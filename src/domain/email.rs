//! Email addresses as users type them.

use crate::error::{Error, Reason, Result};
use unicode_normalization::UnicodeNormalization;

/// An address that looks like one: `local@domain.tld`, no spaces, at most
/// 254 characters. Normalised before anything compares it: NFKC (so "é"
/// typed as one character or as "e" plus an accent is one address, and a
/// full-width "ｃ" is a "c"), invisible characters removed (zero-width
/// spaces and joiners, the byte order mark, soft hyphens), trimmed. Kept
/// in that form with its letter case; compared by [`Email::key`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

/// Characters that show as nothing and would let two addresses that look
/// the same register twice.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
    )
}

impl Email {
    pub fn parse(field: &'static str, raw: &str) -> Result<Email> {
        let normalised: String = raw.nfkc().filter(|c| !invisible(*c)).collect();
        let s = normalised.trim();
        let bad = || Error::invalid(field, Reason::NotAnEmail);
        if s.is_empty() {
            return Err(Error::invalid(field, Reason::Required));
        }
        if s.len() > 254 || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad());
        }
        let (local, domain) = s.rsplit_once('@').ok_or_else(bad)?;
        let domain_ok = domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
            && !domain.contains('@');
        if local.is_empty() || local.contains('@') || !domain_ok {
            return Err(bad());
        }
        Ok(Email(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form addresses are matched and kept unique by: lower-cased.
    pub fn key(&self) -> String {
        self.0.to_lowercase()
    }

    /// Refuses an address for a new account whose local part, or one of
    /// whose domain's labels, mixes letters of alphabets that look alike
    /// (a Cyrillic "а" among Latin letters): it would pass for another
    /// person's address. Latin beside Chinese, Japanese or Korean script is
    /// an ordinary mix and allowed.
    pub fn require_one_alphabet(&self, field: &'static str) -> Result<()> {
        let (local, domain) = self.0.rsplit_once('@').unwrap_or((&self.0, ""));
        let mixed = std::iter::once(local).chain(domain.split('.')).any(|part| {
            let mut seen = None;
            part.chars().filter_map(alphabet).any(|a| {
                let other = seen.is_some_and(|s| s != a);
                seen = Some(a);
                other
            })
        });
        if mixed {
            return Err(Error::invalid(field, Reason::MixedAlphabets));
        }
        Ok(())
    }

    /// The key with every Cyrillic or Greek letter that looks like a Latin
    /// one replaced by it, when that changes anything: "сосо@example.org"
    /// in Cyrillic letters has the twin "coco@example.org", which a new
    /// account must not pass for.
    pub fn latin_twin(&self) -> Option<String> {
        let key = self.key();
        let twin: String = key
            .chars()
            .map(|c| latin_look_alike(c).unwrap_or(c))
            .collect();
        (twin != key).then_some(twin)
    }
}

/// The alphabets told apart when an address mixes them; `None` for what
/// is no letter (digits, punctuation, marks) and for Chinese, Japanese and
/// Korean script, which is written beside Latin letters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alphabet {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Cherokee,
    Other,
}

fn alphabet(c: char) -> Option<Alphabet> {
    if !c.is_alphabetic() {
        return None;
    }
    Some(match c {
        'a'..='z'
        | 'A'..='Z'
        | '\u{00AA}'
        | '\u{00BA}'
        | '\u{00C0}'..='\u{02AF}'
        | '\u{1D00}'..='\u{1DBF}'
        | '\u{1E00}'..='\u{1EFF}'
        | '\u{2C60}'..='\u{2C7F}'
        | '\u{A720}'..='\u{A7FF}'
        | '\u{AB30}'..='\u{AB6F}' => Alphabet::Latin,
        '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' => Alphabet::Greek,
        '\u{0400}'..='\u{052F}'
        | '\u{1C80}'..='\u{1C8F}'
        | '\u{2DE0}'..='\u{2DFF}'
        | '\u{A640}'..='\u{A69F}' => Alphabet::Cyrillic,
        '\u{0530}'..='\u{058F}' => Alphabet::Armenian,
        '\u{13A0}'..='\u{13FF}' | '\u{AB70}'..='\u{ABBF}' => Alphabet::Cherokee,
        '\u{1100}'..='\u{11FF}'
        | '\u{2E80}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3FFFF}' => return None,
        _ => Alphabet::Other,
    })
}

/// The Latin letter a lower-case Cyrillic or Greek one is mistaken for.
fn latin_look_alike(c: char) -> Option<char> {
    Some(match c {
        // Cyrillic
        'а' => 'a',
        'с' => 'c',
        'ԁ' => 'd',
        'е' => 'e',
        'һ' => 'h',
        'і' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'ӏ' => 'l',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'у' => 'y',
        'ԝ' => 'w',
        'х' => 'x',
        // Greek
        'α' => 'a',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'υ' => 'u',
        'χ' => 'x',
        'γ' => 'y',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_addresses_and_trims() {
        assert_eq!(
            Email::parse("email", " Ann@Example.org ").unwrap().as_str(),
            "Ann@Example.org"
        );
        assert!(Email::parse("email", "a.b+tag@sub.example.co.uk").is_ok());
    }

    #[test]
    fn look_alike_forms_are_one_address() {
        let plain = Email::parse("email", "rene@example.org").unwrap();
        let composed = Email::parse("email", "Ren\u{00E9}@example.org").unwrap();
        let decomposed = Email::parse("email", "Rene\u{0301}@example.org").unwrap();
        assert_eq!(composed.key(), decomposed.key());
        assert_eq!(composed.as_str(), "Ren\u{00E9}@example.org");
        assert_ne!(plain.key(), composed.key());
        for hidden in [
            "ann\u{200B}@example.org",
            "\u{FEFF}ann@example.org",
            "an\u{00AD}n@example.org",
            "ann@exam\u{200D}ple.org",
            " ANN@example.org\u{2060} ",
        ] {
            assert_eq!(
                Email::parse("email", hidden).unwrap().key(),
                "ann@example.org",
                "{hidden:?}"
            );
        }
    }

    #[test]
    fn look_alike_alphabets_are_told() {
        let wide = Email::parse("email", "\u{FF43}arol@example.org").unwrap();
        assert_eq!(wide.key(), "carol@example.org");
        let mixed = Email::parse("email", "c\u{0430}rol@example.org").unwrap();
        assert!(mixed.require_one_alphabet("email").is_err());
        let in_domain = Email::parse("email", "carol@ex\u{0430}mple.org").unwrap();
        assert!(in_domain.require_one_alphabet("email").is_err());
        for fine in [
            "carol@example.org",
            "\u{0441}\u{043E}\u{0441}\u{043E}@example.org",
            "\u{7530}\u{4E2D}tanaka@example.jp",
            "ren\u{00E9}@example.org",
        ] {
            let e = Email::parse("email", fine).unwrap();
            assert!(e.require_one_alphabet("email").is_ok(), "{fine}");
        }
        let cyrillic =
            Email::parse("email", "\u{0441}\u{043E}\u{0441}\u{043E}@example.org").unwrap();
        assert_eq!(cyrillic.latin_twin().as_deref(), Some("coco@example.org"));
        assert_eq!(
            Email::parse("email", "coco@example.org")
                .unwrap()
                .latin_twin(),
            None
        );
    }

    #[test]
    fn refuses_what_is_not_an_address_naming_the_field() {
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.org",
            "ann@example",
            "a b@x.org",
            "a@b@x.org",
            "a@x..org",
            "a@.x.org",
        ] {
            let err = Email::parse("email", bad).unwrap_err().to_string();
            assert!(err.starts_with("email: "), "{bad}: {err}");
        }
    }
}
