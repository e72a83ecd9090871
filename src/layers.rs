//! The layer rule, checked by reading `src/`: every module imports only
//! modules of lower layers, the doors never import one another, and no
//! files import each other, directly or in a loop.
//!
//! ```text
//! error, clock, config, memory, cache, outbound ← domain ← i18n ← store
//!   ← auth, services, demo ← state ← app ← http
//!   ← doors: actions, api, web, jobs ← router ← server ← cli
//! ```
//!
//! `http` is the kit the HTTP doors share; `app` below it speaks no wire
//! format: it names no `axum` type, no cookie and no action (checked by
//! `the_application_layer_speaks_no_wire_format`).
//!
//! A file's imports are the `crate::…` and `super::…` paths it names
//! outside its `#[cfg(test)] mod tests`; a parent declaring its children
//! (`mod x;`) is not an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module's layer: a module may import only lower ones.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("clock", 0),
    ("config", 0),
    ("memory", 0),
    ("cache", 0),
    ("outbound", 0),
    ("domain", 1),
    ("i18n", 2),
    ("store", 3),
    ("auth", 4),
    ("services", 4),
    ("demo", 4),
    ("state", 5),
    ("app", 6),
    ("http", 7),
    ("actions", 8),
    ("api", 8),
    ("web", 8),
    ("jobs", 8),
    ("router", 9),
    ("server", 10),
    ("cli", 11),
];

/// The doors: what people and programs talk to. None imports another.
const DOORS: &[&str] = &["actions", "api", "web", "jobs", "cli"];

/// Every module of `src/` (`a::b` for `src/a/b.rs` or `src/a/b/mod.rs`)
/// and its source.
pub(crate) fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(root).expect("under src/");
            let rel = rel.with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let name = parts.join("::");
            if name == "lib" || name == "main" || name == "layers" {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("a readable source file");
            out.insert(name, source);
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

/// The source without comments and without its unit tests.
pub(crate) fn code(source: &str) -> String {
    let source = match source.find("#[cfg(test)]\nmod tests") {
        Some(i) => &source[..i],
        None => source,
    };
    source
        .lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths of a `use` tree (`a::{b, c::{d, e}}`), each split at `::`.
fn expand(prefix: &[String], tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("");
        let mut p = prefix.to_vec();
        p.extend(
            path.split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty() && *s != "self" && *s != "*")
                .map(str::to_string),
        );
        return vec![p];
    };
    let close = tree.rfind('}').unwrap_or(tree.len());
    let mut head = prefix.to_vec();
    head.extend(
        tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string),
    );
    let (mut depth, mut start, mut out) = (0, open + 1, Vec::new());
    let body = &tree[..close];
    for (i, ch) in body.char_indices().skip(open + 1) {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.extend(expand(&head, &body[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if !body[start..].trim().is_empty() {
        out.extend(expand(&head, &body[start..]));
    }
    if out.is_empty() {
        out.push(head);
    }
    out
}

/// The paths a file names after `crate::` and `super::` (the latter made
/// absolute from `module`).
fn named_paths(module: &str, code: &str) -> Vec<Vec<String>> {
    let parent: Vec<String> = module
        .split("::")
        .map(str::to_string)
        .collect::<Vec<_>>()
        .split_last()
        .map(|(_, p)| p.to_vec())
        .unwrap_or_default();
    let mut paths = Vec::new();
    let mut rest = code.to_string();
    // `use` statements first, whose trees may hold braces.
    for (root, base) in [("crate::", Vec::new()), ("super::", parent.clone())] {
        let keyword = format!("use {root}");
        while let Some(i) = rest.find(&keyword) {
            let end = rest[i..].find(';').map_or(rest.len(), |e| i + e);
            paths.extend(expand(&base, &rest[i + keyword.len()..end]));
            rest.replace_range(i..end, "");
        }
    }
    // Then paths written inline.
    for (root, base) in [("crate::", Vec::new()), ("super::", parent)] {
        for (i, _) in rest.match_indices(root) {
            let before = rest[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let tail: String = rest[i + root.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut p = base.clone();
            p.extend(
                tail.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
            paths.push(p);
        }
    }
    paths
}

/// Which module each file imports: the longest module a named path starts
/// with, other than itself.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let mut out = BTreeMap::new();
    for (module, source) in &modules {
        let mut targets = BTreeSet::new();
        for path in named_paths(module, &code(source)) {
            let target = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|m| modules.contains_key(m));
            if let Some(t) = target.filter(|t| t != module) {
                targets.insert(t);
            }
        }
        out.insert(module.clone(), targets);
    }
    out
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

fn layer(module: &str) -> u8 {
    let top = top(module);
    LAYERS
        .iter()
        .find(|(name, _)| *name == top)
        .map(|(_, l)| *l)
        .unwrap_or_else(|| panic!("{top} is in no layer: add it to LAYERS in src/layers.rs"))
}

/// The files that import each other, directly or in a loop (Tarjan's
/// strongly connected components of more than one file).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn every_module_imports_only_lower_layers_and_no_door_another() {
    let mut wrong = Vec::new();
    for (from, targets) in imports() {
        for to in targets {
            let (a, b) = (top(&from), top(&to));
            if a == b {
                continue;
            }
            if DOORS.contains(&a) && DOORS.contains(&b) {
                wrong.push(format!("{from} → {to}: a door imports another door"));
            } else if layer(&from) <= layer(&to) {
                wrong.push(format!("{from} → {to}: imports a layer that is not below"));
            }
        }
    }
    assert!(wrong.is_empty(), "layer rule broken:\n{}", wrong.join("\n"));
}

/// What only a door knows, by the words its code would need.
const WIRE_WORDS: &[(&str, &str)] = &[
    ("axum::", "an axum type"),
    ("tower_http", "an HTTP middleware"),
    ("set_cookie", "a cookie"),
    ("clear_cookie", "a cookie"),
    ("fn action(", "an action's name"),
];

#[test]
fn the_application_layer_speaks_no_wire_format() {
    let mut wrong = Vec::new();
    for (module, source) in modules() {
        if top(&module) != "app" {
            continue;
        }
        let code = code(&source);
        for (word, what) in WIRE_WORDS {
            if code.contains(word) {
                wrong.push(format!("{module} names {what} ({word})"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "what only a door knows belongs in http/ or the door:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_files_import_each_other_directly_or_in_a_loop() {
    let found = circles(&imports());
    assert!(found.is_empty(), "import circles: {found:?}");
}

#[test]
fn the_reader_sees_use_trees_inline_paths_and_circles() {
    let paths = named_paths(
        "app::import",
        "use crate::store::{self, users::{User, UserId}};\nuse super::input;\nfn f() { crate::i18n::format::date(); }",
    );
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    for want in [
        "store",
        "store::users::User",
        "store::users::UserId",
        "app::input",
        "i18n::format::date",
    ] {
        assert!(joined.iter().any(|p| p == want), "{want} in {joined:?}");
    }
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect()))
    .collect();
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c"]]);
    assert!(
        code("use crate::a; // crate::b\n#[cfg(test)]\nmod tests { crate::c }")
            .contains("crate::a")
    );
    assert!(!code("// crate::b\n#[cfg(test)]\nmod tests { crate::c }").contains("crate::"));
}
