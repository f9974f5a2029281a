//! Step time against published training throughput from many publishers
//! (`data/benchmarks/published-training-2.toml`, issue 25), on the held-out
//! rows only: the figures `docs/accuracy.md` states, and the bar they must
//! keep. Fit rows are reported beside them, never mixed in.

use std::collections::BTreeMap;

use crate::common;

use gpuplan_core::catalog::{Generation, Gpu};
use gpuplan_core::pipeline::{DiskKind, Host};
use gpuplan_core::published::{self, PublishedRow, Set};
use gpuplan_core::{estimate, steptime, vram};

fn rows() -> Vec<PublishedRow> {
    published::parse_rows(
        "data/benchmarks/published-training-2.toml",
        gpuplan_data::PUBLISHED_TRAINING_2_TOML,
    )
    .expect("valid file")
}

/// The card classes the bar is stated for.
fn class(g: &Gpu) -> &'static str {
    let consumer = g.spec.name.contains("GeForce") || g.spec.name.contains("RTX");
    match g.spec.generation {
        Generation::Pascal | Generation::Volta => "pascal/volta",
        Generation::Turing => "turing",
        Generation::Ampere if consumer => "ampere consumer",
        Generation::Ampere => "ampere datacenter",
        Generation::Ada => "ada",
        Generation::Hopper => "hopper",
        Generation::Blackwell => "blackwell consumer",
    }
}

struct Scored {
    row: PublishedRow,
    class: &'static str,
    predicted_s: f64,
}

impl Scored {
    fn error(&self) -> f64 {
        self.predicted_s / self.row.step_seconds() - 1.0
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Times one expressible row through the estimator, as a student's job is
/// timed: the single-GPU step on the card, then the layout's communication.
fn time(row: &PublishedRow) -> Scored {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let model = row.model.as_deref().expect("expressible rows name a model");
    let entry = zoo.get(model).expect("published model in the zoo");
    let gpu = catalog
        .get(row.gpu.as_deref().expect("expressible rows name a card"))
        .expect("published card in the catalog");
    let job = row
        .job()
        .and_then(|j| j.resolve(entry))
        .unwrap_or_else(|e| panic!("{}: published job is valid: {e}", row.id));
    let single = vram::estimate(&entry.model, &job);
    let host = Host {
        vcpus: 16,
        ram_gb: 128.0,
        disk: DiskKind::LocalNvme,
        interconnect: row.interconnect,
    };
    let step = estimate::step_on(&entry.model, &job, &single, gpu, &host);
    Scored {
        row: row.clone(),
        class: class(gpu),
        predicted_s: step.seconds,
    }
}

fn score() -> Vec<Scored> {
    rows()
        .iter()
        .filter(|r| r.expressible())
        .map(time)
        .collect()
}

fn line(label: &str, group: &[&Scored]) -> (String, f64, f64) {
    let errors: Vec<f64> = group.iter().map(|s| s.error()).collect();
    let abs = median(errors.iter().map(|e| e.abs()).collect());
    let signed = median(errors);
    (
        format!(
            "| {label} | {} | {:.1}% | {:+.1}% |",
            group.len(),
            abs * 100.0,
            signed * 100.0
        ),
        abs,
        signed,
    )
}

/// Groups `scored` by `key` and writes one line per group.
fn table<'a>(
    title: &str,
    scored: &[&'a Scored],
    key: impl Fn(&Scored) -> String,
) -> (String, BTreeMap<String, (usize, f64, f64)>) {
    let mut groups: BTreeMap<String, Vec<&'a Scored>> = BTreeMap::new();
    for s in scored {
        groups.entry(key(s)).or_default().push(s);
    }
    let mut doc = format!(
        "| {title} | n | median \\|error\\| | median signed error |\n|---|---:|---:|---:|\n"
    );
    let mut out = BTreeMap::new();
    for (k, g) in &groups {
        let (l, abs, signed) = line(k, g);
        doc.push_str(&l);
        doc.push('\n');
        out.insert(k.clone(), (g.len(), abs, signed));
    }
    let (l, _, _) = line("all", scored);
    doc.push_str(&l);
    doc.push('\n');
    (doc, out)
}

#[test]
fn published_rows_load_and_the_expressible_ones_resolve() {
    let rows = rows();
    assert!(rows.len() >= 250, "the research notes hold 266 rows");
    let scored = score();
    let held: Vec<&Scored> = scored
        .iter()
        .filter(|s| s.row.set == Set::HeldOut)
        .collect();
    let mut publishers: Vec<&str> = held.iter().map(|s| s.row.publisher.as_str()).collect();
    publishers.sort_unstable();
    publishers.dedup();
    assert!(
        publishers.len() >= 3,
        "held-out rows from at least three publishers beyond Lambda: {publishers:?}"
    );
    let mut cards: Vec<&str> = scored.iter().filter_map(|s| s.row.gpu.as_deref()).collect();
    cards.sort_unstable();
    cards.dedup();
    assert!(cards.len() >= 8, "at least eight catalog cards: {cards:?}");
    for r in rows.iter().filter(|r| !r.expressible()) {
        assert!(
            r.not_expressible
                .as_deref()
                .is_some_and(|w| !w.trim().is_empty()),
            "{} says why it is not scored",
            r.id
        );
    }
}

#[test]
#[ignore = "the model is being refitted (issue 25)"]
fn published_step_time_held_out_meets_the_bar() {
    let scored = score();
    let held: Vec<&Scored> = scored
        .iter()
        .filter(|s| s.row.set == Set::HeldOut)
        .collect();
    let fit: Vec<&Scored> = scored.iter().filter(|s| s.row.set == Set::Fit).collect();
    let multi = |s: &Scored| {
        if s.row.gpus > 1 {
            format!(
                "{} GPUs",
                if s.row.nodes.unwrap_or(1) > 1 {
                    "multi-node"
                } else {
                    "multi"
                }
            )
        } else {
            "1 GPU".into()
        }
    };
    let mut doc = String::from("Held-out rows (never fitted):\n\n");
    let (t, by_publisher) = table("held-out, by publisher", &held, |s| s.row.publisher.clone());
    doc.push_str(&t);
    doc.push('\n');
    let (t, by_class) = table("held-out, by card class", &held, |s| s.class.to_owned());
    doc.push_str(&t);
    doc.push('\n');
    let (t, by_scale) = table("held-out, by scale", &held, multi);
    doc.push_str(&t);
    doc.push('\n');
    let (t, _) = table("held-out, by mode", &held, |s| s.row.mode.to_string());
    doc.push_str(&t);
    doc.push_str("\nFitted rows (reported apart; not the bar):\n\n");
    let (t, _) = table("fit, by publisher", &fit, |s| s.row.publisher.clone());
    doc.push_str(&t);
    doc.push('\n');
    let (t, _) = table("fit, by card class", &fit, |s| s.class.to_owned());
    doc.push_str(&t);
    doc.push_str("\n| row | set | card | model | mode | precision | batch x GPUs | published samples/s/GPU | estimated | step error |\n|---|---|---|---|---|---|---|---:|---:|---:|\n");
    for s in held.iter().chain(fit.iter()) {
        let b = f64::from(s.row.batch);
        doc.push_str(&format!(
            "| {} | {} | {} | {} | {} | {}{} | {} x {} | {:.3} | {:.3} | {:+.1}% |\n",
            s.row.id,
            if s.row.set == Set::Fit {
                "fit"
            } else {
                "held-out"
            },
            s.row.gpu.as_deref().unwrap_or("-"),
            s.row.model.as_deref().unwrap_or("-"),
            s.row.mode,
            s.row.precision,
            if s.row.tf32 { " (tf32)" } else { "" },
            s.row.batch,
            s.row.gpus,
            s.row.samples_per_s,
            b / s.predicted_s,
            s.error() * 100.0,
        ));
    }
    println!("{doc}");
    if std::env::var_os("GPUPLAN_WRITE_ACCURACY").is_some() {
        let path = common::root().join("docs/accuracy.md");
        let text = std::fs::read_to_string(&path).expect("docs/accuracy.md");
        let (head, rest) = text
            .split_once("<!-- published-2 -->")
            .expect("published-2 marker");
        let (_, tail) = rest
            .split_once("<!-- /published-2 -->")
            .expect("published-2 end marker");
        std::fs::write(
            &path,
            format!("{head}<!-- published-2 -->\n{doc}<!-- /published-2 -->{tail}"),
        )
        .expect("write docs/accuracy.md");
    }
    let mut failures = Vec::new();
    for (what, groups) in [
        ("publisher", &by_publisher),
        ("card class", &by_class),
        ("scale", &by_scale),
    ] {
        for (k, (n, abs, signed)) in groups {
            let (abs_bar, signed_bar) = bar(what, k);
            if *abs > abs_bar || signed.abs() > signed_bar {
                failures.push(format!(
                    "{what} {k} (n {n}): median |error| {:.1}% (bar {:.0}%), signed {:+.1}% (bar ±{:.0}%)",
                    abs * 100.0,
                    abs_bar * 100.0,
                    signed * 100.0,
                    signed_bar * 100.0
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "held-out bar missed:\n{}",
        failures.join("\n")
    );
}

/// The bar each held-out group must keep: median |error| <= 10% and median
/// signed error within ±5% (issue 25), except where docs/accuracy.md states
/// a wider bar with its reason.
fn bar(_what: &str, _group: &str) -> (f64, f64) {
    (0.10, 0.05)
}
