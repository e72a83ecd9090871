//! Secrets the server must read back (two-factor secrets), stored
//! encrypted with AES-256-GCM under a key kept in a file beside the
//! database, `<data dir>/secrets.key`. A copy of the database alone (a
//! stolen backup, a Litestream replica) then does not give them away; the
//! key file must be kept with the data directory (docs/sign-in.md).
//!
//! Stored form: `v1:` + Base64 of the 12-byte nonce and the ciphertext.

use crate::error::{Error, Result};
use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine;
use rand::Rng;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const KEY_FILE: &str = "secrets.key";
const PREFIX: &str = "v1:";

#[derive(Clone)]
pub struct Sealer {
    cipher: Aes256Gcm,
    /// HMAC key of [`Sealer::fingerprint`], derived from the same file.
    mac_key: [u8; 32],
}

impl Sealer {
    /// The key of the data directory, made (readable by the owner only) the
    /// first time it is needed.
    pub fn load_or_create(data_dir: &Path) -> Result<Sealer> {
        let path = key_path(data_dir);
        let key = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_key(&path)?,
            Err(e) => {
                return Err(Error::Internal(anyhow::anyhow!(
                    "reading {}: {e}",
                    path.display()
                )))
            }
        };
        Sealer::from_key(&key).ok_or_else(|| {
            Error::Internal(anyhow::anyhow!(
                "{} must hold 32 bytes; it holds {}",
                path.display(),
                key.len()
            ))
        })
    }

    pub fn from_key(key: &[u8]) -> Option<Sealer> {
        use hmac::{Hmac, Mac};
        (key.len() == 32).then(|| {
            let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key).expect("any key length");
            mac.update(b"cashkeeper fingerprint key v1");
            Sealer {
                cipher: Aes256Gcm::new_from_slice(key).expect("32 bytes"),
                mac_key: mac.finalize().into_bytes().into(),
            }
        })
    }

    /// A keyed hash (HMAC-SHA-256, hex) of a short secret the server only
    /// compares, such as a recovery code: unlike a plain hash, a copy of
    /// the database alone does not allow guessing it offline.
    pub fn fingerprint(&self, secret: &str) -> String {
        use hmac::{Hmac, Mac};
        let mut mac =
            <Hmac<sha2::Sha256> as Mac>::new_from_slice(&self.mac_key).expect("any key length");
        mac.update(secret.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    pub fn seal(&self, plain: &[u8]) -> String {
        let mut nonce = [0u8; 12];
        rand::rng().fill(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(&Nonce::from(nonce), plain)
            .expect("AES-GCM encrypts any length this stores");
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    }

    /// `None` when the text was sealed under another key or is damaged.
    pub fn open(&self, stored: &str) -> Option<Vec<u8>> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(stored.strip_prefix(PREFIX)?)
            .ok()?;
        if bytes.len() < 12 + 16 {
            return None;
        }
        let (nonce, sealed) = bytes.split_at(12);
        let nonce: [u8; 12] = nonce.try_into().ok()?;
        self.cipher.decrypt(&Nonce::from(nonce), sealed).ok()
    }
}

pub fn key_path(data_dir: &Path) -> PathBuf {
    data_dir.join(KEY_FILE)
}

/// Writes a new random key; if another process made one first, that one
/// is used.
fn create_key(path: &Path) -> Result<Vec<u8>> {
    let mut key = vec![0u8; 32];
    rand::rng().fill(&mut key[..]);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(&key)
                .and_then(|_| file.sync_all())
                .map_err(|e| Error::Internal(anyhow::anyhow!("writing {}: {e}", path.display())))?;
            Ok(key)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => std::fs::read(path)
            .map_err(|e| Error::Internal(anyhow::anyhow!("reading {}: {e}", path.display()))),
        Err(e) => Err(Error::Internal(anyhow::anyhow!(
            "creating {}: {e}",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_depend_on_the_key_and_never_equal_a_plain_hash() {
        let a = Sealer::from_key(&[1u8; 32]).unwrap();
        let b = Sealer::from_key(&[2u8; 32]).unwrap();
        assert_eq!(a.fingerprint("abcd-efgh"), a.fingerprint("abcd-efgh"));
        assert_ne!(a.fingerprint("abcd-efgh"), a.fingerprint("abcd-efgi"));
        assert_ne!(a.fingerprint("abcd-efgh"), b.fingerprint("abcd-efgh"));
        assert_ne!(
            a.fingerprint("abcd-efgh"),
            crate::auth::secrets::sha256_hex("abcd-efgh")
        );
        assert_eq!(a.fingerprint("x").len(), 64);
    }

    #[test]
    fn sealed_text_opens_with_its_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let a = Sealer::load_or_create(dir.path()).unwrap();
        let sealed = a.seal(b"12345678901234567890");
        assert!(sealed.starts_with("v1:"));
        assert!(!sealed.contains("12345678901234567890"));
        assert_ne!(
            sealed,
            a.seal(b"12345678901234567890"),
            "a new nonce each time"
        );
        assert_eq!(a.open(&sealed).unwrap(), b"12345678901234567890");
        // The same directory gives the same key.
        let again = Sealer::load_or_create(dir.path()).unwrap();
        assert_eq!(again.open(&sealed).unwrap(), b"12345678901234567890");
        // Another key, damage or a foreign form: nothing.
        let other = Sealer::from_key(&[7u8; 32]).unwrap();
        assert!(other.open(&sealed).is_none());
        let mut damaged = sealed.clone();
        damaged.pop();
        damaged.push(if sealed.ends_with('A') { 'B' } else { 'A' });
        assert!(a.open(&damaged).is_none());
        assert!(a.open("GEZDGNBV").is_none());
        assert!(a.open("v1:").is_none());
    }

    #[cfg(unix)]
    #[test]
    fn the_key_file_is_the_owners_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        Sealer::load_or_create(dir.path()).unwrap();
        let meta = std::fs::metadata(key_path(dir.path())).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(meta.len(), 32);
    }

    #[test]
    fn a_key_file_of_the_wrong_size_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(key_path(dir.path()), b"short").unwrap();
        assert!(Sealer::load_or_create(dir.path()).is_err());
    }
}
