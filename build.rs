//! Lists `migrations/` for `src/store/migrations.rs`: each
//! `V<version>__<name>.sql` as an `Embedded` (version, name, its SQL), by
//! version, so
//! that a start learns which migrations the binary brings without parsing
//! their names at run time.

use std::fmt::Write;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    // Cargo starts a build script in the package's directory: read from
    // there, not from where the script was compiled.
    let dir = Path::new("migrations");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("migrations/ is readable") {
        let path = entry.expect("migrations/ is readable").path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (version, name) = file
            .strip_suffix(".sql")
            .and_then(|stem| stem.strip_prefix('V'))
            .and_then(|stem| stem.split_once("__"))
            .and_then(|(v, name)| Some((v.parse::<i32>().ok()?, name.to_owned())))
            .filter(|(_, name)| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
            .unwrap_or_else(|| {
                panic!("migrations/{file}: a migration is named V<version>__<name>.sql")
            });
        found.push((version, name, file));
    }
    found.sort();
    let mut out = String::from("&[\n");
    // The path is made where the list is included, not written here: a
    // list written for one checkout then never names another's files.
    for (version, name, file) in found {
        writeln!(
            out,
            "    Embedded {{ version: {version}, name: {name:?}, \
             sql: include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/migrations/{file}\")) }},"
        )
        .unwrap();
    }
    out.push_str("]\n");
    let target = Path::new(&std::env::var("OUT_DIR").unwrap()).join("migrations.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
