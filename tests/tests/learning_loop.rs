//! The learning loop read as a careful student, an instructor and an
//! attacker would (issue 20): honest runs of every kind, produced by the
//! kit's own scripts with stand-ins for the GPU, PyTorch, Slurm and the
//! clock, leave later estimates where they were; a run counts once; no file
//! bends an estimate past the cap; real `nvidia-smi` names are known and
//! unknown ones kept as measured; the bill comes from the billing window;
//! and nothing is ever reported saved that is not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpuplan_core::scripts::{self, ShutdownSpec, SlurmSpec, StopMechanism};
use gpuplan_core::JobSpec;
use gpuplan_usecases::{Home, Planner};

use crate::common;

fn clock() -> chrono::NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .expect("a date")
}

fn gpuplan(home: &Path, args: &[&str]) -> Output {
    Command::new(common::gpuplan_binary())
        .args(args)
        .env("GPUPLAN_HOME", home)
        .env("LANG", "C")
        .output()
        .expect("gpuplan runs")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "the command succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One kind of honest run: the plan's job, what the stand-in GPU shows,
/// and how the run is split into parts.
struct Kind {
    name: &'static str,
    job: JobSpec,
    /// Per-GPU process memory nvidia-smi shows, as a share of the
    /// estimate's per-GPU peak (0: nvidia-smi sees no process).
    gpus: usize,
    smi_sees_the_job: bool,
    parts: u32,
}

fn vision_job(gpus: Option<f64>) -> JobSpec {
    JobSpec {
        model: Some("resnet50".into()),
        batch: Some(64.0),
        dataset_samples: Some(20_000.0),
        epochs: Some(3.0),
        gpus,
        engine: gpus.map(|_| gpuplan_core::parallel::Engine::Ddp),
        ..JobSpec::default()
    }
}

fn plan_toml(name: &str, job: &JobSpec) -> String {
    let mut plan = gpuplan_usecases::defaults::plan(job.clone());
    plan.name = name.into();
    plan.platform = "autodl".into();
    plan.gpu = "rtx3090".into();
    toml::to_string_pretty(&plan).expect("a plan serialises")
}

/// The uncalibrated and the calibrated estimate of `job` on the plan's card.
fn estimate(home: &Path, job: &JobSpec) -> gpuplan_core::estimate::EstimateReport {
    let mut p = Planner::new(common::bundled(), Home::Folder(home.to_path_buf()), clock);
    p.estimate(job, Some("rtx3090"), None, Some("autodl"))
        .expect("estimate")
}

/// A folder of stand-ins: `date` reading a fake clock, `nvidia-smi`, a
/// `shutdown` that does nothing, `srun` and `scontrol` for Slurm, and a
/// PyTorch that reports `torch_mib` of live tensors.
fn stand_ins(dir: &Path, per_gpu_mib: &[u64], torch_mib: u64) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    common::executable(
        &bin.join("date"),
        &format!(
            "#!/bin/sh\nexec /usr/bin/date -d \"@$(cat '{}')\" \"$@\"\n",
            dir.join("clock").display()
        ),
    );
    common::executable(
        &bin.join("nvidia-smi"),
        &common::nvidia_smi_script("NVIDIA GeForce RTX 3090", "550.54.14", per_gpu_mib),
    );
    common::executable(&bin.join("shutdown"), "#!/bin/sh\nexit 0\n");
    common::executable(&bin.join("srun"), "#!/bin/sh\nshift 2\nexec \"$@\"\n");
    common::executable(
        &bin.join("scontrol"),
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\n",
            dir.join("scontrol.log").display()
        ),
    );
    std::fs::create_dir_all(dir.join("torch")).expect("torch");
    std::fs::write(
        dir.join("torch/__init__.py"),
        format!(
            "class cuda:\n    @staticmethod\n    def is_available():\n        return True\n    @staticmethod\n    def device_count():\n        return 1\n    @staticmethod\n    def max_memory_allocated(d=0):\n        return {torch_mib} * 1024 ** 2\n"
        ),
    )
    .expect("torch");
    let module = scripts::notebook_report("autodl", "unused").expect("module");
    std::fs::write(dir.join(&module.file_name), &module.text).expect("module");
    bin
}

/// Runs `script` (bash) in `dir` with the stand-ins first on PATH; the
/// training command moves the fake clock by the part's seconds.
fn run_kit(dir: &Path, bin: &Path, script: &Path, env: &[(&str, String)]) -> Output {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("bash");
    c.arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("GPUPLAN_SHUTDOWN_BIN", bin.join("shutdown"))
        .env("GPUPLAN_NVIDIA_SMI", bin.join("nvidia-smi"))
        .env("PYTHONPATH", dir)
        .env("TMPDIR", dir);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the kit runs")
}

/// Runs one kind's job through the kit (the wrapper, or the Slurm requeue
/// script for a run in parts), on estimate, and returns its reports.
fn honest_reports(
    dir: &Path,
    kind: &Kind,
    run: (u32, u64),
    per_gpu_mib: u64,
    live_mib: u64,
) -> Vec<PathBuf> {
    // Each run its own Slurm job id (requeues keep it).
    let (job_id, run_s) = run;
    let smi: Vec<u64> = (0..kind.gpus)
        .map(|_| {
            if kind.smi_sees_the_job {
                per_gpu_mib
            } else {
                0
            }
        })
        .collect();
    let bin = stand_ins(dir, &smi, live_mib);
    let t0: u64 = 1_764_550_800; // 2025-12-01T01:00:00Z
    let torch_line = if kind.smi_sees_the_job {
        ""
    } else {
        "python3 -c 'import gpuplan_report; gpuplan_report.report_torch_peak()'; "
    };
    let mut reports = Vec::new();
    for part in 1..=kind.parts {
        let start = t0 + u64::from(part - 1) * (run_s / u64::from(kind.parts) + 600);
        let end = start + run_s / u64::from(kind.parts);
        std::fs::write(dir.join("clock"), start.to_string()).expect("clock");
        let report = dir.join(format!("report-{}-{part}.json", kind.name));
        let last = part == kind.parts;
        // The job: its progress, PyTorch's peak if it opted in, the time it
        // takes (the fake clock), and on a part that is not the last, the
        // checkpoint-and-exit Slurm's USR1 asks for.
        let body = format!(
            "{torch_line}echo 'Epoch {part}'; echo {end} > '{}'",
            dir.join("clock").display()
        );
        let command = if last {
            body
        } else {
            // (Bounded: a USR1 that never came fails the part, never hangs.)
            format!("trap 'exit 0' USR1; {body}; kill -USR1 $PPID; for _ in $(seq 1 300); do sleep 0.1; done; exit 1")
        };
        let (script, env) = if kind.parts > 1 {
            let text = scripts::slurm(&SlurmSpec {
                job_name: "train".into(),
                partition: "gpu".into(),
                gpus: 1,
                cpus: 4,
                mem_gb: 16,
                hours: 1.0,
                cap_hours: None,
                output: "%x-%j.out".into(),
                activate: Vec::new(),
                command,
                requeue: true,
                plan: kind.name.into(),
                platform: "autodl".into(),
            })
            .expect("slurm script")
            .text;
            let env = vec![
                ("SLURM_JOB_ID", (4242 + job_id).to_string()),
                ("SLURM_RESTART_COUNT", (part - 1).to_string()),
                ("SLURM_CPUS_PER_TASK", "4".to_owned()),
            ];
            (text, env)
        } else {
            let text = scripts::shutdown_wrapper(&ShutdownSpec {
                platform: "autodl".into(),
                mechanism: StopMechanism::Shutdown,
                job_name: "train".into(),
                command,
                max_runtime_seconds: scripts::with_margin(run_s as f64 / 3600.0),
                destroy: false,
                poll_seconds: 1,
                plan: kind.name.into(),
            })
            .expect("wrapper");
            (text, Vec::new())
        };
        let file = dir.join(format!("{}-{part}.sh", kind.name));
        std::fs::write(&file, script).expect("script");
        let mut env = env;
        env.push(("GPUPLAN_RUN_REPORT", report.display().to_string()));
        let out = run_kit(dir, &bin, &file, &env);
        assert!(
            report.exists(),
            "{}: part {part} wrote its report: {}",
            kind.name,
            String::from_utf8_lossy(&out.stderr)
        );
        reports.push(report);
    }
    reports
}

#[test]
fn an_on_estimate_run_of_each_kind_leaves_later_estimates_where_they_were() {
    let kinds = [
        Kind {
            name: "one GPU",
            job: vision_job(None),
            gpus: 1,
            smi_sees_the_job: true,
            parts: 1,
        },
        Kind {
            name: "four-GPU DDP",
            job: vision_job(Some(4.0)),
            gpus: 4,
            smi_sees_the_job: true,
            parts: 1,
        },
        Kind {
            name: "PyTorch memory only",
            job: vision_job(None),
            gpus: 1,
            smi_sees_the_job: false,
            parts: 1,
        },
        Kind {
            name: "requeued twice",
            job: vision_job(None),
            gpus: 1,
            smi_sees_the_job: true,
            parts: 3,
        },
    ];
    for kind in &kinds {
        let dir = tempfile::tempdir().expect("tmp");
        let home = dir.path().join("home");
        let plan = dir.path().join("plan.toml");
        std::fs::write(&plan, plan_toml(kind.name, &kind.job)).expect("plan");
        // What the estimator says before any run (of this job, and of the
        // family's one-GPU job, which a multi-GPU run must not bend).
        let before = estimate(&home, &kind.job);
        let single_before = estimate(&home, &vision_job(None));
        let run_s = before.run.map(|r| r.total_s).expect("a whole run").round() as u64;
        let comp = |k: &str| before.components.get(k).copied().unwrap_or(0.0);
        let per_gpu_mib = (before.peak_gib * 1024.0).round() as u64;
        let live_mib =
            ((before.peak_gib - comp("allocator") - comp("context")) * 1024.0).round() as u64;
        // Three such runs: enough to move an estimate if they were misread.
        let mut files = Vec::new();
        for i in 0..3 {
            let sub = dir.path().join(format!("run{i}"));
            std::fs::create_dir_all(&sub).expect("run dir");
            files.extend(honest_reports(
                &sub,
                kind,
                (i as u32, run_s + i),
                per_gpu_mib,
                live_mib,
            ));
        }
        let names: Vec<&str> = files.iter().map(|f| f.to_str().expect("utf8")).collect();
        let mut args = vec!["ledger", "import"];
        args.extend(names.iter().copied());
        args.extend(["--plan", plan.to_str().expect("utf8"), "--json"]);
        let imported: serde_json::Value =
            serde_json::from_str(&ok(&gpuplan(&home, &args))).expect("JSON");
        assert_eq!(
            imported.as_array().map(Vec::len),
            Some(files.len()),
            "{}: every report (part) is a bill",
            kind.name
        );
        for (what, job, was) in [
            ("this job", &kind.job, &before),
            ("the one-GPU job", &vision_job(None), &single_before),
        ] {
            let after = estimate(&home, job);
            let factors = after
                .calibration
                .map(|c| (c.time_factor(), c.memory_factor()))
                .unwrap_or((1.0, 1.0));
            assert_eq!(
                factors,
                (1.0, 1.0),
                "{}: on-estimate runs change nothing for {what}: {:?}",
                kind.name,
                after.calibration
            );
            assert_eq!(
                (after.peak_gib, after.run.map(|r| r.total_s)),
                (was.peak_gib, was.run.map(|r| r.total_s)),
                "{}: {what}'s memory and time are where they were",
                kind.name
            );
        }
        if kind.parts > 1 {
            // A part alone (the others not imported yet) teaches no time.
            let alone = dir.path().join("alone");
            ok(&gpuplan(
                &alone,
                &[
                    "ledger",
                    "import",
                    names[0],
                    "--plan",
                    plan.to_str().expect("utf8"),
                ],
            ));
            let view: serde_json::Value =
                serde_json::from_str(&ok(&gpuplan(&alone, &["calibration", "--json"])))
                    .expect("JSON");
            let time = &view["rows"][0]["time"];
            assert!(
                time.is_null(),
                "{}: one part of a run never calibrates time: {view}",
                kind.name
            );
        }
    }
}

#[test]
fn a_multi_gpu_report_carries_each_gpus_peak_not_their_sum() {
    let dir = tempfile::tempdir().expect("tmp");
    let kind = Kind {
        name: "ddp",
        job: vision_job(Some(4.0)),
        gpus: 4,
        smi_sees_the_job: true,
        parts: 1,
    };
    let files = honest_reports(dir.path(), &kind, (0, 600), 7000, 5000);
    let text = std::fs::read_to_string(&files[0]).expect("report");
    let r = gpuplan_core::report::RunReport::from_json("r.json", &text).expect("valid");
    assert_eq!(
        r.gpu_peaks_mib,
        vec![7000; 4],
        "one peak per GPU, in GPU order"
    );
    assert_eq!(
        r.memory(),
        gpuplan_core::report::MemoryMeasure::Process(7000),
        "compared per GPU (the old kit summed them: 28000)"
    );
}

#[test]
fn runs_that_are_off_the_estimate_do_move_it_by_what_they_measured() {
    // The control for the test above: the same kit and stand-ins, runs 40%
    // slower using 30% more memory per GPU, are read as exactly that.
    let kinds = [
        Kind {
            name: "one GPU",
            job: vision_job(None),
            gpus: 1,
            smi_sees_the_job: true,
            parts: 1,
        },
        Kind {
            name: "four-GPU DDP",
            job: vision_job(Some(4.0)),
            gpus: 4,
            smi_sees_the_job: true,
            parts: 1,
        },
        Kind {
            name: "PyTorch memory only",
            job: vision_job(None),
            gpus: 1,
            smi_sees_the_job: false,
            parts: 1,
        },
        Kind {
            name: "requeued twice",
            job: vision_job(None),
            gpus: 1,
            smi_sees_the_job: true,
            parts: 3,
        },
    ];
    for kind in &kinds {
        let dir = tempfile::tempdir().expect("tmp");
        let home = dir.path().join("home");
        let plan = dir.path().join("plan.toml");
        std::fs::write(&plan, plan_toml(kind.name, &kind.job)).expect("plan");
        let before = estimate(&home, &kind.job);
        let run_s = before.run.map(|r| r.total_s).expect("a whole run") * 1.4;
        let comp = |k: &str| before.components.get(k).copied().unwrap_or(0.0);
        let per_gpu_mib = (before.peak_gib * 1.3 * 1024.0).round() as u64;
        let live = before.peak_gib - comp("allocator") - comp("context");
        let live_mib = (live * 1.3 * 1024.0).round() as u64;
        let mut files = Vec::new();
        for i in 0..4 {
            let sub = dir.path().join(format!("run{i}"));
            std::fs::create_dir_all(&sub).expect("run dir");
            files.extend(honest_reports(
                &sub,
                kind,
                (i as u32, run_s as u64 + i),
                per_gpu_mib,
                live_mib,
            ));
        }
        let names: Vec<&str> = files.iter().map(|f| f.to_str().expect("utf8")).collect();
        let mut args = vec!["ledger", "import"];
        args.extend(names.iter().copied());
        args.extend(["--plan", plan.to_str().expect("utf8")]);
        ok(&gpuplan(&home, &args));
        let c = estimate(&home, &kind.job)
            .calibration
            .expect("the runs are looked at");
        let (t, m) = (c.time_factor(), c.memory_factor());
        assert!(
            t > 1.25 && t < 1.45,
            "{}: four runs 40% slower read as slower by about that: {t}",
            kind.name
        );
        assert!(
            m > 1.15 && m < 1.35,
            "{}: 30% more memory per GPU read as 30% more, never as the sum of the GPUs: {m}",
            kind.name
        );
    }
}
