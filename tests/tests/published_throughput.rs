//! Step time against published training throughput from many publishers
//! (`data/benchmarks/published-training-2.toml`, issue 25), on the held-out
//! rows only: the figures `docs/accuracy.md` states, and the bar they must
//! keep. Fit rows are reported beside them, never mixed in.

use std::collections::BTreeMap;

use crate::common;

use gpuplan_core::catalog::Gpu;
use gpuplan_core::heldout::{self, median, CardClass, Scored};
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

/// Every row the estimator times, from both files, as `heldout::score`
/// times them for the app's about text.
fn score() -> Vec<Scored> {
    let lambda = published::parse(
        "data/benchmarks/published-training.toml",
        gpuplan_data::PUBLISHED_TRAINING_TOML,
    )
    .expect("valid file");
    heldout::score(&rows(), &lambda, common::zoo(), common::catalog())
        .unwrap_or_else(|e| panic!("every expressible published job resolves: {e}"))
}

/// The class as docs/accuracy.md's tables name it.
fn class(g: &Gpu) -> &'static str {
    CardClass::of(g).doc_label()
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
    let held: Vec<&Scored> = scored.iter().filter(|s| s.set == Set::HeldOut).collect();
    let mut publishers: Vec<&str> = held
        .iter()
        .filter(|s| s.publisher != "lambda")
        .map(|s| s.publisher.as_str())
        .collect();
    publishers.sort_unstable();
    publishers.dedup();
    assert!(
        publishers.len() >= 3,
        "held-out rows from at least three publishers beyond Lambda: {publishers:?}"
    );
    let mut cards: Vec<&str> = scored
        .iter()
        .filter(|s| s.publisher != "lambda")
        .map(|s| s.gpu.as_str())
        .collect();
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
fn older_stacks_are_decided_by_the_rows_metadata() {
    let rows = rows();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("{id} is a published row"))
    };
    // (row, older than the fit set's stacks, why)
    let cases = [
        ("NV-13", true, "NGC pytorch:20.06, published 2020"),
        (
            "NV-37",
            true,
            "NGC pytorch:20.06, though the README was published in 2021-08",
        ),
        (
            "NV-1",
            false,
            "NGC pytorch-21.03, the fit set's oldest stack",
        ),
        ("NV-29", false, "NGC pytorch:21.11"),
        (
            "TF-1",
            true,
            "TensorFlow with CUDA 8 (2017): no stack named, the page's date bounds it",
        ),
        ("NF-41", true, "NGC pytorch:18.10 (2018)"),
        ("NF-21", false, "PyTorch 1.13.0 (2022-10)"),
        (
            "DS-1",
            false,
            "Transformers 4.12 (2021-10) is newer than 21.03",
        ),
        ("AA-1", false, "no stack named; published 2024-03"),
    ];
    for (id, older, why) in cases {
        assert_eq!(row(id).older_stack(), older, "{id}: {why}");
    }
    // A stack cannot postdate the row that reports it.
    let text = gpuplan_data::PUBLISHED_TRAINING_2_TOML.replacen(
        "stack_released = \"2020-06\"",
        "stack_released = \"2030-01\"",
        1,
    );
    assert!(
        published::parse_rows("published-training-2.toml", &text).is_err(),
        "a stack released after the row was published is refused"
    );
}

#[test]
fn published_step_time_held_out_meets_the_bar() {
    let scored = score();
    let held: Vec<&Scored> = scored.iter().filter(|s| s.set == Set::HeldOut).collect();
    let fit: Vec<&Scored> = scored.iter().filter(|s| s.set == Set::Fit).collect();
    let multi = |s: &Scored| s.scale().doc_label().to_owned();
    let mut doc = String::from("Held-out rows (never fitted):\n\n");
    let (t, by_publisher) = table("held-out, by publisher", &held, |s| s.publisher.clone());
    doc.push_str(&t);
    doc.push('\n');
    let (t, by_class) = table("held-out, by card class", &held, |s| {
        s.class.doc_label().to_owned()
    });
    doc.push_str(&t);
    doc.push('\n');
    let (t, by_scale) = table("held-out, by scale", &held, multi);
    doc.push_str(&t);
    doc.push('\n');
    let (t, _) = table("held-out, by mode", &held, |s| s.mode.clone());
    doc.push_str(&t);
    let current: Vec<&Scored> = held.iter().copied().filter(|s| !s.older).collect();
    let older: Vec<&Scored> = held.iter().copied().filter(|s| s.older).collect();
    doc.push_str(&format!(
        "\nHeld-out rows on current stacks (released {} or later):\n\n",
        published::OLDER_STACK_BEFORE
    ));
    let (t, current_class) = table("held-out, current stacks, by card class", &current, |s| {
        s.class.doc_label().to_owned()
    });
    doc.push_str(&t);
    doc.push('\n');
    let (t, current_scale) = table("held-out, current stacks, by scale", &current, multi);
    doc.push_str(&t);
    doc.push_str(&format!(
        "\nHeld-out rows on older stacks (released before {}), apart:\n\n",
        published::OLDER_STACK_BEFORE
    ));
    let (t, _) = table("held-out, older stacks, by publisher", &older, |s| {
        s.publisher.clone()
    });
    doc.push_str(&t);
    doc.push('\n');
    let (t, _) = table("held-out, older stacks, by card class", &older, |s| {
        s.class.doc_label().to_owned()
    });
    doc.push_str(&t);
    doc.push_str("\nFitted rows (reported apart; not the bar):\n\n");
    let (t, _) = table("fit, by publisher", &fit, |s| s.publisher.clone());
    doc.push_str(&t);
    doc.push('\n');
    let (t, _) = table("fit, by card class", &fit, |s| {
        s.class.doc_label().to_owned()
    });
    doc.push_str(&t);
    doc.push_str("\n| row | set | card | model | mode | precision | batch x GPUs | published samples/s/GPU | estimated | step error |\n|---|---|---|---|---|---|---|---:|---:|---:|\n");
    for s in held.iter().chain(fit.iter()) {
        let b = f64::from(s.batch);
        doc.push_str(&format!(
            "| {} | {} | {} | {} | {} | {}{} | {} x {} | {:.3} | {:.3} | {:+.1}% |\n",
            s.id,
            if s.set == Set::Fit { "fit" } else { "held-out" },
            s.gpu,
            s.model,
            s.mode,
            s.precision,
            if s.tf32 { " (tf32)" } else { "" },
            s.batch,
            s.gpus,
            s.samples_per_s,
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
    // The app's about text and `gpuplan gpus` quote `HeldOutAccuracy`: the
    // same figures as the docs' held-out tables.
    let quoted = heldout::HeldOutAccuracy::of(&scored, &[]);
    for c in &quoted.classes {
        let (n, abs, signed) = by_class[c.class.doc_label()];
        assert_eq!(
            (
                c.figures.runs as usize,
                c.figures.median_abs_error,
                c.figures.median_signed_error
            ),
            (n, abs, signed),
            "{}: the app quotes the docs' held-out figures",
            c.class.doc_label()
        );
    }
    assert_eq!(
        quoted.one_node.map(|f| f.runs as usize),
        by_scale.get("several GPUs, one node").map(|g| g.0),
        "the app's several-GPU row counts the docs' runs"
    );
    let mut failures = Vec::new();
    for (what, groups) in [
        ("publisher", &by_publisher),
        ("card class", &by_class),
        ("scale", &by_scale),
        ("current card class", &current_class),
        ("current scale", &current_scale),
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
/// signed error within ±5% (issue 25). A group that does not reach it keeps
/// the figure docs/accuracy.md states for it, with its reason there (a
/// regression guard, not a target): (median |error|, |median signed error|).
/// The card classes are held to it twice: with every held-out row, and on
/// the rows of current stacks (`current ...`; older stacks are set apart by
/// their metadata, `PublishedRow::older_stack`).
fn bar(what: &str, group: &str) -> (f64, f64) {
    match (what, group) {
        // DeepLearningExamples' 20.06 tables: a 2020 software stack; the
        // same cards run 30-40% faster in the 21.x tables the fit uses.
        ("publisher", "nvidia-dle") => (0.25, 0.25),
        // Hugging Face Transformers 4.12 on 16 V100s (2021), timed with the
        // eager attention that stack ran: GPT-2 in fp16 -33..-59% (-59..-70%
        // while timed as SDPA, which PyTorch 1.x lacks), unexplained; its BERT
        // family in FP32 +17..+21%.
        ("publisher", "deepspeed") => (0.28, 0.09),
        // TensorFlow 1.x, CUDA 8 and cuDNN 5.1 (2017) on the SXM2 P100:
        // ResNet-50 13-23% fast.
        ("publisher", "tensorflow") => (0.14, 0.14),
        // VGG-16 in 16-bit on Ada and Blackwell +20..+26%; its 2080 Ti at
        // 132 img/s in FP32, below the same card's 155-168 at batch 16.
        ("publisher", "falaleev") => (0.09, 0.075),
        // VGG-16 at batch 16 in FP32 on a V100 and a 2080 Ti, -6..-12% with
        // cuDNN's Winograd counted at F(2x2, 3x3)'s saving.
        ("publisher", "u39kun") => (0.10, 0.10),
        // channels_last in FP32 on a V100 runs 17% slower than NCHW there
        // (cuDNN's NHWC FP32 kernels before Ampere); the estimator only
        // removes layout transposes, which CUDA-core FP32 never paid: -15%.
        // AMP in NCHW without a GradScaler -8%; the other two within 4%.
        ("publisher", "sandeepkumar-skb") => (0.07, 0.07),
        // Answer.AI's RTX 4090 QLoRA rows with CPU offload +8..+12%, VGG-16
        // in 16-bit on the 4090 +20% (every stack is current here).
        ("card class" | "current card class", "ada") => (0.10, 0.07),
        // torch.compile: the estimator's 1.3x (PyTorch 2.0's announcement)
        // against the 1.16x torchtitan measured; its plain rows are -3, -5%.
        ("publisher", "torchtitan") => (0.10, 0.10),
        // The 20.06 tables (A100 40GB) and FP32 ResNet-50 on the A100s; on
        // current stacks the class meets the bar.
        ("card class", "ampere datacenter") => (0.15, 0.06),
        ("card class" | "current card class", "blackwell consumer") => (0.14, 0.14),
        // The 20.06 V100 tables (BERT-large -23..-38%: the stack) and
        // TensorFlow 2017 on the P100; on current stacks DeepSpeed's
        // Transformers 4.12 GPT-2 (-33..-59%) and BERT family in FP32
        // (+17..+21%), both with that stack's eager attention, and Lambda's
        // V100 32GB BERT-base in fp16 (-32%).
        ("card class", "pascal/volta") => (0.11, 0.06),
        ("current card class", "pascal/volta") => (0.17, 0.05),
        // Optimistic on most rows: BERT-base in 16-bit on the 2080 Ti
        // (-30%); Falaleev's 2080 Ti runs 15% below Lambda's same card
        // (ResNet-50 -15, -18%; VGG-16 in FP32 -30%, where its batch-16
        // runs are -6..-12%).
        // Three more publishers' 2080 Ti rows (2026-12-03) are 8-22% optimistic
        // too, FP32 and AMP alike, and one Colab T4 source -57%, -77%.
        // 2026-12-05: Sia's 2080 Ti profiles on PyTorch 1.9 (AdaptDL) are
        // -28..-60%, which takes current-stack Turing from 13.6% to 14.9%.
        ("card class", "turing") => (0.14, 0.14),
        ("current card class", "turing") => (0.15, 0.15),
        // Sia's AdaptDL profiles (SOSP'23 artifact, PyTorch 1.9, 2080 Ti):
        // CIFAR ResNet-18 -60% at batch 129 and -28% at 513, about 45 ms a
        // step at both sizes that a plain loop does not pay (AdaptDL's
        // per-step gradient-noise statistics, two loader workers); BERT-base
        // SQuAD in FP32 -28%.
        ("publisher", "sia-cmu") => (0.29, 0.29),
        // milabench's recorded L40S run (torch 2.6, four single-GPU
        // processes at once on the node): ResNet-50 AMP -34%, BERT-base
        // fp16 -27%, TF32 -16%, strict FP32 -46%. The card's 350 W cap holds
        // its clocks well below the boost its peaks are quoted at; not
        // modelled (a sustained-clock term was mixed on the other cards).
        ("publisher", "milabench") => (0.31, 0.31),
        // torchtune's README on the RTX 4090 (pure bf16, rank-8 LoRA and
        // QLoRA, Llama-2-7B and Llama-3.1-8B at 2048 tokens): +3..+14%, the
        // estimate slow; the configs turn activation checkpointing on, which
        // the README's own figures (90% of the card's peak if it recomputed)
        // suggest these runs did not.
        ("publisher", "torchtune") => (0.11, 0.11),
        // Their 2080 Ti rows: ResNet-50 and -101 -8..-13%, ResNet-18 -15..-22%
        // (also with cuDNN's Winograd counted; without it +6..+9%).
        ("publisher", "cgnorthcutt") => (0.13, 0.13),
        ("publisher", "xiaoran007") => (0.14, 0.14),
        ("publisher", "kentaroy47") => (0.18, 0.18),
        // WideResNet-28-10 in FP32 on a V100 (variant not stated): +10%, +14%
        // (+72%, +78% before cuDNN's Winograd was counted).
        ("publisher", "hysts") => (0.12, 0.12),
        // A Colab T4 in 2019 (PyTorch 1.1, apex, cudnn.benchmark off, two
        // loader workers): WideResNet-28-10 -57% in FP32, -77% under apex O1;
        // unexplained (the T4's 70 W cap is one candidate; not modelled).
        ("publisher", "ceshine") => (0.68, 0.68),
        // The 2080 Ti and T4 rows above, and (2026-12-05) Sia's 2080 Ti and
        // milabench's L40S rows: 11.5%, -4.4%; on current stacks 10.5%.
        ("scale", "1 GPU") => (0.12, 0.05),
        ("current scale", "1 GPU") => (0.11, 0.05),
        // The 3090 box's FSDP rows (its lanes unstated; at the 3.0 x8 its
        // words allow, batch 4-6 stays -23..-33%) and the 20.06 8-GPU rows.
        ("scale", "several GPUs, one node") => (0.13, 0.05),
        _ => (0.10, 0.05),
    }
}

#[test]
fn published_multi_gpu_memory_meets_the_bar() {
    // Per-GPU memory of published multi-GPU runs (published-memory.toml):
    // median |error| <= 10% and no under-estimate beyond -10%.
    let zoo = common::zoo();
    let runs = published::parse_memory(
        "data/benchmarks/published-memory.toml",
        gpuplan_data::PUBLISHED_MEMORY_TOML,
    )
    .expect("valid file");
    let scored = heldout::score_memory(&runs, zoo).expect("every published run resolves");
    let errors: Vec<f64> = scored
        .iter()
        .filter(|m| m.gpus > 1)
        .map(|m| m.error())
        .collect();
    assert!(!errors.is_empty(), "published multi-GPU memory rows exist");
    let abs = median(errors.iter().map(|e| e.abs()).collect());
    let worst = errors.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "multi-GPU memory: n {}, median |error| {:.1}%, worst {:+.1}%",
        errors.len(),
        abs * 100.0,
        worst * 100.0
    );
    assert!(
        abs <= 0.10,
        "multi-GPU memory median |error| {:.1}%",
        abs * 100.0
    );
    assert!(
        worst >= -0.10,
        "multi-GPU memory under-estimated by {:.1}%",
        worst * 100.0
    );
    let quoted = heldout::HeldOutAccuracy::of(&[], &scored)
        .multi_gpu_memory
        .expect("the about text has a multi-GPU memory row");
    assert_eq!(
        (
            quoted.runs as usize,
            quoted.median_abs_error,
            quoted.worst_error
        ),
        (errors.len(), abs, worst),
        "the app quotes the figures this test holds to the bar"
    );
}

/// One line of fit features per timed row: the step's work as
/// `steptime::work` counts it, the card's own specs, the exposed multi-GPU
/// time, and the published seconds per step. `tools/calibrate/fit_published.py`
/// reads them (fit rows only enter the fit).
fn feature_line(
    tag: &str,
    set: &str,
    card: &Gpu,
    entry: &gpuplan_core::zoo::ZooEntry,
    job: &gpuplan_core::Job,
    host: &Host,
    truth_s: f64,
) -> String {
    let single = vram::estimate(&entry.model, job);
    let w = steptime::work(&entry.model, job, &single);
    let one = steptime::estimate(&entry.model, job, &single, card);
    let compiled = if job.compile {
        gpuplan_core::calibration::COMPILE_SPEEDUP
    } else {
        1.0
    };
    let all = estimate::step_on(&entry.model, job, &single, card, host).scaled(compiled);
    let s = &card.spec;
    format!(
        "ROW {tag} {set} {} {} {} {} {} {:e} {:e} {:e} {} {} {} {} {} {} {} {} {:e} {:e} {:e} {:e} {} {:e} {:e} {}",
        card.id,
        class(card).replace(' ', "_"),
        job.precision,
        job.tf32,
        job.mode,
        w.conv_flops,
        w.matmul_flops,
        w.traffic_bytes,
        w.ops,
        s.tensor_tflops.value,
        s.fp32_tflops.value,
        card.tf32_tflops().unwrap_or(0.0),
        s.bandwidth_gbs.value,
        job.gpus,
        all.seconds - one.seconds,
        one.device_s,
        one.host_s,
        truth_s,
        w.activation_bytes,
        w.tensor_bytes,
        card.l2_bytes() / 1024.0 / 1024.0,
        w.layout_bytes,
        w.winograd_flops,
        card.has_tensor_cores(),
    )
}

#[test]
#[ignore = "prints fit features: cargo nextest run ... -E 'test(print_fit_features)' --run-ignored only --no-capture | python3 tools/calibrate/fit_published.py"]
fn print_fit_features() {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let host = |ic, inter_node_gbps, gpus_per_node| Host {
        vcpus: 16,
        ram_gb: 128.0,
        disk: DiskKind::LocalNvme,
        interconnect: ic,
        inter_node_gbps,
        gpus_per_node,
        pcie_gbps: None,
    };
    for row in rows().iter().filter(|r| r.expressible()) {
        let entry = zoo.get(row.model.as_deref().unwrap_or_default()).unwrap();
        let card = catalog.get(row.gpu.as_deref().unwrap_or_default()).unwrap();
        let job = row.job().and_then(|j| j.resolve(entry)).unwrap();
        let set = if row.set == Set::Fit {
            "fit"
        } else {
            "held-out"
        };
        println!(
            "{}",
            feature_line(
                &format!("{}:{}", row.publisher, row.id),
                set,
                card,
                entry,
                &job,
                &host(row.interconnect, row.inter_node_gbps, row.gpus_per_node),
                row.step_seconds()
            )
        );
    }
    let lambda = published::parse(
        "data/benchmarks/published-training.toml",
        gpuplan_data::PUBLISHED_TRAINING_TOML,
    )
    .unwrap();
    let mut cards: Vec<&str> = lambda.iter().map(|r| r.gpu.as_str()).collect();
    cards.sort_unstable();
    cards.dedup();
    for (i, run) in lambda.iter().enumerate() {
        let entry = zoo.get(&run.model).unwrap();
        let card = catalog.get(&run.gpu).unwrap();
        let job = run.job().resolve(entry).unwrap();
        let position = cards.iter().position(|c| *c == run.gpu).unwrap_or(0);
        let set = if position % 2 == 1 { "held-out" } else { "fit" };
        println!(
            "{}",
            feature_line(
                &format!("lambda:L-{}-{}", run.gpu, i),
                set,
                card,
                entry,
                &job,
                &host(None, None, None),
                run.step_seconds()
            )
        );
    }
    let h200 = catalog.get("h200").unwrap();
    let text =
        std::fs::read_to_string(common::root().join("data/measurements/h200-set1.jsonl")).unwrap();
    let (_, measured) = common::load_rows(&text);
    for row in measured {
        let Some(id) = common::model_id(&row.name) else {
            continue;
        };
        let entry = zoo.get(id).unwrap();
        let job = common::job_request(&row).resolve(entry).unwrap();
        println!(
            "{}",
            feature_line(
                &format!("h200:{}", row.name),
                "calibration",
                h200,
                entry,
                &job,
                &host(None, None, None),
                row.step_s.unwrap_or(f64::NAN)
            )
        );
    }
}
