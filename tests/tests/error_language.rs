//! Every error a student can reach from the CLI is worded in the language
//! they asked for: no sentence of the other language, no Rust syntax
//! (`..=` ranges, backticks), the field by its name. The same keys word the
//! app's errors (ui/src/lib/flow.ts `errorText`), so this walks both.

use std::path::Path;
use std::process::{Command, Output};

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(args)
        .env("LANG", "C")
        .env("GPUPLAN_HOME", home)
        .output()
        .expect("gpuplan runs")
}

/// English words that only an English sentence would carry. Ids, paths and
/// command names (`gpuplan models`, `rtx3090`) are allowed in Chinese text.
const ENGLISH: [&str; 24] = [
    "is", "not", "out", "range", "number", "allowed", "unknown", "did", "you", "mean", "whole",
    "the", "of", "from", "to", "at", "most", "must", "only", "cannot", "file", "read", "no",
    "error",
];

fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// The English words left in `text` once the values the student typed
/// (`typed`) are taken out.
fn english_words(text: &str, typed: &[&str]) -> Vec<String> {
    let mut t = text.to_owned();
    for v in typed {
        t = t.replace(v, " ");
    }
    t.split(|c: char| !c.is_ascii_alphabetic())
        .map(str::to_ascii_lowercase)
        .filter(|w| ENGLISH.contains(&w.as_str()))
        .collect()
}

#[test]
fn every_reachable_error_speaks_the_students_language() {
    let home = tempfile::tempdir().expect("tmp home");
    let dir = tempfile::tempdir().expect("tmp dir");
    let folder = dir.path().to_str().expect("utf-8 path");
    let missing = dir.path().join("nowhere.toml");
    let missing = missing.to_str().expect("utf-8 path");
    let est = ["estimate", "--model", "resnet50"];
    let rec = [
        "recommend",
        "--stage",
        "course-project",
        "--model",
        "resnet50",
    ];
    let set = [
        "override",
        "set",
        "--platform",
        "autodl",
        "--gpu",
        "rtx3090",
    ];
    // (arguments, why)
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            [&est[..], &["--batch", "0"]].concat(),
            "a batch out of range",
        ),
        ([&est[..], &["--batch", "abc"]].concat(), "not a number"),
        (
            [&est[..], &["--batch", "2.5"]].concat(),
            "not a whole number",
        ),
        ([&est[..], &["--batch", "NaN"]].concat(), "NaN"),
        (
            [&est[..], &["--epochs", "-1"]].concat(),
            "epochs below zero",
        ),
        (vec!["estimate", "--model", "resnt50"], "a misspelt model"),
        ([&est[..], &["--gpu", "gtx480"]].concat(), "an unknown card"),
        (
            [&est[..], &["--precision", "fp8"]].concat(),
            "an unknown precision",
        ),
        ([&est[..], &["--mode", "full"]].concat(), "an unknown mode"),
        (vec!["platforms", "nowhere"], "an unknown platform"),
        (
            [&est[..], &["--seq-len", "128"]].concat(),
            "a sequence length on a CNN",
        ),
        ([&est[..], &["--mode", "lora"]].concat(), "LoRA on a CNN"),
        (
            vec!["estimate", "--model", "gpt2", "--resolution", "224"],
            "an image size on a transformer",
        ),
        (
            [&est[..], &["--precision", "bf16-amp", "--gpu", "v100-16g"]].concat(),
            "bf16 on a card without it",
        ),
        (vec!["quote", missing], "a plan file that is not there"),
        (vec!["quote", folder], "a folder given as a plan"),
        (
            vec!["ledger", "import", missing],
            "a report that is not there",
        ),
        ([&rec[..], &["--runs", "0"]].concat(), "zero runs"),
        (
            [&rec[..], &["--budget", "abc"]].concat(),
            "a budget that is text",
        ),
        (
            [&rec[..], &["--budget", "-5"]].concat(),
            "a negative budget",
        ),
        (
            [&set[..], &["--price", "abc"]].concat(),
            "a price that is text",
        ),
    ];
    for (args, why) in &cases {
        for lang in ["zh", "en"] {
            let mut all = vec!["--lang", lang];
            all.extend_from_slice(args);
            let out = run(home.path(), &all);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{why} ({lang}): refused: {err}");
            for syntax in ["..=", "`"] {
                assert!(
                    !err.contains(syntax),
                    "{why} ({lang}): no Rust syntax {syntax:?} reaches the student: {err}"
                );
            }
            if lang == "zh" {
                let words = english_words(&err, args);
                assert!(
                    has_cjk(&err) && words.is_empty(),
                    "{why}: Chinese with no English sentence (found {words:?}): {err}"
                );
            } else {
                assert!(!has_cjk(&err), "{why}: English with no Chinese: {err}");
            }
        }
    }
}
