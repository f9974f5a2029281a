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
    let config = dir.path().join("config.json");
    std::fs::write(&config, "{}").expect("config written");
    let config = config.to_str().expect("utf-8 path");
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
        (
            vec!["estimate", "--model", "gpt2", "--pcie-gbps", "7.9"],
            "a PCIe link on one GPU",
        ),
        (
            vec![
                "estimate",
                "--model",
                "gpt2",
                "--gpus",
                "2",
                "--pcie-gbps",
                "0",
            ],
            "a PCIe link out of range",
        ),
        (vec!["estimate"], "no model to estimate"),
        (
            [&est[..], &["--hours", "3"]].concat(),
            "hours given to the estimator",
        ),
        (
            [&est[..], &["--config", config]].concat(),
            "a zoo model and a config.json both",
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
    walk(home.path(), &cases);
}

/// Runs each case in both languages: refused with exit code 2, in the
/// language asked for, with no Rust syntax.
fn walk(home: &Path, cases: &[(Vec<&str>, &str)]) {
    for (args, why) in cases {
        for lang in ["zh", "en"] {
            let mut all = vec!["--lang", lang];
            all.extend_from_slice(args);
            let out = run(home, &all);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{why} ({lang}): refused: {err}");
            speaks(&err, lang, args, why);
        }
    }
}

/// `err` is in `lang` only (the values typed aside) and has no Rust syntax.
fn speaks(err: &str, lang: &str, typed: &[&str], why: &str) {
    for syntax in ["..=", "`"] {
        assert!(
            !err.contains(syntax),
            "{why} ({lang}): no Rust syntax {syntax:?} reaches the student: {err}"
        );
    }
    if lang == "zh" {
        let words = english_words(err, typed);
        assert!(
            has_cjk(err) && words.is_empty(),
            "{why}: Chinese with no English sentence (found {words:?}): {err}"
        );
    } else {
        assert!(!has_cjk(err), "{why}: English with no Chinese: {err}");
    }
}

#[test]
fn the_command_lines_own_mistakes_speak_the_students_language() {
    let home = tempfile::tempdir().expect("tmp home");
    // (arguments, why)
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["models", "--bogus"], "an unknown flag"),
        (
            vec!["estimate", "--btach", "3"],
            "a misspelt flag, with its suggestion",
        ),
        (vec!["estimate", "--batch"], "a flag without its value"),
        (
            vec!["recommend", "--top", "abc"],
            "a word for a whole number",
        ),
        (
            vec!["recommend", "--top", "99999999999999999999999"],
            "a whole number too large for its type",
        ),
        (
            vec!["script", "resume", "--every", "x"],
            "a word for a count",
        ),
        (
            vec![
                "script",
                "shutdown",
                "--platform",
                "autodl",
                "--command",
                "x",
                "--max-hours",
                "abc",
            ],
            "a word for a decimal number",
        ),
        (vec!["frobnicate"], "an unknown command"),
        (vec!["recmmend"], "a misspelt command, with its suggestion"),
        (vec!["quote"], "a required argument missing"),
        (vec!["ledger"], "a subcommand missing"),
        (
            vec!["calibration", "--off", "--on"],
            "two flags that exclude each other",
        ),
        (vec!["models", "--json", "--json"], "a flag given twice"),
        (vec!["models", "extra"], "a word no command takes"),
    ];
    walk(home.path(), &cases);
    // (arguments, what the message names, why): the text says which flag,
    // value or command it is about, and where to read more.
    let named: [(&[&str], &[&str], &str); 4] = [
        (
            &["models", "--bogus"],
            &["--bogus", "gpuplan models --help"],
            "the flag and its command",
        ),
        (
            &["estimate", "--btach", "3"],
            &["--btach", "--batch"],
            "the flag and clap's suggestion",
        ),
        (
            &["recommend", "--top", "abc"],
            &["--top", "abc"],
            "the flag and its value",
        ),
        (
            &["recmmend"],
            &["recmmend", "recommend"],
            "the command and the suggestion",
        ),
    ];
    for (args, names, why) in named {
        for lang in ["zh", "en"] {
            let out = run(home.path(), &[&["--lang", lang], args].concat());
            let err = String::from_utf8_lossy(&out.stderr);
            for n in names {
                assert!(err.contains(n), "{why} ({lang}): names {n}: {err}");
            }
        }
    }
}

#[test]
fn the_language_of_a_refused_line_is_the_one_it_asks_for() {
    let home = tempfile::tempdir().expect("tmp home");
    // (arguments, LANG, language expected, why)
    let cases: [(&[&str], &str, &str, &str); 4] = [
        (
            &["models", "--bogus", "--lang", "zh"],
            "C",
            "zh",
            "--lang after the mistake",
        ),
        (
            &["--lang=zh", "frobnicate"],
            "en_US.UTF-8",
            "zh",
            "--lang=zh over an English locale",
        ),
        (
            &["--lang", "en", "frobnicate"],
            "zh_CN.UTF-8",
            "en",
            "--lang en over a Chinese locale",
        ),
        (
            &["frobnicate"],
            "zh_CN.UTF-8",
            "zh",
            "no --lang: the locale's language",
        ),
    ];
    for (args, locale, lang, why) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .args(args)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env("LANG", locale)
            .env("GPUPLAN_HOME", home.path())
            .output()
            .expect("gpuplan runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{why}: a usage error exits 2: {err}"
        );
        speaks(&err, lang, args, why);
    }
}

#[test]
fn help_and_version_still_print_and_succeed() {
    let home = tempfile::tempdir().expect("tmp home");
    // (arguments, printed, why)
    let cases: [(&[&str], &str, &str); 8] = [
        (&["--help"], "Usage: gpuplan", "the main help"),
        (
            &["help", "quote", "--lang", "zh"],
            "用法：gpuplan quote",
            "the help command with --lang after the command, in Chinese",
        ),
        (
            &["help", "--lang=zh"],
            "用法：gpuplan [OPTIONS]",
            "the help command with --lang=zh, in Chinese",
        ),
        (
            &["--lang", "zh", "quote", "--help"],
            "用法：gpuplan quote",
            "a command's help under --lang zh, in Chinese",
        ),
        (
            &["--lang", "zh", "help", "ledger", "import"],
            "导入为账单",
            "the help command under --lang zh, in Chinese",
        ),
        (
            &["help", "estimate"],
            "Usage: gpuplan estimate",
            "the help command",
        ),
        (&["--version"], "gpuplan ", "the version"),
        (&["-V"], "gpuplan ", "the short version flag"),
    ];
    for (args, printed, why) in cases {
        let out = run(home.path(), args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{why}: exits 0");
        assert!(text.contains(printed), "{why}: printed on stdout: {text}");
    }
}

#[test]
fn data_files_that_do_not_parse_speak_the_students_language() {
    let home = tempfile::tempdir().expect("tmp home");
    let dir = tempfile::tempdir().expect("tmp dir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("file written");
        p.to_str().expect("utf-8 path").to_owned()
    };
    let syntax = write("syntax.toml", "name = \"x\"\nplatform \"autodl\"\n");
    let unknown = write("unknown.toml", "name = \"x\"\nfoo = 3\n");
    let wrong = write("wrong.toml", "name = \"x\"\nplatform = 3\n");
    let missing = write("missing.toml", "name = \"x\"\nplatform = \"autodl\"\n");
    let pack = write("pack.toml", "[pack]\nname = \"course\n");
    let report = write("gpuplan-run-1.json", "{\"schema\": ");
    let typed = write("gpuplan-run-2.json", "{\"schema\": 2, \"gpus\": \"many\"}");
    let config = write("config.json", "{\"model_type\": ");
    let runs = write("runs.json", "{\"schema\": 3");
    let export = |runs| {
        vec![
            "pack",
            "export",
            "--name",
            "c",
            "--instructor",
            "i",
            "--platform",
            "autodl",
            "--runs",
            runs,
            "--out",
            "/nonexistent/p.toml",
        ]
    };
    // (arguments, where it points, why)
    let cases: Vec<(Vec<&str>, [&str; 2], &str)> = vec![
        (
            vec!["quote", &syntax],
            ["2", "10"],
            "a plan that is not TOML",
        ),
        (
            vec!["quote", &unknown],
            ["2", "1"],
            "a plan with an unknown key",
        ),
        (
            vec!["quote", &wrong],
            ["2", "12"],
            "a plan with a number for a platform",
        ),
        (
            vec!["quote", &missing],
            ["1", "1"],
            "a plan without its card",
        ),
        (
            vec!["pack", "import", &pack],
            ["2", "15"],
            "a course pack with an open string",
        ),
        (
            vec!["ledger", "import", &report],
            ["1", "11"],
            "a run report that is not JSON",
        ),
        (
            vec!["ledger", "import", &typed],
            ["1", "12"],
            "a run report with a value of the wrong kind",
        ),
        (
            vec!["estimate", "--model", "custom", "--config", &config],
            ["1", "15"],
            "a model's config.json that is not JSON",
        ),
        (
            export(&runs),
            ["1", "12"],
            "a measured-runs file with a value of the wrong kind",
        ),
    ];
    let mut walked: Vec<(Vec<&str>, &str)> =
        cases.iter().map(|(a, _, why)| (a.clone(), *why)).collect();
    let list = write("list.json", "[1]");
    walked.push((
        vec!["estimate", "--model", "custom", "--config", &list],
        "a model's config.json that is JSON but not an object",
    ));
    walk(home.path(), &walked);
    for (args, [line, column], why) in &cases {
        // (language, where it points, why)
        let places = [
            (
                "zh",
                format!("第 {line} 行第 {column} 列"),
                "the place in Chinese",
            ),
            (
                "en",
                format!("line {line}, column {column}"),
                "the place in English",
            ),
        ];
        for (lang, place, what) in places {
            let out = run(home.path(), &[&["--lang", lang], &args[..]].concat());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(&place), "{why}: {what}: {err}");
        }
    }
}

/// The end of the call whose `(` is at `open`: its matching `)`, string
/// and character literals skipped (a `"("` in a message is not a paren).
fn call_end(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < code.len() {
        match code[i] {
            b'"' => {
                i += 1;
                while i < code.len() && code[i] != b'"' {
                    if code[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'\'' if code.get(i + 2) == Some(&b'\'') => i += 2,
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Every error a student can reach is built with the catalog's words: each
/// `InputError::new`, `AppError::input` and `DataError::invalid` in the
/// shipped code is followed by `.said(...)` (or is a `Refusal` or a keyed
/// helper, which are). A new English-only error fails here, before any
/// student meets it. Exempt: the validators of files only the project ships
/// (the GPU catalog, the published benchmarks, the model zoo's tables, the
/// bundled platform folder), whose errors are for its developers.
#[test]
fn every_error_is_built_with_the_catalogs_words() {
    let exempt = [
        ("crates/gpuplan-core/src/catalog.rs", "DataError::invalid("),
        (
            "crates/gpuplan-core/src/published.rs",
            "DataError::invalid(",
        ),
        ("crates/gpuplan-core/src/zoo.rs", "DataError::invalid("),
        ("crates/gpuplan-core/src/platform.rs", "DataError::invalid("),
    ];
    let root = crate::common::root();
    let mut files = Vec::new();
    let mut dirs = vec![root.join("crates"), root.join("src-tauri/src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with("target") && !p.ends_with("tests") && !p.ends_with("benches") {
                    dirs.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs")
                && p.components().any(|c| c.as_os_str() == "src")
                && !p.ends_with("tests.rs")
            {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 40, "the sources are found: {}", files.len());
    let mut unkeyed = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("source");
        let code = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        for ctor in [
            "InputError::new(",
            "AppError::input(",
            "DataError::invalid(",
        ] {
            if exempt.contains(&(rel.as_str(), ctor)) {
                continue;
            }
            let bytes = code.as_bytes();
            for (at, _) in code.match_indices(ctor) {
                // The constructors' own definitions are not calls.
                if code[..at].ends_with("fn ") || code[..at].ends_with("Self::") {
                    continue;
                }
                let open = at + ctor.len() - 1;
                let keyed = call_end(bytes, open)
                    .is_some_and(|end| code[end..].trim_start().starts_with(".said("));
                if !keyed {
                    let line = code[..at].matches('\n').count() + 1;
                    unkeyed.push(format!("{rel}:{line}: {ctor}"));
                }
            }
        }
    }
    assert!(
        unkeyed.is_empty(),
        "errors a student can reach without the catalog's words (add .said(...) with error.*/allowed.* keys in both languages):\n{}",
        unkeyed.join("\n")
    );
}

/// Values the files' checks refuse (not their syntax): plans, run reports,
/// course packs, configs and measured runs, each in both languages, with
/// no sentence of the other one and no Rust syntax. The values the files
/// hold (a name, an id) are allowed as typed.
#[test]
fn values_the_files_checks_refuse_speak_the_students_language() {
    let home = tempfile::tempdir().expect("tmp home");
    let dir = tempfile::tempdir().expect("tmp dir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("file written");
        p.to_str().expect("utf-8 path").to_owned()
    };
    let root = crate::common::root();
    let example = std::fs::read_to_string(root.join("examples/resnet18-cifar-estimated.toml"))
        .expect("example plan");
    let report = std::fs::read_to_string(root.join("examples/run-report-example.json"))
        .expect("example report");
    let plan = |name: &str, text: &str| write(name, text);
    let hours = plan(
        "hours.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = -1\n",
    );
    let both = plan(
        "both.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n[stops]\ncount = 1\nhours_each = 2\n[schedule]\ndays = 2\n",
    );
    let offered = plan(
        "offered.toml",
        &example.replace("gpu = \"rtx3090\"", "gpu = \"h100-sxm\""),
    );
    let spot = plan(
        "spot.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\npayment = \"spot\"\n[job]\nhours = 2\n",
    );
    let huge = plan(
        "huge.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 87600\n[[run]]\nname = \"r\"\ncount = 87600\n",
    );
    let exit = write(
        "r-exit.json",
        &report.replace("\"exit_status\": 0", "\"exit_status\": 999"),
    );
    let peaks = write(
        "r-peaks.json",
        &report.replace("\"gpu_peaks_mib\": [", "\"gpu_peaks_mib\": [1, 2, 3, "),
    );
    let config = write(
        "mamba.json",
        r#"{"model_type":"mamba","hidden_size":768,"num_hidden_layers":24,"num_attention_heads":12,"vocab_size":50280,"max_position_embeddings":2048}"#,
    );
    let kind = write(
        "kind.json",
        r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":"big","num_attention_heads":32,"num_hidden_layers":32,"vocab_size":32000,"max_position_embeddings":4096}"#,
    );
    let est = |cfg: &str| -> Vec<String> {
        ["estimate", "--model", "custom", "--config", cfg]
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    };
    // (arguments, why)
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["quote".into(), hours], "negative hours in a plan"),
        (
            vec!["quote".into(), both],
            "[stops] and [schedule] together",
        ),
        (
            vec!["quote".into(), offered],
            "a card the platform does not offer",
        ),
        (
            vec!["quote".into(), spot],
            "spot where the platform sells none",
        ),
        (vec!["quote".into(), huge], "a plan of a million years"),
        (
            vec!["ledger".into(), "import".into(), exit],
            "an exit status past 255",
        ),
        (
            vec!["ledger".into(), "import".into(), peaks],
            "more GPU figures than GPUs",
        ),
        (est(&config), "an architecture gpuplan does not estimate"),
        (est(&kind), "a size given as a word"),
        (
            vec!["plans".into(), "show".into(), "99".into()],
            "a saved plan that does not exist",
        ),
        (
            vec!["pack".into(), "remove".into(), "nope".into()],
            "a course pack that was never imported",
        ),
        (
            vec![
                "script".into(),
                "slurm".into(),
                "--job-name".into(),
                "a b".into(),
                "--hours".into(),
                "2".into(),
                "--command".into(),
                "python t.py".into(),
            ],
            "a job name Slurm cannot take",
        ),
    ];
    for (args, why) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        for lang in ["zh", "en"] {
            let mut all = vec!["--lang", lang];
            all.extend_from_slice(&args);
            let out = run(home.path(), &all);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{why} ({lang}): refused: {err}");
            // The file paths and ids typed are the student's own words.
            let mut typed: Vec<&str> = args.clone();
            typed.extend([
                dir.path().to_str().unwrap_or(""),
                "nope",
                "mamba",
                "big",
                "h100-sxm",
                "autodl",
            ]);
            speaks(&err, lang, &typed, why);
        }
    }
}

#[test]
fn a_run_group_nobody_named_is_not_called_run_run() {
    let home = tempfile::tempdir().expect("tmp");
    let dir = tempfile::tempdir().expect("tmp");
    type Case = (&'static str, &'static str, &'static str);
    // (the runs, what the error must say, why)
    let cases: [Case; 2] = [
        (
            "[[run]]\nepochs = 3\n",
            "the runs give epochs",
            "an unnamed group: no name to say",
        ),
        (
            "[[run]]\nname = \"sweep\"\nepochs = 3\n",
            "run sweep gives epochs",
            "a named group is named",
        ),
    ];
    for (runs, said, why) in cases {
        let file = dir.path().join("p.toml");
        std::fs::write(
            &file,
            format!(
                "name = \"ep\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n{runs}"
            ),
        )
        .expect("write");
        let out = run(
            home.path(),
            &["--lang", "en", "quote", file.to_str().expect("utf-8")],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{why}: {err}");
        assert!(!err.contains("run run"), "{why}: {err}");
    }
}
