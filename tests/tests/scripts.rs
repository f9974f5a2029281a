//! The before-you-rent scripts are tested for real: every generated script
//! passes `bash -n` and shellcheck; sbatch headers are parsed; the shutdown
//! wrapper is executed with stand-in `shutdown`/`curl` commands and must fire
//! on success, on failure, on timeout and when its own shell is killed; hostile
//! names and commands cannot inject shell code.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common;

use gpuplan_core::scripts::{self, ShutdownSpec, SlurmSpec, StopMechanism};

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpuplan-scripts-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

const HOSTILE: &str =
    "x'; touch /tmp/gpuplan-pwned; echo '$(touch /tmp/gpuplan-pwned)`touch /tmp/gpuplan-pwned`\"";

fn spec(mechanism: StopMechanism, command: &str, max: u64) -> ShutdownSpec {
    ShutdownSpec {
        platform: "test".into(),
        mechanism,
        job_name: HOSTILE.into(),
        command: command.into(),
        max_runtime_seconds: max,
        destroy: false,
        poll_seconds: 1,
        plan: HOSTILE.into(),
        plan_job: String::new(),
    }
}

fn all_scripts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in [
        StopMechanism::Shutdown,
        StopMechanism::HttpApi,
        StopMechanism::VastCli,
    ] {
        out.push((
            format!("shutdown-{m:?}.sh"),
            scripts::shutdown_wrapper(&spec(m, "python train.py --name \"a b\"", 3600))
                .expect("wrapper"),
        ));
    }
    for requeue in [false, true] {
        let s = SlurmSpec {
            job_name: "resnet18".into(),
            partition: "gpu".into(),
            gpus: 1,
            cpus: 8,
            mem_gb: 32,
            hours: 2.0,
            cap_hours: Some(48.0),
            output: "logs/%j.out".into(),
            activate: vec!["module:cuda/12.1".into(), format!("conda:{HOSTILE}")],
            command: HOSTILE.into(),
            requeue,
            plan: "cifar".into(),
            plan_job: String::new(),
            platform: "campus-slurm".into(),
        };
        out.push((
            format!("slurm-{requeue}.sh"),
            scripts::slurm(&s).expect("slurm").text,
        ));
    }
    for spec in launch_specs() {
        let tag = format!("{:?}-{}-{}", spec.engine, spec.gpus, spec.offload);
        out.push((
            format!("launch-{tag}.sh"),
            scripts::launch_script(&spec).expect("launch").text,
        ));
        out.push((
            format!("multigpu-{tag}.sbatch"),
            scripts::slurm_multigpu(&spec, "gpu", 12.0, 8, Some(48.0))
                .expect("slurm")
                .text,
        ));
    }
    out.push(("probe.sh".into(), scripts::env_probe().text));
    out.push((
        "offline.sh".into(),
        scripts::offline_install("3.10").expect("offline").text,
    ));
    out
}

#[test]
fn every_script_passes_bash_n_and_shellcheck() {
    let dir = tmp("lint");
    let shellcheck = Command::new("shellcheck").arg("--version").output().is_ok();
    assert!(
        shellcheck || std::env::var_os("CI").is_none(),
        "CI must have shellcheck (scripts/setup.sh installs it)"
    );
    for (name, text) in all_scripts() {
        let f = dir.join(&name);
        std::fs::write(&f, &text).expect("write");
        let out = Command::new("bash")
            .arg("-n")
            .arg(&f)
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "{name}: bash -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if shellcheck {
            let out = Command::new("shellcheck")
                .args(["-S", "warning", "-s", "bash"])
                .arg(&f)
                .output()
                .expect("shellcheck");
            assert!(
                out.status.success(),
                "{name}: shellcheck:\n{}\n{text}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    let py = scripts::resume_template(5, 50, scripts::IntervalSource::Chosen)
        .expect("template")
        .text;
    let f = dir.join("train_resumable.py");
    std::fs::write(&f, py).expect("write");
    if let Ok(out) = Command::new("python3")
        .args(["-m", "py_compile"])
        .arg(&f)
        .output()
    {
        assert!(
            out.status.success(),
            "the resumable template compiles: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_python_script_passes_pyflakes() {
    // The kit's Python, rendered as a student gets it: the resumable
    // training template and the notebook's run report.
    let pyflakes = Command::new("pyflakes3").arg("--version").output().is_ok();
    assert!(
        pyflakes || std::env::var_os("CI").is_none(),
        "CI must have pyflakes3 (scripts/setup.sh installs pyflakes3)"
    );
    if !pyflakes {
        return;
    }
    let dir = tmp("pyflakes");
    let scripts = [
        scripts::resume_template(5, 50, scripts::IntervalSource::Chosen).expect("template"),
        scripts::notebook_report("autodl", "a plan", "").expect("report"),
    ];
    for s in scripts {
        let f = dir.join(format!("{}.py", s.file_name.replace('.', "_")));
        std::fs::write(&f, &s.text).expect("write");
        let out = Command::new("pyflakes3")
            .arg(&f)
            .output()
            .expect("pyflakes3");
        assert!(
            out.status.success(),
            "{}: pyflakes finds nothing:\n{}",
            s.file_name,
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn the_slurm_walltime_rounds_up_to_the_minute_and_carries_into_the_hour() {
    // The walltime is the run's hours x 1.5 + 30 min, written in whole
    // minutes. (hours, --time, why)
    let cases = [
        (
            4.99,
            "08:00:00",
            "7:59:06 needs the eighth hour (was held at 07:59)",
        ),
        (0.99, "02:00:00", "1:59:06"),
        (4.98, "07:59:00", "7:58:12 rounds up to the next minute"),
        (1.001, "02:01:00", "2:00:05"),
        (2.0, "03:30:00", "an exact minute stays"),
    ];
    for (hours, want, why) in cases {
        let s = SlurmSpec {
            job_name: "t".into(),
            partition: "gpu".into(),
            gpus: 1,
            cpus: 4,
            mem_gb: 16,
            hours,
            cap_hours: None,
            output: "logs/%j.out".into(),
            activate: Vec::new(),
            command: "python x.py".into(),
            requeue: false,
            plan: String::new(),
            plan_job: String::new(),
            platform: "campus-slurm".into(),
        };
        let text = scripts::slurm(&s).expect("slurm").text;
        assert!(
            text.contains(&format!("#SBATCH --time={want}\n")),
            "{why}: {text}"
        );
    }
}

#[test]
fn sbatch_headers_parse_and_carry_the_plan() {
    let s = SlurmSpec {
        job_name: "bert-ft".into(),
        partition: "a100".into(),
        gpus: 2,
        cpus: 16,
        mem_gb: 64,
        hours: 30.0,
        cap_hours: Some(24.0),
        output: "logs/%x-%j.out".into(),
        activate: vec!["conda:nlp".into()],
        command: "python train.py".into(),
        requeue: true,
        plan: "cifar".into(),
        plan_job: String::new(),
        platform: "campus-slurm".into(),
    };
    let script = scripts::slurm(&s).expect("slurm");
    let headers: std::collections::BTreeMap<String, String> = script
        .text
        .lines()
        .filter_map(|l| l.strip_prefix("#SBATCH --"))
        .map(|h| match h.split_once('=') {
            Some((k, v)) => (k.to_owned(), v.to_owned()),
            None => (h.to_owned(), String::new()),
        })
        .collect();
    // (header, expected value, why)
    let cases = [
        ("job-name", "bert-ft", "the job name"),
        ("partition", "a100", "the partition"),
        ("gres", "gpu:2", "two GPUs"),
        ("cpus-per-task", "16", "CPUs"),
        ("mem", "64G", "memory"),
        (
            "time",
            "1-00:00:00",
            "30 h with margin exceeds the 24 h cap, so the cap is used",
        ),
        (
            "signal",
            "B:USR1@300",
            "USR1 to the batch shell five minutes before the end",
        ),
        ("requeue", "", "requeue enabled"),
    ];
    for (k, v, why) in cases {
        assert_eq!(headers.get(k).map(String::as_str), Some(v), "{why}");
    }
    assert!(
        !script.notes.is_empty(),
        "exceeding the walltime cap is explained to the student"
    );
    assert!(
        script.text.contains("on_usr1() { requeue=1;"),
        "the handler only sets a flag (and forwards the signal)"
    );
    type Case = (&'static str, &'static str);
    // (job name, why it is refused)
    let cases: [Case; 3] = [
        ("a b;rm", "unsafe #SBATCH values are refused by field"),
        (
            "exp/run1",
            "a folder in the name: the log's %x path has no such folder, the job fails to launch",
        ),
        (
            "run%j",
            "a pattern in the name: the log's path would expand it",
        ),
    ];
    for (name, why) in cases {
        let bad = SlurmSpec {
            job_name: name.into(),
            ..s.clone()
        };
        assert_eq!(
            scripts::slurm(&bad).map_err(|e| e.field).err().as_deref(),
            Some("job_name"),
            "{why}"
        );
    }
}

/// Writes an executable stand-in for `name` in `dir` that appends its name and
/// arguments to `log_name`; returns the log's path.
fn stand_in(dir: &Path, name: &str, log_name: &str) -> PathBuf {
    let log = dir.join(log_name);
    let stub = dir.join(name);
    common::executable(
        &stub,
        &format!("#!/bin/sh\necho \"{name} $*\" >> '{}'\n", log.display()),
    );
    log
}

struct Run {
    dir: PathBuf,
    log: PathBuf,
}

impl Run {
    /// Writes the wrapper and a stand-in `shutdown` that records its calls.
    fn new(tag: &str, command: &str, max: u64) -> (Self, PathBuf) {
        let dir = tmp(tag);
        let log = stand_in(&dir, "shutdown", "stops.log");
        let script = dir.join("run.sh");
        std::fs::write(
            &script,
            scripts::shutdown_wrapper(&spec(StopMechanism::Shutdown, command, max))
                .expect("wrapper"),
        )
        .expect("write");
        (Self { dir, log }, script)
    }

    fn command(&self, script: &Path) -> Command {
        let mut c = Command::new("bash");
        // The run report lands next to the job: the run's own folder.
        c.arg(script)
            .current_dir(&self.dir)
            .env("GPUPLAN_SHUTDOWN_BIN", self.dir.join("shutdown"))
            .env("TMPDIR", &self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }

    fn stops(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    fn wait_for_stop(&self, within: Duration) -> bool {
        common::wait_until(within, || self.stops() > 0)
    }

    /// Waits until none of the wrapper's processes is left (the watchdog is
    /// the last; it removes the wrapper's state folder as it goes), so a
    /// second stop could no longer come. False if one is still there.
    fn wait_for_wrapper_gone(&self, script: &Path) -> bool {
        let pattern = script.display().to_string();
        common::wait_until(Duration::from_secs(15), || {
            let alive = Command::new("pgrep")
                .args(["-f", &pattern])
                .output()
                .map(|o| !o.stdout.is_empty())
                .unwrap_or(false);
            !alive && !self.state_dir_left()
        })
    }

    /// A `gpuplan-run.*` state folder is still in the run's folder.
    fn state_dir_left(&self) -> bool {
        std::fs::read_dir(&self.dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("gpuplan-run."))
        })
    }
}

#[test]
fn shutdown_fires_on_success_and_on_failure_exactly_once() {
    // (command, expected exit status, why)
    for (cmd, status, why) in [
        ("true", 0, "training succeeded"),
        ("exit 3", 3, "training failed"),
    ] {
        let (run, script) = Run::new(&format!("exit{status}"), cmd, 60);
        let out = run.command(&script).status().expect("runs");
        assert_eq!(
            out.code(),
            Some(status),
            "{why}: the wrapper keeps the training's status"
        );
        assert!(
            run.wait_for_stop(Duration::from_secs(5)),
            "{why}: the instance is stopped"
        );
        assert!(
            run.wait_for_wrapper_gone(&script),
            "{why}: the watchdog ends and leaves no state folder"
        );
        assert_eq!(
            run.stops(),
            1,
            "{why}: stopped exactly once, not again by the watchdog"
        );
    }
}

#[test]
fn a_part_number_or_run_id_the_ledger_would_refuse_stops_the_wrapper_before_the_job() {
    // (variable, value, why): each made a report `ledger import` refused,
    // so the run's bill could never reach the ledger.
    let long_id = "实验".repeat(100);
    for (var, value, why) in [
        ("GPUPLAN_RUN_PART", "0", "part 0"),
        ("GPUPLAN_RUN_PART", "99999", "a part past 10000"),
        (
            "GPUPLAN_RUN_PART",
            "two",
            "a part in words (was silently part 1)",
        ),
        (
            "GPUPLAN_RUN_ID",
            long_id.as_str(),
            "a run id over 100 characters",
        ),
        (
            "GPUPLAN_STEP_PATTERN",
            "(",
            "a step pattern grep cannot read (no progress was counted)",
        ),
    ] {
        let (run, script) = Run::new("kit-refuses", "touch job-ran", 60);
        let out = run
            .command(&script)
            .env(var, value)
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{why}: refused: {err}");
        assert!(err.contains(var), "{why}: names {var}: {err}");
        assert!(
            !run.dir.join("job-ran").exists(),
            "{why}: the job never started"
        );
        assert!(!run.state_dir_left(), "{why}: nothing left behind");
    }
    // A part written with a leading zero is that part.
    let (run, script) = Run::new("kit-part", "true", 60);
    let out = run
        .command(&script)
        .env("GPUPLAN_RUN_PART", "02")
        .status()
        .expect("runs");
    assert_eq!(out.code(), Some(0), "part 02 is part 2");
    let report = std::fs::read_dir(&run.dir)
        .expect("dir")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .expect("a report");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.path()).expect("read")).expect("JSON");
    assert_eq!(r["part"], 2, "the part as a number");
}

#[test]
fn shutdown_fires_when_the_maximum_runtime_is_reached() {
    let (run, script) = Run::new("timeout", "sleep 30", 2);
    // Started as the header says: nohup bash wrapper.sh > run.log 2>&1.
    let log = run.dir.join("run.log");
    let file = std::fs::File::create(&log).expect("log");
    let status = run
        .command(&script)
        .stdout(file.try_clone().expect("log"))
        .stderr(file)
        .status()
        .expect("runs");
    assert_eq!(
        status.code(),
        Some(143),
        "the hard stop ends the 30 s job (the watchdog's SIGTERM), it did not finish"
    );
    assert!(
        run.wait_for_stop(Duration::from_secs(5)),
        "and stops the instance"
    );
    assert!(
        run.wait_for_wrapper_gone(&script),
        "the watchdog ends and leaves no state folder"
    );
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(
        text.contains("maximum runtime of 2 s reached"),
        "the log says why training stopped (the watchdog wrote to /dev/null): {text}"
    );
}

#[test]
fn shutdown_fires_when_the_wrapper_itself_is_killed() {
    let (run, script) = Run::new("killed", "touch training-started; sleep 30", 600);
    let smi = fake_nvidia_smi(&run.dir);
    let report = run.dir.join("report.json");
    // Its own process group: what the wrapper started can be ended at the
    // end by that group, without matching command lines.
    let mut child = run
        .command(&script)
        .env("GPUPLAN_NVIDIA_SMI", &smi)
        .env("GPUPLAN_RUN_REPORT", &report)
        .process_group(0)
        .spawn()
        .expect("spawn");
    assert!(
        common::wait_until(Duration::from_secs(10), || run
            .dir
            .join("training-started")
            .exists()),
        "the training starts"
    );
    assert_eq!(run.stops(), 0, "nothing stops while training runs");
    // SIGKILL: the wrapper's EXIT trap cannot run; the watchdog must notice.
    let _ = Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status();
    let _ = child.wait();
    assert!(
        run.wait_for_stop(Duration::from_secs(8)),
        "the watchdog stops the instance after its shell was killed"
    );
    let text = std::fs::read_to_string(&report).expect("the watchdog reports the run");
    let r: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        r["exit_status"], 137,
        "a killed run: its bill goes to the ledger, it teaches nothing"
    );
    // The training's `sleep` outlives the killed shell: end the group.
    let _ = Command::new("kill")
        .args(["-9", "--", &format!("-{}", child.id())])
        .status();
}

#[test]
fn a_closed_terminal_is_reported_as_an_interrupted_run_not_a_clean_one() {
    // Started without nohup, the terminal closing sends HUP to the group:
    // the report said exit 0 for 13 s of a 39 s run, and it was learnt from.
    let (run, script) = Run::new("hangup", "touch training-started; sleep 30", 600);
    let smi = fake_nvidia_smi(&run.dir);
    let report = run.dir.join("report.json");
    let mut child = run
        .command(&script)
        .env("GPUPLAN_NVIDIA_SMI", &smi)
        .env("GPUPLAN_RUN_REPORT", &report)
        .process_group(0)
        .spawn()
        .expect("spawn");
    assert!(
        common::wait_until(Duration::from_secs(10), || run
            .dir
            .join("training-started")
            .exists()),
        "the training starts"
    );
    let hung_up = std::time::Instant::now();
    let _ = Command::new("kill")
        .args(["-HUP", "--", &format!("-{}", child.id())])
        .status();
    let status = child.wait().expect("ends");
    assert_eq!(status.code(), Some(129), "the wrapper ends as hung up");
    // Its output watchers died with the group: the report is written at
    // once, not after 20 s of waiting on them (a stop that kills after
    // 10 s would have taken the bill with it).
    assert!(
        hung_up.elapsed() < Duration::from_secs(8),
        "ended in {:?}",
        hung_up.elapsed()
    );
    assert!(
        run.wait_for_stop(Duration::from_secs(8)),
        "and stops the instance"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("a report")).expect("JSON");
    assert_eq!(r["exit_status"], 129, "the report says the run was cut off");
    let _ = Command::new("kill")
        .args(["-9", "--", &format!("-{}", child.id())])
        .status();
}

#[test]
fn hostile_names_and_commands_do_not_inject() {
    let _ = std::fs::remove_file("/tmp/gpuplan-pwned");
    let (run, script) = Run::new(
        "hostile",
        &format!("echo {}", scripts::shell_quote(HOSTILE)),
        60,
    );
    let status = run.command(&script).status().expect("runs");
    assert!(status.success(), "the wrapper runs");
    assert!(
        !Path::new("/tmp/gpuplan-pwned").exists(),
        "a hostile job name never executes"
    );
    let err = scripts::shutdown_wrapper(&spec(
        StopMechanism::Shutdown,
        "python train.py\nrm -rf /",
        60,
    ))
    .expect_err("newline");
    assert_eq!(
        err.field, "command",
        "a multi-line command is refused by field"
    );
    // Characters no one sees would run as part of an argument (or reorder
    // how the line reads): refused, not printed as [U+200B] into the script.
    for hidden in [
        "python t.py --tag a\u{200B}b",
        "python t.py \u{202E}",
        "\u{FEFF}python t.py",
    ] {
        let err = scripts::shutdown_wrapper(&spec(StopMechanism::Shutdown, hidden, 60))
            .expect_err("hidden character");
        assert_eq!(err.field, "command", "{hidden:?}: refused by field");
    }
    assert!(
        scripts::shutdown_wrapper(&spec(
            StopMechanism::Shutdown,
            "python t.py --name 模型\u{3000}é",
            60
        ))
        .is_ok(),
        "visible text in any script is kept as typed"
    );
}

#[test]
fn http_stop_reads_secrets_from_the_environment_only() {
    let text =
        scripts::shutdown_wrapper(&spec(StopMechanism::HttpApi, "true", 60)).expect("wrapper");
    assert!(
        text.contains("$GPUPLAN_API_TOKEN") && text.contains("${GPUPLAN_STOP_URL:-}"),
        "token and URL come from the environment"
    );
    let dir = tmp("http");
    let log = dir.join("curl.log");
    let stub = dir.join("curl");
    // The stand-in records its arguments and what it read on stdin (the
    // header with the token, which is on no command line).
    common::executable(
        &stub,
        &format!(
            "#!/bin/sh\necho \"curl $* stdin=$(cat)\" >> '{}'\n",
            log.display()
        ),
    );
    let script = dir.join("run.sh");
    std::fs::write(
        &script,
        scripts::shutdown_wrapper(&spec(StopMechanism::HttpApi, "env > job-env.txt", 60))
            .expect("wrapper"),
    )
    .expect("write");
    let st = Command::new("bash")
        .arg(&script)
        .env("GPUPLAN_CURL_BIN", &stub)
        .env("GPUPLAN_STOP_URL", "https://example.invalid/stop")
        .env("GPUPLAN_API_TOKEN", "secret-token")
        .env("TMPDIR", &dir)
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("runs");
    assert!(st.success(), "runs");
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        calls.contains("-X POST https://example.invalid/stop")
            && calls.contains("stdin=header = \"Authorization: Bearer secret-token\""),
        "the stop call is made with the environment's values: {calls}"
    );
    assert!(
        !calls
            .split("stdin=")
            .next()
            .unwrap_or("")
            .contains("secret-token"),
        "the token is on no command line: {calls}"
    );
    let job_env = std::fs::read_to_string(dir.join("job-env.txt")).expect("the job ran");
    assert!(
        !job_env.contains("secret-token"),
        "the job never sees the platform's token"
    );
    // Without them the job never starts: a wrapper that could not stop the
    // instance would leave it billing after training.
    let _ = std::fs::remove_file(&log);
    let marker = dir.join("trained");
    let job = scripts::shutdown_wrapper(&spec(
        StopMechanism::HttpApi,
        &format!("touch {}", marker.display()),
        60,
    ))
    .expect("wrapper");
    std::fs::write(&script, job).expect("write");
    let out = Command::new("bash")
        .arg(&script)
        .env("GPUPLAN_CURL_BIN", &stub)
        .env_remove("GPUPLAN_STOP_URL")
        .env_remove("GPUPLAN_API_TOKEN")
        .env("TMPDIR", &dir)
        .current_dir(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "refused before the job");
    assert!(!marker.exists(), "the training command did not run");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("GPUPLAN_STOP_URL"),
        "it says what to set"
    );
}

/// Every engine on one instance and across nodes, with and without offload
/// where the engine allows it; the command has shell metacharacters.
fn launch_specs() -> Vec<scripts::LaunchSpec> {
    use gpuplan_core::parallel::Engine;
    let mut out = Vec::new();
    for engine in Engine::VALUES {
        for gpus in [2u32, 8, 16] {
            for offload in [false, true] {
                if offload && matches!(engine, Engine::Ddp | Engine::Zero1) {
                    continue;
                }
                out.push(scripts::LaunchSpec {
                    job_name: "llama-ft".into(),
                    command: "python train.py --out \"$HOME/run's dir\" --lr=1e-4; rm -rf /".into(),
                    gpus,
                    engine,
                    offload,
                    batch: 4,
                    precision: gpuplan_core::job::Precision::Bf16Amp,
                });
            }
        }
    }
    out
}

#[test]
fn launch_configs_are_valid_for_their_tools() {
    use gpuplan_core::parallel::Engine;
    // The keys `accelerate config` writes (accelerate's ClusterConfig and its
    // FSDP and DeepSpeed sections): anything else Accelerate rejects.
    let top = [
        "compute_environment",
        "distributed_type",
        "mixed_precision",
        "num_machines",
        "num_processes",
        "machine_rank",
        "main_training_function",
        "rdzv_backend",
        "same_network",
        "use_cpu",
        "fsdp_config",
        "deepspeed_config",
    ];
    let nested = [
        "fsdp_auto_wrap_policy",
        "fsdp_backward_prefetch",
        "fsdp_cpu_ram_efficient_loading",
        "fsdp_forward_prefetch",
        "fsdp_offload_params",
        "fsdp_sharding_strategy",
        "fsdp_state_dict_type",
        "fsdp_sync_module_states",
        "fsdp_use_orig_params",
        "deepspeed_config_file",
        "zero3_init_flag",
    ];
    for spec in launch_specs() {
        let yaml = scripts::accelerate_config(&spec).expect("accelerate").text;
        for line in yaml
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        {
            let key = line.trim_start().split(':').next().unwrap_or("");
            let allowed = if line.starts_with("  ") {
                &nested[..]
            } else {
                &top[..]
            };
            assert!(
                allowed.contains(&key),
                "{:?}: `{key}` is not an Accelerate config key",
                spec.engine
            );
            assert!(
                line.contains(": ") || line.ends_with(':'),
                "{:?}: `{line}` is a YAML key: value",
                spec.engine
            );
        }
        let processes: u32 = yaml
            .lines()
            .find_map(|l| l.strip_prefix("num_processes: "))
            .and_then(|v| v.parse().ok())
            .expect("num_processes");
        assert_eq!(
            processes, spec.gpus,
            "{:?}: one process per GPU",
            spec.engine
        );
        match spec.engine {
            Engine::Zero1 | Engine::Zero2 | Engine::Zero3 => {
                let json: serde_json::Value = serde_json::from_str(
                    &scripts::deepspeed_config(&spec).expect("deepspeed").text,
                )
                .expect("valid JSON");
                let stage = json["zero_optimization"]["stage"]
                    .as_u64()
                    .expect("a stage");
                let want = match spec.engine {
                    Engine::Zero1 => 1,
                    Engine::Zero2 => 2,
                    _ => 3,
                };
                assert_eq!(stage, want, "the ZeRO stage matches the engine");
                assert_eq!(
                    json["zero_optimization"]["offload_optimizer"]["device"].as_str()
                        == Some("cpu"),
                    spec.offload,
                    "offload appears exactly when asked"
                );
                assert_eq!(
                    json["train_batch_size"].as_u64(),
                    Some(u64::from(spec.batch) * u64::from(spec.gpus)),
                    "DeepSpeed checks train_batch_size = micro batch x GPUs x accumulation"
                );
                assert_eq!(json["bf16"]["enabled"], true, "bf16 mixed precision");
            }
            _ => assert!(
                scripts::deepspeed_config(&spec).is_err(),
                "no DeepSpeed config for {:?}",
                spec.engine
            ),
        }
    }
    // The launcher runs the student's command as the shell would, once per
    // GPU, from one quoted variable: never spliced into the script.
    let spec = launch_specs().remove(0);
    let text = scripts::launch_script(&spec).expect("launch").text;
    assert!(
        text.contains("--no-python bash -o pipefail -c \"$TRAIN_COMMAND\""),
        "one process per GPU runs the command through bash"
    );
    assert!(
        !text.contains("rm -rf /\n"),
        "the command only appears inside its quoted assignment"
    );
    let mut empty = spec;
    empty.command = "   ".into();
    assert!(
        scripts::launch_script(&empty).is_err(),
        "an empty command is refused"
    );
}

/// A stand-in `nvidia-smi`: one H200 with its driver, the job's two
/// processes on it using 3500 MiB together.
fn fake_nvidia_smi(dir: &Path) -> PathBuf {
    let stub = dir.join("nvidia-smi");
    common::executable(
        &stub,
        &common::nvidia_smi_script("NVIDIA H200", "570.86.15", &[3500]),
    );
    stub
}

#[test]
fn the_wrapper_writes_a_run_report_on_success_failure_and_a_killed_job() {
    // (command, exit status, progress lines, last progress, why)
    let cases = [
        (
            "echo 'Epoch 1/2 loss 0.9'; echo 'noise' >&2; sleep 1; echo 'Epoch 2/2 loss 0.5'",
            0,
            2,
            "Epoch 2",
            "training succeeded",
        ),
        ("echo 'step 10'; exit 3", 3, 1, "step 10", "training failed"),
        (
            "(echo 'step 10'; exit 3) | tee train.log",
            3,
            1,
            "step 10",
            "a failed job piped into tee failed (pipefail): not tee's clean 0",
        ),
        (
            "echo 'Epoch 1'; kill -9 $$",
            137,
            1,
            "Epoch 1",
            "the job was SIGKILLed",
        ),
    ];
    for (i, (cmd, status, lines, last, why)) in cases.into_iter().enumerate() {
        let (run, script) = Run::new(&format!("report{i}"), cmd, 60);
        let smi = fake_nvidia_smi(&run.dir);
        let report = run.dir.join("report.json");
        let out = run
            .command(&script)
            .env("GPUPLAN_NVIDIA_SMI", &smi)
            .env("GPUPLAN_RUN_REPORT", &report)
            .current_dir(&run.dir)
            .status()
            .expect("runs");
        assert_eq!(out.code(), Some(status), "{why}: the job's status is kept");
        assert!(run.wait_for_stop(Duration::from_secs(5)), "{why}: stopped");
        let text = std::fs::read_to_string(&report).expect("the report is written");
        let r: serde_json::Value = serde_json::from_str(&text).expect("the report is JSON");
        assert_eq!(r["schema"], scripts::RUN_REPORT_SCHEMA, "{why}: versioned");
        assert_eq!(r["exit_status"], status, "{why}: exit status recorded");
        assert_eq!(r["progress_lines"], lines, "{why}: progress lines counted");
        assert_eq!(r["last_progress"], last, "{why}: the last progress seen");
        if lines == 1 {
            assert_eq!(
                r["first_progress"], last,
                "{why}: one line is first and last"
            );
        } else {
            assert_eq!(
                r["first_progress"], "Epoch 1",
                "{why}: the first progress seen"
            );
        }
        assert_eq!(r["gpu_name"], "NVIDIA H200", "{why}: the GPU model");
        assert_eq!(r["driver"], "570.86.15", "{why}: the driver");
        assert_eq!(r["gpu_count"], 1, "{why}: one GPU");
        assert_eq!(
            r["gpu_peaks_mib"],
            serde_json::json!([3500]),
            "{why}: both processes' memory summed"
        );
        assert_eq!(
            r["plan"], HOSTILE,
            "{why}: the plan's name, escaped into JSON intact"
        );
        assert!(
            r["wall_seconds"]
                .as_i64()
                .is_some_and(|s| (0..30).contains(&s)),
            "{why}: wall time"
        );
        assert!(
            r["first_progress_seconds"].as_i64().is_some(),
            "{why}: time to the first progress line"
        );
        assert!(
            r["started_at"].as_str().is_some_and(|s| s.len() >= 19),
            "{why}: the billing window starts"
        );
        assert!(
            !run.dir.join("report.json.tmp").exists(),
            "{why}: no temporary file left"
        );
        // Nothing the wrapper started outlives it: the watchdog and the
        // memory sampler end within their polling intervals, and the state
        // folder goes with them.
        assert!(
            run.wait_for_wrapper_gone(&script),
            "{why}: no process or state folder of the wrapper is left behind"
        );
        assert_eq!(run.stops(), 1, "{why}: stopped exactly once");
    }
}

#[test]
fn rendered_templates_leave_no_placeholder_and_values_are_never_rendered_again() {
    // A job name, command and plan spelling other templates' placeholders
    // stay text: rendering is one pass.
    let sneaky = "@REPORT_KIT@ @STOP_COMMAND@ @SCHEMA@";
    let wrapper = scripts::shutdown_wrapper(&ShutdownSpec {
        job_name: sneaky.into(),
        plan: sneaky.into(),
        ..spec(
            StopMechanism::Shutdown,
            &format!("echo {}", scripts::shell_quote(sneaky)),
            60,
        )
    })
    .expect("wrapper");
    let notebook = scripts::notebook_report("autodl", sneaky, "")
        .expect("module")
        .text;
    for (name, text) in [("wrapper", &wrapper), ("notebook module", &notebook)] {
        let leftover = text.split('@').skip(1).step_by(2).find(|w| {
            !w.is_empty()
                && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                && !sneaky.contains(*w)
        });
        assert_eq!(leftover, None, "{name}: every placeholder is filled");
        assert_eq!(
            text.matches("--- end of the run report kit").count(),
            usize::from(name == "wrapper"),
            "{name}: the kit appears once, not again from a value"
        );
    }
    assert!(
        wrapper.contains(&scripts::shell_quote(sneaky)),
        "the job name is one quoted word, as typed"
    );
}

/// The kit's scripts run on the Linux machine a student rents, whatever
/// system generated them: LF line ends only. A plan saved by a Windows
/// editor has CRLF line ends; nothing of them may reach a script, and the
/// templates themselves must be LF in the checkout (`.gitattributes` keeps
/// them so on Windows, where Git would otherwise convert them). The app
/// writes these texts as bytes and the CLI prints them as bytes, so what is
/// tested here is what lands in the file (scripts/test-windows.sh checks
/// the Windows CLI itself under Wine).
#[test]
fn kit_scripts_are_lf_from_a_crlf_plan() {
    for t in [
        "gpuplan_report.py",
        "run-report-kit.bash",
        "shutdown-wrapper.bash",
    ] {
        let path = common::root().join("crates/gpuplan-core/templates").join(t);
        let text = std::fs::read(&path).expect("template");
        assert!(
            !text.contains(&b'\r'),
            "{t} has CR line ends in the checkout"
        );
    }
    let dir = tmp("crlf plan");
    let lf = std::fs::read_to_string(common::root().join("examples/campus-walltime.toml"))
        .expect("example plan");
    for (name, example) in [
        ("campus plan.toml", lf),
        (
            "autodl plan.toml",
            std::fs::read_to_string(common::root().join("examples/seed003-autodl-resnet50.toml"))
                .expect("example plan"),
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, example.replace("\r\n", "\n").replace('\n', "\r\n")).expect("write");
        let mut planner = gpuplan_usecases::Planner::new(
            common::bundled(),
            gpuplan_usecases::Home::Folder(dir.join("home")),
            chrono::NaiveDateTime::default,
        );
        let plan = planner.read_plan(&path).expect("a CRLF plan reads");
        let kit = planner
            .kit(&plan, "python train.py --epochs 10")
            .expect("kit");
        assert!(kit.scripts.len() >= 4, "{name}: the kit has its scripts");
        for s in &kit.scripts {
            assert!(
                !s.text.contains('\r'),
                "{name}: {} ({}) has a CR",
                s.file_name,
                s.key
            );
        }
        assert!(
            kit.checklist
                .iter()
                .any(|m| m.key == "checklist.copy-scripts"),
            "{name}: the checklist says how to copy the scripts over"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_checklist_fits_the_kind_of_platform() {
    // (platform, has certify-and-top-up, has record-the-bill, why)
    let cases = [
        (
            "autodl",
            true,
            true,
            "a container cloud bills a balance: certify, top up, record the bill",
        ),
        (
            "vast",
            false,
            true,
            "a marketplace bills a balance too, but Vast.ai records no student discount or coupon: top up only",
        ),
        (
            "kaggle",
            false,
            false,
            "a free notebook has no balance and sends no bill",
        ),
        ("colab", false, false, "the same for Colab's free tier"),
        (
            "campus-slurm",
            false,
            true,
            "a campus cluster has no top-up, but may charge the group",
        ),
    ];
    let platforms = common::platforms();
    for (id, certify, ledger, why) in cases {
        let p = platforms.get(id).expect("platform");
        let keys: Vec<String> = scripts::checklist(p, None)
            .into_iter()
            .map(|m| m.key)
            .collect();
        assert_eq!(
            keys.iter().any(|k| k == "checklist.certify"),
            certify,
            "{why}: {keys:?}"
        );
        assert_eq!(
            keys.iter().any(|k| k == "checklist.top-up-small"),
            id == "vast",
            "{why}: a balance without a student offer is topped up without certifying: {keys:?}"
        );
        assert_eq!(
            keys.iter().any(|k| k == "checklist.ledger"),
            ledger,
            "{why}: {keys:?}"
        );
    }
}

#[test]
fn the_checklist_says_what_a_stop_and_its_deadline_do_on_that_platform() {
    let platforms = common::platforms();
    let keys = |id: &str, plan: Option<&str>| -> Vec<String> {
        let p = platforms.get(id).expect("platform");
        let q = plan.map(|f| {
            let text = std::fs::read_to_string(common::root().join(f)).expect("example");
            let plan = gpuplan_core::plan::Plan::from_toml(f, &text).expect("plan");
            gpuplan_core::quote::quote(&plan, p, common::catalog(), common::zoo()).expect("quote")
        });
        scripts::checklist(p, q.as_ref())
            .into_iter()
            .map(|m| m.key)
            .collect()
    };
    // (platform, plan, key there, key not there, why)
    let cases = [
        (
            "autodl",
            None,
            "checklist.release-deadline",
            "checklist.release-deadline-keeps-disk",
            "AutoDL's 15-day release deletes the data",
        ),
        (
            "youyun",
            None,
            "checklist.release-deadline-keeps-disk",
            "checklist.release-deadline",
            "优云智算's 7-day release keeps the data disk (and it keeps billing)",
        ),
        (
            "youyun",
            Some("examples/youyun-spot.toml"),
            "checklist.spot-release",
            "checklist.release",
            "a spot instance there cannot be stopped: no stop-is-not-release advice",
        ),
        (
            "youyun",
            None,
            "checklist.release",
            "checklist.spot-release",
            "an exclusive instance there is stopped, then released",
        ),
    ];
    for (id, plan, there, not_there, why) in cases {
        let k = keys(id, plan);
        assert!(k.iter().any(|x| x == there), "{why}: {there} in {k:?}");
        assert!(
            !k.iter().any(|x| x == not_there),
            "{why}: no {not_there} in {k:?}"
        );
    }
}

#[test]
fn an_activation_without_a_name_is_refused_not_written_empty() {
    // (activation, why)
    let cases = [
        ("conda:", "conda without an environment"),
        ("module: ", "module with only a space"),
    ];
    for (a, why) in cases {
        let s = SlurmSpec {
            job_name: "resnet18".into(),
            partition: "gpu".into(),
            gpus: 1,
            cpus: 8,
            mem_gb: 32,
            hours: 2.0,
            cap_hours: None,
            output: "logs/%j.out".into(),
            activate: vec![a.into()],
            command: "python train.py".into(),
            requeue: false,
            plan: "cifar".into(),
            plan_job: String::new(),
            platform: "campus-slurm".into(),
        };
        let err = scripts::slurm(&s).err().map(|e| e.field);
        assert_eq!(err.as_deref(), Some("activate"), "{why}");
    }
}

#[test]
fn the_report_counts_the_jobs_processes_not_another_run_on_the_same_gpu() {
    // Another run (process 1 here, not the wrapper's descendant) holds 1700
    // MiB on the job's GPU; the job writes its own process id where the
    // stand-in nvidia-smi reads it, and runs past the sampler's 5 s. Only
    // the job's 1200 MiB is its peak.
    let cmd = "echo $$ > job.pid; sleep 7; echo 'Epoch 1'";
    let (run, script) = Run::new("neighbour", cmd, 60);
    let smi = run.dir.join("nvidia-smi");
    common::executable(
        &smi,
        "#!/bin/sh\ncase \"$*\" in\n  *query-compute-apps=pid,gpu_bus_id,used_memory*)\n    \
         [ -s job.pid ] && echo \"$(cat job.pid), 00000000:01:00.0, 1200\"\n    \
         echo '1, 00000000:01:00.0, 1700'; echo '1, 00000000:02:00.0, 1700' ;;\n  \
         *index,pci.bus_id*) printf '0, 00000000:01:00.0\\n1, 00000000:02:00.0\\n' ;;\n  \
         *name,driver_version*) echo 'NVIDIA H200, 570.86.15' ;;\n  \
         *query-gpu=name*) printf 'NVIDIA H200\\nNVIDIA H200\\n' ;;\nesac\n",
    );
    let report = run.dir.join("report.json");
    let out = run
        .command(&script)
        .env("GPUPLAN_NVIDIA_SMI", &smi)
        .env("GPUPLAN_RUN_REPORT", &report)
        .current_dir(&run.dir)
        .status()
        .expect("runs");
    assert_eq!(out.code(), Some(0), "the job succeeded");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("written")).expect("JSON");
    assert_eq!(
        r["gpu_peaks_mib"],
        serde_json::json!([1200]),
        "the job's own memory on the one GPU it used, not 2900 on one and 1700 on the other"
    );
}

#[test]
fn the_report_counts_the_gpus_nvidia_smi_names_and_a_slurm_job_was_given() {
    let mismatch = "#!/bin/sh\necho 'Failed to initialize NVML: Driver/library version mismatch'\n\
                    echo 'NVML library version: 535.161'\nexit 18\n";
    // Another user's job holds GPU 2 of the unfenced node.
    let four =
        common::nvidia_smi_script("NVIDIA A100-SXM4-80GB", "535.104.05", &[9000, 0, 20000, 0]);
    // (stand-in nvidia-smi, environment, GPUs counted, card named, why)
    type Env<'a> = &'a [(&'a str, &'a str)];
    let cases: [(&str, Env, u64, &str, &str); 4] = [
        (
            mismatch,
            &[],
            0,
            "",
            "an error printed on stdout is no card and no GPU to bill",
        ),
        (
            &four,
            &[],
            4,
            "NVIDIA A100-SXM4-80GB",
            "a rented machine is billed every GPU",
        ),
        (
            &four,
            &[("SLURM_JOB_ID", "77"), ("SLURM_GPUS_ON_NODE", "1")],
            1,
            "NVIDIA A100-SXM4-80GB",
            "a Slurm job given one GPU of an unfenced four-GPU node is billed one",
        ),
        (
            &four,
            &[("SLURM_JOB_ID", "78"), ("SLURM_JOB_GPUS", "0,2")],
            2,
            "NVIDIA A100-SXM4-80GB",
            "the GPUs Slurm listed for the job",
        ),
    ];
    for (i, (smi_text, env, count, name, why)) in cases.into_iter().enumerate() {
        let (run, script) = Run::new(&format!("gpucount{i}"), "echo 'Epoch 1'", 60);
        let smi = run.dir.join("nvidia-smi");
        common::executable(&smi, smi_text);
        let report = run.dir.join("report.json");
        let mut cmd = run.command(&script);
        cmd.env("GPUPLAN_NVIDIA_SMI", &smi)
            .env("GPUPLAN_RUN_REPORT", &report)
            .current_dir(&run.dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        assert_eq!(cmd.status().expect("runs").code(), Some(0), "{why}: ran");
        let text = std::fs::read_to_string(&report).expect("written");
        let r: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(r["gpu_count"], count, "{why}");
        assert_eq!(r["gpu_name"], name, "{why}");
        gpuplan_core::report::RunReport::from_json("r.json", &text)
            .unwrap_or_else(|e| panic!("{why}: the ledger takes what the kit wrote: {e:?}"));
    }
}

#[test]
fn the_job_sees_its_own_environment_not_the_wrappers_variables() {
    // A resume script reading START_EPOCH, a job naming its run RUN_ID:
    // the wrapper's own variables of those names must not reach it.
    let cmd =
        "echo \"$JOB_NAME $RUN_ID $START_EPOCH ${STATE_DIR:-none}\" > seen.txt; echo 'Epoch 1'";
    let (run, script) = Run::new("ownenv", cmd, 60);
    let smi = fake_nvidia_smi(&run.dir);
    let out = run
        .command(&script)
        .env("GPUPLAN_NVIDIA_SMI", &smi)
        .env("GPUPLAN_RUN_REPORT", run.dir.join("r.json"))
        .env("JOB_NAME", "myexp")
        .env("RUN_ID", "abc")
        .env("START_EPOCH", "26")
        .current_dir(&run.dir)
        .status()
        .expect("runs");
    assert_eq!(out.code(), Some(0), "the job ran");
    let seen = std::fs::read_to_string(run.dir.join("seen.txt")).expect("the job wrote");
    assert_eq!(
        seen.trim(),
        "myexp abc 26 none",
        "the job's exported variables as they were, the wrapper's unexported ones unseen"
    );
}

#[test]
fn at_the_deadline_the_job_saves_its_checkpoint_before_the_instance_stops() {
    // The job's TERM handler takes 2 s to save, and its output goes
    // through a pipeline (`| cat`): the signal reaches the job inside it,
    // the save finishes before the stop, and the report says the run was
    // stopped (143), though the job exited 0 after saving.
    let job = "bash -c 'trap \"sleep 2; echo saved > ckpt; exit 0\" TERM; \
               echo Epoch 1; while :; do sleep 0.2; done' | cat";
    let (run, script) = Run::new("grace", job, 2);
    let report = run.dir.join("report.json");
    let status = run
        .command(&script)
        .env("GPUPLAN_RUN_REPORT", &report)
        .env("GPUPLAN_NVIDIA_SMI", fake_nvidia_smi(&run.dir))
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(143), "stopped at its deadline");
    assert!(
        run.wait_for_stop(Duration::from_secs(10)),
        "the instance stops"
    );
    let ckpt = std::fs::metadata(run.dir.join("ckpt")).expect("the checkpoint was saved");
    let stopped = std::fs::metadata(&run.log).expect("the stop log");
    assert!(
        ckpt.modified().expect("time") <= stopped.modified().expect("time"),
        "saved before the stop"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    assert_eq!(r["exit_status"], 143, "a stopped run is not a clean 0");
    assert!(run.wait_for_wrapper_gone(&script), "nothing left running");
}

#[test]
fn two_wrappers_on_one_instance_stop_it_once_the_last_has_ended() {
    let dir = tmp("two-wrappers");
    let log = stand_in(&dir, "shutdown", "stops.log");
    let write = |name: &str, cmd: &str| {
        let script = dir.join(name);
        std::fs::write(
            &script,
            scripts::shutdown_wrapper(&spec(StopMechanism::Shutdown, cmd, 60)).expect("wrapper"),
        )
        .expect("write");
        script
    };
    // The short job ends only once the long one runs (its wrapper
    // registered before it), whatever the machine's load.
    let short = write(
        "short.sh",
        "while [ ! -e long-started ]; do sleep 0.1; done; sleep 1",
    );
    let long = write("long.sh", "touch long-started; sleep 4; touch long-done");
    let start = |script: &Path| {
        Command::new("bash")
            .arg(script)
            .current_dir(&dir)
            .env("GPUPLAN_SHUTDOWN_BIN", dir.join("shutdown"))
            .env("TMPDIR", &dir)
            .env(
                "GPUPLAN_RUN_REPORT",
                dir.join(format!("{}.json", script.display())),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts")
    };
    let mut b = start(&long);
    let mut a = start(&short);
    a.wait().expect("ends");
    std::thread::sleep(Duration::from_millis(500));
    let stops = || {
        std::fs::read_to_string(&log)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    assert_eq!(
        stops(),
        0,
        "the first to end leaves the other's instance on"
    );
    b.wait().expect("ends");
    assert!(
        dir.join("long-done").exists(),
        "the second job ran to its end"
    );
    assert!(
        common::wait_until(Duration::from_secs(5), || stops() == 1),
        "the last to end stops the instance, once"
    );
}

#[test]
fn a_tmpdir_where_no_folder_can_be_made_falls_back_and_writes_nothing_at_the_root() {
    let (run, script) = Run::new("no-state", "touch job-ran", 60);
    // TMPDIR names a file, so no folder can be made in it.
    let not_a_folder = run.dir.join("not-a-folder");
    std::fs::write(&not_a_folder, "").expect("write");
    let out = run
        .command(&script)
        .env("TMPDIR", &not_a_folder)
        .env("HOME", &not_a_folder)
        // /tmp and /dev/shm stay: only when every folder fails is it refused;
        // here the fallback to /tmp is taken and the run goes on.
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "/tmp is the fallback");
    assert!(run.dir.join("job-ran").exists(), "the job ran");
    assert!(
        run.wait_for_stop(Duration::from_secs(5)),
        "and the instance stops"
    );
    for stray in ["/peaks", "/wrapper-done", "/stopped"] {
        assert!(
            !Path::new(stray).exists(),
            "nothing written at the root: {stray}"
        );
    }
}

#[test]
fn a_progress_line_cut_inside_a_character_leaves_the_report_utf8() {
    // 39 ASCII bytes, then a three-byte character: the 40-byte cut falls
    // inside it (the C locale counts bytes).
    let line = format!("Epoch 1 {}轮训练", "x".repeat(31));
    let (run, script) = Run::new("utf8", &format!("echo '{line}'"), 60);
    let report = run.dir.join("report.json");
    let status = run
        .command(&script)
        .env("LC_ALL", "C")
        .env("GPUPLAN_STEP_PATTERN", "Epoch [0-9]+.*")
        .env("GPUPLAN_RUN_REPORT", &report)
        .env("GPUPLAN_NVIDIA_SMI", fake_nvidia_smi(&run.dir))
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(0));
    let bytes = std::fs::read(&report).expect("report");
    let text = String::from_utf8(bytes).expect("the report is UTF-8 the ledger reads");
    let r: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert!(
        r["last_progress"]
            .as_str()
            .is_some_and(|l| l.starts_with("Epoch 1 x")),
        "the line, cut at a character: {}",
        r["last_progress"]
    );
}

#[test]
fn a_stop_that_fails_says_loudly_the_instance_still_bills_and_vast_is_checked_first() {
    // A shutdown that fails (no permission in a container): the log says
    // the instance is still running, in both languages.
    let (run, script) = Run::new("stop-fails", "true", 60);
    common::executable(&run.dir.join("shutdown"), "#!/bin/sh\nexit 1\n");
    let log = run.dir.join("run.log");
    let file = std::fs::File::create(&log).expect("log");
    let status = run
        .command(&script)
        .stdout(file.try_clone().expect("log"))
        .stderr(file)
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(0), "the job's status stays");
    assert!(run.wait_for_wrapper_gone(&script), "the wrapper ends");
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(
        text.contains("THE INSTANCE IS STILL RUNNING AND BILLING")
            && text.contains("实例仍在运行并计费"),
        "said loudly: {text}"
    );
    // Vast.ai: without CONTAINER_ID (or the vastai CLI) the wrapper could
    // not stop the instance: refused before the job.
    let dir = tmp("vast-needs");
    let marker = dir.join("trained");
    let script = dir.join("run.sh");
    std::fs::write(
        &script,
        scripts::shutdown_wrapper(&spec(
            StopMechanism::VastCli,
            &format!("touch {}", marker.display()),
            60,
        ))
        .expect("wrapper"),
    )
    .expect("write");
    let out = Command::new("bash")
        .arg(&script)
        .env_remove("CONTAINER_ID")
        .env("TMPDIR", &dir)
        .current_dir(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "refused before the job");
    assert!(!marker.exists(), "the training command did not run");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("CONTAINER_ID"),
        "it says what is missing"
    );
}

#[test]
fn the_requeue_variant_does_not_requeue_a_job_the_warning_killed() {
    // (job, requeued, why): the walltime warning (USR1) comes once it runs.
    type Case = (&'static str, bool, &'static str);
    let cases: [Case; 2] = [
        (
            "touch started; sleep 5",
            false,
            "no handler: killed by USR1 (138), it saved nothing and would start over",
        ),
        (
            "trap 'echo saved > ckpt; exit 0' USR1; touch started; sleep 5 & wait",
            true,
            "a handler saved and exited: requeued to resume",
        ),
    ];
    for (job, requeued, why) in cases {
        let dir = tmp("requeue-138");
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).expect("bin");
        common::executable(&bin.join("srun"), "#!/bin/sh\nshift 2\nexec \"$@\"\n");
        let scontrol_log = dir.join("scontrol.log");
        common::executable(
            &bin.join("scontrol"),
            &format!("#!/bin/sh\necho \"$*\" >> '{}'\n", scontrol_log.display()),
        );
        let script = scripts::slurm(&crate::slurm::spec("rq", job, true)).expect("script");
        let path = dir.join("rq.sbatch");
        std::fs::write(&path, &script.text).expect("write");
        let mut child = Command::new("bash")
            .arg(&path)
            .current_dir(&dir)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    bin.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("SLURM_JOB_ID", "42")
            .env("TMPDIR", &dir)
            .env("GPUPLAN_NVIDIA_SMI", fake_nvidia_smi(&dir))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        // The warning once the job has started (and set its handler): a
        // machine under load starts it later than any fixed wait.
        assert!(
            common::wait_until(Duration::from_secs(20), || dir.join("started").exists()),
            "{why}: the job started"
        );
        let _ = Command::new("kill")
            .args(["-USR1", &child.id().to_string()])
            .status();
        child.wait().expect("ends");
        let log = std::fs::read_to_string(&scontrol_log).unwrap_or_default();
        assert_eq!(log.contains("requeue 42"), requeued, "{why}: {log}");
    }
}

#[test]
fn offline_install_asks_for_current_wheels_and_fetches_a_source_only_package_as_source() {
    let dir = tmp("offline");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let log = dir.join("pip.log");
    // A pip that has no wheel of `jieba` (source only on PyPI) and records
    // every call.
    common::executable(
        &bin.join("pip"),
        &format!(
            "#!/bin/sh\necho \"pip $*\" >> '{}'\ncase \"$*\" in *only-binary*jieba*) exit 1 ;; *only-binary*-r*) exit 1 ;; esac\nmkdir -p packages\nexit 0\n",
            log.display()
        ),
    );
    std::fs::write(
        dir.join("requirements.txt"),
        "torch==2.8.0\njieba  # segmenter\n\n--extra-index-url https://x\n",
    )
    .expect("write");
    let script = dir.join("offline.sh");
    std::fs::write(
        &script,
        scripts::offline_install("3.10").expect("offline").text,
    )
    .expect("write");
    let status = Command::new("bash")
        .arg(&script)
        .arg("download")
        .current_dir(&dir)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .stdout(Stdio::null())
        .status()
        .expect("runs");
    assert!(status.success(), "the bundle is made");
    let calls = std::fs::read_to_string(&log).expect("pip ran");
    type Case = (&'static str, &'static str);
    let cases: [Case; 4] = [
        (
            "--platform manylinux_2_28_x86_64",
            "current wheels (torch 2.8 has only manylinux_2_28 ones)",
        ),
        ("--platform manylinux2014_x86_64", "and the older tag"),
        (
            "--no-binary=:all: --no-deps jieba",
            "a source-only package is fetched as source",
        ),
        (
            "setuptools wheel",
            "with what building it on the instance needs",
        ),
    ];
    for (said, why) in cases {
        assert!(calls.contains(said), "{why}: {calls}");
    }
    assert!(
        !calls.contains("https://x --"),
        "an option line is not a package: {calls}"
    );
}

#[test]
fn a_wrapper_id_left_behind_and_taken_by_another_program_does_not_keep_the_instance_on() {
    let (run, script) = Run::new("stale-id", "true", 60);
    // A live process that is no wrapper, under an id a wrapper once had
    // (its start time recorded as something else).
    let mut other = Command::new("sleep").arg("30").spawn().expect("sleep");
    let registry = run.dir.join("gpuplan-wrappers");
    std::fs::create_dir_all(&registry).expect("registry");
    std::fs::write(registry.join(other.id().to_string()), "1").expect("entry");
    let status = run.command(&script).status().expect("runs");
    assert_eq!(status.code(), Some(0));
    let stopped = run.wait_for_stop(Duration::from_secs(5));
    let _ = other.kill();
    let _ = other.wait();
    assert!(
        stopped,
        "the instance stops: the id is another program's now"
    );
}

#[test]
fn a_term_to_the_wrappers_whole_group_or_a_job_that_ignores_it_still_stops_the_instance() {
    // (job, why): the TERM goes to the wrapper's whole process group (a
    // shell's `kill %1`): the watchdog in it must live on to stop, and a
    // job that ignores TERM is killed after the grace. The test signals
    // only the group it started, by its id.
    type Case = (&'static str, &'static str);
    let cases: [Case; 2] = [
        ("touch started; sleep 30", "a plain job"),
        (
            "trap '' TERM; touch started; while :; do sleep 0.2; done",
            "a job that ignores TERM",
        ),
    ];
    for (job, why) in cases {
        let (run, script) = Run::new("group-term", job, 600);
        let mut child = run
            .command(&script)
            .env("GPUPLAN_STOP_GRACE_SECONDS", "2")
            .process_group(0)
            .spawn()
            .expect("starts");
        assert!(
            common::wait_until(Duration::from_secs(20), || run.dir.join("started").exists()),
            "{why}: the job started"
        );
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", child.id())])
            .status();
        let status = child.wait().expect("ends");
        assert_eq!(
            status.code(),
            Some(143),
            "{why}: the report and status say stopped"
        );
        assert!(
            run.wait_for_stop(Duration::from_secs(10)),
            "{why}: the instance is stopped"
        );
        assert!(
            run.wait_for_wrapper_gone(&script),
            "{why}: nothing left running"
        );
    }
}

#[test]
fn a_signal_while_the_report_is_written_does_not_skip_the_stop() {
    // nvidia-smi takes 2 s an answer once the job is done, so the report is
    // still being written when a TERM comes (a second Ctrl-C, an impatient
    // kill).
    let (run, script) = Run::new("late-term", "touch job-done", 60);
    let real = run.dir.join("real");
    std::fs::create_dir_all(&real).expect("dir");
    let smi = run.dir.join("slow-nvidia-smi");
    common::executable(
        &smi,
        &format!(
            "#!/bin/sh\n[ -e '{}' ] && sleep 2\nexec '{}' \"$@\"\n",
            run.dir.join("job-done").display(),
            fake_nvidia_smi(&real).display()
        ),
    );
    let mut child = run
        .command(&script)
        .env("GPUPLAN_NVIDIA_SMI", &smi)
        .spawn()
        .expect("starts");
    assert!(
        common::wait_until(Duration::from_secs(20), || run
            .dir
            .join("job-done")
            .exists()),
        "the job ran"
    );
    std::thread::sleep(Duration::from_millis(500));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    assert!(
        run.wait_for_stop(Duration::from_secs(15)),
        "the instance is stopped all the same"
    );
}
