//! Time-based one-time codes (RFC 6238) as authenticator apps make them:
//! HMAC-SHA-1, six digits, 30-second steps, and a code accepted one step
//! early or late for clocks that drift. Which step matched is returned, so
//! the caller can refuse the same code (or an older one) a second time.
//!
//! Also the recovery codes that stand in for the app when it is lost.
//! Pure functions; storing, encrypting and limiting are the callers'.

use hmac::{Hmac, Mac};
use rand::Rng;
use sha1::Sha1;
use subtle::ConstantTimeEq;

pub const DIGITS: usize = 6;
pub const STEP_SECONDS: i64 = 30;
/// Steps accepted either side of the current one.
pub const WINDOW: i64 = 1;
/// Bytes of a new secret (160 bits, as RFC 4226 recommends).
pub const SECRET_BYTES: usize = 20;
pub const RECOVERY_CODES: usize = 10;
/// What authenticator apps show as the account's issuer.
pub const ISSUER: &str = "cashkeeper";

/// A new random secret.
pub fn new_secret() -> Vec<u8> {
    let mut secret = vec![0u8; SECRET_BYTES];
    rand::rng().fill(&mut secret[..]);
    secret
}

/// The secret as people type it into an app: Base32 without padding.
pub fn to_base32(secret: &[u8]) -> String {
    data_encoding::BASE32_NOPAD.encode(secret)
}

/// The 30-second step a Unix time falls in.
pub fn step_at(unix_seconds: i64) -> i64 {
    unix_seconds.div_euclid(STEP_SECONDS)
}

/// The code of one step (HOTP of the step counter, RFC 4226).
pub fn code_at(secret: &[u8], step: i64) -> String {
    let mut mac = Hmac::<Sha1>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(&(step as u64).to_be_bytes());
    let digest = mac.finalize().into_bytes();
    let offset = (digest[19] & 0x0f) as usize;
    let binary = u32::from_be_bytes([
        digest[offset] & 0x7f,
        digest[offset + 1],
        digest[offset + 2],
        digest[offset + 3],
    ]);
    format!(
        "{:0width$}",
        binary % 10u32.pow(DIGITS as u32),
        width = DIGITS
    )
}

/// Whether `given` looks like a TOTP code (six digits once spaces are gone)
/// rather than a recovery code.
pub fn looks_like_code(given: &str) -> bool {
    let digits: String = given.chars().filter(|c| !c.is_whitespace()).collect();
    digits.len() == DIGITS && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Checks a code at `unix_seconds`: the step it belongs to when it is the
/// code of the current step or one either side, and that step is later
/// than `last_used` (a code works once; an older one never again).
pub fn verify(
    secret: &[u8],
    given: &str,
    unix_seconds: i64,
    last_used: Option<i64>,
) -> Option<i64> {
    if !looks_like_code(given) {
        return None;
    }
    let given: String = given.chars().filter(|c| !c.is_whitespace()).collect();
    let now = step_at(unix_seconds);
    let mut matched = None;
    // Every candidate is computed and compared, in constant time each, so
    // the time taken does not tell which step matched.
    for step in now - WINDOW..=now + WINDOW {
        let ok: bool = code_at(secret, step)
            .as_bytes()
            .ct_eq(given.as_bytes())
            .into();
        if ok && last_used.is_none_or(|last| step > last) && matched.is_none() {
            matched = Some(step);
        }
    }
    matched
}

/// The `otpauth://` address a QR code carries (Google Authenticator's key
/// URI format, understood by every authenticator app).
pub fn otpauth_url(account: &str, secret: &[u8]) -> String {
    format!(
        "otpauth://totp/{issuer}:{account}?secret={secret}&issuer={issuer}&algorithm=SHA1&digits={DIGITS}&period={STEP_SECONDS}",
        issuer = ISSUER,
        account = percent_encode(account),
        secret = to_base32(secret),
    )
}

fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The QR code of `text` as an SVG document, dark modules on white with a
/// quiet zone, scaled by the page.
pub fn qr_svg(text: &str) -> String {
    let code = qrcode::QrCode::with_error_correction_level(text, qrcode::EcLevel::M)
        .expect("an otpauth address fits in a QR code");
    code.render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(200, 200)
        .dark_color(qrcode::render::svg::Color("#000000"))
        .light_color(qrcode::render::svg::Color("#ffffff"))
        .build()
}

/// Letters and digits that cannot be mistaken for one another.
const RECOVERY_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

/// Ten new recovery codes, `xxxxx-xxxxx` (about 49 bits each).
pub fn new_recovery_codes() -> Vec<String> {
    let mut rng = rand::rng();
    (0..RECOVERY_CODES)
        .map(|_| {
            let mut code = String::with_capacity(11);
            for i in 0..10 {
                if i == 5 {
                    code.push('-');
                }
                code.push(RECOVERY_ALPHABET[rng.random_range(0..RECOVERY_ALPHABET.len())] as char);
            }
            code
        })
        .collect()
}

/// A recovery code as stored and compared: lower case, without the dash
/// and spaces people type or leave out.
pub fn normalize_recovery_code(given: &str) -> String {
    given
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B, SHA-1, truncated to six digits.
    #[test]
    fn the_rfc_6238_test_vectors_give_their_codes() {
        let secret = b"12345678901234567890";
        for (time, code) in [
            (59, "287082"),
            (1111111109, "081804"),
            (1111111111, "050471"),
            (1234567890, "005924"),
            (2000000000, "279037"),
            (20000000000, "353130"),
        ] {
            assert_eq!(code_at(secret, step_at(time)), code, "at {time}");
        }
    }

    #[test]
    fn a_code_is_accepted_one_step_either_side_and_only_once() {
        let secret = b"12345678901234567890";
        let now = 1_111_111_111;
        let step = step_at(now);
        let current = code_at(secret, step);
        assert_eq!(verify(secret, &current, now, None), Some(step));
        assert_eq!(
            verify(secret, &code_at(secret, step - 1), now, None),
            Some(step - 1)
        );
        assert_eq!(
            verify(secret, &code_at(secret, step + 1), now, None),
            Some(step + 1)
        );
        assert_eq!(verify(secret, &code_at(secret, step - 2), now, None), None);
        assert_eq!(verify(secret, &code_at(secret, step + 2), now, None), None);
        // Used once: the same and older codes are refused, a newer one works.
        assert_eq!(verify(secret, &current, now, Some(step)), None);
        assert_eq!(
            verify(secret, &code_at(secret, step - 1), now, Some(step)),
            None
        );
        assert_eq!(
            verify(secret, &code_at(secret, step + 1), now, Some(step)),
            Some(step + 1)
        );
    }

    #[test]
    fn codes_with_spaces_pass_and_other_shapes_do_not() {
        let secret = b"12345678901234567890";
        let now = 59;
        assert_eq!(verify(secret, "287 082", now, None), Some(1));
        assert_eq!(verify(secret, " 287082 ", now, None), Some(1));
        for wrong in ["", "28708", "2870820", "28708a", "２８７０８２", "287082x"] {
            assert_eq!(verify(secret, wrong, now, None), None, "{wrong:?}");
        }
        assert!(!looks_like_code("abcde-fghjk"));
    }

    #[test]
    fn secrets_are_random_and_base32() {
        let a = new_secret();
        assert_eq!(a.len(), SECRET_BYTES);
        assert_ne!(a, new_secret());
        assert_eq!(
            to_base32(b"12345678901234567890"),
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        );
        let url = otpauth_url("anna+money@example.org", &a);
        assert!(url.starts_with("otpauth://totp/cashkeeper:anna%2Bmoney@example.org?secret="));
        assert!(url.contains(&format!("secret={}&", to_base32(&a))));
        assert!(url.ends_with("&issuer=cashkeeper&algorithm=SHA1&digits=6&period=30"));
    }

    #[test]
    fn the_qr_code_is_an_svg_document() {
        let svg = qr_svg("otpauth://totp/cashkeeper:a@example.org?secret=GEZDGNBV");
        assert!(svg.contains("<svg"), "{svg}");
        assert!(svg.contains("#000000"));
        assert!(!svg.contains("<script"));
    }

    #[test]
    fn recovery_codes_are_ten_distinct_and_normalise_as_typed() {
        let codes = new_recovery_codes();
        assert_eq!(codes.len(), 10);
        let mut unique = codes.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 10);
        for c in &codes {
            assert_eq!(c.len(), 11);
            assert_eq!(&c[5..6], "-");
            assert_eq!(normalize_recovery_code(c).len(), 10);
        }
        assert_eq!(normalize_recovery_code(" ABCDE-fghjk "), "abcdefghjk");
        assert_eq!(normalize_recovery_code("abcde fghjk"), "abcdefghjk");
    }
}
