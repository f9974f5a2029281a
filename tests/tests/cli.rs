//! End-to-end tests of the `gpuplan` binary: output, JSON schema, exit codes.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn binary() -> PathBuf {
    common::gpuplan_binary()
}

/// Runs the CLI with an empty data home of its own (never the user's).
fn run(args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("tmp home");
    Command::new(binary())
        .args(args)
        .env("LANG", "C")
        .env("GPUPLAN_HOME", home.path())
        .output()
        .expect("gpuplan runs")
}

/// `run` in `lang` (`--lang` before the command).
fn run_in(lang: &str, args: &[&str]) -> Output {
    let mut full = vec!["--lang", lang];
    full.extend_from_slice(args);
    run(&full)
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?} must succeed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

#[test]
fn estimate_json_has_the_documented_fields() {
    let v = json(&[
        "estimate",
        "--model",
        "resnet50",
        "--batch",
        "64",
        "--precision",
        "fp16-amp",
        "--gpu",
        "rtx3090",
        "--json",
    ]);
    assert!(
        v["peak_gib"].as_f64().is_some_and(|p| p > 1.0 && p < 10.0),
        "peak_gib is a plausible number: {}",
        v["peak_gib"]
    );
    let comps = v["components"].as_object().expect("components object");
    for k in gpuplan_core::vram::Components::KEYS {
        assert!(
            comps.get(k).and_then(|x| x.as_f64()).is_some(),
            "component {k} is a number"
        );
    }
    let sum: f64 = comps.values().filter_map(|x| x.as_f64()).sum();
    assert!(
        (sum - v["peak_gib"].as_f64().unwrap_or(0.0)).abs() < 1e-9,
        "components add up to the peak"
    );
    let gpus = v["gpus"].as_array().expect("gpus array");
    assert_eq!(gpus.len(), 29, "one row per catalog GPU");
    for g in gpus {
        for k in ["id", "vram_gib", "verdict", "max_batch", "step_seconds"] {
            assert!(!g[k].is_null(), "gpu row has {k}: {g}");
        }
    }
    assert!(
        v["step_seconds"].as_f64().is_some_and(|s| s > 0.0),
        "with --gpu there is a top-level step_seconds"
    );
    let rtx3090 = gpus
        .iter()
        .find(|g| g["id"] == "rtx3090")
        .expect("rtx3090 row");
    assert_eq!(
        rtx3090["step_seconds"], v["step_seconds"],
        "top-level step_seconds is the named GPU's"
    );
}

#[test]
fn human_output_speaks_both_languages() {
    let zh = run(&[
        "--lang",
        "zh",
        "estimate",
        "--model",
        "resnet18",
        "--resolution",
        "32",
        "--classes",
        "10",
        "--batch",
        "128",
    ]);
    let en = run(&[
        "--lang",
        "en",
        "estimate",
        "--model",
        "resnet18",
        "--resolution",
        "32",
        "--classes",
        "10",
        "--batch",
        "128",
    ]);
    let zh = String::from_utf8_lossy(&zh.stdout);
    let en = String::from_utf8_lossy(&en.stdout);
    assert!(
        zh.contains("峰值显存") && zh.contains("放得下"),
        "Chinese output uses Chinese labels:\n{zh}"
    );
    assert!(
        en.contains("Peak GPU memory") && en.contains("fits"),
        "English output uses English labels:\n{en}"
    );
}

#[test]
fn a_boards_pcie_link_is_a_flag_and_slows_the_gathers() {
    let args = |pcie: &'static str| {
        let mut a = vec![
            "estimate",
            "--model",
            "llama-2-7b",
            "--mode",
            "lora",
            "--precision",
            "bf16",
            "--batch",
            "1",
            "--seq-len",
            "512",
            "--gpus",
            "2",
            "--engine",
            "fsdp-full",
            "--gpu",
            "rtx3090",
            "--json",
        ];
        if !pcie.is_empty() {
            a.extend(["--pcie-gbps", pcie]);
        }
        a
    };
    let step = |v: &serde_json::Value| {
        v["parallel"]["step_seconds"]
            .as_f64()
            .expect("a multi-GPU estimate has its step")
    };
    let x8 = json(&args("7.9"));
    let x16 = json(&args("31.5"));
    assert_eq!(
        x8["parallel"]["layout"]["pcie_gbps"].as_f64(),
        Some(7.9),
        "the layout carries the board's link: {x8}"
    );
    assert!(
        step(&x8) > step(&x16),
        "PCIe 3.0 x8 gathers a 7B model slower than 4.0 x16"
    );
    // Worded in both languages where the layout is told.
    for (lang, words) in [
        ("en", "PCIe link of 7.9 GB/s"),
        ("zh", "PCIe 链路 7.9 GB/s"),
    ] {
        let mut a = vec!["--lang", lang];
        a.extend(args("7.9").into_iter().filter(|x| *x != "--json"));
        let out = run(&a);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(words), "{lang}: the link is told:\n{text}");
    }
}

#[test]
fn bad_input_exits_2_and_names_the_field() {
    // (arguments, field the message must name, why)
    let cases: &[(&[&str], &str, &str)] = &[
        (&["--batch", "0"], "batch", "zero batch"),
        (&["--batch", "-4"], "batch", "negative batch"),
        (&["--batch", "NaN"], "batch", "NaN batch"),
        (&["--batch", "1000000000"], "batch", "absurd batch"),
        (&["--batch", "abc"], "batch", "not a number"),
        (&["--resolution", "0"], "resolution", "zero resolution"),
        (&["--gpu", "gtx480"], "gpu", "unknown GPU"),
        (&["--precision", "fp8"], "precision", "unknown precision"),
        (
            &["--precision", "bf16-amp", "--gpu", "v100-16g"],
            "precision",
            "bf16 on a GPU without bf16",
        ),
        (
            &["--seq-len", "128"],
            "seq_len",
            "sequence length on a vision model",
        ),
        (&["--mode", "lora"], "mode", "LoRA on a CNN"),
    ];
    for (extra, field, why) in cases {
        let mut args = vec!["--lang", "en", "estimate", "--model", "resnet50"];
        args.extend_from_slice(extra);
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{why}: exit code 2 ({err})");
        assert!(
            err.contains(&format!("{field}:")) || err.contains(&format!("({field})")),
            "{why}: the message names `{field}`: {err}"
        );
        assert!(!err.contains("panicked"), "{why}: never a panic: {err}");
    }
    let out = run(&["estimate", "--model", "llama-2-7b", "--seq-len", "5000"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a sequence longer than the model's positions is refused"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("4096"),
        "the message gives the model's limit"
    );
    let out = run(&["estimate", "--model", "no-such-model"]);
    assert_eq!(out.status.code(), Some(2), "an unknown model is refused");
    // A near miss is answered with the ids it was near, not all of them.
    // (typed, must suggest, why)
    let cases = [
        (
            &["estimate", "--model", "resnet-18"][..],
            "resnet18",
            "a hyphen too many",
        ),
        (
            &["estimate", "--model", "llama2-7b"][..],
            "llama-2-7b",
            "a hyphen too few",
        ),
        (
            &["estimate", "--model", "resnet18", "--gpu", "rtx-4090"][..],
            "rtx4090",
            "a card id with a hyphen",
        ),
    ];
    for (args, suggestion, why) in cases {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{why}: refused");
        assert!(
            err.contains("did you mean") || err.contains("是不是"),
            "{why}: a did-you-mean answer: {err}"
        );
        assert!(
            err.contains(suggestion),
            "{why}: suggests {suggestion}: {err}"
        );
        assert!(
            !err.contains("vit-b-16") || suggestion.contains("vit"),
            "{why}: not every id in the zoo: {err}"
        );
    }
}

#[test]
fn custom_transformer_from_a_pasted_config() {
    let dir = std::env::temp_dir().join(format!("gpuplan-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let cfg = dir.join("config.json");
    std::fs::write(&cfg, r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,
        "num_attention_heads":32,"num_key_value_heads":32,"vocab_size":32000,"max_position_embeddings":4096,"tie_word_embeddings":false}"#).expect("write");
    let custom = json(&[
        "estimate",
        "--model",
        "custom",
        "--config",
        cfg.to_str().expect("utf8"),
        "--mode",
        "lora",
        "--seq-len",
        "512",
        "--json",
    ]);
    let zoo = json(&[
        "estimate",
        "--model",
        "llama-2-7b",
        "--mode",
        "lora",
        "--seq-len",
        "512",
        "--json",
    ]);
    assert_eq!(
        custom["params"], zoo["params"],
        "Llama-2-7B's config gives Llama-2-7B's parameter count"
    );
    assert_eq!(
        custom["peak_gib"], zoo["peak_gib"],
        "and the same memory estimate"
    );
    std::fs::write(&cfg, r#"{"hidden_size": 4096}"#).expect("write");
    let out = run(&[
        "estimate",
        "--model",
        "custom",
        "--config",
        cfg.to_str().expect("utf8"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an incomplete config is refused"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("num_hidden_layers"),
        "naming the missing key"
    );
    let name = cfg
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a file name");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(name),
        "and the file it is missing from: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn models_and_gpus_list_in_json() {
    let models = json(&["models", "--json"]);
    assert!(
        models["entries"].as_array().is_some_and(|e| e.len() >= 34),
        "all zoo models are listed"
    );
    let gpus = json(&["gpus", "--json"]);
    assert_eq!(
        gpus["gpus"].as_array().map(Vec::len),
        Some(29),
        "all catalog GPUs are listed"
    );
}

#[test]
fn estimate_report_snapshot() {
    // The full JSON for the seed's first job (ResNet-18 on CIFAR-10), so any
    // change to the model shows up in review; targeted asserts above and in
    // accuracy.rs say which numbers matter.
    let v = json(&[
        "estimate",
        "--model",
        "resnet18-cifar",
        "--batch",
        "128",
        "--precision",
        "fp32",
        "--dataset-samples",
        "50000",
        "--epochs",
        "50",
        "--gpu",
        "rtx3090",
        "--json",
    ]);
    assert_eq!(v["job"]["classes"], 10, "CIFAR-10 has 10 classes");
    assert_eq!(
        v["job"]["dataset"], "in-memory",
        "32 px images load as in-memory arrays by default"
    );
    let run = &v["run"];
    let parts = [
        "compute_s",
        "input_wait_s",
        "eval_s",
        "checkpoint_s",
        "warmup_s",
        "cold_cache_s",
    ];
    let sum: f64 = parts.iter().map(|k| run[k].as_f64().expect("a part")).sum();
    let total = run["total_s"].as_f64().expect("a total");
    assert!(
        (sum - total).abs() <= 1e-6 * total,
        "the parts add up to the run: {sum} vs {total}"
    );
    assert_eq!(
        run["bound"], "gpu",
        "four workers keep up with CIFAR on an RTX 3090"
    );
    assert!(
        v["gpus"]
            .as_array()
            .expect("rows")
            .iter()
            .all(|g| g["verdict"] == "fits"),
        "ResNet-18 on CIFAR fits every card"
    );
    let rounded = round_floats(v);
    insta::assert_json_snapshot!("resnet18_cifar_estimate", rounded);
}

fn round_floats(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(0.0);
            let r = if x == 0.0 {
                0.0
            } else {
                let m = 10f64.powi(4 - x.abs().log10().ceil() as i32);
                (x * m).round() / m
            };
            serde_json::json!(r)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(round_floats).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, round_floats(v))).collect())
        }
        other => other,
    }
}

#[test]
fn the_cli_and_the_app_rank_the_same_way() {
    // One situation through `gpuplan recommend --json` and through the app's
    // use case (`Planner::recommend_view`): the same options in the same
    // order, with the same totals.
    let out = json(&[
        "recommend",
        "--stage",
        "thesis-research",
        "--hours",
        "3",
        "--runs",
        "12",
        "--budget",
        "300",
        "--top",
        "8",
        "--json",
    ]);
    let dir = tempfile::tempdir().expect("tmp");
    let mut planner = gpuplan_usecases::Planner::new(
        common::bundled(),
        gpuplan_usecases::Home::Folder(dir.path().to_path_buf()),
        || {
            chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
                .and_then(|d| d.and_hms_opt(9, 0, 0))
                .unwrap_or_default()
        },
    );
    let s = gpuplan_core::recommend::Situation {
        stage: gpuplan_core::recommend::Stage::ThesisResearch,
        budget: Some(300.into()),
        job: gpuplan_core::JobSpec {
            hours: Some(3.into()),
            ..Default::default()
        },
        runs: 12,
        ..gpuplan_usecases::defaults::situation()
    };
    let app = planner.recommend_view(&s).expect("the app's options");
    let cli: Vec<(String, String, String)> = out["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| {
            (
                o["platform"].as_str().unwrap_or_default().to_owned(),
                o["gpu"].as_str().unwrap_or_default().to_owned(),
                o["cost"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let app: Vec<(String, String, String)> = app
        .recommendation
        .options
        .iter()
        .take(cli.len())
        .map(|o| (o.platform.clone(), o.gpu.clone(), o.cost.to_string()))
        .collect();
    assert!(cli.len() >= 5, "enough options to compare: {}", cli.len());
    assert_eq!(
        cli, app,
        "the CLI and the app rank the same options in the same order"
    );
}

#[test]
fn a_card_the_job_does_not_fit_gets_no_time_in_either_language() {
    // Llama-2-7B LoRA at batch 8: 38 GiB per GPU under DDP, more than a
    // 24 GiB RTX 4090 holds, on one card or two.
    for (lang, no_fit) in [("en", "does not fit"), ("zh", "放不下")] {
        let out = run(&[
            "--lang",
            lang,
            "estimate",
            "--model",
            "llama-2-7b",
            "--mode",
            "lora",
            "--gpus",
            "2",
            "--gpu",
            "rtx4090",
            "--dataset-samples",
            "1000",
            "--epochs",
            "1",
        ]);
        assert!(
            out.status.success(),
            "{lang}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let step = text
            .lines()
            .find(|l| l.contains("RTX 4090") && (l.contains("Step time") || l.contains("每步")))
            .unwrap_or_default();
        assert!(
            step.contains(no_fit),
            "{lang}: the step line says it does not fit: {step}"
        );
        let multi = text.lines().find(|l| l.contains("2 ×")).unwrap_or_default();
        assert!(
            multi.contains(no_fit),
            "{lang}: two such cards do not fit either: {multi}"
        );
        assert!(
            !multi.contains("2.0×") && !multi.contains("2.0 倍"),
            "{lang}: no speed-up is claimed for a layout that cannot run: {multi}"
        );
    }
    // A card it fits still gets its time and its speed-up.
    let out = run(&[
        "--lang",
        "en",
        "estimate",
        "--model",
        "llama-2-7b",
        "--mode",
        "lora",
        "--gpus",
        "2",
        "--gpu",
        "a100-80g-sxm",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("Step time on") && l.ends_with(" s")),
        "a fitting card is timed: {text}"
    );
    assert!(
        text.contains("× one GPU"),
        "and its layout's speed-up is given"
    );
}

#[test]
fn a_number_that_is_not_one_is_answered_with_the_fields_range() {
    for (lang, range) in [("en", "a whole number from 1"), ("zh", "之间的整数")] {
        let out = run(&[
            "--lang", lang, "estimate", "--model", "resnet50", "--batch", "64元",
        ]);
        assert_eq!(out.status.code(), Some(2), "{lang}: bad input");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(range),
            "{lang}: a batch is a whole number in a range, not 'a number such as 12.5': {err}"
        );
    }
}

#[test]
fn a_run_too_long_for_a_slower_card_rules_it_out_by_what_it_would_take() {
    // 87,600 h (the ten years a plan may span) on an RTX 3090 carry to
    // more than that on slower cards: those are ruled out saying so.
    for (lang, said) in [
        ("en", "more than a plan may span"),
        ("zh", "超过计划能覆盖的十年"),
    ] {
        let out = run(&[
            "--lang",
            lang,
            "recommend",
            "--stage",
            "thesis-research",
            "--hours",
            "87600",
            "--top",
            "3",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(said),
            "{lang}: a slower card's run is too long, said in words: {text}"
        );
        assert!(
            !text.contains("out of range") && !text.contains("超出范围"),
            "{lang}: not the hours field's bare range: {text}"
        );
    }
}

#[test]
fn top_out_of_its_range_says_the_range() {
    // (value, why)
    for (value, why) in [
        ("0", "none is not a shortlist"),
        ("10001", "above the most"),
        ("abc", "not a number"),
        ("2.5", "not whole"),
    ] {
        for (lang, range) in [("en", "from 1 to 10000"), ("zh", "1 到 10000 之间的整数")] {
            let out = run(&[
                "--lang",
                lang,
                "recommend",
                "--stage",
                "first-demo",
                "--hours",
                "1",
                "--top",
                value,
            ]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{why} ({lang}): bad input: {err}"
            );
            assert!(
                err.contains(range) && err.contains("--top"),
                "{why} ({lang}): names the flag and its range: {err}"
            );
        }
    }
}

#[test]
fn quote_says_where_the_time_to_result_goes_in_both_languages() {
    let plan = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/campus-walltime.toml"
    );
    let en = run(&["--lang", "en", "quote", plan]);
    let zh = run(&["--lang", "zh", "quote", plan]);
    let en = String::from_utf8_lossy(&en.stdout);
    let zh = String::from_utf8_lossy(&zh.stdout);
    let line = en
        .lines()
        .find(|l| l.contains("Time to result"))
        .expect("the quote has a time-to-result line");
    assert!(
        line.contains("(waiting ") && line.contains("running 60.00 h"),
        "the English line breaks the time into its parts: {line}"
    );
    // The parts are the printed figures, so they must add up to the total printed.
    let hours: Vec<f64> = line
        .split_whitespace()
        .filter_map(|w| w.parse::<f64>().ok())
        .collect();
    let (total, parts) = hours.split_first().expect("a total and its parts");
    let sum: f64 = parts.iter().sum();
    assert!(
        (sum - total).abs() < 1e-9,
        "waiting + setup + running + reruns + gaps = {sum}, printed total {total}: {line}"
    );
    let zh_line = zh
        .lines()
        .find(|l| l.contains("出结果需要"))
        .expect("the Chinese quote has the same line");
    assert!(
        zh_line.contains("（等待") && zh_line.contains("运行 60.00 小时"),
        "the Chinese line uses Chinese labels and full-width parentheses: {zh_line}"
    );
}

#[test]
fn the_gpu_list_says_its_citations_are_the_data_files_own_words() {
    for (lang, note) in [
        ("zh", "按数据文件的原文（英文）引用"),
        ("en", "cited as the data file has it"),
    ] {
        let out = run(&["--lang", lang, "gpus"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines().next().is_some_and(|l| l.contains(note)),
            "{lang}: the list opens by saying the sources are quoted as written:\n{}",
            text.lines().take(3).collect::<Vec<_>>().join("\n")
        );
    }
}

/// Columns a line takes up to byte `i` in a terminal (CJK take two).
fn columns_to(line: &str, i: usize) -> usize {
    line[..i]
        .chars()
        .map(|c| if c as u32 >= 0x2E80 { 2 } else { 1 })
        .sum()
}

#[test]
fn tables_stay_in_line_with_the_longest_card_and_family_names() {
    // "RTX 6000 Ada Generation" (23 columns) and "编码器（BERT 类）" are
    // longer than the columns were first drawn: every row's second column
    // starts where its header's does.
    for (lang, args, head) in [
        (
            "en",
            &["estimate", "--model", "bert-base", "--batch", "32"][..],
            "Memory (GiB)",
        ),
        (
            "zh",
            &["estimate", "--model", "bert-base", "--batch", "32"][..],
            "显存（GiB）",
        ),
        ("en", &["models"][..], "Parameters"),
        ("zh", &["models"][..], "参数量"),
    ] {
        let out = run_in(lang, args);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut lines = text.lines().skip_while(|l| !l.contains(head));
        let header = lines
            .next()
            .unwrap_or_else(|| panic!("{lang} {args:?}: a table headed {head}: {text}"));
        let at = columns_to(header, header.find(head).expect("the header"));
        let rows: Vec<&str> = lines.take_while(|l| !l.trim().is_empty()).collect();
        assert!(rows.len() > 10, "{lang} {args:?}: the table's rows: {text}");
        for row in rows {
            let start = row
                .char_indices()
                .find(|&(i, _)| columns_to(row, i) == at)
                .map(|(i, _)| i);
            let ok = start.is_some_and(|i| row[..i].ends_with(' ') && !row[i..].starts_with(' '));
            assert!(ok, "{lang} {args:?}: the column after the name starts at {at} in every row:\n{header}\n{row}");
        }
    }
}

#[test]
fn printed_time_parts_add_up_and_a_spot_plan_says_its_bad_case() {
    // Nine 0.3 h runs on 共绩 with setup and a 40 GB upload: its parts
    // rounded one by one (0.53 + 1.23 + 2.70) once summed to 4.46 under a
    // printed total of 4.47. The total is now the sum of what is printed.
    let dir = tempfile::tempdir().expect("tmp");
    let plan = dir.path().join("ttr.toml");
    std::fs::write(
        &plan,
        "name = \"f7\"\nplatform = \"gongji\"\ngpu = \"rtx4090\"\ncredit = 6\nsetup_hours = 0.25\n\
         [job]\nhours = 1\n[[run]]\nname = \"a\"\ncount = 9\nhours = 0.3\n\
         [data]\nsize_gb = 40\nupload_mbps = 100\ndownload_gb = 10\n\
         [storage]\ngb = 50\ndays = 14\non = \"persistent\"\n",
    )
    .expect("plan written");
    let q = json(&["quote", plan.to_str().expect("utf-8 path"), "--json"]);
    let d = |v: &serde_json::Value| {
        v.as_str()
            .and_then(|s| s.parse::<f64>().ok())
            .expect("a decimal")
    };
    let t = &q["time"];
    let sum: f64 = ["waiting", "setup", "running", "reruns", "gaps"]
        .iter()
        .map(|k| d(&t[k]))
        .sum();
    assert!(
        (sum - d(&t["total"])).abs() < 1e-9 && (sum - d(&q["time_to_result_hours"])).abs() < 1e-9,
        "the total and time to result are the sum of the printed parts: {t}"
    );
    // A spot plan's bad case (the 90th percentile) is in the text as on the
    // plan screen, in both languages.
    let spot = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/youyun-spot.toml"
    );
    let j = json(&["quote", spot, "--json"]);
    let p90 = j["spot"]["p90_cash_total"]
        .as_str()
        .expect("a bad case")
        .to_owned();
    for (lang, said) in [("en", "In a bad case"), ("zh", "运气不好时")] {
        let out = run(&["--lang", lang, "quote", spot]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines().any(|l| l.contains(said) && l.contains(&p90)),
            "{lang}: the bad case and its total {p90} are printed: {text}"
        );
    }
}

#[test]
fn script_hours_read_as_typed_and_chinese_errors_stay_chinese() {
    // `--max-hours 6h` and `--max-hours 6 小时` as every hours field reads them.
    for typed in ["6h", "6 小时", "６"] {
        let out = run(&[
            "script",
            "shutdown",
            "--platform",
            "autodl",
            "--command",
            "python train.py",
            "--max-hours",
            typed,
        ]);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("MAX_RUNTIME_SECONDS=21600"),
            "{typed}: six hours: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Errors in Chinese name the field in Chinese and carry no English
    // allowed-text (an error without catalog words for its range omits it).
    for (args, field) in [
        (
            &[
                "script",
                "slurm",
                "--job-name",
                "a",
                "--command",
                "b",
                "--gpus",
                "0",
                "--hours",
                "2",
            ][..],
            "GPU 数量（gpus）",
        ),
        (
            &["script", "slurm", "--job-name", "a", "--command", "b"][..],
            "每次运行小时数（hours）",
        ),
        (
            &["estimate", "--model", "llama-2-7b", "--engine", "foo"][..],
            "并行方式（engine）",
        ),
    ] {
        let out = run_in("zh", args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: refused: {err}");
        assert!(err.contains(field), "{args:?}: the field in Chinese: {err}");
        assert!(
            !err.contains("of one run") && !err.contains("out of range"),
            "{args:?}: no English: {err}"
        );
    }
}

#[test]
fn chinese_output_takes_chinese_punctuation_and_help_lists_help_last() {
    // Help headings end in "：" in Chinese, as 用法： does; -h, --help is
    // the last flag, not among a command's own.
    for (lang, heading) in [("zh", "选项："), ("en", "Options:")] {
        let out = run(&["--lang", lang, "estimate", "--help"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines().any(|l| l == heading),
            "{lang}: the heading {heading}: {text}"
        );
        let flags: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("  -") || l.starts_with("      --"))
            .collect();
        assert!(
            flags.last().is_some_and(|l| l.contains("--help")),
            "{lang}: help is the last flag: {flags:?}"
        );
    }
    // What recommend ruled out, in Chinese: "：" and "；".
    let out = run(&[
        "--lang",
        "zh",
        "recommend",
        "--stage",
        "course-project",
        "--hours",
        "10",
        "--top",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let ruled: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("已排除"))
        .skip(1)
        .take_while(|l| l.starts_with("  - "))
        .collect();
    assert!(!ruled.is_empty(), "something is ruled out: {text}");
    for l in ruled {
        assert!(
            !l.contains(": ") && !l.contains("; "),
            "Chinese punctuation in what was ruled out: {l}"
        );
    }
    // A plan without a name starts its bill with the platform.
    let dir = tempfile::tempdir().expect("tmp");
    let plan = dir.path().join("noname.toml");
    std::fs::write(
        &plan,
        "name = \"\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n",
    )
    .expect("plan");
    let out = run(&["--lang", "en", "quote", plan.to_str().expect("utf-8")]);
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned();
    assert!(
        first.starts_with("AutoDL · "),
        "no empty name before the platform: {first}"
    );
}

#[test]
fn a_recommended_total_after_a_credit_says_so() {
    // 优云智算 gives students 5 CNY of credit: its options' totals are after
    // it, which the list says beside them (the quote has the credit line).
    let j = json(&[
        "recommend",
        "--stage",
        "course-project",
        "--hours",
        "10",
        "--top",
        "20",
        "--json",
    ]);
    let credited: Vec<&serde_json::Value> = j["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter(|o| {
            o["quote"]["by_category"]["credit"]
                .as_str()
                .is_some_and(|c| c != "0.00")
        })
        .collect();
    assert!(!credited.is_empty(), "some option is after a credit: {j}");
    for (lang, said) in [
        ("en", "after 5.00 CNY of free credit"),
        ("zh", "已扣除赠送额度 5.00 元"),
    ] {
        let out = run(&[
            "--lang",
            lang,
            "recommend",
            "--stage",
            "course-project",
            "--hours",
            "10",
            "--top",
            "20",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            text.matches(said).count(),
            credited.len(),
            "{lang}: each credited option says so, the others do not: {text}"
        );
    }
}

#[test]
fn a_script_for_one_platform_refuses_a_plan_for_another() {
    // Kaggle's time cap on an AutoDL checklist, a Kaggle plan's runtime in
    // a Vast.ai wrapper: refused, naming both platforms.
    let plan = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/kaggle-quota.toml"
    );
    for args in [
        &[
            "script",
            "checklist",
            "--platform",
            "autodl",
            "--plan",
            plan,
        ][..],
        &[
            "script",
            "shutdown",
            "--platform",
            "vast",
            "--command",
            "python t.py",
            "--plan",
            plan,
        ][..],
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: refused: {err}");
        assert!(
            err.contains("kaggle") && err.contains("platform"),
            "{args:?}: names both: {err}"
        );
    }
    let out = run(&[
        "script",
        "checklist",
        "--platform",
        "kaggle",
        "--plan",
        plan,
    ]);
    assert!(out.status.success(), "the plan's own platform is fine");
}

#[test]
fn the_resume_template_checkpoints_at_the_plans_spot_interval_in_hours_too() {
    // 30 epochs in 6 h with a checkpoint every 2 h: every 10 epochs, the
    // interval the spot quote assumed, and the plan's 30 epochs.
    let dir = tempfile::tempdir().expect("tmp");
    let plan = dir.path().join("spot.toml");
    std::fs::write(
        &plan,
        "name = \"s\"\nplatform = \"vast\"\ngpu = \"rtx3090\"\npayment = \"spot\"\nsetup_hours = 0\n\
         [job]\nhours = 6\nepochs = 30\n[spot]\ncheckpoint_every_hours = 2\npreemptions_per_day = 2\nrestart_minutes = 5\n",
    )
    .expect("plan");
    let out = run(&["script", "resume", "--plan", plan.to_str().expect("utf-8")]);
    let py = String::from_utf8_lossy(&out.stdout);
    assert!(
        py.contains("CHECKPOINT_EVERY = 10") && py.contains("\"EPOCHS\", \"30\""),
        "2 h of a 30-epoch 6 h run is 10 epochs; the plan's epochs: {py}"
    );
    assert!(
        py.contains("the plan's spot quote assumed"),
        "says where the interval came from"
    );
    let plain = run(&["script", "resume"]);
    let py = String::from_utf8_lossy(&plain.stdout);
    assert!(
        py.contains("CHECKPOINT_EVERY = 5") && !py.contains("spot quote assumed"),
        "without a plan: the default, not claimed as the quote's: {py}"
    );
}

#[test]
fn a_handed_in_runs_file_that_does_not_parse_names_its_key_or_the_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("pack.toml");
    let preset = common::root().join("examples/seed000-weekly-budget.toml");
    // (text, what the English error names, what the Chinese one names, why)
    let cases = [
        (
            r#"{"schema": "gpuplan-measured-runs/2", "runs": [
  {"job": {"model": "resnet18-cifar", "batch": 128, "dataset_samples": 50000, "epochs": 10},
   "gpu": "rtx3090", "platform": "autodl", "wall_seconds": -5, "peak_memory_mib": 4000, "completed": true}]}"#,
            "wall_seconds:",
            "wall_seconds：",
            "a negative time is refused at its key, not as the whole file",
        ),
        (
            "{not json",
            "measured-run file",
            "实测记录文件",
            "a file that is not JSON is named as the runs file, not as a count of runs",
        ),
    ];
    for (i, (text, en, zh, why)) in cases.into_iter().enumerate() {
        let runs = dir.path().join(format!("runs{i}.json"));
        std::fs::write(&runs, text).expect("write runs");
        let args = [
            "pack",
            "export",
            "--name",
            "X",
            "--platform",
            "autodl",
            "--preset",
            preset.to_str().expect("utf-8 path"),
            "--runs",
            runs.to_str().expect("utf-8 path"),
            "--out",
            out.to_str().expect("utf-8 path"),
        ];
        for (lang, want) in [("en", en), ("zh", zh)] {
            let o = run_in(lang, &args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{why} ({lang}): refused: {err}");
            assert!(err.contains(want), "{why} ({lang}): names `{want}`: {err}");
            assert!(
                !err.contains("运行次数"),
                "{why} ({lang}): not 'number of runs': {err}"
            );
        }
        assert!(!out.exists(), "{why}: no pack is written");
    }
}

#[test]
fn the_cli_shutdown_wrapper_names_a_plans_job_as_the_apps_kit_does() {
    let plan_path = common::root().join("examples/resnet18-cifar-estimated.toml");
    let out = run(&[
        "script",
        "shutdown",
        "--platform",
        "autodl",
        "--command",
        "python train.py",
        "--plan",
        plan_path.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli = String::from_utf8_lossy(&out.stdout).into_owned();
    let dir = tempfile::tempdir().expect("tmp");
    let mut planner = gpuplan_usecases::Planner::new(
        common::bundled(),
        gpuplan_usecases::Home::Folder(dir.path().to_path_buf()),
        chrono::NaiveDateTime::default,
    );
    let text = std::fs::read_to_string(&plan_path).expect("plan");
    let plan = gpuplan_core::plan::Plan::from_toml("plan", &text).expect("plan parses");
    let kit = planner.kit(&plan, "python train.py").expect("kit");
    let line = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("JOB_NAME="))
            .map(str::to_owned)
    };
    let app = kit
        .scripts
        .iter()
        .find_map(|s| line(&s.text))
        .expect("the app's wrapper names its job");
    assert_eq!(
        line(&cli),
        Some(app.clone()),
        "one name for the plan's job in both shells"
    );
    assert!(app.contains("resnet18-cifar"), "the plan's model: {app}");
}

#[test]
fn a_part_of_a_run_alone_is_counted_and_said_not_called_no_runs() {
    let home = tempfile::tempdir().expect("tmp home");
    let dir = tempfile::tempdir().expect("tmp");
    let example = std::fs::read_to_string(common::root().join("examples/run-report-example.json"))
        .expect("example");
    // Part 2 of a run resumed by hand, its part 1 not imported, and no
    // memory measured (nvidia-smi showed no process): nothing to compare.
    let part = example
        .replace("\"part\": 1", "\"part\": 2")
        .replace("\"gpu_peaks_mib\": [2746]", "\"gpu_peaks_mib\": []");
    let file = dir.path().join("part2.json");
    std::fs::write(&file, part).expect("write");
    let plan = common::root().join("examples/resnet18-cifar-estimated.toml");
    let gp = |args: &[&str]| {
        Command::new(binary())
            .args(args)
            .env("GPUPLAN_HOME", home.path())
            .output()
            .expect("runs")
    };
    let imported = gp(&[
        "--lang",
        "en",
        "ledger",
        "import",
        "--plan",
        plan.to_str().expect("utf8"),
        file.to_str().expect("utf8"),
    ]);
    let said = String::from_utf8_lossy(&imported.stdout);
    assert!(
        imported.status.success(),
        "imports: {}",
        String::from_utf8_lossy(&imported.stderr)
    );
    assert!(
        !said.contains("plan vs actual"),
        "a part is not the run: no plan-versus-actual verdict: {said}"
    );
    for (lang, words, why) in [
        (
            "en",
            "Measured runs: 1",
            "one run measured, none comparable yet",
        ),
        ("zh", "实测运行 1 次", "Chinese says the same"),
    ] {
        let out = gp(&["--lang", lang, "calibration"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(words), "{why}: {text}");
        assert!(
            !text.contains("No measured runs yet") && !text.contains("还没有实测"),
            "{why}: {text}"
        );
    }
}

#[test]
fn a_several_gpu_bill_names_the_instance_rate_and_the_rate_a_gpu() {
    let dir = tempfile::tempdir().expect("tmp");
    let plan = dir.path().join("g2.toml");
    std::fs::write(
        &plan,
        "name = \"g2\"\nplatform = \"autodl\"\ngpu = \"rtx4090\"\n[job]\nhours = 2\ngpus = 2\n",
    )
    .expect("write");
    let q = json(&["quote", plan.to_str().expect("utf8"), "--json"]);
    let (rate, per_gpu): (f64, f64) = (
        q["price_per_hour"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("rate"),
        q["price_per_gpu_hour"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("per GPU"),
    );
    assert_eq!(q["instance_gpus"], 2, "two GPUs in the instance");
    assert!(
        (rate - 2.0 * per_gpu).abs() < 1e-9,
        "the instance's rate is two GPUs': {rate} {per_gpu}"
    );
    // (language, the header's words, why)
    for (lang, words, why) in [
        (
            "en",
            format!("2 × RTX 4090 24 GB · {rate} CNY/h ({per_gpu} per GPU)"),
            "English",
        ),
        (
            "zh",
            format!("2 × RTX 4090 24 GB · {rate} 元/小时（每卡 {per_gpu}）"),
            "Chinese",
        ),
    ] {
        let out = run_in(lang, &["quote", plan.to_str().expect("utf8")]);
        let head = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned();
        assert!(
            head.contains(&words),
            "{why}: the instance, its rate and a GPU's: {head}"
        );
    }
}

#[test]
fn an_image_size_is_read_as_people_write_it() {
    // (typed, width, height, why)
    let cases = [
        ("224px", 224, 224, "with its unit"),
        ("512×256", 512, 256, "a multiplication sign"),
        ("512*256", 512, 256, "an asterisk"),
        ("５１２ｘ２５６", 512, 256, "full-width digits and letter"),
        ("512px x 256px", 512, 256, "each side with its unit"),
        ("224 像素", 224, 224, "the unit in Chinese"),
    ];
    for (typed, w, h, why) in cases {
        let out = run(&["estimate", "--model", "vit-b-16", "--resolution", typed]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{why}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let shown = if w == h {
            format!("{w} px")
        } else {
            format!("{w}×{h} px")
        };
        assert!(
            text.contains(&shown),
            "{why}: {shown} in {}",
            text.lines().next().unwrap_or("")
        );
    }
}

#[test]
fn the_estimate_says_how_much_of_a_card_a_job_may_use() {
    let idle = gpuplan_usecases::defaults::IDLE_DEVICE_MIB.to_string();
    for lang in ["en", "zh"] {
        let out = run_in(lang, &["estimate", "--model", "resnet50"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("{idle} MiB")),
            "{lang}: a peak under the card's memory can still not fit; the note says by how much: {text}"
        );
    }
}
