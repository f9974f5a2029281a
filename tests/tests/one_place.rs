//! Every default and limit lives in one place, in Rust, and reaches the UI
//! with `AppInfo` (its limits and defaults). This test reads the UI's own
//! code (not its tests, not the generated bindings, not its style sheets)
//! and fails when a number there repeats one of the Rust constants: a copy
//! that would silently disagree the day the Rust one changes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The constants the UI must not repeat, by value. Small numbers (under 100)
/// are left out: 1, 2, 24 or 60 appear for reasons of their own.
fn constants() -> BTreeMap<u64, String> {
    let mut c = BTreeMap::new();
    let mut add = |v: f64, name: String| {
        if v.is_finite() && v >= 100.0 && v.fract() == 0.0 {
            c.entry(v as u64).or_insert(name);
        }
    };
    for l in gpuplan_core::limits::ALL {
        add(l.max, format!("the limit of {}", l.field));
    }
    add(
        gpuplan_core::report::MAX_REPORT_BYTES as f64,
        "report::MAX_REPORT_BYTES".into(),
    );
    add(
        f64::from(gpuplan_usecases::defaults::BATCH_SLIDER_MAX),
        "defaults::BATCH_SLIDER_MAX".into(),
    );
    add(
        f64::from(gpuplan_core::plan::MAX_RUNS),
        "plan::MAX_RUNS".into(),
    );
    add(gpuplan_core::plan::MAX_CNY as f64, "plan::MAX_CNY".into());
    add(gpuplan_core::plan::MAX_GB as f64, "plan::MAX_GB".into());
    c
}

/// The UI's code files: `.ts` and `.svelte` under ui/src, without tests,
/// test helpers and generated bindings.
fn ui_code() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root().join("ui/src")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("ui/src reads").flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if name != "bindings" && name != "test" {
                    stack.push(p);
                }
            } else if (name.ends_with(".ts") || name.ends_with(".svelte"))
                && !name.contains(".test.")
            {
                let text = std::fs::read_to_string(&p).expect("source reads");
                out.push((p, without_styles(&text)));
            }
        }
    }
    out
}

/// `text` without its `<style>` blocks (pixel sizes are not limits).
fn without_styles(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("<style") {
        out.push_str(&rest[..at]);
        match rest[at..].find("</style>") {
            Some(end) => rest = &rest[at + end + "</style>".len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// Every whole number written in `code` (`65536`, `65_536`).
fn numbers(code: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut digits = String::new();
    let mut prev = ' ';
    for c in code.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || (c == '_' && !digits.is_empty()) {
            if digits.is_empty() && (prev.is_alphanumeric() || prev == '.' || prev == '#') {
                prev = c;
                continue;
            }
            if c != '_' {
                digits.push(c);
            }
        } else {
            if !digits.is_empty() && c != '.' {
                if let Ok(n) = digits.parse() {
                    out.push(n);
                }
            }
            digits.clear();
        }
        prev = c;
    }
    out
}

#[test]
fn the_ui_repeats_no_rust_default_or_limit() {
    let constants = constants();
    assert!(
        constants.contains_key(&65_536),
        "the report size limit is among the constants checked"
    );
    let mut found = Vec::new();
    for (path, code) in ui_code() {
        for n in numbers(&code) {
            if let Some(name) = constants.get(&n) {
                let shown = path.strip_prefix(root()).unwrap_or(Path::new(""));
                found.push(format!("{}: {n} repeats {name}", shown.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "numbers the UI should take from AppInfo instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_number_reader_finds_numbers_and_nothing_else() {
    // (code, numbers, why)
    let cases: [(&str, &[u64], &str); 4] = [
        ("const MAX = 65536;", &[65_536], "a plain literal"),
        (
            "size <= 65_536",
            &[65_536],
            "digits grouped with underscores",
        ),
        (
            "x2 h1 #fff 1.5",
            &[],
            "names, colours and decimals are not limits",
        ),
        ("max=\"512\"", &[512], "an attribute"),
    ];
    for (code, want, why) in cases {
        assert_eq!(numbers(code), want, "{why}");
    }
}
