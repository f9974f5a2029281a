//! The app's IPC client (`ui/src/lib/api.ts`) checked against the Rust
//! commands (`src-tauri/src/commands.rs`, registered in `src-tauri/src/lib.rs`):
//! every command the UI calls exists and is registered, with exactly the
//! arguments the Rust function takes (Tauri passes `file_name` as
//! `fileName`), and every registered command is reachable from the UI.

use crate::common::root;

use std::collections::{BTreeMap, BTreeSet};

/// `name -> argument names (camelCase)` of every `#[tauri::command]`.
fn rust_commands(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[tauri::command]") {
        rest = &rest[at + 17..];
        let Some(fn_at) = rest.find("fn ") else { break };
        let sig = &rest[fn_at + 3..];
        let name: String = sig
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let open = sig.find('(').unwrap_or(0);
        let close = sig.find(") ->").or_else(|| sig.find(") {")).unwrap_or(open);
        let args = sig[open + 1..close]
            .split(',')
            .filter_map(|a| a.split_once(':').map(|(n, ty)| (n.trim(), ty.trim())))
            // Injected by Tauri, not passed from the page.
            .filter(|(_, ty)| {
                !ty.starts_with("State<")
                    && !ty.starts_with("tauri::")
                    && !ty.starts_with("AppHandle")
            })
            .map(|(n, _)| camel(n))
            .collect();
        out.insert(name, args);
    }
    out
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `name -> argument keys` of every `call("name", { a, b: x })` in api.ts.
fn ts_calls(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = rest.find("call(\"") {
        rest = &rest[at + 6..];
        let name: String = rest.chars().take_while(|c| *c != '"').collect();
        let after = &rest[name.len() + 1..];
        let end = after.find(')').unwrap_or(0);
        let args = &after[..end];
        let keys = match (args.find('{'), args.rfind('}')) {
            (Some(a), Some(b)) => args[a + 1..b]
                .split(',')
                .map(|k| k.split(':').next().unwrap_or("").trim().to_owned())
                .filter(|k| !k.is_empty())
                .collect(),
            _ => BTreeSet::new(),
        };
        out.insert(name, keys);
    }
    out
}

#[test]
fn the_ui_calls_each_command_with_its_rust_arguments() {
    let commands =
        std::fs::read_to_string(root().join("src-tauri/src/commands.rs")).expect("commands.rs");
    let lib = std::fs::read_to_string(root().join("src-tauri/src/lib.rs")).expect("lib.rs");
    let api = std::fs::read_to_string(root().join("ui/src/lib/api.ts")).expect("api.ts");
    let rust = rust_commands(&commands);
    let ts = ts_calls(&api);
    assert!(
        rust.len() >= 20 && ts.len() >= 20,
        "both sides parsed: {} and {}",
        rust.len(),
        ts.len()
    );
    for (name, keys) in &ts {
        let want = rust
            .get(name)
            .unwrap_or_else(|| panic!("api.ts calls `{name}`, which is no Rust command"));
        assert_eq!(
            keys, want,
            "`{name}`: the UI passes {keys:?}, Rust takes {want:?}"
        );
        assert!(
            lib.contains(&format!("commands::{name},")),
            "`{name}` is registered in src-tauri/src/lib.rs"
        );
    }
    for name in rust.keys() {
        assert!(
            ts.contains_key(name),
            "the Rust command `{name}` has no call in api.ts"
        );
    }
}
