//! Holds cross-card step time to published training throughput
//! (`data/benchmarks/published-training.toml`).

use crate::common;

use gpuplan_core::{published, steptime, vram};

fn runs() -> Vec<published::PublishedRun> {
    published::parse(
        "data/benchmarks/published-training.toml",
        gpuplan_data::PUBLISHED_TRAINING_TOML,
    )
    .expect("valid file")
}

#[test]
#[ignore = "prints per-run work for refitting: cargo test -p gpuplan-tests --test cross_card -- --ignored --nocapture"]
fn print_work_for_calibration() {
    let zoo = common::zoo();
    let catalog = common::catalog();
    for run in runs() {
        let entry = zoo.get(&run.model).unwrap();
        let job = run.job().resolve(entry).unwrap();
        let v = vram::estimate(&entry.model, &job);
        let w = steptime::work(&entry.model, &job, &v);
        let g = catalog.get(&run.gpu).unwrap();
        println!(
            "CARD {} {} {} {} {} {} {} {} {} {} {:?} {} {} {} {}",
            run.gpu,
            run.model,
            run.precision,
            run.batch.value,
            run.step_seconds(),
            w.conv_flops,
            w.matmul_flops,
            w.traffic_bytes,
            w.ops,
            job.precision.is_half(),
            g.spec.generation,
            g.spec.tensor_tflops.value,
            g.spec.fp32_tflops.value,
            g.spec.bandwidth_gbs.value,
            job.tf32,
        );
    }
}

struct Scored {
    run: published::PublishedRun,
    generation: String,
    held_out: bool,
    predicted_s: f64,
}

impl Scored {
    fn error(&self) -> f64 {
        self.predicted_s / self.run.step_seconds() - 1.0
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

/// Every published run timed by the estimator. Cards at even positions in the
/// sorted list of ids are the ones `tools/calibrate/fit_cards.py` fitted on;
/// the others are held out.
fn score() -> Vec<Scored> {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let runs = runs();
    let mut cards: Vec<&str> = runs.iter().map(|r| r.gpu.as_str()).collect();
    cards.sort_unstable();
    cards.dedup();
    runs.iter()
        .map(|run| {
            let entry = zoo.get(&run.model).expect("published model in the zoo");
            let job = run.job().resolve(entry).expect("published job is valid");
            let v = vram::estimate(&entry.model, &job);
            let g = catalog
                .get(&run.gpu)
                .expect("published card in the catalog");
            let position = cards.iter().position(|c| *c == run.gpu).unwrap_or(0);
            Scored {
                run: run.clone(),
                generation: format!("{:?}", g.spec.generation).to_lowercase(),
                held_out: position % 2 == 1,
                predicted_s: steptime::estimate(&entry.model, &job, &v, g).seconds,
            }
        })
        .collect()
}

fn summary(label: &str, scored: &[&Scored]) -> (String, f64, f64) {
    let errors: Vec<f64> = scored.iter().map(|s| s.error()).collect();
    let abs = median(errors.iter().map(|e| e.abs()).collect());
    let signed = median(errors);
    (
        format!(
            "| {label} | {} | {:.1}% | {:+.1}% |",
            scored.len(),
            abs * 100.0,
            signed * 100.0
        ),
        abs,
        signed,
    )
}

#[test]
fn cross_card_step_time_meets_published_benchmarks() {
    let scored = score();
    assert!(
        scored.len() >= 40,
        "the published file should hold at least 40 runs, found {}",
        scored.len()
    );
    assert!(
        scored.iter().all(|s| s.run.gpu != "h200"),
        "the H200 is the calibration card; its runs belong in data/measurements"
    );
    let mut doc = String::new();
    doc.push_str("| runs | n | median \\|error\\| | median signed error |\n|---|---:|---:|---:|\n");
    let all: Vec<&Scored> = scored.iter().collect();
    let held: Vec<&Scored> = scored.iter().filter(|s| s.held_out).collect();
    let fit: Vec<&Scored> = scored.iter().filter(|s| !s.held_out).collect();
    let (line, all_abs, all_signed) = summary("all cards but the H200", &all);
    doc.push_str(&line);
    doc.push('\n');
    let (line, held_abs, held_signed) = summary("held-out cards", &held);
    doc.push_str(&line);
    doc.push('\n');
    let (line, _, _) = summary("fitted cards", &fit);
    doc.push_str(&line);
    doc.push('\n');
    let mut generations: Vec<&str> = scored.iter().map(|s| s.generation.as_str()).collect();
    generations.sort_unstable();
    generations.dedup();
    for g in &generations {
        let group: Vec<&Scored> = scored.iter().filter(|s| s.generation == *g).collect();
        doc.push_str(&summary(&format!("{g} cards"), &group).0);
        doc.push('\n');
    }
    for (model, precision) in [
        ("resnet50", "fp32"),
        ("resnet50", "fp16-amp"),
        ("bert-base", "fp32"),
        ("bert-base", "fp16-amp"),
    ] {
        let group: Vec<&Scored> = scored
            .iter()
            .filter(|s| s.run.model == model && s.run.precision.to_string() == precision)
            .collect();
        doc.push_str(&summary(&format!("{model} {precision}"), &group).0);
        doc.push('\n');
    }
    doc.push_str("\n| card | model | precision | batch | published samples/s | estimated samples/s | step error | set |\n|---|---|---|---:|---:|---:|---:|---|\n");
    for s in &scored {
        let b = f64::from(s.run.batch.value);
        doc.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} | {:.0} | {:+.1}% | {} |\n",
            s.run.gpu,
            s.run.model,
            s.run.precision,
            s.run.batch.value,
            s.run.samples_per_s.value,
            b / s.predicted_s,
            s.error() * 100.0,
            if s.held_out { "held out" } else { "fit" }
        ));
    }
    println!("{doc}");
    if std::env::var_os("GPUPLAN_WRITE_ACCURACY").is_some() {
        let path = crate::common::root().join("docs/accuracy.md");
        let text = std::fs::read_to_string(&path).expect("docs/accuracy.md");
        let (head, rest) = text
            .split_once("<!-- cross-card -->")
            .expect("cross-card marker");
        let (_, tail) = rest
            .split_once("<!-- /cross-card -->")
            .expect("cross-card end marker");
        std::fs::write(
            &path,
            format!("{head}<!-- cross-card -->\n{doc}<!-- /cross-card -->{tail}"),
        )
        .expect("write docs/accuracy.md");
    }
    // Positive errors are slower estimates than published (pessimistic); a
    // negative bias would quote students fewer hours than they will pay for.
    assert!(
        held_abs <= 0.15,
        "held-out cards: median |error| {:.1}% exceeds 15%",
        held_abs * 100.0
    );
    assert!(
        held_signed.abs() <= 0.10,
        "held-out cards: systematic bias {:+.1}% beyond 10%",
        held_signed * 100.0
    );
    assert!(
        all_abs <= 0.15,
        "all cards: median |error| {:.1}% exceeds 15%",
        all_abs * 100.0
    );
    assert!(
        all_signed.abs() <= 0.10,
        "all cards: systematic bias {:+.1}% beyond 10%",
        all_signed * 100.0
    );
}

#[test]
fn typical_steps_are_the_work_the_estimator_counts() {
    // The hours-only path of recommend carries hours by two typical steps; they
    // must stay the work `steptime::work` counts for those jobs, or the two
    // paths would disagree about how fast a card is.
    let zoo = common::zoo();
    let cases = [
        ("resnet50", 256.0, Some(224.0), None, 0),
        ("bert-base", 32.0, None, Some(384.0), 1),
    ];
    for (model, batch, resolution, seq_len, index) in cases {
        let entry = zoo.get(model).unwrap();
        let job = gpuplan_core::JobSpec {
            model: Some(model.into()),
            batch: Some(batch),
            resolution,
            seq_len,
            precision: Some(gpuplan_core::Precision::Fp16Amp),
            optimizer: Some(if model == "resnet50" {
                gpuplan_core::Optimizer::Sgd
            } else {
                gpuplan_core::Optimizer::Adamw
            }),
            ..Default::default()
        }
        .resolve(entry)
        .unwrap();
        let v = vram::estimate(&entry.model, &job);
        let w = steptime::work(&entry.model, &job, &v);
        let t = steptime::TYPICAL_STEPS[index];
        for (what, counted, typical) in [
            ("conv FLOPs", w.conv_flops, t.conv_flops),
            ("Winograd FLOPs", w.winograd_flops, t.winograd_flops),
            ("matmul FLOPs", w.matmul_flops, t.matmul_flops),
            ("traffic", w.traffic_bytes, t.traffic_bytes),
            ("ops", w.ops, t.ops),
            ("activation traffic", w.activation_bytes, t.activation_bytes),
            ("tensor size", w.tensor_bytes, t.tensor_bytes),
            ("layout traffic", w.layout_bytes, t.layout_bytes),
        ] {
            let rel = if counted == 0.0 {
                typical.abs()
            } else {
                (typical / counted - 1.0).abs()
            };
            assert!(
                rel <= 0.01,
                "{model} {what}: TYPICAL_STEPS has {typical:e}, work() counts {counted:.4e}"
            );
        }
    }
}
