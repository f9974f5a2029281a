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
        )
        .said(Message::new("error.tooLong").with("max", max), None));
    }
    if s.chars().any(|c| c.is_control() && c != '\t') {
        return Err(InputError::new(
            field,
            "contains a control character (newline, NUL, ...)",
            "printable text on one line",
        )
        .said(
            Message::new("error.controlChar"),
            Some(Message::new("allowed.oneLine")),
        ));
    }
    Ok(())
}

/// [`check_text`] for text the script runs (the training command, an
/// environment to activate): a zero-width mark or a direction override
/// pasted from a web page would run as part of it (an argument `a\u{200B}b`,
/// not `ab`) and cannot be seen in the script, nor safely printed in it.
/// (Names only travel in the report: a joiner in an emoji is kept there.)
pub fn check_runnable(field: &str, s: &str, max: usize) -> Result<(), InputError> {
    check_text(field, s, max)?;
    if let Some(c) = s
        .chars()
        .find(|c| *c != '\t' && crate::error::is_hidden(*c))
    {
        let code = crate::error::visible(c);
        return Err(InputError::new(
            field,
            format!("contains a character that cannot be seen ({code})"),
            "the text typed again, without it",
        )
        .said(
            Message::new("error.hiddenChar").with("code", code),
            Some(Message::new("allowed.oneLine")),
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
    /// The training command, as the student types it (run by `bash -o pipefail -c`: a job piped into `tee` fails when the job does).
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
    /// The plan's [`crate::plan::Plan::job_digest`], written beside its name
    /// (empty without a plan).
    #[serde(default)]
    pub plan_job: String,
}

// The report the kit writes is defined by its reader (`crate::report`).
pub use crate::report::{RUN_REPORT_SCHEMA, RUN_REPORT_SCHEMA_V1};
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

/// Fills a template's `@NAME@` placeholders. Every value is already safe
/// for where it goes (shell-quoted, JSON-quoted or a number): rendering only
/// places it. A placeholder left unfilled is a defect the tests catch
/// (`rendered_templates_leave_no_placeholder`).
///
/// One pass over the template: a value is never scanned again, so a job
/// name that spells `@REPORT_KIT@` stays text.
fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('@') {
        let (before, from_at) = rest.split_at(at);
        out.push_str(before);
        let after = from_at.strip_prefix('@').unwrap_or(from_at);
        let name_len = after
            .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
            .unwrap_or(after.len());
        let (name, tail) = after.split_at(name_len);
        let closed = tail.strip_prefix('@');
        let value = closed
            .filter(|_| !name.is_empty())
            .and_then(|_| values.iter().find(|(n, _)| *n == name));
        match (value, closed) {
            (Some((_, v)), Some(tail)) => {
                out.push_str(v);
                rest = tail;
            }
            _ => {
                out.push('@');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The run report's bash machinery (`templates/run-report-kit.bash`),
/// shared by the shutdown wrapper and the Slurm scripts: the per-GPU memory
/// sampler (nvidia-smi every few seconds), the output watchers that count
/// progress lines, the CPU counters and `write_report STATUS`, which writes
/// the report atomically. The script defines `JOB_NAME` and `PLAN_NAME`
/// before it, runs the job with its output through `watch_lines out` and
/// `watch_lines err`, and calls `write_report` once on exit (touching
/// `$STATE_DIR/wrapper-done` first to end the sampler).
fn run_report_kit(platform: &str) -> String {
    render(
        include_str!("../templates/run-report-kit.bash"),
        &[
            ("SAMPLE", &REPORT_SAMPLE_SECONDS.to_string()),
            ("SCHEMA", RUN_REPORT_SCHEMA),
            ("PLATFORM", &json_quote(platform)),
        ],
    )
}

/// A string as a JSON literal in a bash `printf` format: quoted, with
/// backslashes, quotes and `%` escaped (`%` doubled for printf).
fn json_quote(s: &str) -> String {
    let j = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    j.replace('%', "%%").replace('\'', "")
}

/// The auto-shutdown wrapper (bash). It runs the command, then stops the
/// instance whether training succeeded or failed (trap on EXIT); a detached
/// watchdog stops it if the wrapper itself dies (its shell killed) and enforces
/// the maximum runtime.
pub fn shutdown_wrapper(s: &ShutdownSpec) -> Result<String, InputError> {
    check_text("job_name", &s.job_name, 120)?;
    check_runnable("command", &s.command, 4000)?;
    check_text("plan", &s.plan, 200)?;
    if s.command.trim().is_empty() {
        return Err(InputError::new(
            "command",
            "is empty",
            "the training command, e.g. python train.py",
        )
        .said(
            Message::new("error.emptyCommand"),
            Some(Message::new("allowed.trainingCommand")),
        ));
    }
    // Any run a plan allows (its longest, with the margin) can be wrapped.
    let longest = with_margin(crate::plan::MAX_HOURS as f64);
    if s.max_runtime_seconds == 0 || s.max_runtime_seconds > longest {
        return Err(InputError::new(
            "max_hours",
            format!("{} h is out of range", s.max_runtime_seconds.div_ceil(3600)),
            format!("1 s to {} h", longest / 3600),
        )
        .said(
            Message::new("error.outOfRange").with("value", s.max_runtime_seconds.div_ceil(3600)),
            Some(
                Message::new("allowed.between")
                    .with("min", 0)
                    .with("max", longest / 3600),
            ),
        ));
    }
    let poll = s.poll_seconds.clamp(1, 600);
    Ok(render(
        include_str!("../templates/shutdown-wrapper.bash"),
        &[
            ("PLATFORM_ID", &platform_id_comment(&s.platform)),
            ("SAMPLE", &REPORT_SAMPLE_SECONDS.to_string()),
            ("WARNING", stop_warning(s.mechanism, s.destroy)),
            ("JOB_NAME", &shell_quote(&s.job_name)),
            ("PLAN_NAME", &shell_quote(&s.plan)),
            ("PLAN_JOB", &shell_quote(&s.plan_job)),
            ("COMMAND", &shell_quote(&s.command)),
            ("MAX_RUNTIME", &s.max_runtime_seconds.to_string()),
            ("POLL", &poll.to_string()),
            ("STOP_BIN", &stop_bin(s.mechanism)),
            ("JOB_ENV", JOB_ENV_CAPTURE),
            ("REPORT_KIT", &run_report_kit(&s.platform)),
            ("STOP_COMMAND", &stop_command(s.mechanism, s.destroy)),
        ],
    ))
}

/// A platform id for a comment line: the id's own alphabet only (it comes
/// from a profile, but a comment must never end early).
fn platform_id_comment(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .take(100)
        .collect()
}

/// The stand-in-overridable program that stops the instance, and what it
/// needs, checked before the job starts: without them the wrapper could not
/// stop the instance, which would bill on after training while the log said
/// it was stopping.
fn stop_bin(m: StopMechanism) -> String {
    format!("{}\n{STOP_FAILED}", stop_needs(m))
}

/// [`stop_bin`]'s program and its checks.
fn stop_needs(m: StopMechanism) -> &'static str {
    // Overridable so the wrapper can be tested with stand-ins.
    match m {
        StopMechanism::Shutdown => r#"SHUTDOWN_BIN="${GPUPLAN_SHUTDOWN_BIN:-/usr/bin/shutdown}""#,
        StopMechanism::HttpApi => concat!(
            r#"CURL_BIN="${GPUPLAN_CURL_BIN:-curl}""#,
            "\n",
            r#"if [ -z "${GPUPLAN_STOP_URL:-}" ] || [ -z "${GPUPLAN_API_TOKEN:-}" ]; then"#,
            "\n",
            r#"  echo "gpuplan: set GPUPLAN_STOP_URL (the stop endpoint in the platform console) and GPUPLAN_API_TOKEN (in the environment, never in this file) first: without them this wrapper cannot stop the instance. Training was not started." >&2"#,
            "\n",
            r#"  echo "gpuplan：请先设置 GPUPLAN_STOP_URL（平台控制台里的关机接口地址）和 GPUPLAN_API_TOKEN（放在环境变量里，不要写进本文件）：否则本脚本无法关机。训练没有启动。" >&2"#,
            "\n",
            "  exit 2\n",
            "fi\n",
            // The token is the stop's, not the job's: kept out of the job's
            // environment (the one run_job restores included) and off every
            // command line (ps shows them).
            r#"STOP_TOKEN=$GPUPLAN_API_TOKEN"#,
            "\n",
            "unset GPUPLAN_API_TOKEN\n",
            r#"GPUPLAN_JOB_ENV=$(printf '%s
' "$GPUPLAN_JOB_ENV" | grep -v '^declare -x GPUPLAN_API_TOKEN=')"#,
        ),
        StopMechanism::VastCli => concat!(
            r#"VASTAI_BIN="${GPUPLAN_VASTAI_BIN:-vastai}""#,
            "\n",
            r#"if [ -z "${CONTAINER_ID:-}" ] || ! command -v "$VASTAI_BIN" >/dev/null 2>&1; then"#,
            "\n",
            r#"  echo "gpuplan: this wrapper stops the instance with the vastai CLI (pip install vastai; vastai set api-key KEY) and CONTAINER_ID, which Vast.ai sets inside its instances; one of them is missing here, so it could not stop the instance. Training was not started." >&2"#,
            "\n",
            r#"  echo "gpuplan：本脚本用 vastai 命令行（pip install vastai；vastai set api-key KEY）和 Vast.ai 实例里自带的 CONTAINER_ID 关机；这里缺少其中之一，无法关机。训练没有启动。" >&2"#,
            "\n",
            "  exit 2\n",
            "fi",
        ),
    }
}

/// What a stop that failed says, loudly, in both languages: the instance is
/// still billing and only the console can stop it now.
const STOP_FAILED: &str = r#"stop_failed() {
  log "THE INSTANCE IS STILL RUNNING AND BILLING: the stop failed ($1). Stop it in the platform console now."
  log "实例仍在运行并计费：关机失败（$1）。请马上在平台控制台关机。"
}"#;

/// The lines of `stop_instance` that stop it.
fn stop_command(m: StopMechanism, destroy: bool) -> String {
    match m {
        StopMechanism::Shutdown => r#"  "$SHUTDOWN_BIN" -h now || "$SHUTDOWN_BIN" || stop_failed "$SHUTDOWN_BIN exited with $?""#.to_owned(),
        // Three tries, 30 s each: a platform API that is briefly down or
        // hangs does not leave the instance billing (nor the wrapper
        // waiting past its deadline).
        // The header goes in a curl config read from stdin (-K -, in every
        // curl; -H @- needs 7.55): no command line shows the token.
        StopMechanism::HttpApi => [
            r#"  local try token"#,
            r#"  token=$(printf '%s' "$STOP_TOKEN" | sed 's/[\\"]/\\&/g')"#,
            r#"  for try in 1 2 3; do"#,
            r#"    printf 'header = "Authorization: Bearer %s"\n' "$token" |"#,
            r#"      "$CURL_BIN" -fsS --max-time 30 -X POST "$GPUPLAN_STOP_URL" -K - -H "X-Instance-Id: ${GPUPLAN_INSTANCE_ID:-}" && return 0"#,
            r#"    [ "$try" = 3 ] || sleep 10"#,
            r#"  done"#,
            r#"  stop_failed "POST $GPUPLAN_STOP_URL failed 3 times""#,
        ]
        .join("\n"),
        // The same three tries, each bounded: a hung CLI would hold the
        // wrapper's exit (and the watchdog's stop behind the lock).
        StopMechanism::VastCli => {
            let verb = if destroy { "destroy" } else { "stop" };
            format!(
                r#"  local try bound=""
  command -v timeout >/dev/null 2>&1 && bound="timeout 60"
  for try in 1 2 3; do
    $bound "$VASTAI_BIN" {verb} instance "$CONTAINER_ID" && return 0
    [ "$try" = 3 ] || sleep 10
  done
  stop_failed "vastai {verb} instance failed 3 times""#
            )
        }
    }
}

/// A comment warning about what a Vast.ai stop or destroy leaves or deletes.
fn stop_warning(m: StopMechanism, destroy: bool) -> &'static str {
    match (m, destroy) {
        (StopMechanism::VastCli, false) => "# Note: `stop` ends GPU billing but the disk keeps billing until you destroy the instance.\n",
        (StopMechanism::VastCli, true) => "# Note: `destroy` deletes the instance and its disk: copy results out first.\n",
        // A spot instance the platform cannot stop (优云智算): only its
        // release ends the bill.
        (StopMechanism::HttpApi, true) => "# 注意：这台竞价实例不能关机，只能释放：GPUPLAN_STOP_URL 请填控制台里的「释放」接口（会删除实例和数据盘，先把结果拷出来）。\n# Note: this spot instance cannot be stopped, only released: set GPUPLAN_STOP_URL to the console's release endpoint (it deletes the instance and its disk: copy results out first).\n",
        _ => "",
    }
}

/// The run report for notebooks (Colab, Kaggle, Jupyter), where no wrapper
/// runs the job: a small Python module the student imports in the first
/// cell. It writes the same report as the shutdown wrapper
/// ([`RUN_REPORT_SCHEMA`]), with PyTorch's peak reserved memory when PyTorch
/// sees a GPU, else `nvidia-smi`'s.
pub fn notebook_report(platform: &str, plan: &str, plan_job: &str) -> Result<Script, InputError> {
    check_text("plan", plan, 200)?;
    check_text("plan_job", plan_job, 64)?;
    check_text("platform", platform, 100)?;
    // A JSON string is a Python string literal with the same value.
    let quote_py = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let text = render(
        include_str!("../templates/gpuplan_report.py"),
        &[
            ("SCHEMA", &quote_py(RUN_REPORT_SCHEMA)),
            ("PLAN", &quote_py(plan)),
            ("PLAN_JOB", &quote_py(plan_job)),
            ("PLATFORM", &quote_py(platform)),
        ],
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
    /// The plan's job digest, carried beside its name (empty without one).
    pub plan_job: String,
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

/// `seconds` as Slurm's `--time`, rounded up to the whole minute it
/// writes (7:59:06 is 08:00:00: the minutes carry into the hour, never
/// held at :59 below the time needed).
fn walltime(seconds: u64) -> String {
    let seconds = seconds.div_ceil(60).saturating_mul(60);
    let d = seconds / 86_400;
    let h = (seconds % 86_400) / 3600;
    let m = (seconds % 3600) / 60;
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
        )
        .said(
            Message::new("error.sbatchWord").with("value", crate::error::short(s)),
            Some(Message::new("allowed.sbatchWord")),
        ));
    }
    Ok(())
}

/// A job name: an #SBATCH word that is also a file name (`NAME.sbatch`)
/// and the `%x` of the log's path, so no `/` (a folder that does not exist:
/// the job fails to launch and writes no report) and no `%`.
fn sbatch_job_name(s: &str) -> Result<(), InputError> {
    sbatch_word("job_name", s)?;
    if s.contains(['/', '%']) {
        return Err(InputError::new(
            "job_name",
            format!("`{s}` names a folder or a pattern, not a job"),
            "1-100 letters, digits and - _ . : @",
        )
        .said(
            Message::new("error.sbatchWord").with("value", crate::error::short(s)),
            Some(Message::new("allowed.jobName")),
        ));
    }
    Ok(())
}

/// The walltime of a run of `hours` (with the margin), held to the
/// cluster's cap (a longer --time is refused or held by Slurm), and the
/// note `key` saying so when the cap cut it.
fn capped_walltime(hours: f64, cap_hours: Option<f64>, key: &str) -> (u64, Vec<Message>) {
    let needed = with_margin(hours);
    match cap_hours.filter(|c| c.is_finite() && *c > 0.0) {
        // The cap in the whole minutes --time writes, never above it.
        Some(cap) if needed > (cap * 3600.0) as u64 => (
            ((cap * 3600.0) as u64 / 60).saturating_mul(60),
            vec![Message::new(key)
                .with("needed", walltime(needed))
                .with("cap", cap)],
        ),
        _ => (needed, Vec::new()),
    }
}

/// Seconds before the walltime at which Slurm signals a requeueing job, so
/// the training can save a checkpoint and exit.
const REQUEUE_LEAD_SECONDS: u64 = 300;

/// A Slurm sbatch script; with `requeue`, Slurm signals the job before the
/// walltime, the handler only sets a flag, the training saves a checkpoint and
/// exits, and the job requeues itself to resume.
pub fn slurm(s: &SlurmSpec) -> Result<Script, InputError> {
    check_slurm(s)?;
    // With --requeue this script is already the variant that goes on.
    let key = if s.requeue {
        "note.walltime-capped-requeue"
    } else {
        "note.walltime-capped"
    };
    let (limit, notes) = capped_walltime(s.hours, s.cap_hours, key);
    // The requeue's warning comes REQUEUE_LEAD_SECONDS before the walltime:
    // a walltime no longer than that would be signalled before it starts.
    if s.requeue && limit <= REQUEUE_LEAD_SECONDS {
        return Err(InputError::new(
            "cap_hours",
            format!("a walltime of {limit} s leaves no time for the requeue's warning"),
            "a walltime over 5 minutes, or no --requeue",
        )
        .said(
            Message::new("error.requeueTooShort").with("minutes", limit.div_ceil(60)),
            Some(Message::new("allowed.requeueWalltime")),
        ));
    }
    let mut o = sbatch_header(s, limit);
    o.push_str(&activate(&s.activate)?);
    // After the activation, whose PATH and CONDA_* the job needs.
    o.push_str(JOB_ENV_CAPTURE);
    let _ = writeln!(o, "TRAIN_COMMAND={}", shell_quote(&s.command));
    let _ = writeln!(o, "JOB_NAME={}", shell_quote(&s.job_name));
    let _ = writeln!(o, "PLAN_NAME={}", shell_quote(&s.plan));
    let _ = writeln!(o, "PLAN_JOB={}", shell_quote(&s.plan_job));
    // The report kit, the exit trap, then the job step (with the requeue
    // handshake when asked): shell kept in templates/, linted there.
    o.push('\n');
    o.push_str(&render(
        include_str!("../templates/slurm-report.bash"),
        &[("REPORT_KIT", &run_report_kit(&s.platform))],
    ));
    o.push_str(if s.requeue {
        include_str!("../templates/slurm-requeue.bash")
    } else {
        include_str!("../templates/slurm-run.bash")
    });
    Ok(Script {
        file_name: format!("{}.sbatch", s.job_name),
        text: o,
        notes,
    })
}

/// A Slurm request's words and numbers, each within what an `#SBATCH` line
/// and a cluster take.
fn check_slurm(s: &SlurmSpec) -> Result<(), InputError> {
    sbatch_job_name(&s.job_name)?;
    sbatch_word("partition", &s.partition)?;
    sbatch_word("output", &s.output)?;
    check_runnable("command", &s.command, 4000)?;
    if s.command.trim().is_empty() {
        return Err(
            InputError::new("command", "is empty", "the training command").said(
                Message::new("error.emptyCommand"),
                Some(Message::new("allowed.trainingCommand")),
            ),
        );
    }
    // Each resource named on its own: `--gpus 0` is about the GPUs.
    for (field, value, max) in [
        ("gpus", s.gpus, 16u32),
        ("cpus", s.cpus, 256),
        ("mem_gb", s.mem_gb, 4096),
    ] {
        if !(1..=max).contains(&value) {
            return Err(InputError::new(
                field,
                format!("{value} is out of range"),
                format!("a number from 1 to {max}"),
            )
            .said(
                Message::new("error.outOfRange").with("value", value),
                Some(
                    Message::new("allowed.between")
                        .with("min", 1)
                        .with("max", max),
                ),
            ));
        }
    }
    check_text("plan", &s.plan, 200)?;
    sbatch_word("platform", &s.platform)
}

/// The `#SBATCH` lines, with a walltime of `limit` seconds.
fn sbatch_header(s: &SlurmSpec, limit: u64) -> String {
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
        let _ = writeln!(o, "#SBATCH --signal=B:USR1@{REQUEUE_LEAD_SECONDS}");
        let _ = writeln!(o, "#SBATCH --requeue");
        let _ = writeln!(o, "#SBATCH --open-mode=append");
    }
    let _ = writeln!(
        o,
        "# Generated by gpuplan. Submit with: sbatch {}.sbatch",
        s.job_name
    );
    let _ = writeln!(o, "set -u");
    o
}

/// Keeps the environment the job is to start with (the kit's `run_job`
/// restores it): the script's own variables stay the script's.
const JOB_ENV_CAPTURE: &str =
    "# The environment the job is started with: this script's own variables\n\
# (JOB_NAME, RUN_ID, START_EPOCH...) may share a name with one the job\n\
# reads, and an exported one would reach it changed.\n\
GPUPLAN_JOB_ENV=$(export -p)\n";

/// The lines that activate each `conda:ENV` or `module:NAME`, quoted.
fn activate(list: &[String]) -> Result<String, InputError> {
    let mut o = String::new();
    for a in list {
        check_runnable("activate", a, 200)?;
        match a.split_once(':') {
            // An empty name would write `conda activate ''`.
            Some(("conda", env)) if !env.trim().is_empty() => {
                let _ = writeln!(
                    o,
                    "source \"$(conda info --base)/etc/profile.d/conda.sh\"\nconda activate {}",
                    shell_quote(env)
                );
            }
            Some(("module", name)) if !name.trim().is_empty() => {
                let _ = writeln!(o, "module load {}", shell_quote(name));
            }
            _ => {
                return Err(InputError::new(
                    "activate",
                    format!("`{a}` is not conda:ENV or module:NAME"),
                    "conda:ENV or module:NAME",
                )
                .said(
                    Message::new("error.activate").with("value", crate::error::short(a)),
                    Some(Message::new("allowed.activate")),
                ))
            }
        }
    }
    Ok(o)
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
        .said(
            Message::new("error.pythonVersion").with("value", crate::error::short(python_version)),
            Some(Message::new("allowed.pythonVersion")),
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
    let text = render(
        include_str!("../templates/offline-install.bash"),
        &[("PYTHON", &tag)],
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
/// Where a resumable template's checkpoint interval came from, which its
/// header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalSource {
    /// The default (or `--every`).
    Chosen,
    /// The plan's spot checkpoint interval, as its quote assumed it.
    SpotPlan,
}

/// The resumable training template: a checkpoint every `every_epochs` of
/// `epochs`.
pub fn resume_template(
    every_epochs: u32,
    epochs: u32,
    source: IntervalSource,
) -> Result<Script, InputError> {
    if !(1..=1000).contains(&every_epochs) {
        return Err(InputError::new(
            "checkpoint_every",
            format!("{every_epochs} is out of range"),
            "1 to 1000 epochs",
        )
        .said(
            Message::new("error.outOfRange").with("value", every_epochs),
            Some(
                Message::new("allowed.whole")
                    .with("min", 1)
                    .with("max", 1000),
            ),
        ));
    }
    let (why_zh, why_en) = match source {
        IntervalSource::SpotPlan => (
            "与计划的抢占式报价假设的间隔相同",
            "the interval the plan's spot quote assumed",
        ),
        IntervalSource::Chosen => (
            "默认间隔，可用 --every 修改",
            "the default; --every sets another",
        ),
    };
    let text = render(
        include_str!("../templates/train_resumable.py"),
        &[
            ("EVERY", &every_epochs.to_string()),
            ("EPOCHS", &epochs.clamp(1, 100_000).to_string()),
            ("WHY_ZH", why_zh),
            ("WHY_EN", why_en),
        ],
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
    // Certifying and topping up are for the clouds that bill a balance; a
    // free notebook or a campus cluster has neither.
    let bills_a_balance = matches!(
        p.kind,
        PlatformKind::ContainerCloud | PlatformKind::Marketplace
    );
    // Certifying first pays only where the profile records a student
    // discount or credit (or a newcomer coupon); elsewhere (Vast.ai) the
    // advice is the small top-up alone.
    let student_pays = p.student.discount.value < rust_decimal::Decimal::ONE
        || !p.student.free_credit.value.is_zero()
        || p.student
            .newcomer_credit
            .as_ref()
            .is_some_and(|c| !c.value.is_zero());
    let mut items = Vec::new();
    if bills_a_balance {
        items.push(Message::new(if student_pays {
            "checklist.certify"
        } else {
            "checklist.top-up-small"
        }));
    }
    match p.kind {
        PlatformKind::ContainerCloud | PlatformKind::Marketplace => {
            items.push(Message::new("checklist.debug-cheap"));
            items.push(Message::new("checklist.shutdown-wrapper"));
            let spot_cannot_stop =
                q.is_some_and(|q| q.spot.is_some()) && p.lifecycle.spot_only_released();
            if spot_cannot_stop {
                // Nothing to stop: a spot instance here is only released.
                items.push(Message::new("checklist.spot-release"));
            } else if p.billing.stop_ends_gpu_billing.value {
                items.push(Message::new("checklist.release"));
            } else {
                items.push(Message::new("checklist.stop-and-release"));
            }
        }
        PlatformKind::HostedNotebook => items.push(Message::new("checklist.session-checkpoints")),
        PlatformKind::CampusHpc => items.push(Message::new("checklist.campus")),
    }
    // The scripts are Linux files written on the student's own computer,
    // often Windows: how to get them onto the machine unchanged.
    if p.kind != PlatformKind::HostedNotebook {
        items.push(Message::new("checklist.copy-scripts"));
    }
    if let Some(days) = &p.lifecycle.release_after_stopped_days {
        // Where the deadline keeps the data disk (优云智算), the data is not
        // lost: the disk is, and it keeps billing.
        let key = if p
            .lifecycle
            .deadline_keeps_data_disk
            .as_ref()
            .is_some_and(|f| f.value)
        {
            "checklist.release-deadline-keeps-disk"
        } else {
            "checklist.release-deadline"
        };
        items.push(Message::new(key).with("days", days.value));
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
    // A free notebook sends no bill to record.
    if p.kind != PlatformKind::HostedNotebook {
        items.push(Message::new("checklist.ledger"));
    }
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
    crate::parallel::check_node_split(s.gpus)?;
    check_runnable("command", &s.command, 4000)?;
    if s.command.trim().is_empty() {
        return Err(
            InputError::new("command", "is empty", "the training command").said(
                Message::new("error.emptyCommand"),
                Some(Message::new("allowed.trainingCommand")),
            ),
        );
    }
    sbatch_job_name(&s.job_name)?;
    if s.gpus < 2 || s.gpus > crate::parallel::MAX_GPUS {
        return Err(InputError::new(
            "gpus",
            format!("{} GPUs need no launcher", s.gpus),
            format!("2 to {}", crate::parallel::MAX_GPUS),
        )
        .said(
            Message::new("error.launcherGpus").with("gpus", s.gpus),
            Some(
                Message::new("allowed.whole")
                    .with("min", 2)
                    .with("max", crate::parallel::MAX_GPUS),
            ),
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
            | crate::parallel::Engine::Hsdp
    ) {
        let _ = writeln!(
            o,
            "# Plain PyTorch (DDP/FSDP in the script): torchrun starts one process per GPU."
        );
        let _ = writeln!(o, "# With the Hugging Face Trainer, use gpuplan-accelerate.yaml: accelerate launch --config_file gpuplan-accelerate.yaml --no_python bash -o pipefail -c \"$TRAIN_COMMAND\"");
        let _ = writeln!(o, "torchrun --standalone --nproc_per_node={per_node} --no-python bash -o pipefail -c \"$TRAIN_COMMAND\"");
    } else {
        let _ = writeln!(o, "# DeepSpeed through Accelerate (gpuplan-accelerate.yaml names gpuplan-deepspeed.json).");
        let _ = writeln!(o, "accelerate launch --config_file gpuplan-accelerate.yaml --no_python bash -o pipefail -c \"$TRAIN_COMMAND\"");
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
        Engine::Hsdp => "FSDP hybrid shard (HSDP)",
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
        Engine::FsdpFull | Engine::FsdpGradOp | Engine::Hsdp => "FSDP",
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
        Engine::FsdpFull | Engine::FsdpGradOp | Engine::Hsdp => {
            let _ = writeln!(o, "fsdp_config:");
            let _ = writeln!(o, "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP");
            let _ = writeln!(o, "  fsdp_backward_prefetch: BACKWARD_PRE");
            let _ = writeln!(o, "  fsdp_cpu_ram_efficient_loading: true");
            let _ = writeln!(o, "  fsdp_forward_prefetch: false");
            let _ = writeln!(o, "  fsdp_offload_params: {}", s.offload);
            let _ = writeln!(
                o,
                "  fsdp_sharding_strategy: {}",
                match s.engine {
                    Engine::FsdpFull => "FULL_SHARD",
                    // Shards within each node, replicas across nodes.
                    Engine::Hsdp => "HYBRID_SHARD",
                    _ => "SHARD_GRAD_OP",
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
            )
            .said(
                Message::new("error.deepspeedEngine"),
                Some(Message::new("allowed.zeroStages")),
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
    cap_hours: Option<f64>,
) -> Result<Script, InputError> {
    check_launch(s)?;
    // The cluster's walltime cap holds here as for one GPU.
    let (limit, notes) = capped_walltime(hours, cap_hours, "note.walltime-capped-multigpu");
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
    let _ = writeln!(o, "#SBATCH --time={}", walltime(limit));
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
  --no-python bash -o pipefail -c "$TRAIN_COMMAND"
"#,
    );
    Ok(Script {
        file_name: "gpuplan-multigpu.sbatch".into(),
        text: o,
        notes,
    })
}
