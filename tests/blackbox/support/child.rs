//! Tests whose assertions need the server's whole log: the ignored test
//! `child` runs in a process of its own with `env` set, and its stdout
//! (every log line, as the child installs its subscriber) comes back.

use std::process::Command;

/// Runs the ignored test `child` (its full path) alone in a new process of
/// this test binary with `env=1`; answers its stdout once it passed.
pub fn log_of_child(child: &str, env: &str) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            child,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(env, "1")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{log}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(log.contains("1 passed"), "{log}");
    log
}
