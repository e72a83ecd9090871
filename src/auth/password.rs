//! argon2id password hashing. Hashing is slow on purpose and works in
//! 19 MiB of memory, so it runs on a small pool of its own: one thread per
//! core but one (at least one, at most [`MAX_WORKERS`]), fed by a queue. A
//! flood of sign-ins then waits in the queue instead of running a hundred
//! hashes at once, and leaves a core free to serve everything else.
//!
//! Each worker keeps its 19 MiB of argon2 memory for good and reuses it
//! for every run, instead of letting argon2 allocate and free it each time:
//! glibc serves such large, 64-byte-aligned allocations from a heap that
//! grows by a block per run and never gives it back (measured: 19 MiB more
//! resident memory after every sign-in). The memory of all password work
//! is therefore exactly the pool's size times 19 MiB.

use crate::error::{Error, Reason, Result};
use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use std::cell::RefCell;
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

/// The shortest password accepted.
pub const MIN_LEN: usize = 8;
/// The longest; argon2 would take anything, but a megabyte "password" is an attack.
pub const MAX_LEN: usize = 1024;

/// Checks the only password rule: 8 to 1024 characters.
pub fn check_rule(field: &'static str, password: &str) -> Result<()> {
    let n = password.chars().count();
    if n < MIN_LEN {
        return Err(Error::invalid(field, Reason::PasswordTooShort));
    }
    if n > MAX_LEN {
        return Err(Error::invalid(field, Reason::MaxChars(1024)));
    }
    Ok(())
}

thread_local! {
    /// This thread's argon2 memory, kept between runs.
    static BLOCKS: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// Runs argon2 in this thread's kept memory (sized to `argon`'s parameters).
fn run_argon2(argon: &Argon2<'_>, password: &[u8], salt: &[u8], out: &mut [u8]) -> bool {
    BLOCKS.with_borrow_mut(|blocks| {
        let needed = argon.params().block_count();
        if blocks.len() != needed {
            *blocks = vec![Block::default(); needed];
        }
        argon
            .hash_password_into_with_memory(password, salt, out, &mut blocks[..])
            .is_ok()
    })
}

/// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of `password`
/// with a fresh salt and argon2's recommended parameters.
fn hash_blocking(password: &str) -> Result<String> {
    let failed = |what: &str| Error::Internal(anyhow::anyhow!("argon2 hash: {what}"));
    let params = Params::default();
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let salt: [u8; 16] = rand::random();
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    if !run_argon2(&argon, password.as_bytes(), &salt, &mut out) {
        return Err(failed("hashing failed"));
    }
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| failed(&e.to_string()))?,
        salt: Some(Salt::new(&salt).map_err(|e| failed(&e.to_string()))?),
        hash: Some(Output::new(&out).map_err(|e| failed(&e.to_string()))?),
    };
    Ok(phc.to_string())
}

/// Whether `password` is the one `phc` was made from; any PHC string that
/// is not argon2 (or not well-formed) answers `false`.
fn verify_blocking(password: &str, phc: &str) -> bool {
    use subtle::ConstantTimeEq;
    let Ok(parsed) = PasswordHash::new(phc) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (&parsed.salt, &parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm.as_str()) else {
        return false;
    };
    let version = match parsed.version.map(Version::try_from) {
        None => Version::default(),
        Some(Ok(v)) => v,
        Some(Err(_)) => return false,
    };
    let Ok(params) = Params::try_from(&parsed) else {
        return false;
    };
    let argon = Argon2::new(algorithm, version, params);
    let mut out = vec![0u8; expected.len()];
    run_argon2(&argon, password.as_bytes(), salt.as_ref(), &mut out)
        && bool::from(out.ct_eq(expected.as_bytes()))
}

/// A hash of a password nobody knows, so checking an unknown email costs the
/// same time as checking a known one.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_blocking("cashkeeper-dummy-password").expect("argon2 works"))
}

/// The most hashing threads, whatever the machine: 4 × 19 MiB.
pub const MAX_WORKERS: usize = 4;

/// Hashing threads on a machine with `cores` cores: one core is left to
/// serve requests (a flood of sign-ins must not stall `/api/v1/health` or
/// the pages), at least one hashes, at most [`MAX_WORKERS`].
fn workers(cores: usize) -> usize {
    cores.saturating_sub(1).clamp(1, MAX_WORKERS)
}

type Job = Box<dyn FnOnce() + Send>;

/// The queue of the hashing threads, started on first use.
fn queue() -> &'static Mutex<mpsc::Sender<Job>> {
    static QUEUE: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = std::sync::Arc::new(Mutex::new(rx));
        let workers = workers(std::thread::available_parallelism().map_or(1, |n| n.get()));
        for i in 0..workers {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || loop {
                    let job = match rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(poisoned) => poisoned.into_inner().recv(),
                    };
                    match job {
                        // A panicking job must not take its worker with it.
                        Ok(job) => {
                            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                        }
                        Err(_) => return,
                    }
                })
                .expect("starting a password-hashing thread");
        }
        Mutex::new(tx)
    })
}

/// Runs `f` on the hashing pool and waits for its answer.
async fn on_pool<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    queue()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send(job)
        .map_err(|_| Error::Internal(anyhow::anyhow!("password hashing pool stopped")))?;
    rx.await
        .map_err(|_| Error::Internal(anyhow::anyhow!("password hashing failed")))
}

pub async fn hash(password: String) -> Result<String> {
    on_pool(move || hash_blocking(&password)).await?
}

/// Checks `password` against `phc`; with `None` it spends the same time and
/// answers `false`.
pub async fn verify(password: String, phc: Option<String>) -> Result<bool> {
    on_pool(move || match phc {
        Some(phc) => verify_blocking(&password, &phc),
        None => {
            verify_blocking(&password, dummy_hash());
            false
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_argon2id_and_verify() {
        let h = hash_blocking("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(verify_blocking("correct horse", &h));
        assert!(!verify_blocking("correct hors", &h));
        assert!(!verify_blocking("correct horse", "not a phc string"));
    }

    #[test]
    fn hashes_made_by_the_argon2_crate_itself_verify() {
        // Stored hashes from before the pool, and any argon2 variant.
        use argon2::password_hash::PasswordHasher;
        for algorithm in [Algorithm::Argon2id, Algorithm::Argon2i, Algorithm::Argon2d] {
            let params = Params::new(1024, 1, 1, None).unwrap();
            let argon = Argon2::new(algorithm, Version::V0x13, params);
            let h = argon.hash_password(b"correct horse").unwrap().to_string();
            assert!(verify_blocking("correct horse", &h), "{h}");
            assert!(!verify_blocking("correct hors", &h), "{h}");
        }
        let h = Argon2::default().hash_password(b"pw").unwrap().to_string();
        assert!(verify_blocking("pw", &h));
        assert!(!verify_blocking(
            "pw",
            "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ"
        ));
        assert!(!verify_blocking("pw", "$bcrypt$whatever"));
    }

    #[test]
    fn one_core_is_left_for_serving() {
        assert_eq!([1, 2, 3, 4, 8, 64].map(workers), [1, 1, 2, 3, 4, 4]);
    }

    #[tokio::test]
    async fn the_pool_answers_many_callers_at_once() {
        let h = hash("correct horse".into()).await.unwrap();
        let checks = (0..3 * MAX_WORKERS).map(|i| {
            let h = h.clone();
            let pw = if i % 2 == 0 {
                "correct horse"
            } else {
                "wrong horse"
            };
            tokio::spawn(async move { (i, verify(pw.into(), Some(h)).await.unwrap()) })
        });
        for c in checks {
            let (i, ok) = c.await.unwrap();
            assert_eq!(ok, i % 2 == 0, "check {i}");
        }
        assert!(!verify("x".into(), None).await.unwrap());
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
