//! One message catalog (`data/locales/{zh,en}.json`) words everything the CLI
//! and the app show. This test fails when a key is missing in either language,
//! when a text's placeholders differ between languages, when code names a key
//! the catalog lacks, or when a key is used nowhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use gpuplan_core::estimate::{FixKind, Verdict};
use gpuplan_core::job::{DatasetKind, Mode, Optimizer, Precision};
use gpuplan_core::pipeline::{Bound, DiskKind, RunParts};
use gpuplan_core::platform::{PackagePeriod, PlatformKind};
use gpuplan_core::quote::{Category, LineKind, Warning};
use gpuplan_core::recommend::{Badge, Stage};
use gpuplan_core::vram::Components;
use gpuplan_usecases::planning::SCRIPT_KEYS;
use gpuplan_usecases::{Catalog, Lang};
use serde::Serialize;

fn root() -> PathBuf {
    crate::common::root()
}

fn spelled<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .expect("serialises")
        .as_str()
        .expect("a plain string")
        .to_owned()
}

fn placeholders(s: &str) -> BTreeSet<String> {
    s.split("{{")
        .skip(1)
        .filter_map(|p| p.split("}}").next())
        .map(str::to_owned)
        .collect()
}

/// Families of keys whose last segment is a value the code produces at run
/// time; each maps to the values Rust (or the UI's step list) can produce.
fn families() -> BTreeMap<&'static str, Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    BTreeMap::from([
        (
            "enum.precision.",
            Precision::VALUES.iter().map(spelled).collect(),
        ),
        (
            "enum.optimizer.",
            Optimizer::VALUES.iter().map(spelled).collect(),
        ),
        ("enum.mode.", Mode::VALUES.iter().map(spelled).collect()),
        (
            "enum.family.",
            gpuplan_core::zoo::ModelFamily::ALL
                .iter()
                .map(|f| f.as_str().to_owned())
                .collect(),
        ),
        ("enum.stage.", Stage::VALUES.iter().map(spelled).collect()),
        ("enum.verdict.", Verdict::ALL.iter().map(spelled).collect()),
        (
            "enum.platform-kind.",
            PlatformKind::ALL.iter().map(spelled).collect(),
        ),
        (
            "enum.package-period.",
            PackagePeriod::ALL.iter().map(spelled).collect(),
        ),
        ("enum.payment.", s(&["on-demand", "spot", "package"])),
        (
            "enum.confidence.",
            gpuplan_core::sourced::Confidence::ALL
                .iter()
                .map(|c| c.key().to_owned())
                .collect(),
        ),
        (
            "enum.grade.",
            gpuplan_core::sourced::Grade::ALL
                .iter()
                .map(|g| g.key().to_owned())
                .collect(),
        ),
        (
            "figure.",
            gpuplan_core::quote::Figure::ALL
                .iter()
                .map(|f| f.key().to_owned())
                .collect(),
        ),
        (
            "enum.granularity.",
            gpuplan_core::platform::Granularity::ALL
                .iter()
                .map(|g| g.key().to_owned())
                .collect(),
        ),
        ("enum.badge.", Badge::ALL.iter().map(spelled).collect()),
        (
            "bill.category.",
            Category::ALL.iter().map(spelled).collect(),
        ),
        ("bill.line.", LineKind::ALL.iter().map(spelled).collect()),
        ("warning.", {
            // Each kind, the deadline kinds' own sentence when the deadline
            // falls after the last run, and several instances' last
            // packages together (`Warning::message`).
            let mut v = s(&Warning::KINDS);
            v.extend(s(&[
                "data-wiped-end",
                "instance-released-end",
                "extra-packages",
            ]));
            v
        }),
        ("memory.components.", s(&Components::KEYS)),
        ("run.parts.", s(&RunParts::KEYS)),
        (
            "enum.dataset.",
            DatasetKind::VALUES.iter().map(spelled).collect(),
        ),
        ("enum.disk.", DiskKind::ALL.iter().map(spelled).collect()),
        ("enum.bound.", Bound::ALL.iter().map(spelled).collect()),
        (
            "enum.bound-short.",
            Bound::ALL.iter().map(spelled).collect(),
        ),
        (
            "enum.engine.",
            gpuplan_core::parallel::Engine::VALUES
                .iter()
                .map(spelled)
                .collect(),
        ),
        // Whether a group of held-out runs meets the bar (`ClassFigures::note`).
        ("enum.bar.", s(&["meets", "misses"])),
        (
            "enum.bias.",
            s(&["slow", "fast", "even", "slightly-slow", "slightly-fast"]),
        ),
        // The multi-GPU scales `HeldOutAccuracy::note_for` quotes.
        ("enum.scale.", s(&["one-node", "several-nodes"])),
        (
            "enum.card-class.",
            gpuplan_core::heldout::CardClass::VALUES
                .iter()
                .map(spelled)
                .collect(),
        ),
        (
            "enum.attention.",
            gpuplan_core::zoo::AttentionImpl::VALUES
                .iter()
                .map(spelled)
                .collect(),
        ),
        // Field names in error messages: every limit the forms check, and
        // the ids and choices a command names.
        ("field.", {
            let mut v: Vec<String> = gpuplan_core::limits::ALL
                .iter()
                .map(|l| l.field.replace('.', "-"))
                .collect();
            v.extend(s(&[
                "model",
                "gpu",
                "platform",
                "payment",
                "mode",
                "precision",
                "optimizer",
                "price",
                // The files a command reads or writes.
                "plan",
                "report",
                "pack",
                "path",
                // A run report's card name, refused empty.
                "gpu_name",
                // The file an export writes.
                "out",
                // The script flags' fields (`hours` is also the estimate's
                // `--hours`), the multi-GPU engine, the files of measured
                // runs a pack export reads.
                "hours",
                "max_hours",
                "cpus",
                "mem_gb",
                "engine",
                "measured_runs",
                // A plan the app saves refused by its own fields (its name,
                // its start date) and a quote whose runs add up past ten
                // years (`job.epochs`).
                "name",
                "start_date",
                "job-epochs",
                // A course pack's name and instructor refused on export.
                "pack-name",
                "pack-instructor",
            ]));
            // Every field an input error names by a literal, so no refusal
            // shows a bare id in either language.
            v.extend(refused_fields(&sources()));
            // A typed bill's hours and amount (the ledger form's limits).
            v.extend(
                gpuplan_usecases::Planner::bill_limits()
                    .iter()
                    .map(|l| l.field.replace('.', "-")),
            );
            v
        }),
        ("ledger.gap.", s(&gpuplan_usecases::views::GAP_KEYS)),
        // What an unknown id is (`InputError::unknown`'s `what`).
        ("noun.", s(&["model-id", "gpu-id", "platform"])),
        (
            "enum.fix.",
            FixKind::ALL.iter().map(|k| k.as_str().to_owned()).collect(),
        ),
        // The run group of a plan that names none.
        (
            "enum.group.",
            s(&[gpuplan_core::quote::DEFAULT_GROUP.trim_start_matches("enum.group.")]),
        ),
        ("before.scripts.", s(&SCRIPT_KEYS)),
        (
            "step.",
            s(&["situation", "job", "memory", "options", "plan", "before"]),
        ),
    ])
}

/// The fields input errors name as string literals
/// (`InputError::new("field", ..)`, `AppError::input("field", ..)`, a
/// script's hours), as the catalog keys them (dots as dashes).
fn refused_fields(sources: &[(PathBuf, String)]) -> Vec<String> {
    let calls = ["InputError::new(", "AppError::input(", "hours_arg("];
    let mut out = Vec::new();
    for (_, text) in sources {
        for call in calls {
            for (at, _) in text.match_indices(call) {
                let rest = text[at + call.len()..].trim_start();
                let Some(literal) = rest.strip_prefix('"') else {
                    continue;
                };
                let field = &literal[..literal.find('"').unwrap_or(0)];
                if !field.is_empty() {
                    out.push(field.replace('.', "-"));
                }
            }
        }
    }
    out
}

fn sources() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![
        root().join("crates"),
        root().join("src-tauri/src"),
        root().join("ui/src"),
    ];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if name != "bindings" && name != "target" && name != "node_modules" {
                    stack.push(p);
                }
            } else if ["rs", "ts", "svelte"]
                .iter()
                .any(|x| p.extension().is_some_and(|e| e == *x))
            {
                let text = std::fs::read_to_string(&p).expect("source reads");
                out.push((p, text));
            }
        }
    }
    out
}

#[test]
fn both_languages_have_the_same_keys_and_placeholders() {
    let c = Catalog::bundled().expect("catalogs parse");
    let zh: BTreeSet<&str> = c.keys(Lang::Zh).collect();
    let all_en: BTreeSet<&str> = c.keys(Lang::En).collect();
    // English singulars (`key_one`, chosen when `count` is 1) have no
    // Chinese twin: Chinese has no plural forms. Each must sit beside its
    // plural and say the same placeholders.
    let (singulars, en): (BTreeSet<&str>, BTreeSet<&str>) = all_en
        .iter()
        .partition(|k| k.ends_with(gpuplan_usecases::labels::PLURAL_ONE));
    for one in &singulars {
        let base = &one[..one.len() - gpuplan_usecases::labels::PLURAL_ONE.len()];
        assert!(en.contains(base), "{one} has its plural {base}");
        assert_eq!(
            placeholders(&c.text(Lang::En, one)),
            placeholders(&c.text(Lang::En, base)),
            "{one} says what {base} says"
        );
        assert!(
            placeholders(&c.text(Lang::En, base)).contains("count"),
            "{base} has a count to choose its singular by"
        );
        assert!(!zh.contains(one), "{one}: Chinese has no singular form");
    }
    assert_eq!(
        zh.difference(&en).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "keys only in Chinese"
    );
    assert_eq!(
        en.difference(&zh).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "keys only in English"
    );
    for k in &zh {
        let (z, e) = (c.text(Lang::Zh, k), c.text(Lang::En, k));
        assert!(
            !z.trim().is_empty() && !e.trim().is_empty(),
            "{k} is empty in a language"
        );
        assert_eq!(
            placeholders(&z),
            placeholders(&e),
            "{k} has the same placeholders in both languages"
        );
    }
}

#[test]
fn every_value_the_code_produces_has_a_text_and_no_family_key_is_dead() {
    let c = Catalog::bundled().expect("catalogs parse");
    let keys: BTreeSet<&str> = c.keys(Lang::En).collect();
    for (prefix, values) in families() {
        let want: BTreeSet<String> = values.iter().map(|v| format!("{prefix}{v}")).collect();
        let have: BTreeSet<String> = keys
            .iter()
            .filter(|k| k.starts_with(prefix) && !k[prefix.len()..].contains('.'))
            // An English singular goes with its plural (checked above).
            .filter(|k| !k.ends_with(gpuplan_usecases::labels::PLURAL_ONE))
            .map(|k| (*k).to_owned())
            .collect();
        assert_eq!(
            want.difference(&have).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "values of {prefix}* the code produces but the catalog lacks"
        );
        assert_eq!(
            have.difference(&want).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "{prefix}* keys no code produces"
        );
    }
    let flow = std::fs::read_to_string(root().join("ui/src/lib/flow.ts")).expect("flow.ts");
    assert!(
        flow.contains(r#"["situation", "job", "memory", "options", "plan", "before"]"#),
        "the step family above lists the UI's steps"
    );
}

#[test]
fn every_key_is_used_and_every_used_key_exists() {
    let c = Catalog::bundled().expect("catalogs parse");
    let keys: BTreeSet<&str> = c.keys(Lang::En).collect();
    let families = families();
    let sources = sources();
    // A key is used when some source names it as a whole string literal.
    for k in &keys {
        if families
            .keys()
            .any(|p| k.starts_with(p) && !k[p.len()..].contains('.'))
        {
            continue;
        }
        // `--help`'s texts are keyed by the command tree; the CLI's own test
        // (help_texts) checks that every one is used and matches clap's.
        // An English singular is used wherever its plural is.
        if k.starts_with("help.") || k.ends_with(gpuplan_usecases::labels::PLURAL_ONE) {
            continue;
        }
        let quoted = [format!("\"{k}\""), format!("`{k}`"), format!("'{k}'")];
        assert!(
            sources
                .iter()
                .any(|(_, text)| quoted.iter().any(|q| text.contains(q.as_str()))),
            "catalog key {k} is used nowhere"
        );
    }
    // Every literal key the code asks for exists.
    let calls = [
        "Message::new(\"",
        "t(\"",
        ".text(lang, \"",
        "c.fill(\n            lang,\n            \"",
        "fill(lang, \"",
        "t(`",
        "c.text(lang, \"",
    ];
    for (path, text) in &sources {
        for call in calls {
            for (at, _) in text.match_indices(call) {
                // `t("` inside `split(".")` is not a call of `t`.
                let before = text[..at].chars().next_back();
                if call.starts_with('t') && before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                {
                    continue;
                }
                let piece = &text[at + call.len()..];
                let end = piece.find(['"', '`']).unwrap_or(0);
                let key = &piece[..end];
                if key.is_empty() || key.contains('{') || key.contains('$') || !key.contains('.') {
                    continue;
                }
                assert!(
                    keys.contains(key),
                    "{} asks for {key}, which the catalog lacks",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn english_says_one_in_the_singular_and_chinese_needs_no_plural() {
    let c = Catalog::bundled().expect("catalogs parse");
    // (language, count, what the ledger's total line starts with, why)
    let cases = [
        (Lang::En, "1", "1 bill,", "one bill, not \"1 bills\""),
        (Lang::En, "2", "2 bills,", "two or more: the plural"),
        (
            Lang::En,
            "0",
            "0 bills,",
            "none: the plural, as English says it",
        ),
        (Lang::En, "11", "11 bills,", "11 is not 1"),
        (Lang::Zh, "1", "共 1 笔", "Chinese has one form"),
    ];
    for (lang, count, start, why) in cases {
        let text = c.fill(
            lang,
            "cli.ledgerTotal",
            [("count", count), ("total", "9.90")],
        );
        assert!(text.starts_with(start), "{why}: {text}");
    }
    let stops = c.message(
        Lang::En,
        &gpuplan_core::Message::new("bill.line.stopped")
            .with("count", 1)
            .with("each_s", 3600)
            .with("total_s", 3600),
    );
    assert!(
        stops.starts_with("1 stop of"),
        "a bill line worded from a core message takes its singular too: {stops}"
    );
}
