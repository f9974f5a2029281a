//! The before-you-rent kit: scripts generated for the chosen platform and plan.
//!
//! The seeds' costliest mistakes are operational: an instance left running
//! after training ended, a crash that skipped the shutdown line, a run that
//! could not resume after preemption, an environment that broke halfway, pip
//! timing out. Each generator here returns the text of a script; nothing is
//! written or run by the core. Every user string (job names, paths, commands)
//! enters a script through [`shell_quote`], so no input can inject shell code.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::error::InputError;
use crate::message::Message;
use crate::platform::{PlatformKind, PlatformProfile};
use crate::quote::{Quote, Warning};

/// Quotes `s` for POSIX shells: one single-quoted word, with embedded single
/// quotes closed, escaped and reopened. Safe for any byte except NUL, which
/// [`check_text`] rejects.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Rejects text no script can carry (NUL, other control characters except
/// tab) and overlong values, naming the field.
pub fn check_text(field: &str, s: &str, max: usize) -> Result<(), InputError> {
    if s.chars().count() > max {
        return Err(InputError::new(
            field,
            format!("longer than {max} characters"),
            format!("at most {max} characters"),
        ));
    }
    if s.chars().any(|c| c.is_control() && c != '\t') {
        return Err(InputError::new(
            field,
            "contains a control character (newline, NUL, ...)",
            "printable text on one line",
        ));
    }
    Ok(())
}

/// How a platform's instance is stopped from inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopMechanism {
    /// AutoDL: `/usr/bin/shutdown` stops the instance (GPU billing ends).
    Shutdown,
    /// A stop call to the platform's HTTP API; URL, instance id and token come
    /// from environment variables, never from the script.
    HttpApi,
    /// Vast.ai CLI: `vastai stop instance` (disk keeps billing) or `destroy`.
    VastCli,
}

impl StopMechanism {
    /// The mechanism a platform uses.
    pub fn for_platform(p: &PlatformProfile) -> Option<Self> {
        match (p.id.as_str(), p.kind) {
            ("autodl", _) => Some(Self::Shutdown),
            ("vast", _) | (_, PlatformKind::Marketplace) => Some(Self::VastCli),
            (_, PlatformKind::ContainerCloud) => Some(Self::HttpApi),
            _ => None,
        }
    }
}

/// Inputs of the auto-shutdown wrapper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShutdownSpec {
    /// Platform id (for the header and the console checklist).
    pub platform: String,
    /// Stop mechanism.
    pub mechanism: StopMechanism,
    /// Job name (text only).
    pub job_name: String,
    /// The training command, as the student types it (run by `bash -c`).
    pub command: String,
    /// Hard maximum runtime, seconds (the plan's estimate with margin).
    pub max_runtime_seconds: u64,
    /// Vast.ai: destroy instead of stop (deletes the disk).
    pub destroy: bool,
    /// Seconds between watchdog checks.
    pub poll_seconds: u32,
    /// The plan the run belongs to (its name), written into the run report
    /// so the report can be matched to the plan in the ledger.
    #[serde(default)]
    pub plan: String,
}

/// The run report's schema tag; `gpuplan ledger import` reads this version.
pub const RUN_REPORT_SCHEMA: &str = "gpuplan-run-report/1";
/// Seconds between GPU-memory samples of the run report: often enough to
/// catch a peak that lasts a few steps, rare enough to cost nothing.
pub const REPORT_SAMPLE_SECONDS: u32 = 5;

/// Hours of margin on top of an estimate: 50% plus 30 minutes, so a slower
/// node or a few restarts do not trip the hard stop.
pub fn with_margin(hours: f64) -> u64 {
    let h = if hours.is_finite() && hours > 0.0 {
        hours
    } else {
        1.0
    };
    ((h * 1.5 + 0.5) * 3600.0).ceil() as u64
}

/// The run report's bash machinery, shared by the shutdown wrapper and the
/// Slurm scripts: the memory sampler (nvidia-smi every few seconds), the
/// output watcher that counts progress lines, the CPU counters and
/// `write_report STATUS`, which writes the report atomically. The script
/// defines `JOB_NAME` and `PLAN_NAME` before it, runs the job with its output
/// through `watch_lines`, and calls `write_report` once on exit (touching
/// `$STATE_DIR/wrapper-done` first to end the sampler).
fn run_report_kit(platform: &str) -> String {
    RUN_REPORT_KIT
        .replace("@SAMPLE@", &REPORT_SAMPLE_SECONDS.to_string())
        .replace("@SCHEMA@", RUN_REPORT_SCHEMA)
        .replace("@PLATFORM@", &json_quote(platform))
}

/// A string as a JSON literal in a bash `printf` format: quoted, with
/// backslashes, quotes and `%` escaped (`%` doubled for printf).
fn json_quote(s: &str) -> String {
    let j = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    j.replace('%', "%%").replace('\'', "")
}

const RUN_REPORT_KIT: &str = r#"SAMPLE_SECONDS=@SAMPLE@
NVIDIA_SMI="${GPUPLAN_NVIDIA_SMI:-nvidia-smi}"
DEFAULT_STEP_PATTERN='([Ee]poch|[Ss]tep)[^0-9A-Za-z]{0,3}[0-9]+'
STEP_PATTERN="${GPUPLAN_STEP_PATTERN:-$DEFAULT_STEP_PATTERN}"
RUN_REPORT="${GPUPLAN_RUN_REPORT:-gpuplan-run-${SLURM_JOB_ID:+$SLURM_JOB_ID-}$(date +%Y%m%d-%H%M%S).json}"
STATE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/gpuplan-run.XXXXXX")"
START_EPOCH=$(date +%s)
START_ISO=$(date '+%Y-%m-%dT%H:%M:%S%z')
# A job that opts in (one line: `import gpuplan_report;
# gpuplan_report.report_torch_peak()`) leaves PyTorch's peak reserved memory
# here; it counts where nvidia-smi cannot see the job's processes (many
# containers hide them).
export GPUPLAN_TORCH_PEAK_FILE="$STATE_DIR/torch_peak_mib"

log() { printf '%s [gpuplan] %s\n' "$(date '+%F %T')" "$*"; }

# JSON string: backslashes and quotes escaped, control characters dropped.
json_str() { printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

cpu_ticks() {
  # busy and total jiffies of the whole machine, from /proc/stat
  if read -r _ u n sy idle io irq sirq st _ < /proc/stat 2>/dev/null; then
    echo "$((u + n + sy + irq + sirq + st)) $((u + n + sy + idle + io + irq + sirq + st))"
  fi
}
CPU_START=$(cpu_ticks)

# Peak GPU memory of the compute processes, polled until the run ends.
(
  # Until the run ends, or the wrapper is gone (its state folder with it).
  while kill -0 $$ 2>/dev/null && [ -d "$STATE_DIR" ] && [ ! -e "$STATE_DIR/wrapper-done" ]; do
    used=$("$NVIDIA_SMI" --query-compute-apps=used_memory --format=csv,noheader,nounits 2>/dev/null |
      awk '{ s += $1 } END { printf "%d", s }')
    peak=$(cat "$STATE_DIR/peak_mib" 2>/dev/null || echo 0)
    if [ -n "$used" ] && [ "$used" -gt "$peak" ]; then echo "$used" > "$STATE_DIR/peak_mib"; fi
    sleep "$SAMPLE_SECONDS"
  done
) </dev/null >/dev/null 2>&1 &

# Passes the job's output through unchanged and notes its progress lines.
watch_lines() {
  while IFS= read -r line || [ -n "$line" ]; do
    printf '%s\n' "$line"
    if [[ $line =~ $STEP_PATTERN ]]; then
      [ -e "$STATE_DIR/first_progress" ] || date +%s > "$STATE_DIR/first_progress"
      printf '%s\n' "${BASH_REMATCH[0]:0:40}" >> "$STATE_DIR/progress"
    fi
  done
}

write_report() {
  status=$1
  end=$(date +%s)
  gpu=$("$NVIDIA_SMI" --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
  gpus=$("$NVIDIA_SMI" --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
  peak=$(cat "$STATE_DIR/peak_mib" 2>/dev/null || echo null)
  torch_peak=$(tr -dc '0-9' < "$STATE_DIR/torch_peak_mib" 2>/dev/null | head -c 9)
  if [ -n "$torch_peak" ] && { [ "$peak" = null ] || [ "$torch_peak" -gt "$peak" ]; }; then
    peak=$torch_peak
  fi
  first=null
  [ -e "$STATE_DIR/first_progress" ] && first=$(( $(cat "$STATE_DIR/first_progress") - START_EPOCH ))
  lines=0
  last=""
  if [ -e "$STATE_DIR/progress" ]; then
    lines=$(wc -l < "$STATE_DIR/progress")
    last=$(tail -n 1 "$STATE_DIR/progress")
  fi
  cpu=null
  cpu_end=$(cpu_ticks)
  if [ -n "$CPU_START" ] && [ -n "$cpu_end" ]; then
    # shellcheck disable=SC2086 # four numbers, split on purpose
    set -- $CPU_START $cpu_end
    [ "$(( $4 - $2 ))" -gt 0 ] && cpu=$(( 100 * ($3 - $1) / ($4 - $2) ))
  fi
  tmp="$RUN_REPORT.tmp.$$"
  {
    printf '{\n  "schema": "@SCHEMA@",\n'
    printf '  "plan": %s,\n  "job": %s,\n  "platform": @PLATFORM@,\n' "$(json_str "$PLAN_NAME")" "$(json_str "$JOB_NAME")"
    printf '  "gpu_name": %s,\n  "driver": %s,\n  "gpu_count": %d,\n' "$(json_str "${gpu%%,*}")" "$(json_str "$(printf '%s' "${gpu#*,}" | tr -d ' ')")" "$gpus"
    printf '  "peak_memory_mib": %s,\n' "$peak"
    printf '  "started_at": "%s",\n  "ended_at": "%s",\n' "$START_ISO" "$(date '+%Y-%m-%dT%H:%M:%S%z')"
    printf '  "wall_seconds": %d,\n  "first_progress_seconds": %s,\n' "$(( end - START_EPOCH ))" "$first"
    printf '  "progress_lines": %d,\n  "last_progress": %s,\n' "$lines" "$(json_str "$last")"
    printf '  "cpu_percent": %s,\n  "exit_status": %d\n}\n' "$cpu" "$status"
  } > "$tmp" && mv -f "$tmp" "$RUN_REPORT" && log "run report written to $RUN_REPORT"
}
"#;

/// The auto-shutdown wrapper (bash). It runs the command, then stops the
/// instance whether training succeeded or failed (trap on EXIT); a detached
/// watchdog stops it if the wrapper itself dies (its shell killed) and enforces
/// the maximum runtime.
pub fn shutdown_wrapper(s: &ShutdownSpec) -> Result<String, InputError> {
    check_text("job_name", &s.job_name, 120)?;
    check_text("command", &s.command, 4000)?;
    check_text("plan", &s.plan, 200)?;
    if s.command.trim().is_empty() {
        return Err(InputError::new(
            "command",
            "is empty",
            "the training command, e.g. python train.py",
        ));
    }
    if s.max_runtime_seconds == 0 || s.max_runtime_seconds > 60 * 60 * 24 * 60 {
        return Err(InputError::new(
            "max_runtime",
            format!("{} s is out of range", s.max_runtime_seconds),
            "1 s to 60 days",
        ));
    }
    let poll = s.poll_seconds.clamp(1, 600);
    let stop = match s.mechanism {
        StopMechanism::Shutdown => r#"  "$SHUTDOWN_BIN" -h now || "$SHUTDOWN_BIN""#.to_owned(),
        StopMechanism::HttpApi => [
            r#"  : "${GPUPLAN_STOP_URL:?set GPUPLAN_STOP_URL to the stop endpoint shown in the platform console}""#,
            r#"  : "${GPUPLAN_API_TOKEN:?set GPUPLAN_API_TOKEN in the environment, never in this file}""#,
            r#"  "$CURL_BIN" -fsS -X POST "$GPUPLAN_STOP_URL" -H "Authorization: Bearer $GPUPLAN_API_TOKEN" -H "X-Instance-Id: ${GPUPLAN_INSTANCE_ID:-}""#,
        ]
        .join("\n"),
        StopMechanism::VastCli => {
            let verb = if s.destroy { "destroy" } else { "stop" };
            format!(r#"  : "${{CONTAINER_ID:?CONTAINER_ID is set inside Vast.ai instances}}"
  "$VASTAI_BIN" {verb} instance "$CONTAINER_ID""#)
        }
    };
    let warning = match (s.mechanism, s.destroy) {
        (StopMechanism::VastCli, false) => "# Note: `stop` ends GPU billing but the disk keeps billing until you destroy the instance.\n",
        (StopMechanism::VastCli, true) => "# Note: `destroy` deletes the instance and its disk: copy results out first.\n",
        _ => "",
    };
    let mut o = String::new();
    let _ = write!(
        o,
        r#"#!/usr/bin/env bash
# gpuplan 自动关机脚本（{platform}）：运行训练命令，无论成功还是出错都会关机
# （trap EXIT）；脚本被杀掉（例如终端关了）时，后台看门狗也会关机，并限制最长运行
# 时间。用 nohup bash 本脚本 > run.log 2>&1 & 在后台启动。另请在平台控制台同时
# 打开定时关机、余额预警和欠费停机，作为第二道保险。
#
# gpuplan auto-shutdown wrapper for {platform}.
# Runs the training command, then stops the instance whether training succeeded
# or failed (trap on EXIT). A detached watchdog stops the instance if this
# wrapper is killed (for example its terminal closed) and enforces a hard
# maximum runtime. Start it detached, e.g.:  nohup bash this.sh > run.log 2>&1 &
# Also turn on in the platform console, as a second line of defence: timed
# shutdown (定时关机), a balance alert (余额预警) and stop on arrears (欠费停机).
#
# Run report / 运行报告: when the run ends (success, failure or a killed
# job) the wrapper writes a small JSON file next to the job, atomically:
# the GPU and driver, peak GPU memory of the job's processes (nvidia-smi
# polled every {sample} s), wall time, time to the first progress line,
# progress lines seen (lines matching GPUPLAN_STEP_PATTERN, by default
# "Epoch N" or "Step N"), CPU use, exit status and the billing window.
# Nothing leaves the machine. Import it with: gpuplan ledger import FILE
{warning}set -u

JOB_NAME={job}
PLAN_NAME={plan}
TRAIN_COMMAND={command}
MAX_RUNTIME_SECONDS={max}
POLL_SECONDS={poll}
{bin}
{report}
stop_instance() {{
  # Exactly once, whoever gets here first (the trap or the watchdog).
  mkdir "$STATE_DIR/stopped" 2>/dev/null || return 0
  log "stopping the instance ($1)"
{stop}
}}

on_exit() {{
  status=$?
  touch "$STATE_DIR/wrapper-done"
  log "training finished with status $status"
  write_report "$status" || log "the run report could not be written"
  stop_instance "wrapper exit, status $status"
}}
trap on_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

WRAPPER_PID=$$
(
  trap '' HUP INT
  deadline=$(( $(date +%s) + MAX_RUNTIME_SECONDS ))
  while kill -0 "$WRAPPER_PID" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "maximum runtime of $MAX_RUNTIME_SECONDS s reached: stopping training"
      pkill -TERM -P "$WRAPPER_PID" 2>/dev/null
      kill -TERM "$WRAPPER_PID" 2>/dev/null
      sleep "$POLL_SECONDS"
      stop_instance "maximum runtime reached"
      # Its report is written by its own exit trap: wait for it to end.
      while kill -0 "$WRAPPER_PID" 2>/dev/null; do sleep 1; done
      rm -rf "$STATE_DIR"
      exit 0
    fi
    sleep "$POLL_SECONDS"
  done
  # The wrapper is gone. If its trap did not run (it was killed), stop now.
  [ -e "$STATE_DIR/wrapper-done" ] || stop_instance "wrapper killed"
  # The watchdog is the last of the wrapper's processes: it leaves nothing.
  rm -rf "$STATE_DIR"
) </dev/null >/dev/null 2>&1 &
disown 2>/dev/null || true

log "starting $JOB_NAME (hard stop after $MAX_RUNTIME_SECONDS s)"
# The job's stdout and stderr stay separate; both pass through watch_lines.
bash -c "$TRAIN_COMMAND" > >(watch_lines) 2> >(watch_lines >&2) &
train_pid=$!
wait "$train_pid"
status=$?
# Let the output watchers finish their last lines before the report.
sleep 0.2
exit "$status"
"#,
        platform = s.platform,
        warning = warning,
        job = shell_quote(&s.job_name),
        plan = shell_quote(&s.plan),
        sample = REPORT_SAMPLE_SECONDS,
        report = run_report_kit(&s.platform),
        command = shell_quote(&s.command),
        max = s.max_runtime_seconds,
        poll = poll,
        stop = stop,
        bin = match s.mechanism {
            // Overridable so the wrapper can be tested with stand-ins.
            StopMechanism::Shutdown =>
                r#"SHUTDOWN_BIN="${GPUPLAN_SHUTDOWN_BIN:-/usr/bin/shutdown}""#,
            StopMechanism::HttpApi => r#"CURL_BIN="${GPUPLAN_CURL_BIN:-curl}""#,
            StopMechanism::VastCli => r#"VASTAI_BIN="${GPUPLAN_VASTAI_BIN:-vastai}""#,
        },
    );
    Ok(o)
}

/// The run report for notebooks (Colab, Kaggle, Jupyter), where no wrapper
/// runs the job: a small Python module the student imports in the first
/// cell. It writes the same report as the shutdown wrapper
/// ([`RUN_REPORT_SCHEMA`]), with PyTorch's peak reserved memory when PyTorch
/// sees a GPU, else `nvidia-smi`'s.
pub fn notebook_report(platform: &str, plan: &str) -> Result<Script, InputError> {
    check_text("plan", plan, 200)?;
    check_text("platform", platform, 100)?;
    let quote_py = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let text = format!(
        r#""""gpuplan 运行报告（笔记本用）/ gpuplan run report for notebooks.

在第一个单元格里 / in the first cell:
    from gpuplan_report import RunReport
    report = RunReport().start()
每轮结束时 / after each epoch:    report.progress(f"Epoch {{epoch}}")
训练结束后 / when training ends:  report.finish()        # or report.finish(exit_status=1)
It writes gpuplan-run-YYYYMMDD-HHMMSS.json next to the notebook; import it
with `gpuplan ledger import FILE`. Nothing leaves the machine.

A script run by the shutdown wrapper or a Slurm script needs none of this;
one line at its start hands PyTorch's peak memory to their report (where
nvidia-smi cannot see the job's processes):
    import gpuplan_report; gpuplan_report.report_torch_peak()
"""
import json
import os
import re
import subprocess
import time
from datetime import datetime

SCHEMA = "{schema}"
PLAN = {plan}
PLATFORM = {platform}


def _now():
    return datetime.now().astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")


def _clean(s):
    return re.sub(r"[\x00-\x1f\x7f]", "", str(s))[:200]


def _smi(*args):
    try:
        out = subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        return []


def _cpu_ticks():
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
        return busy, busy + v[3] + v[4]
    except (OSError, ValueError, IndexError):
        return None


def _torch_peak_mib():
    try:
        import torch

        if torch.cuda.is_available():
            return int(torch.cuda.max_memory_reserved() // (1024 * 1024))
    except Exception:
        pass
    return None


def report_torch_peak():
    """Under the wrapper or a Slurm script: at exit, write PyTorch's peak
    reserved memory where their report reads it. Does nothing elsewhere."""
    import atexit

    path = os.environ.get("GPUPLAN_TORCH_PEAK_FILE")
    if not path:
        return

    def _write():
        peak = _torch_peak_mib()
        if peak is not None:
            try:
                with open(path, "w") as f:
                    f.write(str(peak))
            except OSError:
                pass

    atexit.register(_write)


class RunReport:
    def __init__(self, job="notebook", path=None):
        self.job = job
        self.path = path or time.strftime("gpuplan-run-%Y%m%d-%H%M%S.json")
        self.lines = 0
        self.last = ""
        self.first = None

    def start(self):
        self.t0 = time.time()
        self.started = _now()
        self.cpu0 = _cpu_ticks()
        return self

    def progress(self, text):
        if self.first is None:
            self.first = int(time.time() - self.t0)
        self.lines += 1
        self.last = _clean(text)[:40]

    def finish(self, exit_status=0):
        peak = _torch_peak_mib()
        if peak is None:
            used = [int(x) for x in _smi("--query-compute-apps=used_memory", "--format=csv,noheader,nounits") if x.strip().isdigit()]
            peak = sum(used) if used else None
        gpus = _smi("--query-gpu=name,driver_version", "--format=csv,noheader")
        name, _, driver = (gpus[0] if gpus else ",").partition(",")
        cpu = None
        c1 = _cpu_ticks()
        if self.cpu0 and c1 and c1[1] > self.cpu0[1]:
            cpu = min(100, 100 * (c1[0] - self.cpu0[0]) // (c1[1] - self.cpu0[1]))
        report = {{
            "schema": SCHEMA,
            "plan": PLAN,
            "job": _clean(self.job),
            "platform": PLATFORM,
            "gpu_name": _clean(name.strip()),
            "driver": _clean(driver.strip()),
            "gpu_count": len(gpus),
            "peak_memory_mib": peak,
            "started_at": self.started,
            "ended_at": _now(),
            "wall_seconds": int(time.time() - self.t0),
            "first_progress_seconds": self.first,
            "progress_lines": self.lines,
            "last_progress": self.last,
            "cpu_percent": cpu,
            "exit_status": int(exit_status) & 255,
        }}
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(report, f, ensure_ascii=False, indent=2)
        os.replace(tmp, self.path)
        return self.path
"#,
        schema = RUN_REPORT_SCHEMA,
        plan = quote_py(plan),
        platform = quote_py(platform),
    );
    Ok(Script {
        file_name: "gpuplan_report.py".into(),
        text,
        notes: Vec::new(),
    })
}

/// Inputs of a Slurm batch script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlurmSpec {
    /// Job name.
    pub job_name: String,
    /// Partition (queue).
    pub partition: String,
    /// GPUs.
    pub gpus: u32,
    /// CPU cores per task.
    pub cpus: u32,
    /// Memory, GB.
    pub mem_gb: u32,
    /// Estimated hours of the run (walltime adds margin).
    pub hours: f64,
    /// The cluster's walltime cap, hours (from the course pack), if known.
    pub cap_hours: Option<f64>,
    /// Output log path pattern.
    pub output: String,
    /// `conda:ENV` or `module:NAME` lines to activate, in order.
    pub activate: Vec<String>,
    /// The training command.
    pub command: String,
    /// Requeue-on-timeout variant.
    pub requeue: bool,
    /// The plan's name, carried into the run report to match it on import.
    pub plan: String,
    /// The platform id the run report names.
    pub platform: String,
}

/// A generated script with warnings for the student.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Script {
    /// File name to save it as.
    pub file_name: String,
    /// The text.
    pub text: String,
    /// Things to know.
    pub notes: Vec<Message>,
}

fn walltime(seconds: u64) -> String {
    let d = seconds / 86_400;
    let h = (seconds % 86_400) / 3600;
    let m = (seconds % 3600).div_ceil(60).min(59);
    if d > 0 {
        format!("{d}-{h:02}:{m:02}:00")
    } else {
        format!("{h:02}:{m:02}:00")
    }
}

fn sbatch_word(field: &str, s: &str) -> Result<(), InputError> {
    // #SBATCH lines are read by Slurm, not a shell: quoting does not apply, so
    // values are restricted to a safe alphabet instead.
    if s.is_empty()
        || s.len() > 100
        || !s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.%/:@".contains(c))
    {
        return Err(InputError::new(
            field,
            format!("`{s}` cannot go into an #SBATCH line"),
            "1-100 letters, digits and - _ . % / : @",
        ));
    }
    Ok(())
}

/// A Slurm sbatch script; with `requeue`, Slurm signals the job before the
/// walltime, the handler only sets a flag, the training saves a checkpoint and
/// exits, and the job requeues itself to resume.
pub fn slurm(s: &SlurmSpec) -> Result<Script, InputError> {
    sbatch_word("job_name", &s.job_name)?;
    sbatch_word("partition", &s.partition)?;
    sbatch_word("output", &s.output)?;
    check_text("command", &s.command, 4000)?;
    if s.command.trim().is_empty() {
        return Err(InputError::new(
            "command",
            "is empty",
            "the training command",
        ));
    }
    if !(1..=16).contains(&s.gpus)
        || !(1..=256).contains(&s.cpus)
        || !(1..=4096).contains(&s.mem_gb)
    {
        return Err(InputError::new(
            "resources",
            "GPUs, CPUs or memory out of range",
            "gpus 1-16, cpus 1-256, mem 1-4096 GB",
        ));
    }
    let seconds = with_margin(s.hours);
    let mut notes = Vec::new();
    let mut limit = seconds;
    if let Some(cap) = s.cap_hours.filter(|c| c.is_finite() && *c > 0.0) {
        let cap_s = (cap * 3600.0) as u64;
        if seconds > cap_s {
            limit = cap_s;
            notes.push(
                Message::new("note.walltime-capped")
                    .with("needed", walltime(seconds))
                    .with("cap", cap),
            );
        }
    }
    let mut o = String::new();
    let _ = writeln!(o, "#!/bin/bash");
    let _ = writeln!(o, "#SBATCH --job-name={}", s.job_name);
    let _ = writeln!(o, "#SBATCH --partition={}", s.partition);
    let _ = writeln!(o, "#SBATCH --gres=gpu:{}", s.gpus);
    let _ = writeln!(o, "#SBATCH --cpus-per-task={}", s.cpus);
    let _ = writeln!(o, "#SBATCH --mem={}G", s.mem_gb);
    let _ = writeln!(o, "#SBATCH --time={}", walltime(limit));
    let _ = writeln!(o, "#SBATCH --output={}", s.output);
    if s.requeue {
        let _ = writeln!(o, "#SBATCH --signal=B:USR1@300");
        let _ = writeln!(o, "#SBATCH --requeue");
        let _ = writeln!(o, "#SBATCH --open-mode=append");
    }
    let _ = writeln!(
        o,
        "# Generated by gpuplan. Submit with: sbatch {}.sbatch",
        s.job_name
    );
    let _ = writeln!(o, "set -u");
    for a in &s.activate {
        check_text("activate", a, 200)?;
        match a.split_once(':') {
            Some(("conda", env)) => {
                let _ = writeln!(
                    o,
                    "source \"$(conda info --base)/etc/profile.d/conda.sh\"\nconda activate {}",
                    shell_quote(env)
                );
            }
            Some(("module", name)) => {
                let _ = writeln!(o, "module load {}", shell_quote(name));
            }
            _ => {
                return Err(InputError::new(
                    "activate",
                    format!("`{a}` is not conda:ENV or module:NAME"),
                    "conda:ENV or module:NAME",
                ))
            }
        }
    }
    check_text("plan", &s.plan, 200)?;
    sbatch_word("platform", &s.platform)?;
    let _ = writeln!(o, "TRAIN_COMMAND={}", shell_quote(&s.command));
    let _ = writeln!(o, "JOB_NAME={}", shell_quote(&s.job_name));
    let _ = writeln!(o, "PLAN_NAME={}", shell_quote(&s.plan));
    o.push_str(
        r#"
# 运行报告：作业结束（完成、失败、到时限或被取消）时，在作业目录写一个 JSON，
# 记录显卡、显存峰值、运行时长、进度行和退出码，用 gpuplan ledger import 导入。
# Run report: when the job ends (done, failed, at its walltime or
# cancelled) a small JSON file is written next to the job, atomically: the
# GPU, peak GPU memory, wall time, progress lines and exit status. Import it
# with: gpuplan ledger import FILE. Nothing leaves the cluster.
"#,
    );
    o.push_str(&run_report_kit(&s.platform));
    o.push_str(
        r#"
REPORTED=0
on_exit() {
  status=$?
  touch "$STATE_DIR/wrapper-done"
  [ "$REPORTED" = 1 ] || write_report "$status" || log "the run report could not be written"
}
trap on_exit EXIT
# Slurm's TERM at the walltime (or scancel) ends the job: exit through the
# report. The job step is started in the background so the trap runs at once.
trap 'exit 143' TERM
"#,
    );
    if s.requeue {
        o.push_str(
            r#"# 运行时限到达前 5 分钟 Slurm 发出 USR1：训练脚本存 checkpoint 后退出，作业重新排队并从断点续跑。
# Slurm sends USR1 five minutes before the walltime. The handler only sets
# a flag and forwards the signal; the training script saves a checkpoint and
# exits, and the job is requeued to resume from it.
export GPUPLAN_RESUME=1
requeue=0
on_usr1() { requeue=1; kill -USR1 "$train_pid" 2>/dev/null; }
trap on_usr1 USR1
srun -c "${SLURM_CPUS_PER_TASK:-1}" bash -c "$TRAIN_COMMAND" > >(watch_lines) 2> >(watch_lines >&2) &
train_pid=$!
while true; do
  wait "$train_pid"
  status=$?
  # A trapped signal interrupts wait; keep waiting until training has exited.
  kill -0 "$train_pid" 2>/dev/null || break
done
sleep 0.2
if [ "$requeue" = 1 ]; then
  # The requeue ends this script at once: report this part of the job first.
  touch "$STATE_DIR/wrapper-done"
  write_report "$status" && REPORTED=1
  echo "gpuplan: walltime near, requeueing job $SLURM_JOB_ID to resume from its checkpoint"
  scontrol requeue "$SLURM_JOB_ID"
fi
exit "$status"
"#,
        );
    } else {
        o.push_str(
            r#"srun -c "${SLURM_CPUS_PER_TASK:-1}" bash -c "$TRAIN_COMMAND" > >(watch_lines) 2> >(watch_lines >&2) &
train_pid=$!
wait "$train_pid"
status=$?
# Let the output watchers finish their last lines before the report.
sleep 0.2
exit "$status"
"#,
        );
    }
    Ok(Script {
        file_name: format!("{}.sbatch", s.job_name),
        text: o,
        notes,
    })
}

/// The environment probe (seed 000 §5.2, seed 003 §4.4): versions, GPU
/// visibility and free memory, then the safe install order.
pub fn env_probe() -> Script {
    let text = r#"#!/usr/bin/env bash
# gpuplan 环境探针：新实例上先运行它，把输出和结果一起保存。之后按顺序安装：
# 先看驱动支持的 CUDA 版本，再建独立环境，按 pytorch.org 的命令装对应 CUDA 的
# PyTorch，确认 torch.cuda.is_available() 为 True，最后才装项目依赖。
#
# gpuplan environment probe: run it first on a new instance, and keep its
# output with your results. Then install in this order:
#   1. check the driver's CUDA version (nvidia-smi, below);
#   2. create a separate environment: conda create -n train python=3.10 && conda activate train
#   3. install PyTorch for that CUDA from pytorch.org's command (not a bare `pip install torch`);
#   4. check torch.cuda.is_available() prints True;
#   5. only then install the project's requirements.
set -u
echo "== system"; uname -a
echo "== python"; command -v python3 && python3 --version
echo "== driver and GPUs"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,memory.free --format=csv
  nvidia-smi | head -n 4
else
  echo "nvidia-smi not found: no NVIDIA driver visible"
fi
echo "== PyTorch"
python3 - <<'PY' || echo "PyTorch is not installed in this environment"
import torch
print("torch", torch.__version__, "built for CUDA", torch.version.cuda)
print("cuda available:", torch.cuda.is_available())
if torch.cuda.is_available():
    for i in range(torch.cuda.device_count()):
        free, total = torch.cuda.mem_get_info(i)
        print(f"GPU {i}: {torch.cuda.get_device_name(i)}, {free / 2**30:.1f} GiB free of {total / 2**30:.1f} GiB")
    print("cuDNN", torch.backends.cudnn.version())
PY
"#
    .to_owned();
    Script {
        file_name: "gpuplan-probe.sh".into(),
        text,
        notes: Vec::new(),
    }
}

/// Seed 000 §5.3's offline wheel bundle: download on a machine with good
/// network, install on the instance without touching PyPI.
pub fn offline_install(python_version: &str) -> Result<Script, InputError> {
    // MAJOR.MINOR or MAJOR.MINOR.PATCH; wheels are tagged by major and minor
    // only, so 3.10.0 and 3.10 both ask pip for 3.10 (never a tag "3100").
    let bad = || {
        InputError::new(
            "python_version",
            format!("`{python_version}` is not a Python version"),
            "3.MINOR or 3.MINOR.PATCH, e.g. 3.10",
        )
    };
    let parts: Vec<&str> = python_version.trim().split('.').collect();
    let number = |s: &str| -> Option<u32> {
        (!s.is_empty() && s.len() <= 3 && s.chars().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (major, minor) = match parts.as_slice() {
        [ma, mi] | [ma, mi, _] => (number(ma).ok_or_else(bad)?, number(mi).ok_or_else(bad)?),
        _ => return Err(bad()),
    };
    if let [_, _, patch] = parts.as_slice() {
        number(patch).ok_or_else(bad)?;
    }
    if major != 3 || minor > 99 {
        return Err(bad());
    }
    let tag = format!("{major}.{minor}");
    let text = format!(
        r#"#!/usr/bin/env bash
# gpuplan 离线安装：租来的实例上 pip 经常超时。第 1 步在网络好的机器上下载，
# 第 2 步在实例上离线安装。
#
# gpuplan offline install: pip on rented instances often times
# out. Step 1 runs where the network is good; step 2 runs on the instance.
set -eu
case "${{1:-}}" in
  download)
    # Wheels for Linux x86-64 and Python {py}, into ./packages.
    pip download -r requirements.txt -d ./packages \
      --platform manylinux2014_x86_64 --only-binary=:all: --python-version {tag}
    tar czf packages.tar.gz packages
    echo "Upload packages.tar.gz and requirements.txt to the instance, then run: bash $0 install"
    ;;
  install)
    [ -d packages ] || tar xzf packages.tar.gz
    pip install --no-index --find-links ./packages -r requirements.txt
    ;;
  *)
    echo "usage: $0 download | install" >&2
    exit 2
    ;;
esac
"#,
        py = tag,
        tag = tag
    );
    Ok(Script {
        file_name: "gpuplan-offline-install.sh".into(),
        text,
        notes: Vec::new(),
    })
}

/// A resumable PyTorch training template (seed 000 §4.4): checkpoints every
/// `every_epochs` epochs atomically and resumes from the last one; on SIGUSR1
/// or SIGTERM (spot preemption notice, Slurm's pre-timeout signal) it saves and
/// exits so the job can be requeued.
pub fn resume_template(every_epochs: u32) -> Result<Script, InputError> {
    if !(1..=1000).contains(&every_epochs) {
        return Err(InputError::new(
            "checkpoint_every",
            format!("{every_epochs} is out of range"),
            "1..=1000 epochs",
        ));
    }
    let text = format!(
        r#""""gpuplan 断点续跑训练模板 / resumable training template.

每 {n} 轮存一次 checkpoint（与抢占式报价假设的间隔相同），启动时自动从最新的
checkpoint 续跑；收到 SIGUSR1 或 SIGTERM 时立即保存并以状态 0 退出，方便 Slurm
重新排队或抢占式实例重启。把 build_model/build_data/train_one_epoch 换成你的代码。

Checkpoints every {n} epochs (the same interval the spot quote assumed) and
resumes automatically from the newest checkpoint. On SIGUSR1 or SIGTERM it
saves at once and exits with status 0 so Slurm can requeue it or a spot
instance can restart it. Replace build_model/build_data/train_one_epoch.
"""
import os
import signal
import sys

import torch

CHECKPOINT_EVERY = {n}
CKPT_DIR = os.environ.get("GPUPLAN_CKPT_DIR", "checkpoints")
CKPT = os.path.join(CKPT_DIR, "last.pt")
EPOCHS = int(os.environ.get("EPOCHS", "50"))
stop_requested = False


def request_stop(signum, frame):
    # Only set a flag: the loop saves at a safe point.
    global stop_requested
    stop_requested = True


signal.signal(signal.SIGUSR1, request_stop)
signal.signal(signal.SIGTERM, request_stop)


def save(state):
    os.makedirs(CKPT_DIR, exist_ok=True)
    tmp = CKPT + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, CKPT)  # atomic: a crash never leaves half a checkpoint


def build_model():
    return torch.nn.Linear(10, 2)


def build_data():
    x = torch.randn(256, 10)
    y = torch.randint(0, 2, (256,))
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)


def train_one_epoch(model, optimizer, data, device):
    model.train()
    for x, y in data:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if stop_requested:
            return


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = build_model().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = build_data()
    start = 0
    if os.path.exists(CKPT):
        state = torch.load(CKPT, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["epoch"] + 1
        print(f"resumed from epoch {{start}}", flush=True)
    for epoch in range(start, EPOCHS):
        train_one_epoch(model, optimizer, data, device)
        done = (epoch + 1) % CHECKPOINT_EVERY == 0 or epoch + 1 == EPOCHS
        if done or stop_requested:
            save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}})
            print(f"checkpoint at epoch {{epoch}}", flush=True)
        if stop_requested:
            print("stop requested: checkpoint saved, exiting for requeue", flush=True)
            sys.exit(0)


if __name__ == "__main__":
    main()
"#,
        n = every_epochs
    );
    Ok(Script {
        file_name: "train_resumable.py".into(),
        text,
        notes: Vec::new(),
    })
}

/// The pre-rental checklist for a platform and a priced plan, as catalog
/// messages (`checklist.*`).
pub fn checklist(p: &PlatformProfile, q: Option<&Quote>) -> Vec<Message> {
    let mut items = vec![Message::new("checklist.certify")];
    match p.kind {
        PlatformKind::ContainerCloud | PlatformKind::Marketplace => {
            items.push(Message::new("checklist.debug-cheap"));
            items.push(Message::new("checklist.shutdown-wrapper"));
            if p.billing.stop_ends_gpu_billing.value {
                items.push(Message::new("checklist.release"));
            } else {
                items.push(Message::new("checklist.stop-and-release"));
            }
        }
        PlatformKind::HostedNotebook => items.push(Message::new("checklist.session-checkpoints")),
        PlatformKind::CampusHpc => items.push(Message::new("checklist.campus")),
    }
    if let Some(days) = &p.lifecycle.release_after_stopped_days {
        items.push(Message::new("checklist.release-deadline").with("days", days.value));
    }
    if let (Some(path), Some(h)) = (
        &p.lifecycle.scratch_path,
        &p.lifecycle.scratch_wipe_after_stopped_hours,
    ) {
        items.push(
            Message::new("checklist.scratch")
                .with("path", path)
                .with("hours", h.value),
        );
    }
    items.push(Message::new("checklist.archive"));
    items.push(Message::new("checklist.probe"));
    if let Some(q) = q {
        for w in &q.warnings {
            match w {
                Warning::SpotWithoutCheckpoints => {
                    items.push(Message::new("checklist.spot-template"))
                }
                Warning::RunExceedsCap { .. } => items.push(Message::new("checklist.run-in-parts")),
                Warning::BudgetExceeded { .. } => items.push(Message::new("checklist.over-budget")),
                _ => {}
            }
        }
    }
    items.push(Message::new("checklist.ledger"));
    items.dedup();
    items
}

/// What the multi-GPU launch configs are generated for.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchSpec {
    /// Job name (also Slurm's).
    pub job_name: String,
    /// The training command as the student runs it on one GPU
    /// (`python train.py --epochs 10`).
    pub command: String,
    /// GPUs in all.
    pub gpus: u32,
    /// The engine.
    pub engine: crate::parallel::Engine,
    /// Optimizer states on the CPU.
    pub offload: bool,
    /// Micro-batch per GPU.
    pub batch: u32,
    /// Precision.
    pub precision: crate::job::Precision,
}

/// Processes per node and nodes for `gpus` (eight per node at most).
fn nodes(gpus: u32) -> (u32, u32) {
    let nodes = gpus.div_ceil(crate::parallel::MAX_GPUS_PER_NODE).max(1);
    (gpus.div_ceil(nodes), nodes)
}

/// Checks a launch spec. The launchers run the student's own command once
/// per GPU through `bash -c` (`--no-python`), so its quoting and arguments
/// are the shell's, exactly as on one GPU; the rank variables torchrun and
/// Accelerate set reach the training script through the environment.
fn check_launch(s: &LaunchSpec) -> Result<(), InputError> {
    check_text("command", &s.command, 4000)?;
    if s.command.trim().is_empty() {
        return Err(InputError::new(
            "command",
            "is empty",
            "the training command",
        ));
    }
    sbatch_word("job_name", &s.job_name)?;
    if s.gpus < 2 || s.gpus > crate::parallel::MAX_GPUS {
        return Err(InputError::new(
            "gpus",
            format!("{} GPUs need no launcher", s.gpus),
            format!("2..={}", crate::parallel::MAX_GPUS),
        ));
    }
    Ok(())
}

/// `torchrun` on one instance (DDP and FSDP scripts) or `accelerate launch`
/// with the generated config (Hugging Face Trainer, DeepSpeed), as a shell
/// script.
pub fn launch_script(s: &LaunchSpec) -> Result<Script, InputError> {
    check_launch(s)?;
    let (per_node, nodes) = nodes(s.gpus);
    let mut o = String::new();
    let _ = writeln!(o, "#!/usr/bin/env bash");
    let _ = writeln!(
        o,
        "# Generated by gpuplan: {} GPUs, {}. Run from the project folder.",
        s.gpus,
        engine_name(s.engine)
    );
    let _ = writeln!(o, "set -euo pipefail");
    if nodes == 1 {
        let _ = writeln!(o, "TRAIN_COMMAND={}", shell_quote(&s.command));
    }
    if nodes > 1 {
        let _ = writeln!(
            o,
            "echo 'gpuplan: {} GPUs span {nodes} nodes; submit gpuplan-multigpu.sbatch on the cluster instead.' >&2\nexit 2",
            s.gpus
        );
    } else if matches!(
        s.engine,
        crate::parallel::Engine::Ddp
            | crate::parallel::Engine::FsdpFull
            | crate::parallel::Engine::FsdpGradOp
    ) {
        let _ = writeln!(
            o,
            "# Plain PyTorch (DDP/FSDP in the script): torchrun starts one process per GPU."
        );
        let _ = writeln!(o, "# With the Hugging Face Trainer, use gpuplan-accelerate.yaml: accelerate launch --config_file gpuplan-accelerate.yaml --no_python bash -c \"$TRAIN_COMMAND\"");
        let _ = writeln!(o, "torchrun --standalone --nproc_per_node={per_node} --no-python bash -c \"$TRAIN_COMMAND\"");
    } else {
        let _ = writeln!(o, "# DeepSpeed through Accelerate (gpuplan-accelerate.yaml names gpuplan-deepspeed.json).");
        let _ = writeln!(o, "accelerate launch --config_file gpuplan-accelerate.yaml --no_python bash -c \"$TRAIN_COMMAND\"");
    }
    Ok(Script {
        file_name: "gpuplan-launch.sh".into(),
        text: o,
        notes: Vec::new(),
    })
}

fn engine_name(e: crate::parallel::Engine) -> &'static str {
    use crate::parallel::Engine;
    match e {
        Engine::Ddp => "DDP",
        Engine::FsdpFull => "FSDP full shard",
        Engine::FsdpGradOp => "FSDP shard-grad-op",
        Engine::Zero1 => "DeepSpeed ZeRO-1",
        Engine::Zero2 => "DeepSpeed ZeRO-2",
        Engine::Zero3 => "DeepSpeed ZeRO-3",
    }
}

fn mixed_precision(p: crate::job::Precision) -> &'static str {
    use crate::job::Precision;
    match p {
        Precision::Fp32 => "no",
        Precision::Fp16Amp => "fp16",
        Precision::Bf16Amp | Precision::Bf16 => "bf16",
    }
}

/// An Accelerate config (`accelerate launch --config_file`), with the keys
/// `accelerate config` writes.
pub fn accelerate_config(s: &LaunchSpec) -> Result<Script, InputError> {
    use crate::parallel::Engine;
    check_launch(s)?;
    let (per_node, nodes) = nodes(s.gpus);
    let distributed = match s.engine {
        Engine::Ddp => "MULTI_GPU",
        Engine::FsdpFull | Engine::FsdpGradOp => "FSDP",
        Engine::Zero1 | Engine::Zero2 | Engine::Zero3 => "DEEPSPEED",
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# Generated by gpuplan: {} GPUs, {}.",
        s.gpus,
        engine_name(s.engine)
    );
    let _ = writeln!(o, "compute_environment: LOCAL_MACHINE");
    let _ = writeln!(o, "distributed_type: {distributed}");
    let _ = writeln!(o, "mixed_precision: {}", mixed_precision(s.precision));
    let _ = writeln!(o, "num_machines: {nodes}");
    let _ = writeln!(o, "num_processes: {}", per_node.saturating_mul(nodes));
    let _ = writeln!(o, "machine_rank: 0");
    let _ = writeln!(o, "main_training_function: main");
    let _ = writeln!(o, "rdzv_backend: static");
    let _ = writeln!(o, "same_network: true");
    let _ = writeln!(o, "use_cpu: false");
    match s.engine {
        Engine::FsdpFull | Engine::FsdpGradOp => {
            let _ = writeln!(o, "fsdp_config:");
            let _ = writeln!(o, "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP");
            let _ = writeln!(o, "  fsdp_backward_prefetch: BACKWARD_PRE");
            let _ = writeln!(o, "  fsdp_cpu_ram_efficient_loading: true");
            let _ = writeln!(o, "  fsdp_forward_prefetch: false");
            let _ = writeln!(o, "  fsdp_offload_params: {}", s.offload);
            let _ = writeln!(
                o,
                "  fsdp_sharding_strategy: {}",
                if s.engine == Engine::FsdpFull {
                    "FULL_SHARD"
                } else {
                    "SHARD_GRAD_OP"
                }
            );
            let _ = writeln!(o, "  fsdp_state_dict_type: SHARDED_STATE_DICT");
            let _ = writeln!(o, "  fsdp_sync_module_states: true");
            let _ = writeln!(o, "  fsdp_use_orig_params: true");
        }
        Engine::Zero1 | Engine::Zero2 | Engine::Zero3 => {
            let _ = writeln!(o, "deepspeed_config:");
            let _ = writeln!(o, "  deepspeed_config_file: gpuplan-deepspeed.json");
            let _ = writeln!(o, "  zero3_init_flag: {}", s.engine == Engine::Zero3);
        }
        Engine::Ddp => {}
    }
    Ok(Script {
        file_name: "gpuplan-accelerate.yaml".into(),
        text: o,
        notes: Vec::new(),
    })
}

/// A DeepSpeed config for the ZeRO stage (DeepSpeed's JSON schema; batch
/// sizes explicit so it runs outside the Hugging Face Trainer too).
pub fn deepspeed_config(s: &LaunchSpec) -> Result<Script, InputError> {
    use crate::parallel::Engine;
    check_launch(s)?;
    let stage = match s.engine {
        Engine::Zero1 => 1,
        Engine::Zero2 => 2,
        Engine::Zero3 => 3,
        _ => {
            return Err(InputError::new(
                "engine",
                "a DeepSpeed config is for ZeRO stages",
                "zero1, zero2 or zero3",
            ))
        }
    };
    let mut zero = serde_json::json!({
        "stage": stage,
        "overlap_comm": true,
        "contiguous_gradients": true,
        "reduce_bucket_size": 5e8,
        "allgather_bucket_size": 5e8,
    });
    if stage == 3 {
        zero["stage3_prefetch_bucket_size"] = serde_json::json!(5e7);
        zero["stage3_param_persistence_threshold"] = serde_json::json!(1e5);
        zero["stage3_max_live_parameters"] = serde_json::json!(1e9);
        zero["stage3_gather_16bit_weights_on_model_save"] = serde_json::json!(true);
    }
    if s.offload {
        zero["offload_optimizer"] = serde_json::json!({ "device": "cpu", "pin_memory": true });
    }
    let half = mixed_precision(s.precision);
    let config = serde_json::json!({
        "train_micro_batch_size_per_gpu": s.batch,
        "gradient_accumulation_steps": 1,
        "train_batch_size": u64::from(s.batch).saturating_mul(u64::from(s.gpus)),
        "gradient_clipping": 1.0,
        "bf16": { "enabled": half == "bf16" },
        "fp16": { "enabled": half == "fp16" },
        "zero_optimization": zero,
        "steps_per_print": 100,
        "wall_clock_breakdown": false,
    });
    Ok(Script {
        file_name: "gpuplan-deepspeed.json".into(),
        text: serde_json::to_string_pretty(&config).unwrap_or_default(),
        notes: Vec::new(),
    })
}

/// A multi-GPU (and multi-node) Slurm script: one task per node, torchrun
/// starting a process per GPU, rendezvous on the first node.
pub fn slurm_multigpu(
    s: &LaunchSpec,
    partition: &str,
    hours: f64,
    cpus_per_gpu: u32,
) -> Result<Script, InputError> {
    check_launch(s)?;
    sbatch_word("partition", partition)?;
    let (per_node, nodes) = nodes(s.gpus);
    let cpus = per_node.saturating_mul(cpus_per_gpu.clamp(1, 32));
    let mut o = String::new();
    let _ = writeln!(o, "#!/bin/bash");
    let _ = writeln!(o, "#SBATCH --job-name={}", s.job_name);
    let _ = writeln!(o, "#SBATCH --partition={partition}");
    let _ = writeln!(o, "#SBATCH --nodes={nodes}");
    let _ = writeln!(o, "#SBATCH --ntasks-per-node=1");
    let _ = writeln!(o, "#SBATCH --gres=gpu:{per_node}");
    let _ = writeln!(o, "#SBATCH --cpus-per-task={cpus}");
    let _ = writeln!(o, "#SBATCH --time={}", walltime(with_margin(hours)));
    let _ = writeln!(o, "#SBATCH --output=%x-%j.out");
    let _ = writeln!(
        o,
        "# Generated by gpuplan: {} GPUs on {nodes} node(s), {}. Submit with: sbatch gpuplan-multigpu.sbatch",
        s.gpus,
        engine_name(s.engine)
    );
    let _ = writeln!(o, "set -euo pipefail");
    let _ = writeln!(o, "TRAIN_COMMAND={}", shell_quote(&s.command));
    o.push_str(
        r#"head_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_ADDR=$head_node
export MASTER_PORT=29500
# One task per node; torchrun starts a process per GPU and meets the others
# at the first node.
srun torchrun \
  --nnodes="$SLURM_NNODES" \
"#,
    );
    let _ = writeln!(o, "  --nproc_per_node={per_node} \\");
    o.push_str(
        r#"  --rdzv_id="$SLURM_JOB_ID" \
  --rdzv_backend=c10d \
  --rdzv_endpoint="$head_node:$MASTER_PORT" \
  --no-python bash -c "$TRAIN_COMMAND"
"#,
    );
    Ok(Script {
        file_name: "gpuplan-multigpu.sbatch".into(),
        text: o,
        notes: Vec::new(),
    })
}
