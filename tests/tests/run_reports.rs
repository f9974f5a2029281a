//! Run reports close the loop: the wrapper the kit generates writes one on a
//! (stand-in) GPU machine, `gpuplan ledger import` validates it like any
//! untrusted file and adds it to the ledger with the report kept beside it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpuplan_core::scripts::{self, ShutdownSpec, StopMechanism};

use crate::common;

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpuplan-reports-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// The job digest the wrapper below is made for.
const WRAPPED_JOB: &str = "0123456789abcdef0123456789abcdef";

/// Runs the generated wrapper around `command` on a stand-in RTX 3090 and
/// returns the report it wrote.
fn report_from_a_run(dir: &Path, command: &str) -> PathBuf {
    common::executable(&dir.join("shutdown"), "#!/bin/sh\nexit 0\n");
    common::executable(
        &dir.join("nvidia-smi"),
        &common::nvidia_smi_script("NVIDIA GeForce RTX 3090", "550.54.14", &[20480]),
    );
    let wrapper = scripts::shutdown_wrapper(&ShutdownSpec {
        platform: "autodl".into(),
        mechanism: StopMechanism::Shutdown,
        job_name: "cifar".into(),
        command: command.into(),
        max_runtime_seconds: 60,
        destroy: false,
        poll_seconds: 1,
        plan: "resnet18 · autodl · rtx3090".into(),
        plan_job: WRAPPED_JOB.into(),
    })
    .expect("wrapper");
    common::executable(&dir.join("run.sh"), &wrapper);
    let report = dir.join("report.json");
    let status = Command::new("bash")
        .arg(dir.join("run.sh"))
        .current_dir(dir)
        .env("GPUPLAN_SHUTDOWN_BIN", dir.join("shutdown"))
        .env("GPUPLAN_NVIDIA_SMI", dir.join("nvidia-smi"))
        .env("GPUPLAN_RUN_REPORT", &report)
        .env("TMPDIR", dir)
        .output()
        .expect("runs");
    assert!(status.status.success(), "the stand-in run succeeds");
    report
}

fn gpuplan(home: &Path, args: &[&str]) -> Output {
    Command::new(common::gpuplan_binary())
        .args(args)
        .env("GPUPLAN_HOME", home)
        .output()
        .expect("runs")
}

#[test]
fn a_report_from_the_wrapper_is_imported_into_the_ledger() {
    let dir = tmp("import");
    let report = report_from_a_run(&dir, "echo 'Epoch 1/1'");
    let home = dir.join("home");
    let path = report.to_str().expect("utf8");
    let out = gpuplan(&home, &["ledger", "import", path, "--json"]);
    assert!(
        out.status.success(),
        "imports: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let run = &runs[0];
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    assert_eq!(
        written["plan_job"], WRAPPED_JOB,
        "the report carries the plan's job digest the kit was made with"
    );
    assert_eq!(
        run["gpu"], "rtx3090",
        "nvidia-smi's name matched to the catalog card"
    );
    assert_eq!(
        run["platform"], "autodl",
        "the platform the kit was made for"
    );
    assert_eq!(run["peak_memory_mib"], 20480, "the peak memory measured");
    assert_eq!(run["exit_status"], 0, "the job's status");
    assert_eq!(
        run["hours"], "0.01",
        "a few seconds bill as the smallest amount, never zero"
    );
    assert_eq!(
        run["cost_estimated"], true,
        "no bill given: estimated from the price"
    );
    // The same report again (a weekly `ledger import gpuplan-run-*.json`)
    // is the bill it already is: nothing is added, and the answer says so.
    for _ in 0..2 {
        let again = gpuplan(&home, &["--lang", "en", "ledger", "import", path]);
        assert!(again.status.success(), "a second import is no error");
        assert!(
            String::from_utf8_lossy(&again.stdout).contains("Already in the ledger"),
            "it says the report was imported before: {}",
            String::from_utf8_lossy(&again.stdout)
        );
    }
    let ledger = gpuplan(&home, &["ledger", "list", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&ledger.stdout).expect("JSON");
    assert_eq!(
        rows.as_array().map(Vec::len),
        Some(1),
        "three imports of one report are one bill: {rows}"
    );
    // The real bill, given with --cost, is what the ledger keeps.
    let second = tmp("import-cost");
    let report = report_from_a_run(&second, "echo 'Epoch 1/1'");
    let out = gpuplan(
        &home,
        &[
            "ledger",
            "import",
            report.to_str().expect("utf8"),
            "--cost",
            "0.05",
            "--json",
        ],
    );
    assert!(out.status.success(), "imports with a cost");
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(runs[0]["cost"], "0.05", "the given bill");
    assert_eq!(runs[0]["cost_estimated"], false, "not estimated");
    let _ = std::fs::remove_dir_all(&second);
    // The job folder is gone (with the wrapper's state in it): nothing the
    // wrapper started keeps running.
    let _ = std::fs::remove_dir_all(&dir);
    let pattern = dir.join("run.sh").display().to_string();
    let t = std::time::Instant::now();
    while t.elapsed() < std::time::Duration::from_secs(12) {
        let alive = Command::new("pgrep")
            .args(["-f", &pattern])
            .output()
            .map(|o| !o.stdout.is_empty())
            .unwrap_or(false);
        if !alive {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    panic!("a process of the wrapper outlived its run and its folder");
}

#[test]
fn hostile_reports_are_refused_by_field() {
    let dir = tmp("hostile");
    let good = std::fs::read_to_string(report_from_a_run(&dir, "true")).expect("report");
    let home = dir.join("home");
    let value: serde_json::Value = serde_json::from_str(&good).expect("JSON");
    let started = value["started_at"].as_str().expect("started_at").to_owned();
    // A field of the report set to `v`.
    let with = |text: &str, key: &str, v: &str| {
        let mut r: serde_json::Value = serde_json::from_str(text).expect("JSON");
        r[key] = serde_json::Value::String(v.to_owned());
        r.to_string()
    };
    // The same time in another UTC offset's digits (`+hhmm` at the end).
    let offset = |t: &str, o: &str| format!("{}{o}", &t[..t.len() - 5]);
    // (edit of a valid report, field named in the error, why)
    let cases: Vec<(String, &str, &str)> = vec![
        (
            good.replace("gpuplan-run-report/2", "gpuplan-run-report/9"),
            "schema",
            "a newer schema",
        ),
        (
            good.replace("\"exit_status\"", "\"extra\": 1,\n  \"exit_status\""),
            "report",
            "an unknown field",
        ),
        (
            good.replace("\"gpu_count\": 1", "\"gpu_count\": 100000"),
            "gpu_count",
            "absurd GPU count",
        ),
        (
            good.replace("\"gpu_count\": 1", "\"gpu_count\": 1, \"gpu_count\": 2"),
            "written twice",
            "a key written twice is said so, not called a wrong value",
        ),
        (
            format!("{} trailing", good.trim_end()),
            "json: report:",
            "text after the report is the report's, not its last key's",
        ),
        (
            good.replace("\"exit_status\": 0", "\"exit_status\": 999"),
            "exit_status",
            "not an exit status",
        ),
        (
            good.replace("\"exit_status\": 0", "\"exit_status\": -1"),
            "report",
            "a negative status",
        ),
        (
            good.replace(
                "\"gpu_peaks_mib\": [20480]",
                "\"gpu_peaks_mib\": [99999999999]",
            ),
            "gpu_peaks_mib",
            "absurd memory",
        ),
        (
            good.replace(
                "\"gpu_peaks_mib\": [20480]",
                "\"peak_memory_mib\": 20480, \"gpu_peaks_mib\": []",
            ),
            "peak_memory_mib",
            "a first-version field in a second-version report",
        ),
        (
            good.replace("\"wall_seconds\": ", "\"wall_seconds\": 9999999999"),
            "wall_seconds",
            "longer than ten years",
        ),
        (
            good.replace("\"wall_seconds\": ", "\"wall_seconds\": 31536"),
            "wall_seconds",
            "a wall time far longer than its billing window",
        ),
        (
            good.replace("\"started_at\": \"20", "\"started_at\": \"19"),
            "started_at",
            "a billing window before 2000",
        ),
        (good.replace("\"part\": 1", "\"part\": 0"), "part", "part 0"),
        (
            good.replace(
                "\"gpu_peaks_mib\": [20480]",
                &format!("\"gpu_peaks_mib\": [{}]", vec!["20480"; 1000].join(", ")),
            ),
            "gpu_peaks_mib",
            "a thousand GPUs' figures on a one-GPU machine (it would bill 1000 GPUs)",
        ),
        (
            with(&good, "started_at", &offset(&started, "+2359")),
            "started_at",
            "a UTC offset no clock has (it would stretch the window by a day)",
        ),
        (
            with(&good, "started_at", &offset(&started, "-0600")),
            "ended_at",
            "the window's two ends in offsets hours apart (one clock)",
        ),
        (
            with(
                &good,
                "ended_at",
                &offset("2099-01-01T00:00:00+0000", &started[started.len() - 5..]),
            ),
            "ended_at",
            "a billing window of seventy years",
        ),
        (
            {
                let mut r: serde_json::Value = serde_json::from_str(&with(
                    &good,
                    "ended_at",
                    &offset("2020-01-01T00:00:00+0000", &started[started.len() - 5..]),
                ))
                .expect("JSON");
                r["first_progress_seconds"] = serde_json::json!(99_999);
                r.to_string()
            },
            "ended_at",
            "a window ending before it starts is that, not a first progress line after the end",
        ),
        ("{".repeat(70_000), "report", "too large"),
        ("not json".into(), "report", "not JSON"),
    ];
    // A byte-order mark an editor added is no part of the JSON.
    let bom = dir.join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{good}")).expect("write");
    let out = gpuplan(&home, &["ledger", "import", bom.to_str().expect("utf8")]);
    assert!(
        out.status.success(),
        "a report saved with a byte-order mark is read: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (i, (text, field, why)) in cases.iter().enumerate() {
        let f = dir.join(format!("bad{i}.json"));
        std::fs::write(&f, text).expect("write");
        let out = gpuplan(&home, &["ledger", "import", f.to_str().expect("utf8")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{why}: refused as bad input, not a crash: {err}"
        );
        assert!(
            err.contains(field),
            "{why}: the error names `{field}`: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_notebook_report_module_writes_a_report_the_ledger_takes() {
    let dir = tmp("notebook");
    common::executable(
        &dir.join("nvidia-smi"),
        &common::nvidia_smi_script("Tesla T4", "535.104.05", &[6144]),
    );
    let module =
        scripts::notebook_report("colab", "BERT on Colab \"free\"", WRAPPED_JOB).expect("module");
    std::fs::write(dir.join(&module.file_name), &module.text).expect("write");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys; sys.path.insert(0, '.'); from gpuplan_report import RunReport; \
             r = RunReport(path='nb.json').start(); r.progress('Epoch 1'); r.progress('Epoch 2 \\x1b[31m'); r.finish()",
        ])
        .current_dir(&dir)
        .env("PATH", &path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "the module runs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("nb.json")).expect("report written");
    let r = gpuplan_core::report::RunReport::from_json("nb.json", &text)
        .expect("the notebook's report passes the same validation as the wrapper's");
    assert_eq!(
        r.plan, "BERT on Colab \"free\"",
        "the plan's name survives quoting"
    );
    assert_eq!(
        r.plan_job, WRAPPED_JOB,
        "the plan's job digest, as the wrapper writes it"
    );
    assert_eq!(r.progress_lines, 2, "progress counted");
    assert_eq!(
        r.last_progress, "Epoch 2 [31m",
        "control characters dropped"
    );
    assert_eq!(
        r.gpu_peaks_mib,
        vec![6144],
        "nvidia-smi's memory per GPU, sampled while the job held it"
    );
    assert_eq!(
        r.memory(),
        gpuplan_core::report::MemoryMeasure::Process(6144),
        "compared as process memory"
    );
    assert_eq!(r.gpu_name, "Tesla T4", "the GPU model");
    let home = dir.join("home");
    let out = gpuplan(
        &home,
        &[
            "ledger",
            "import",
            dir.join("nb.json").to_str().expect("utf8"),
            "--json",
        ],
    );
    assert!(
        out.status.success(),
        "imported: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        runs[0]["gpu"], "t4",
        "nvidia-smi's 'Tesla T4' is the catalog's T4"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_notebook_module_counts_its_own_memory_names_files_apart_and_writes_once() {
    let dir = tmp("notebook-own");
    // The kernel (the stand-in's parent) holds 1200 MiB; another notebook
    // (process 1) 1700 MiB on the same GPU.
    common::executable(
        &dir.join("nvidia-smi"),
        "#!/bin/sh\ncase \"$*\" in\n  *query-compute-apps=pid,gpu_bus_id,used_memory*)\n    \
         echo \"$PPID, 00000000:01:00.0, 1200\"; echo '1, 00000000:01:00.0, 1700' ;;\n  \
         *index,pci.bus_id*) echo '0, 00000000:01:00.0' ;;\n  \
         *name,driver_version*) echo 'Tesla T4, 535.104.05' ;;\n  \
         *query-gpu=name*) echo 'Tesla T4' ;;\nesac\n",
    );
    let module = scripts::notebook_report("colab", "nb", WRAPPED_JOB).expect("module");
    std::fs::write(dir.join(&module.file_name), &module.text).expect("write");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, os; sys.path.insert(0, '.'); from gpuplan_report import RunReport; \
             a = RunReport().start(); b = RunReport().start(); a.progress('Epoch 1'); \
             p = a.finish(); m = os.stat(p).st_mtime_ns; q = a.finish(); \
             print(p == q and os.stat(p).st_mtime_ns == m, p != b.finish(), p)",
        ])
        .current_dir(&dir)
        .env("PATH", &path)
        .output()
        .expect("python3 runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.starts_with("True True "),
        "finish run twice writes once; two reports of one second are two files: {said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = said.split_whitespace().nth(2).expect("the path");
    let text = std::fs::read_to_string(dir.join(file)).expect("report written");
    let r = gpuplan_core::report::RunReport::from_json("nb.json", &text).expect("valid");
    assert_eq!(
        r.gpu_peaks_mib,
        vec![1200],
        "the kernel's own memory, not the other notebook's 1700 with it"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_notebook_module_counts_no_gpu_from_an_nvidia_smi_error() {
    let dir = tmp("notebook-nvml");
    // A driver/library mismatch: nvidia-smi prints its error on stdout.
    common::executable(
        &dir.join("nvidia-smi"),
        "#!/bin/sh\necho 'Failed to initialize NVML: Driver/library version mismatch'\n\
         echo 'NVML library version: 535.161'\nexit 18\n",
    );
    let module = scripts::notebook_report("colab", "nb", WRAPPED_JOB).expect("module");
    std::fs::write(dir.join(&module.file_name), &module.text).expect("write");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys; sys.path.insert(0, '.'); from gpuplan_report import RunReport; \
             r = RunReport(path='nb.json').start(); r.progress('Epoch 1'); r.finish()",
        ])
        .current_dir(&dir)
        .env("PATH", &path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("nb.json")).expect("written");
    let r = gpuplan_core::report::RunReport::from_json("nb.json", &text).expect("valid");
    assert_eq!(
        (r.gpu_count, r.gpu_name.as_str()),
        (0, ""),
        "the error is no card and no GPU to bill (it was two GPUs named by the error)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrapped_job_hands_pytorch_peak_memory_to_the_report_in_one_line() {
    let dir = tmp("torchpeak");
    // nvidia-smi sees no process (as in many containers): only the job's
    // own line can tell the peak.
    common::executable(&dir.join("shutdown"), "#!/bin/sh\nexit 0\n");
    common::executable(
        &dir.join("nvidia-smi"),
        &common::nvidia_smi_script("NVIDIA GeForce RTX 4090", "550.54.14", &[0]),
    );
    // A stand-in PyTorch whose live tensors peaked at 9 GiB on its one GPU.
    std::fs::create_dir_all(dir.join("torch")).expect("fake torch");
    std::fs::write(
        dir.join("torch/__init__.py"),
        "class cuda:\n    @staticmethod\n    def is_available():\n        return True\n    @staticmethod\n    def device_count():\n        return 1\n    @staticmethod\n    def max_memory_allocated(d=0):\n        return 9 * 1024 ** 3\n",
    )
    .expect("write");
    let module = scripts::notebook_report("autodl", "p", "").expect("module");
    std::fs::write(dir.join(&module.file_name), &module.text).expect("write");
    let train = "python3 -c \"import gpuplan_report; gpuplan_report.report_torch_peak(); print('Epoch 1')\"";
    let wrapper = scripts::shutdown_wrapper(&ShutdownSpec {
        platform: "autodl".into(),
        mechanism: StopMechanism::Shutdown,
        job_name: "torch".into(),
        command: train.into(),
        max_runtime_seconds: 60,
        destroy: false,
        poll_seconds: 1,
        plan: "p".into(),
        plan_job: String::new(),
    })
    .expect("wrapper");
    common::executable(&dir.join("run.sh"), &wrapper);
    let report = dir.join("report.json");
    let out = Command::new("bash")
        .arg(dir.join("run.sh"))
        .current_dir(&dir)
        .env("GPUPLAN_SHUTDOWN_BIN", dir.join("shutdown"))
        .env("GPUPLAN_NVIDIA_SMI", dir.join("nvidia-smi"))
        .env("GPUPLAN_RUN_REPORT", &report)
        .env("PYTHONPATH", &dir)
        .env("TMPDIR", &dir)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "the run succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&report).expect("report");
    let r = gpuplan_core::report::RunReport::from_json("r.json", &text).expect("valid");
    assert_eq!(
        r.torch_allocated_mib,
        vec![9 * 1024],
        "PyTorch's peak, handed over by the job's one line, is in the report"
    );
    assert_eq!(
        r.memory(),
        gpuplan_core::report::MemoryMeasure::LiveTensors(9 * 1024),
        "and marked as live tensors: compared with the estimate's live tensors, never with process memory"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run report of the example ResNet-18 plan's job on an RTX 3090 that
/// took `seconds`, started `minute` minutes past ten.
fn cifar_report(seconds: u64, minute: u32) -> String {
    let start = chrono::DateTime::parse_from_str(
        &format!("2026-11-30T10:{minute:02}:00+0800"),
        "%Y-%m-%dT%H:%M:%S%z",
    )
    .expect("start");
    let end = (start + chrono::Duration::seconds(i64::try_from(seconds).expect("seconds")))
        .format("%Y-%m-%dT%H:%M:%S%z");
    format!(
        r#"{{"schema": "gpuplan-run-report/1", "plan": "ResNet-18 on CIFAR-10, 50 epochs (seed 000 §3.1)",
  "job": "cifar", "platform": "autodl", "gpu_name": "NVIDIA GeForce RTX 3090", "driver": "550",
  "gpu_count": 1, "peak_memory_mib": 1720, "started_at": "2026-11-30T10:{minute:02}:00+0800",
  "ended_at": "{end}", "wall_seconds": {seconds}, "first_progress_seconds": 20,
  "progress_lines": 50, "last_progress": "Epoch 50", "cpu_percent": 60, "exit_status": 0}}"#
    )
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "the command succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn the_cli_learns_from_reports_and_a_course_pack_shares_them() {
    let dir = tmp("calibration-cli");
    let home = dir.join("home");
    let plan = crate::common::root().join("examples/resnet18-cifar-estimated.toml");
    let plan = plan.to_str().expect("utf8");
    let before = json(&gpuplan(&home, &["quote", plan, "--json"]));
    assert!(before["calibration"].is_null(), "no runs yet");
    let run_s = before["run_parts"]["total_s"]
        .as_f64()
        .expect("a whole run");
    // Three runs, each 60% slower than estimated, compared with the plan
    // file they came from.
    for i in 0..3 {
        let f = dir.join(format!("r{i}.json"));
        std::fs::write(&f, cifar_report((run_s * 1.6).round() as u64, i)).expect("write");
        let out = json(&gpuplan(
            &home,
            &[
                "ledger",
                "import",
                f.to_str().expect("utf8"),
                "--plan",
                plan,
                "--json",
            ],
        ));
        assert!(
            out[0]["versus"]["gaps"]
                .as_array()
                .is_some_and(|g| g.iter().any(|x| x == "slower-than-estimated")),
            "plan versus actual against the named plan file: {out}"
        );
    }
    let view = json(&gpuplan(&home, &["calibration", "--json"]));
    assert_eq!(view["own_runs"], 3, "three runs learnt from: {view}");
    let after = json(&gpuplan(&home, &["quote", plan, "--json"]));
    assert_eq!(
        after["calibration"]["own_runs"], 3,
        "the quote says it is calibrated"
    );
    let h = |v: &serde_json::Value| {
        v["longest_run_hours"]
            .as_str()
            .and_then(|s| s.parse::<f64>().ok())
            .expect("hours")
    };
    assert!(
        h(&after) > h(&before) * 1.3,
        "and prices the slower runs: {} -> {}",
        h(&before),
        h(&after)
    );
    let text = gpuplan(&home, &["--lang", "en", "quote", plan]);
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("Calibrated from your runs (3)"),
        "the text says it too: {}",
        String::from_utf8_lossy(&text.stdout)
    );
    json(&gpuplan(&home, &["calibration", "--off", "--json"]));
    let off = json(&gpuplan(&home, &["quote", plan, "--json"]));
    assert!(off["calibration"].is_null(), "switched off");
    assert_eq!(h(&off), h(&before), "the uncalibrated hours again");
    json(&gpuplan(&home, &["calibration", "--on", "--json"]));

    // The student hands the runs in; the instructor puts them in a pack.
    let runs = dir.join("runs.json");
    let out = gpuplan(
        &home,
        &["ledger", "runs", "--out", runs.to_str().expect("utf8")],
    );
    assert!(
        out.status.success(),
        "exports: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let handed_in = std::fs::read_to_string(&runs).expect("written");
    assert!(
        !handed_in.contains("seed 000") && !handed_in.contains("\"cifar\""),
        "no plan or job names in what a student hands in"
    );
    let pack = dir.join("course.toml");
    let teacher = dir.join("teacher");
    let out = gpuplan(
        &teacher,
        &[
            "pack",
            "export",
            "--name",
            "CV 101",
            "--platform",
            "autodl",
            // Handed in twice (a student re-exports every week): counted once.
            "--runs",
            runs.to_str().expect("utf8"),
            runs.to_str().expect("utf8"),
            "--out",
            pack.to_str().expect("utf8"),
        ],
    );
    assert!(
        out.status.success(),
        "pack export: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(&pack)
            .expect("pack")
            .contains("[[measured_run]]"),
        "the pack carries the class's runs"
    );
    let classmate = dir.join("classmate");
    let out = gpuplan(
        &classmate,
        &["pack", "import", pack.to_str().expect("utf8")],
    );
    assert!(
        out.status.success(),
        "import: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view = json(&gpuplan(&classmate, &["calibration", "--json"]));
    assert_eq!(
        (view["own_runs"].as_u64(), view["class_runs"].as_u64()),
        (Some(0), Some(3)),
        "a classmate learns from the class's runs, each once though handed in twice: {view}"
    );
    let q = json(&gpuplan(&classmate, &["quote", plan, "--json"]));
    assert_eq!(q["calibration"]["class_runs"], 3, "and the quote says so");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_versus_actual_compares_the_time_per_step_from_the_epoch_lines() {
    let dir = tmp("steptime");
    let home = dir.join("home");
    let plan = crate::common::root().join("examples/resnet18-cifar-estimated.toml");
    let plan = plan.to_str().expect("utf8");
    let q = json(&gpuplan(&home, &["quote", plan, "--json"]));
    let run_s = q["run_parts"]["total_s"].as_f64().expect("a whole run");
    // Fifty epoch lines, the first 20 s in, over twice the estimated time.
    let f = dir.join("r.json");
    std::fs::write(&f, cifar_report((run_s * 2.0).round() as u64, 0)).expect("write");
    let out = json(&gpuplan(
        &home,
        &[
            "ledger",
            "import",
            f.to_str().expect("utf8"),
            "--plan",
            plan,
            "--json",
        ],
    ));
    let v = &out[0]["versus"];
    let (planned, measured) = (
        v["planned_step_seconds"].as_f64().expect("planned step"),
        v["measured_step_seconds"]
            .as_f64()
            .expect("measured step from the epoch lines"),
    );
    assert!(
        measured / planned > 1.8 && measured / planned < 2.2,
        "a run twice as long has steps about twice as long: {planned} -> {measured}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_run_written_in_two_offsets_is_one_bill_and_second_60_is_refused() {
    let dir = tmp("offsets");
    let home = dir.join("home");
    let local = cifar_report(1800, 5);
    // The same instants in UTC: 10:05 +0800 is 02:05 +0000.
    let utc = local
        .replace("2026-11-30T10:05:00+0800", "2026-11-30T02:05:00+0000")
        .replace("2026-11-30T10:35:00+0800", "2026-11-30T02:35:00+0000");
    assert_ne!(local, utc, "the second file writes the window in UTC");
    std::fs::write(dir.join("local.json"), &local).expect("write");
    std::fs::write(dir.join("utc.json"), &utc).expect("write");
    let first = gpuplan(
        &home,
        &[
            "ledger",
            "import",
            &dir.join("local.json").display().to_string(),
        ],
    );
    assert!(first.status.success(), "the first copy imports");
    let again = gpuplan(
        &home,
        &[
            "--lang",
            "en",
            "ledger",
            "import",
            &dir.join("utc.json").display().to_string(),
        ],
    );
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(
        said.contains("Already in the ledger"),
        "the same instants in another offset are the same run: {said}"
    );
    // Other tools write RFC 3339: `Z` for UTC, `+08:00`, fractions.
    let rfc = local
        .replace("2026-11-30T10:05:00+0800", "2026-11-30T02:05:00Z")
        .replace("2026-11-30T10:35:00+0800", "2026-11-30T02:35:00.000Z");
    std::fs::write(dir.join("rfc.json"), &rfc).expect("write");
    let third = gpuplan(
        &home,
        &[
            "--lang",
            "en",
            "ledger",
            "import",
            &dir.join("rfc.json").display().to_string(),
        ],
    );
    let said = String::from_utf8_lossy(&third.stdout);
    assert!(
        said.contains("Already in the ledger"),
        "RFC 3339 times are read, and name the same run: {said} {}",
        String::from_utf8_lossy(&third.stderr)
    );
    let list = json(&gpuplan(&home, &["ledger", "list", "--json"]));
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(1),
        "one run, one bill: {list}"
    );
    let leap = local.replace("10:05:00+0800", "10:05:60+0800");
    std::fs::write(dir.join("leap.json"), leap).expect("write");
    let out = gpuplan(
        &home,
        &[
            "--lang",
            "en",
            "ledger",
            "import",
            &dir.join("leap.json").display().to_string(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "second 60 is a typo, refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("started_at"),
        "the error names the field"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_reported_in_utc_with_z_is_a_measured_run_like_any_other() {
    let dir = tmp("zulu-runs");
    let home = dir.join("home");
    let example = common::root().join("examples/run-report-example.json");
    let plan = common::root().join("examples/resnet18-cifar-estimated.toml");
    let text = std::fs::read_to_string(&example).expect("example");
    // (the window as written, why)
    let forms = [
        (
            ("2026-11-30T06:02:11+0000", "2026-11-30T06:31:40+0000"),
            "the kit's form",
        ),
        (
            ("2026-11-30T06:02:11Z", "2026-11-30T06:31:40Z"),
            "RFC 3339 with Z",
        ),
        (
            ("2026-11-30T06:02:11.250Z", "2026-11-30T06:31:40.250Z"),
            "with fractions",
        ),
    ];
    for (i, ((start, end), why)) in forms.iter().enumerate() {
        let home = home.join(format!("h{i}"));
        let report = text
            .replace("2026-11-30T14:02:11+0800", start)
            .replace("2026-11-30T14:31:40+0800", end);
        let file = dir.join(format!("r{i}.json"));
        std::fs::write(&file, report).expect("write");
        let out = gpuplan(
            &home,
            &[
                "ledger",
                "import",
                &file.display().to_string(),
                "--plan",
                &plan.display().to_string(),
            ],
        );
        assert!(
            out.status.success(),
            "{why}: imported: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let runs = dir.join(format!("runs{i}.json"));
        let out = gpuplan(
            &home,
            &["ledger", "runs", "--out", &runs.display().to_string()],
        );
        assert!(out.status.success(), "{why}: exported");
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&runs).expect("read")).expect("JSON");
        assert_eq!(
            written["runs"].as_array().map(Vec::len),
            Some(1),
            "{why}: the run is handed to the instructor, not dropped: {written}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_report_naming_two_saved_plans_goes_to_the_one_on_its_card() {
    let dir = tmp("two-plans");
    let home = dir.join("home");
    let plan =
        std::fs::read_to_string(common::root().join("examples/resnet18-cifar-estimated.toml"))
            .expect("example plan");
    let on_4090 = plan.replace("gpu = \"rtx3090\"", "gpu = \"rtx4090\"");
    assert_ne!(plan, on_4090, "the second plan is on another card");
    std::fs::write(dir.join("a.toml"), &plan).expect("write");
    std::fs::write(dir.join("b.toml"), &on_4090).expect("write");
    for f in ["a.toml", "b.toml"] {
        let out = gpuplan(
            &home,
            &["plans", "import", &dir.join(f).display().to_string()],
        );
        assert!(out.status.success(), "{f} is saved");
    }
    // The RTX 3090 report names both (same name): it belongs to plan 1, on
    // its card, not to the newer plan 2 on an RTX 4090.
    std::fs::write(dir.join("r.json"), cifar_report(1800, 5)).expect("write");
    let runs = json(&gpuplan(
        &home,
        &[
            "ledger",
            "import",
            "--json",
            &dir.join("r.json").display().to_string(),
        ],
    ));
    assert_eq!(
        runs[0]["plan_id"],
        serde_json::json!(1),
        "the plan on the report's card: {runs}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
