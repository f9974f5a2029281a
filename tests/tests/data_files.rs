//! Data is reviewed like code: every bundled file loads, every number is
//! checked, and a broken file fails with its file, line and field.

use crate::common;

use gpuplan_core::calibration as cal;
use gpuplan_core::zoo::Model;
use gpuplan_core::{GpuCatalog, ModelZoo};

#[test]
fn every_data_file_in_the_repo_is_bundled_and_loads() {
    let root = crate::common::root().join("data");
    let mut on_disk = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)
            .expect("data dir")
            .filter_map(Result::ok)
        {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                on_disk.push(
                    p.strip_prefix(root.parent().expect("repo"))
                        .expect("in repo")
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    for f in &on_disk {
        assert!(
            gpuplan_data::ALL.iter().any(|(name, _)| name == f),
            "{f} is in data/ but not bundled, so no test loads it"
        );
    }
    let catalog = common::catalog();
    let zoo = common::zoo();
    let presets = gpuplan_core::pack::CoursePack::from_toml(
        "data/packs/presets.toml",
        gpuplan_data::PRESETS_PACK_TOML,
        catalog,
        zoo,
    )
    .expect("the bundled presets load like any course pack");
    for p in &presets.presets {
        let model = p.job.model.as_deref().expect("every preset names a model");
        let entry = zoo.get(model).expect("a zoo model");
        p.job
            .resolve(entry)
            .unwrap_or_else(|e| panic!("preset {:?} resolves: {e}", p.id));
    }
    let published = gpuplan_core::published::parse(
        "data/benchmarks/published-training.toml",
        gpuplan_data::PUBLISHED_TRAINING_TOML,
    )
    .expect("the published benchmarks load");
    for run in &published {
        let g = catalog
            .get(&run.gpu)
            .unwrap_or_else(|e| panic!("published card: {e}"));
        let entry = zoo
            .get(&run.model)
            .unwrap_or_else(|e| panic!("published model: {e}"));
        run.job()
            .resolve(entry)
            .unwrap_or_else(|e| panic!("published run on {} resolves: {e}", g.id));
    }
    assert_eq!(
        catalog.gpus().len(),
        29,
        "the catalog lists the 26 cards the issue names (A100 and H100 in both forms) and issue 25's RTX 6000 Ada, H100 NVL and A10G"
    );
    for g in catalog.gpus() {
        assert!(
            g.spec.l2_mib.is_some(),
            "{}: every card states its L2 (steptime credits activation re-reads that fit in it)",
            g.id
        );
    }
    assert!(
        zoo.entries().len() >= 34,
        "the zoo holds at least the 34 required ids"
    );
}

#[test]
fn the_required_ids_exist() {
    let catalog = common::catalog();
    let zoo = common::zoo();
    for id in [
        "rtx3060",
        "rtx2080ti",
        "t4",
        "p100",
        "v100-16g",
        "v100-32g",
        "rtx3090",
        "rtx4090",
        "rtx4090d",
        "rtx5090",
        "a10",
        "a40",
        "rtx-a5000",
        "rtx-a6000",
        "l20",
        "l40s",
        "a100-40g-pcie",
        "a100-40g-sxm",
        "a100-80g-pcie",
        "a100-80g-sxm",
        "a800",
        "h800",
        "h100-sxm",
        "h100-pcie",
        "h20",
        "h200",
    ] {
        assert!(
            catalog.get(id).is_ok(),
            "GPU `{id}` is required by the issue"
        );
    }
    for id in "resnet18 resnet34 resnet50 resnet101 vgg16 mobilenet-v3-large efficientnet-b0 efficientnet-b3 densenet121 convnext-tiny swin-t vit-s-16 vit-b-16 vit-l-16 deeplabv3-resnet50 bert-base bert-large distilbert-base roberta-base t5-base gpt2 gpt2-medium gpt2-large qwen2-0.5b qwen2.5-1.5b qwen2.5-3b qwen2-7b qwen2.5-14b tinyllama-1.1b llama-2-7b llama-2-13b llama-3-8b mistral-7b chatglm3-6b".split(' ') {
        assert!(zoo.get(id).is_ok(), "model `{id}` is required by the issue");
    }
}

#[test]
fn transformer_parameter_formula_matches_pytorch_counts() {
    for e in common::zoo().entries() {
        if let Model::Transformer(t) = &e.model {
            let reference = t
                .params_reference
                .expect("every bundled transformer states its PyTorch parameter count");
            assert_eq!(
                t.params(),
                reference,
                "{}: the parameter formula must reproduce the Hugging Face model exactly",
                e.id
            );
        }
    }
}

#[test]
fn an_encoder_classifier_has_one_output_per_label_and_a_decoder_head_its_vocabulary() {
    for e in common::zoo().entries() {
        if let Model::Transformer(t) = &e.model {
            let h = u64::from(t.hidden);
            let more = t
                .params_for(10)
                .checked_sub(t.params_for(2))
                .expect("no fewer");
            let want = if t.kind == gpuplan_core::zoo::TransformerKind::Encoder {
                8 * (h + 1)
            } else {
                0
            };
            assert_eq!(
                more, want,
                "{}: eight more labels add a weight row and a bias each to an encoder's classifier only",
                e.id
            );
        }
    }
}

#[test]
fn vision_parameter_counts_match_the_calibration_runs() {
    // The calibration jobs recorded PyTorch's own parameter count; the zoo's
    // traced counts must agree for the same class count.
    let zoo = common::zoo();
    let cases = [
        ("resnet18", 10, 11_181_642u64),
        ("resnet18", 1000, 11_689_512),
        ("resnet50", 1000, 25_557_032),
        ("vgg16", 1000, 138_357_544),
        ("vit-b-16", 1000, 86_567_656),
        ("vit-s-16", 1000, 22_050_664),
    ];
    for (id, classes, want) in cases {
        let Model::Vision(v) = &zoo.get(id).expect("id").model else {
            panic!("{id} is a vision model")
        };
        assert_eq!(
            v.params(classes),
            want,
            "{id} with {classes} classes must match torchvision/timm"
        );
    }
}

#[test]
fn calibration_reference_card_matches_the_catalog() {
    let g = common::catalog()
        .get(cal::REFERENCE_GPU)
        .expect("reference card in catalog")
        .clone();
    assert_eq!(
        g.spec.tensor_tflops.value * 1e12,
        cal::REFERENCE_TENSOR_FLOPS,
        "reference tensor peak must equal the catalog's"
    );
    assert_eq!(
        g.spec.fp32_tflops.value * 1e12,
        cal::REFERENCE_FP32_FLOPS,
        "reference FP32 peak must equal the catalog's"
    );
    assert_eq!(
        g.spec.bandwidth_gbs.value * 1e9,
        cal::REFERENCE_BANDWIDTH,
        "reference bandwidth must equal the catalog's"
    );
    assert_eq!(
        g.tf32_tflops().map(|t| t * 1e12),
        Some(cal::REFERENCE_TF32_FLOPS),
        "reference TF32 peak must equal the catalog's"
    );
}

const GOOD_GPU: &str = r#"[gpu.x1]
name = "X"
generation = "ampere"
vram_mib = { value = 24576, source = "s", observed = "2026-11", confidence = "high" }
fp32_tflops = { value = 35.6, source = "s", observed = "2026-11", confidence = "high" }
tensor_tflops = { value = 71, source = "s", observed = "2026-11", confidence = "high" }
bandwidth_gbs = { value = 936, source = "s", observed = "2026-11", confidence = "high" }
"#;

#[test]
fn broken_catalogs_fail_with_file_line_and_field() {
    assert!(
        GpuCatalog::from_toml("ok.toml", GOOD_GPU).is_ok(),
        "the template itself is valid"
    );
    // (edit, expected line, expected field fragment, why)
    let cases: [(&str, &str, usize, &str, &str); 6] = [
        ("generation = \"ampere\"", "generation = \"ampere\"\ncolour = \"red\"", 4, "colour", "unknown fields are rejected"),
        ("{ value = 24576,", "{ value = -5,", 4, "vram_mib", "negative memory is out of range"),
        ("fp32_tflops = { value = 35.6, source = \"s\"", "fp32_tflops = { value = 35.6, source = \"\"", 5, "fp32_tflops", "every number needs a source"),
        ("tensor_tflops = { value = 71, source = \"s\", observed = \"2026-11\"", "tensor_tflops = { value = 71, source = \"s\", observed = \"last year\"", 6, "tensor_tflops", "observed must be a date"),
        ("bandwidth_gbs = { value = 936, source = \"s\", observed = \"2026-11\", confidence = \"high\" }", "bandwidth_gbs = { value = 936, source = \"s\", observed = \"2026-11\", confidence = \"sure\" }", 7, "bandwidth_gbs", "confidence is high, medium or low"),
        ("generation = \"ampere\"", "generation = \"kepler\"", 3, "generation", "unknown generations are rejected"),
    ];
    for (from, to, line, field, why) in cases {
        let text = GOOD_GPU.replacen(from, to, 1);
        let err = GpuCatalog::from_toml("bad.toml", &text).expect_err(why);
        assert_eq!(err.file, "bad.toml", "{why}: the error names the file");
        assert_eq!(err.line, line, "{why}: the error names the line ({err})");
        assert!(
            err.field.contains(field),
            "{why}: the error names the field `{field}` ({err})"
        );
    }
}

#[test]
fn broken_zoo_entries_fail_with_the_field() {
    let t = gpuplan_data::TRANSFORMER_MODELS_TOML;
    let bad = t.replacen("heads = 12\nkv_heads = 12", "heads = 12\nkv_heads = 5", 1);
    let err = ModelZoo::from_toml(
        ("v.toml", gpuplan_data::VISION_MODELS_TOML),
        ("t.toml", &bad),
    )
    .expect_err("12 heads are not divisible by 5 kv heads");
    assert!(
        err.field.ends_with("kv_heads"),
        "the error names kv_heads: {err}"
    );
    assert!(err.line > 0, "the error has a line: {err}");
    let bad = t.replacen("layers = 12", "layers = 12\nlayer_count = 3", 1);
    let err = ModelZoo::from_toml(
        ("v.toml", gpuplan_data::VISION_MODELS_TOML),
        ("t.toml", &bad),
    )
    .expect_err("unknown key");
    assert!(
        err.message.contains("layer_count"),
        "unknown fields are rejected by name: {err}"
    );
}

#[test]
fn every_platform_file_is_bundled_and_loads() {
    let root = crate::common::root().join("platforms");
    let on_disk: Vec<String> = std::fs::read_dir(&root)
        .expect("platforms dir")
        .filter_map(Result::ok)
        .map(|e| format!("platforms/{}", e.file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".toml"))
        .collect();
    for f in &on_disk {
        assert!(
            gpuplan_data::PLATFORMS.iter().any(|(n, _)| n == f),
            "{f} is not bundled, so no test loads it"
        );
    }
    let set = common::platforms();
    assert!(set.platforms.len() >= 9, "AutoDL, 恒源云, 矩池云, 揽睿星舟, Colab, Kaggle, Vast, campus Slurm and another domestic platform");
    use gpuplan_core::platform::PlatformKind::*;
    for kind in [ContainerCloud, HostedNotebook, Marketplace, CampusHpc] {
        assert!(
            set.platforms.iter().any(|p| p.kind == kind),
            "seed 000's four kinds are all present ({kind:?})"
        );
    }
    // Multi-GPU step times depend on how the GPUs of an instance talk, so
    // every offer that rents more than one GPU together says so, sourced.
    for p in &set.platforms {
        for o in &p.offers {
            if o.max_gpus(p.kind) > 1 {
                let link = o.interconnect.as_ref();
                assert!(
                    link.is_some_and(|l| !l.source.trim().is_empty()),
                    "{} {}: an offer of several GPUs states its interconnect with a source",
                    p.id,
                    o.gpu
                );
            }
        }
    }
}

#[test]
fn broken_platform_files_fail_with_file_line_and_field() {
    let catalog = common::catalog();
    let good = gpuplan_data::PLATFORMS[0].1;
    // (edit from, edit to, field fragment, why)
    let cases = [
        (
            "kind = \"container-cloud\"",
            "kind = \"container-cloud\"\nprice = 3",
            "price",
            "unknown top-level field",
        ),
        (
            "gpu = \"rtx3090\"",
            "gpu = \"gtx1080\"",
            "gpu",
            "GPU not in the catalog",
        ),
        (
            "low = 1.32, typical = 1.39",
            "low = 1.50, typical = 1.39",
            "price_per_hour",
            "low above typical",
        ),
        (
            "low = 1.32, typical = 1.39",
            "low = 1.32, typical = 1.39005",
            "price_per_hour",
            "a price with more places than a bill's rate prints (2.00005 billed, 2 shown)",
        ),
        (
            "gpu = \"rtx3090\"",
            "gpu = \"rtx4090\"",
            "gpu",
            "a second offer of one card (quotes took the first, recommend listed it twice)",
        ),
        (
            "discount = { value = 0.95",
            "discount = { value = 1.5",
            "discount",
            "a discount multiplier above 1",
        ),
        (
            "startup_speed = { value = 5",
            "startup_speed = { value = 9",
            "startup_speed",
            "metric outside 1..5",
        ),
        (
            "[storage]\n",
            "[storage]\nsizes = { value = [{ gb = 500, per_hour = 0.2 }, { gb = 200, per_hour = 0.1 }], grade = \"estimate\", source = \"s\", confidence = \"low\" }\n",
            "sizes",
            "disk sizes not smallest first",
        ),
        (
            "[storage]\n",
            "[storage]\nsizes = { value = [{ gb = 200, hourly = 0.1 }], grade = \"estimate\", source = \"s\", confidence = \"low\" }\n",
            "hourly",
            "a disk size with an unknown field",
        ),
        (
            "[billing]\n",
            "[billing]\ncharged_in = { value = { currency = \"usd\", cny_per_unit = 7.2 }, grade = \"estimate\", source = \"s\", confidence = \"low\" }\n",
            "currency",
            "a currency code not in capitals",
        ),
        (
            "[billing]\n",
            "[billing]\ncharged_in = { value = { currency = \"USD\", cny_per_unit = 0 }, grade = \"estimate\", source = \"s\", confidence = \"low\" }\n",
            "charged_in",
            "a rate of nothing",
        ),
    ];
    // Thirty-three pitfalls: every option of the platform lists them.
    let many = format!(
        "pitfalls = [{}",
        "{ zh = \"坑\", en = \"trap\" }, ".repeat(33)
    );
    let cases: Vec<(&str, &str, &str, &str)> = cases
        .into_iter()
        .chain([(
            "pitfalls = [",
            many.as_str(),
            "pitfalls",
            "more pitfalls than any platform lists",
        )])
        .collect();
    for (from, to, field, why) in cases {
        assert!(
            good.contains(from),
            "test setup: `{from}` is in autodl.toml"
        );
        let text = good.replacen(from, to, 1);
        let err = gpuplan_core::platform::PlatformProfile::from_toml(
            "platforms/autodl.toml",
            &text,
            catalog,
        )
        .expect_err(why);
        assert_eq!(err.file, "platforms/autodl.toml", "{why}: names the file");
        assert!(err.line > 0, "{why}: names a line ({err})");
        assert!(
            err.field.contains(field) || err.message.contains(field),
            "{why}: names `{field}` ({err})"
        );
    }
}

#[test]
fn every_platform_figure_is_graded_by_the_rules() {
    let catalog = common::catalog();
    let good = gpuplan_data::PLATFORMS[0].1;
    let line = good
        .lines()
        .find(|l| l.starts_with("startup_minutes = "))
        .expect("test setup: the profile has a startup time");
    // (replacement figure, Some(what the error names) or None when valid, why)
    let cases = [
        (
            r#"{ value = 2, source = "s", confidence = "low" }"#,
            Some("grade"),
            "a figure without a grade",
        ),
        (
            r#"{ value = 2, grade = "seed", source = "seed 000 §3", confidence = "high" }"#,
            Some("confidence"),
            "high confidence resting on a seed article",
        ),
        (
            r#"{ value = 2, grade = "estimate", source = "guess", confidence = "medium" }"#,
            Some("confidence"),
            "an estimate claiming medium confidence",
        ),
        (
            r#"{ value = 2, grade = "estimate", source = "guess", observed = "2026-11-30", confidence = "low" }"#,
            Some("observed"),
            "an estimate with a date nobody saw it on",
        ),
        (
            r#"{ value = 2, grade = "platform-page", source = "docs", confidence = "high" }"#,
            Some("url"),
            "a platform page without its address",
        ),
        (
            r#"{ value = 2, grade = "third-party", source = "a survey", confidence = "medium" }"#,
            Some("observed"),
            "an undated third-party report",
        ),
        (
            r#"{ value = 2, grade = "seed", source = "a blog", confidence = "medium" }"#,
            Some("seed"),
            "a seed figure that names no seed",
        ),
        (
            r#"{ value = 2, grade = "platform-page", source = "docs", url = "https://example.com/docs", observed = "2026-10", confidence = "high" }"#,
            None,
            "a platform page with its address and date",
        ),
        (
            r#"{ value = 2, grade = "platform-quoted", source = "UI text copied in a repository", confidence = "high" }"#,
            None,
            "the platform's own words quoted elsewhere, undated",
        ),
    ];
    for (figure, names, why) in cases {
        let text = good.replacen(line, &format!("startup_minutes = {figure}"), 1);
        let got = gpuplan_core::platform::PlatformProfile::from_toml(
            "platforms/autodl.toml",
            &text,
            catalog,
        );
        match (names, got) {
            (None, Ok(_)) => {}
            (None, Err(e)) => panic!("{why}: accepted, got {e}"),
            (Some(_), Ok(_)) => panic!("{why}: refused"),
            (Some(field), Err(e)) => {
                assert!(e.line > 0, "{why}: names a line ({e})");
                assert!(
                    e.field.contains(field) || e.message.contains(field),
                    "{why}: names `{field}` ({e})"
                );
            }
        }
    }
}

#[test]
fn published_runs_are_checked_like_the_catalog() {
    let good = gpuplan_data::PUBLISHED_TRAINING_TOML;
    let first = good.find("[[run]]").expect("a run");
    let end = good[first + 7..]
        .find("[[run]]")
        .map_or(good.len(), |i| first + 7 + i);
    let one = &good[first..end];
    // (edit of the first run, field the error must name, why)
    let cases: [(&str, &str, &str, &str); 4] = [
        (
            "optimizer = \"sgd\"",
            "optimizer = \"sgd\"\nspeed = 3",
            "speed",
            "unknown fields are rejected",
        ),
        (
            "value = 513.0",
            "value = 0.0",
            "samples_per_s",
            "a throughput must be positive",
        ),
        (
            "observed = \"2025-12\", confidence = \"high\" }\nsamples",
            "observed = \"last year\", confidence = \"high\" }\nsamples",
            "batch",
            "dates are checked",
        ),
        (
            "precision = \"fp32\"",
            "precision = \"fp64\"",
            "precision",
            "unknown precisions are rejected",
        ),
    ];
    for (from, to, field, why) in cases {
        assert!(
            one.contains(from),
            "{why}: the case edits text that exists ({from})"
        );
        let text = one.replacen(from, to, 1);
        let err = gpuplan_core::published::parse("p.toml", &text)
            .expect_err(why)
            .to_string();
        assert!(
            err.contains(field),
            "{why}: the error names `{field}`: {err}"
        );
    }
    let twice = format!("{one}\n{one}");
    let err = gpuplan_core::published::parse("p.toml", &twice)
        .expect_err("duplicate")
        .to_string();
    assert!(
        err.contains("repeats"),
        "a run listed twice is rejected: {err}"
    );
}

#[test]
fn every_source_is_inside_the_repository() {
    // A source names a document a reader of this repository can open (a
    // URL, a named document and section, or a file in the repository);
    // never a path outside it. Files it names must exist.
    let root = crate::common::root();
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["data", "data/benchmarks", "platforms"] {
        for e in std::fs::read_dir(root.join(dir))
            .expect("data dir")
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "toml") {
                files.push(e.path());
            }
        }
    }
    assert!(
        files.len() >= 12,
        "the catalog, benchmarks and platforms are all scanned"
    );
    let mut cited = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        for (n, line) in text.lines().enumerate() {
            let Some(start) = line.find("source = \"") else {
                continue;
            };
            let source = &line[start + 10..];
            let source = &source[..source.find('"').unwrap_or(source.len())];
            assert!(
                !source.contains("shared/") && !source.contains("../"),
                "{}:{}: a source outside the repository: {source}",
                f.display(),
                n + 1
            );
            for word in source.split(|c: char| c.is_whitespace() || "(),;".contains(c)) {
                if (word.starts_with("docs/") || word.starts_with("data/")) && word.ends_with(".md")
                {
                    cited += 1;
                    assert!(
                        root.join(word).is_file(),
                        "{}:{}: cites {word}, which is not in the repository",
                        f.display(),
                        n + 1
                    );
                }
            }
        }
    }
    assert!(cited > 0, "the research notes are cited and were checked");
}
