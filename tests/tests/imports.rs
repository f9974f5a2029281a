//! The pure core's modules import one another without a circle: each
//! module (a file under `crates/gpuplan-core/src`, or a folder such as
//! `quote/`) names others only below it, so the vocabulary at the bottom
//! (`error`, `message`, `vocab`, `limits`, ...) never reaches up into the
//! algorithms that use it. Read from the sources: every `crate::<module>`
//! a module's non-test code mentions.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn core_src() -> std::path::PathBuf {
    crate::common::root().join("crates/gpuplan-core/src")
}

/// The module a source file belongs to (`quote/stages.rs` → `quote`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.trim_end_matches(".rs");
    (name != "lib").then(|| name.to_owned())
}

/// The code of a file up to its test module, without comments.
fn code(text: &str) -> String {
    let end = text.find("#[cfg(test)]").unwrap_or(text.len());
    text[..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Module → the other core modules its code names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = core_src();
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("core sources").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(&src, f)).collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some(m) = module_of(&src, f) else {
            continue;
        };
        let text = code(&std::fs::read_to_string(f).expect("source reads"));
        let uses = g.entry(m.clone()).or_default();
        for (at, _) in text.match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name != m && modules.contains(&name) {
                uses.insert(name);
            }
        }
        // `use crate::{a, b::C}` names several.
        for (at, _) in text.match_indices("use crate::{") {
            let rest = &text[at + "use crate::{".len()..];
            let list = rest.split('}').next().unwrap_or("");
            for part in list.split(',') {
                let name = part.trim().split("::").next().unwrap_or("").trim();
                if name != m && modules.contains(name) {
                    uses.insert(name.to_owned());
                }
            }
        }
    }
    g
}

/// A circle of modules, if there is one.
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut c = path[i..].to_vec();
            c.push(m.to_owned());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_owned());
        for n in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(n, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        if let Some(c) = visit(m, g, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_cores_modules_import_each_other_without_a_circle() {
    let g = graph();
    assert!(
        g.len() >= 20,
        "every module of the core is read ({} found)",
        g.len()
    );
    assert!(
        g.get("job").is_some_and(|u| u.contains("limits")),
        "the reader sees the imports it checks (job uses limits)"
    );
    if let Some(c) = circle(&g) {
        panic!("the core's modules import in a circle: {}", c.join(" -> "));
    }
}

#[test]
fn the_vocabulary_sits_at_the_bottom() {
    let g = graph();
    // (module, the only core modules it may name, why)
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "error",
            &["message"],
            "errors carry messages and nothing else",
        ),
        ("message", &[], "a message is a key and parameters"),
        (
            "vocab",
            &["error"],
            "the engines and interconnects name no algorithm",
        ),
        (
            "limits",
            &["error", "message"],
            "the limits name no algorithm",
        ),
    ];
    for (m, allowed, why) in cases {
        let uses = g.get(m).cloned().unwrap_or_default();
        let extra: Vec<&String> = uses
            .iter()
            .filter(|u| !allowed.contains(&u.as_str()))
            .collect();
        assert!(extra.is_empty(), "{m}: {why}; it names {extra:?}");
    }
}

#[test]
fn no_module_imports_through_the_crate_root() {
    // `lib.rs` re-exports names for the shells and so imports the whole
    // core; a module naming `crate::GIB` or `crate::Mode` would import it
    // back and run up the graph. Every `crate::<name>` must be a module.
    let src = core_src();
    let mut through_root = Vec::new();
    let mut stack = vec![src.clone()];
    let mut read = 0;
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("core sources").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") || module_of(&src, &p).is_none() {
                continue;
            }
            read += 1;
            let text = code(&std::fs::read_to_string(&p).expect("source reads"));
            for (at, _) in text.match_indices("crate::") {
                let first = text[at + "crate::".len()..].chars().next().unwrap_or('_');
                // A module is lowercase; `{` opens a list checked by the graph.
                if first.is_ascii_uppercase() {
                    through_root.push(format!(
                        "{}: {}",
                        p.display(),
                        &text[at..at + 20.min(text.len() - at)]
                    ));
                }
            }
        }
    }
    assert!(read >= 20, "every module file is read ({read})");
    assert!(
        through_root.is_empty(),
        "modules import a re-export of lib.rs instead of its module: {through_root:#?}"
    );
}

#[test]
fn the_circle_finder_finds_circles() {
    // (edges, has a circle, why)
    type Edges<'a> = &'a [(&'a str, &'a str)];
    let cases: [(Edges, bool, &str); 3] = [
        (&[("a", "b"), ("b", "c")], false, "a chain"),
        (
            &[("a", "b"), ("b", "a")],
            true,
            "two modules naming each other",
        ),
        (&[("a", "b"), ("b", "c"), ("c", "a")], true, "a longer loop"),
    ];
    for (edges, want, why) in cases {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry((*a).into()).or_default().insert((*b).into());
        }
        assert_eq!(circle(&g).is_some(), want, "{why}");
    }
}
