//! Temporary files of the data directory: an export built before it is
//! streamed (`.export-<id>.zip`) and an uploaded archive before it is
//! loaded (`.import-<id>.zip`). Each is removed when its request ends; one
//! left by a crash or a kill is removed when the service starts next
//! (`docs/operations.md`).

use std::path::{Path, PathBuf};

/// What a temporary file holds.
#[derive(Clone, Copy)]
pub enum Kind {
    Export,
    Import,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Export => ".export-",
            Kind::Import => ".import-",
        }
    }
}

const SUFFIX: &str = ".zip";

/// A new temporary file's path in `data_dir`.
pub fn path(data_dir: &Path, kind: Kind) -> PathBuf {
    data_dir.join(format!(
        "{}{}{SUFFIX}",
        kind.prefix(),
        crate::store::new_id()
    ))
}

/// Removes the temporary files a previous run left in `data_dir`; only
/// at start, before any request could have made one. Answers how many.
pub fn remove_leftovers(data_dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(data_dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let ours = [Kind::Export, Kind::Import]
            .iter()
            .any(|k| name.starts_with(k.prefix()) && name.ends_with(SUFFIX));
        if !ours || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => removed += 1,
            Err(e) => tracing::warn!(file = name, error = %e, "cannot remove a temporary file"),
        }
    }
    if removed > 0 {
        tracing::info!(
            removed,
            "removed temporary files an earlier run left behind"
        );
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_leftover_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let export = path(dir.path(), Kind::Export);
        let import = path(dir.path(), Kind::Import);
        for p in [&export, &import] {
            std::fs::write(p, b"PK").unwrap();
        }
        let kept = dir.path().join("cashkeeper.db");
        std::fs::write(&kept, b"").unwrap();
        std::fs::create_dir(dir.path().join(".export-folder.zip")).unwrap();
        assert_eq!(remove_leftovers(dir.path()), 2);
        assert!(!export.exists() && !import.exists());
        assert!(kept.exists());
    }
}
