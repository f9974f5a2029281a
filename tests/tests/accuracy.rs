//! Scores the estimators on real measurements (`data/measurements/*.jsonl`,
//! provenance in that folder's README; nothing outside the repository) and checks
//! the targets: memory median |error| <= 10% with no job
//! underestimated by more than 10%, step time median |error| <= 5% (25% before issue 25).
//!
//! `GPUPLAN_WRITE_ACCURACY=1 cargo test -p gpuplan-tests --test accuracy`
//! rewrites `docs/accuracy.md` with the per-job table.

use crate::common;

use std::fmt::Write as _;
use std::path::PathBuf;

use gpuplan_core::{steptime, vram};

struct Scored {
    name: String,
    /// "vision", "encoder" or "decoder", and the job's mode.
    group: String,
    truth_gib: f64,
    pred_gib: f64,
    truth_s: f64,
    pred_s: f64,
}

fn measurement_files() -> Vec<PathBuf> {
    let root = crate::common::root();
    let mut files = Vec::new();
    for dir in [root.join("data/measurements")] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            let mut found: Vec<PathBuf> = rd
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect();
            found.sort();
            files.extend(found);
        }
    }
    files
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn score() -> Vec<Scored> {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let h200 = catalog.get("h200").expect("h200 in catalog");
    let mut out = Vec::new();
    for file in measurement_files() {
        let text = std::fs::read_to_string(&file).expect("readable measurement file");
        let (baseline, rows) = common::load_rows(&text);
        for row in rows {
            let Some(id) = common::model_id(&row.name) else {
                continue;
            };
            let entry = zoo.get(id).expect("mapped id is in the zoo");
            let job = common::job_request(&row)
                .resolve(entry)
                .unwrap_or_else(|e| panic!("{}: {e}", row.name));
            let v = vram::estimate(&entry.model, &job);
            let t = steptime::estimate(&entry.model, &job, &v, h200);
            let family = match &entry.model {
                gpuplan_core::Model::Vision(_) => "vision",
                gpuplan_core::Model::Transformer(t) => match t.kind {
                    gpuplan_core::zoo::TransformerKind::Encoder => "encoder",
                    _ => "decoder",
                },
            };
            out.push(Scored {
                group: format!("{family} {}", job.mode),
                name: row.name.clone(),
                truth_gib: (row.nvml_used_mib.expect("nvml figure") - baseline) / 1024.0,
                pred_gib: v.peak_gib(),
                truth_s: row.step_s.expect("step time"),
                pred_s: t.seconds,
            });
        }
    }
    out
}

#[test]
fn estimator_meets_accuracy_targets_on_real_measurements() {
    let scored = score();
    assert!(
        scored.len() >= 25,
        "expected the 25 calibration jobs beside the repo, found {}",
        scored.len()
    );
    let mem_err: Vec<f64> = scored
        .iter()
        .map(|s| s.pred_gib / s.truth_gib - 1.0)
        .collect();
    let time_err: Vec<f64> = scored.iter().map(|s| s.pred_s / s.truth_s - 1.0).collect();
    let mut table = String::new();
    writeln!(table, "| job | measured GiB | estimated GiB | error | measured s/step | estimated s/step | error |").ok();
    writeln!(table, "|---|---:|---:|---:|---:|---:|---:|").ok();
    for (s, (me, te)) in scored.iter().zip(mem_err.iter().zip(&time_err)) {
        writeln!(
            table,
            "| {} | {:.2} | {:.2} | {:+.1}% | {:.4} | {:.4} | {:+.1}% |",
            s.name,
            s.truth_gib,
            s.pred_gib,
            me * 100.0,
            s.truth_s,
            s.pred_s,
            te * 100.0
        )
        .ok();
    }
    let mem_median = median(mem_err.iter().map(|e| e.abs()).collect());
    let time_median = median(time_err.iter().map(|e| e.abs()).collect());
    let worst_under = mem_err.iter().copied().fold(f64::INFINITY, f64::min);
    writeln!(table, "\nMemory: median |error| {:.1}%, worst underestimate {:+.1}%. Step time: median |error| {:.1}%.", mem_median * 100.0, worst_under * 100.0, time_median * 100.0).ok();
    // Per family and mode (issue 13): none may be under-estimated by more
    // than 10% at the median.
    let mut groups: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    for (s, e) in scored.iter().zip(&mem_err) {
        groups.entry(s.group.as_str()).or_default().push(*e);
    }
    writeln!(
        table,
        "\n| family and mode | jobs | memory median error |\n|---|---:|---:|"
    )
    .ok();
    for (g, errs) in &groups {
        let m = median(errs.clone());
        writeln!(table, "| {g} | {} | {:+.1}% |", errs.len(), m * 100.0).ok();
        assert!(
            m >= -0.10,
            "{g}: memory under-estimated by {:.1}% at the median",
            -m * 100.0
        );
    }
    println!("{table}");
    if std::env::var_os("GPUPLAN_WRITE_ACCURACY").is_some() {
        let path = crate::common::root().join("docs/accuracy.md");
        let doc = std::fs::read_to_string(&path).unwrap_or_default();
        let head = doc.split("<!-- table -->").next().unwrap_or("").to_owned();
        std::fs::write(&path, format!("{head}<!-- table -->\n{table}"))
            .expect("write docs/accuracy.md");
    }
    assert!(
        mem_median <= 0.10,
        "memory median |error| {:.1}% exceeds 10%",
        mem_median * 100.0
    );
    assert!(worst_under >= -0.10, "a job is underestimated by {:.1}% (limit 10%): saying it fits and then running out of memory is the worst failure", worst_under * 100.0);
    // Issue 25: the cross-card refit may not cost the calibration card its
    // accuracy; the H200 keeps a step-time median |error| within 5%.
    assert!(
        time_median <= 0.05,
        "step-time median |error| {:.1}% exceeds 5%",
        time_median * 100.0
    );
}

#[test]
#[ignore = "prints per-job terms for recalibration: cargo test -p gpuplan-tests --test accuracy -- --ignored --nocapture"]
fn print_terms_for_calibration() {
    let zoo = common::zoo();
    for file in measurement_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let (_, rows) = common::load_rows(&text);
        for row in rows {
            let Some(id) = common::model_id(&row.name) else {
                continue;
            };
            let entry = zoo.get(id).unwrap();
            let job = common::job_request(&row).resolve(entry).unwrap();
            let v = vram::estimate(&entry.model, &job);
            let c: Vec<String> = v
                .components
                .gib_entries()
                .iter()
                .map(|(k, x)| format!("{k}={:.2}", x))
                .collect();
            println!(
                "{} {:?} {} alloc_pred={:.0}MiB",
                row.name,
                v.phase,
                c.join(" "),
                (v.peak_bytes - v.components.allocator - v.components.context) / 1048576.0
            );
            let h200 = common::catalog().get("h200").unwrap().clone();
            let t = steptime::estimate(&entry.model, &job, &v, &h200);
            let w = steptime::work(&entry.model, &job, &v);
            println!(
                "WORK {} {} {} {} {} {} {}",
                row.name,
                row.step_s.unwrap(),
                w.conv_flops,
                w.matmul_flops,
                w.traffic_bytes,
                w.ops,
                job.precision.is_half()
            );
            println!(
                "TIME {} truth={:.4} pred={:.4} dev={:.4} host={:.4}",
                row.name,
                row.step_s.unwrap(),
                t.seconds,
                t.device_s,
                t.host_s
            );
        }
    }
}

/// Published fine-tuning runs others measured (`data/benchmarks/published-memory.toml`):
/// the estimate's allocated peak (without the CUDA context and the
/// allocator's reserve, which `max_memory_allocated` does not count) against
/// theirs, per mode; no mode may be under-estimated by more than 10% at the
/// median (issue 13).
#[test]
fn published_memory_is_not_underestimated() {
    let zoo = common::zoo();
    let runs = gpuplan_core::published::parse_memory(
        "data/benchmarks/published-memory.toml",
        gpuplan_data::PUBLISHED_MEMORY_TOML,
    )
    .expect("valid file");
    let mut table = String::from(
        "| model | mode | precision | GPUs | batch x seq per GPU | checkpointing | published GiB (max allocated, one GPU) | estimated GiB | error |\n|---|---|---|---|---|---|---:|---:|---:|\n",
    );
    let mut by_mode: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for r in &runs {
        let entry = zoo.get(&r.model).expect("zoo model");
        let job = r.job().expect("job").resolve(entry).expect("valid job");
        let v = gpuplan_core::estimate::job_peak(&entry.model, &job);
        let allocated = v.peak_bytes - v.components.context - v.components.allocator;
        let err = allocated / r.peak_alloc_bytes.value - 1.0;
        by_mode.entry(r.mode.to_string()).or_default().push(err);
        writeln!(
            table,
            "| {} | {} | {} | {} | {} x {} | {} | {:.2} | {:.2} | {:+.1}% |",
            r.model,
            r.mode,
            r.precision,
            match (r.gpus.unwrap_or(1), r.engine) {
                (1, _) => "1".to_owned(),
                (n, Some(e)) => format!(
                    "{n} ({})",
                    serde_json::to_value(e)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                ),
                (n, None) => n.to_string(),
            },
            r.batch,
            r.seq_len,
            if r.grad_checkpointing { "yes" } else { "no" },
            r.peak_alloc_bytes.value / gpuplan_core::GIB,
            allocated / gpuplan_core::GIB,
            err * 100.0
        )
        .ok();
    }
    for (mode, errs) in &by_mode {
        writeln!(
            table,
            "\n{mode}: median error {:+.1}% over {} runs.",
            median(errs.clone()) * 100.0,
            errs.len()
        )
        .ok();
    }
    println!("{table}");
    if std::env::var_os("GPUPLAN_WRITE_ACCURACY").is_some() {
        let path = crate::common::root().join("docs/accuracy.md");
        let text = std::fs::read_to_string(&path).expect("docs/accuracy.md");
        let (head, rest) = text
            .split_once("<!-- published-memory -->")
            .expect("marker");
        let (_, tail) = rest
            .split_once("<!-- /published-memory -->")
            .expect("end marker");
        std::fs::write(
            &path,
            format!("{head}<!-- published-memory -->\n{table}<!-- /published-memory -->{tail}"),
        )
        .expect("write");
    }
    // The app's about text quotes `HeldOutAccuracy`'s memory rows: the
    // medians of this table.
    let scored = gpuplan_core::heldout::score_memory(&runs, zoo).expect("runs resolve");
    let quoted = gpuplan_core::heldout::HeldOutAccuracy::of(&[], &scored).memory;
    assert_eq!(quoted.len(), by_mode.len(), "one about-text row per mode");
    for q in &quoted {
        let errs = &by_mode[&q.mode.to_string()];
        assert_eq!(
            (q.figures.runs as usize, q.figures.median_error),
            (errs.len(), median(errs.clone())),
            "{}: the app quotes this table's median",
            q.mode
        );
    }
    for (mode, errs) in &by_mode {
        let m = median(errs.clone());
        assert!(
            m >= -0.10,
            "{mode}: published memory under-estimated by {:.1}% at the median (limit 10%)",
            -m * 100.0
        );
    }
}
