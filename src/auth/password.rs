//! argon2id password hashing. Hashing is slow on purpose, so callers run it
//! on the blocking pool ([`hash`] and [`verify`] are async for that reason).

use crate::error::{Error, Result};
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use std::sync::OnceLock;

/// The shortest password accepted.
pub const MIN_LEN: usize = 8;
/// The longest; argon2 would take anything, but a megabyte "password" is an attack.
pub const MAX_LEN: usize = 1024;

/// Checks the only password rule: 8 to 1024 characters.
pub fn check_rule(field: &'static str, password: &str) -> Result<()> {
    let n = password.chars().count();
    if n < MIN_LEN {
        return Err(Error::invalid(field, "must be at least 8 characters"));
    }
    if n > MAX_LEN {
        return Err(Error::invalid(field, "must be at most 1024 characters"));
    }
    Ok(())
}

fn hash_blocking(password: &str) -> Result<String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| Error::Internal(anyhow::anyhow!("argon2 hash: {e}")))
}

fn verify_blocking(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// A hash of a password nobody knows, so checking an unknown email costs the
/// same time as checking a known one.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_blocking("cashkeeper-dummy-password").expect("argon2 works"))
}

pub async fn hash(password: String) -> Result<String> {
    tokio::task::spawn_blocking(move || hash_blocking(&password)).await?
}

/// Checks `password` against `phc`; with `None` it spends the same time and
/// answers `false`.
pub async fn verify(password: String, phc: Option<String>) -> Result<bool> {
    Ok(tokio::task::spawn_blocking(move || match phc {
        Some(phc) => verify_blocking(&password, &phc),
        None => {
            verify_blocking(&password, dummy_hash());
            false
        }
    })
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_argon2id_and_verify() {
        let h = hash_blocking("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify_blocking("correct horse", &h));
        assert!(!verify_blocking("correct hors", &h));
        assert!(!verify_blocking("correct horse", "not a phc string"));
    }

    #[test]
    fn the_rule_is_eight_characters() {
        assert!(check_rule("password", "1234567").is_err());
        assert!(check_rule("password", "12345678").is_ok());
        assert!(check_rule("password", "äöüäöüäö").is_ok());
        let err = check_rule("newPassword", "short").unwrap_err().to_string();
        assert_eq!(err, "newPassword: must be at least 8 characters");
    }
}
