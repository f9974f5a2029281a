//! Corrections learnt from measured runs: the student's own (run reports
//! imported into the ledger) and a class's (measured runs a course pack
//! carries).
//!
//! Every run is compared with the estimator's own, uncalibrated answer for
//! the same job, card and host, as a log ratio `ln(measured / estimated)`,
//! once for the whole run's time and once for peak memory. A correction is
//! the posterior mean of those ratios under a normal prior centred on "the
//! estimator is right" (`ln 1 = 0`, standard deviation [`PRIOR_SD`]) with
//! run-to-run noise that starts at [`NOISE_SD`] and is learnt from the runs'
//! own spread as they accumulate, so one run moves the estimate part of the
//! way and many runs move it all the way. A correction is applied only when
//! the runs make it 95% sure the estimate is off: runs that agree with the
//! estimate within their noise change nothing. The answer always says what
//! was applied and from how many runs, so a calibration is never silent.
//!
//! Which runs count: same model family and mode. Time depends on the card,
//! so runs on the same card count fully and runs on other cards at
//! [`OTHER_CARD_WEIGHT`] (a slow data loader or a heavy evaluation is the
//! student's code on any card). Memory does not depend on the card, so every
//! card counts fully. A classmate's run counts at [`CLASS_WEIGHT`] of the
//! student's own: same course, different code.
//!
//! No file can bend an estimate far. Every run is one run: a run's identity
//! is the digest of its content ([`MeasuredRun::identity`]), so the same
//! run imported twice, handed in twice or handed back in a course pack
//! counts once ([`distinct`]), and a pack repeating a run is refused. The
//! fit is robust (each log ratio winsorised to ±ln 2, then a Huber
//! estimate of the centre, so one far-off run is down-weighted), and what
//! any set of runs may apply is capped: one run moves an estimate by at
//! most [`PER_RUN_LOG`] (about one honest run's noise, 15%), each further
//! run by as much again, up to ×0.67..×1.5 ([`CAP_LOG`]); only three or
//! more runs that agree within their noise may move it to ×0.5..×2
//! ([`WIDE_CAP_LOG`]).
//!
//! A run may come in parts (a Slurm job requeued at its walltime, a job
//! resumed from a checkpoint): [`join_parts`] joins the parts of one run id
//! into one run; a run missing a part never teaches time.
//!
//! Memory is compared like for like: a report's per-GPU process memory
//! (nvidia-smi) with the per-GPU estimate of the same layout, PyTorch's
//! live tensors with the estimate's live tensors (no CUDA context, no
//! allocator reserve), and a first-version report's figure (a sum over
//! GPUs that does not say who measured it) not at all.
//!
//! The core stays pure: the caller hands in the measured runs and computes
//! nothing here that needs a clock or a file. The estimator's answer for a
//! run comes from [`crate::estimate::expected_on`]; this module only learns
//! from the comparison, so the estimator can take its corrections without a
//! loop between the two.

use serde::{Deserialize, Serialize};

use crate::catalog::GpuCatalog;
use crate::error::{InputError, Said};
use crate::job::{JobSpec, Mode};
use crate::message::Message;
use crate::zoo::ModelZoo;

/// Schema of a file of measured runs a student hands to the instructor.
pub const MEASURED_RUNS_SCHEMA: &str = "gpuplan-measured-runs/2";
/// The first version (no memory kind, no parts), still read.
pub const MEASURED_RUNS_SCHEMA_V1: &str = "gpuplan-measured-runs/1";
/// Prior standard deviation of a log correction: the estimator's error
/// across cards and families is about ±12% at the median and rarely past
/// ±30% (docs/accuracy.md), so 0.25 in log units.
pub const PRIOR_SD: f64 = 0.25;
/// Run-to-run noise of one measured run in log units: the same job timed
/// twice on rented machines differs by several percent (host load, disk
/// cache, clocks), and a student's run is not exactly the planned job.
pub const NOISE_SD: f64 = 0.20;
/// How many runs the prior noise is worth against the runs' own spread.
const NOISE_PRIOR_RUNS: f64 = 4.0;
/// Weight of a run on another card, for time.
pub const OTHER_CARD_WEIGHT: f64 = 0.3;
/// Weight of a classmate's run.
pub const CLASS_WEIGHT: f64 = 0.5;
/// z of the two-sided 90% interval shown.
const Z90: f64 = 1.645;
/// z a correction must clear to be applied: 95% sure the estimate is off,
/// so an estimate that is already right is rarely moved by noise.
const Z_APPLY: f64 = 1.96;
/// A ratio beyond this (either way) says the report does not describe the
/// planned job (another command was wrapped, the run was resumed, a far
/// larger dataset), so the run is left out rather than trusted.
const MAX_RATIO: f64 = 10.0;
/// What one run may say, in log units, before the robust fit: a run 3×
/// off counts as one 2× off (the estimator's own error is rarely past ±30%).
const WINSOR_LOG: f64 = std::f64::consts::LN_2;
/// Huber's tuning constant, in units of the run noise: a run further than
/// this from the centre is down-weighted (95% efficient for normal noise).
const HUBER_K: f64 = 1.5;
/// How far one run may move an estimate, log units: ln 1.15, about one
/// honest run's noise. Each further run (at its weight) adds as much.
pub const PER_RUN_LOG: f64 = 0.1398;
/// The most any set of runs may apply, log units: ×0.67..×1.5.
pub const CAP_LOG: f64 = 0.4055;
/// The most runs that agree may apply, log units: ×0.5..×2.
pub const WIDE_CAP_LOG: f64 = std::f64::consts::LN_2;
/// Runs needed (at full weight) before [`WIDE_CAP_LOG`] can apply.
const WIDE_AFTER_RUNS: f64 = 3.0;
/// Runs agree when their spread is within this many times [`NOISE_SD`].
const AGREE_SPREAD: f64 = 1.25;
/// Most measured runs one file or pack may carry (a 100-student course with
/// a few runs each, with room).
pub const MAX_MEASURED_RUNS: usize = 2000;
/// Longest run a measured run may describe, seconds (ten years, as a plan).
const MAX_WALL_SECONDS: u64 = 10 * 365 * 24 * 3600;
/// Largest peak memory, MiB (1 TiB).
const MAX_MEMORY_MIB: u64 = 1_048_576;

/// One measured run, anonymised: the job as planned, the card and platform
/// it ran on, and what was measured. No names, paths or host names; this is
/// what a student hands in and a course pack carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MeasuredRun {
    /// The job as the plan described it.
    pub job: JobSpec,
    /// Catalog id of the card it ran on.
    pub gpu: String,
    /// Platform id (its host times the input pipeline).
    pub platform: String,
    /// Wall time of the job, seconds.
    pub wall_seconds: u64,
    /// Peak GPU memory of the job's processes, MiB.
    pub peak_memory_mib: Option<u64>,
    /// Whether the job exited with status 0.
    pub completed: bool,
    /// When the run started (`YYYY-MM-DDTHH:MM:SS+hhmm`, from its report):
    /// tells a run handed in twice from two runs that measured the same.
    /// Empty in files that do not say.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub started_at: String,
    /// What `peak_memory_mib` measured (absent in files of the first
    /// version: not comparable).
    #[serde(default, skip_serializing_if = "MeasuredMemory::is_unknown")]
    pub memory: MeasuredMemory,
    /// The run the report was part of (parts of one run share it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// 0: a whole run (its parts joined, or never split); k: part k alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub part: u32,
    /// This part ended to be resumed (more parts follow), or before its
    /// plan's last epoch: alone it teaches no time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requeued: bool,
    /// How many parts a whole run was joined from.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub parts: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// What a measured run's memory figure is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum MeasuredMemory {
    /// Not known which (first-version files): never compared.
    #[default]
    Unknown,
    /// The largest GPU's process memory (nvidia-smi), per GPU.
    Process,
    /// PyTorch's peak of live tensors (`max_memory_allocated`).
    LiveTensors,
}

impl MeasuredMemory {
    fn is_unknown(&self) -> bool {
        *self == Self::Unknown
    }
}

impl Default for MeasuredRun {
    /// A whole run of the default job, nothing measured (tests and
    /// builders fill in what they measured).
    fn default() -> Self {
        Self {
            job: JobSpec::default(),
            gpu: String::new(),
            platform: String::new(),
            wall_seconds: 1,
            peak_memory_mib: None,
            completed: true,
            started_at: String::new(),
            memory: MeasuredMemory::Unknown,
            run_id: String::new(),
            part: 0,
            requeued: false,
            parts: 1,
        }
    }
}

impl MeasuredRun {
    /// The run's identity: a digest of what was measured (the job, card,
    /// platform, start, wall time, memory, parts), the same wherever the
    /// run travels (a student's ledger, a hand-in file, a course pack).
    /// The run id is left out: it only joins parts, and a copy of one run
    /// under five ids must count once, not five times.
    pub fn identity(&self) -> String {
        crate::digest::of_json(&MeasuredRun {
            run_id: String::new(),
            started_at: crate::report::instant(&self.started_at),
            ..self.clone()
        })
    }

    /// Whether this is a whole run (not one part of a run missing others).
    pub fn is_whole(&self) -> bool {
        self.part == 0
    }
}

/// Joins the parts of each run (same `run_id`, parts numbered 1..) into one
/// whole run: the wall times added, the largest memory, completed when the
/// last part completed and did not ask to be resumed (the parts before it
/// were stopped to be resumed, by Slurm or by hand). Parts of a run
/// that is not all here (a part missing, or the last still requeued) stay
/// as they are: they can teach memory, never time. Runs that are not parts
/// pass through; the order of first appearance is kept.
pub fn join_parts(runs: Vec<MeasuredRun>) -> Vec<MeasuredRun> {
    let mut out: Vec<MeasuredRun> = Vec::with_capacity(runs.len());
    let mut groups: std::collections::BTreeMap<String, Vec<MeasuredRun>> = Default::default();
    let mut order: Vec<String> = Vec::new();
    for r in runs {
        if r.part == 0 || r.run_id.is_empty() {
            out.push(r);
            continue;
        }
        // A run id names one run of one job on one card: job ids repeat
        // across clusters, so the job and card are part of the key.
        let key = format!(
            "{}\u{0}{}\u{0}{}",
            r.run_id,
            r.gpu,
            crate::digest::of_json(&r.job)
        );
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    for id in order {
        let Some(mut parts) = groups.remove(&id) else {
            continue;
        };
        // Two parts of one number (a part imported from two places, or two
        // runs under one id) cannot be joined: they stay parts.
        parts.sort_by_key(|p| p.part);
        match join(&parts) {
            Some(whole) => out.push(whole),
            None => out.extend(parts),
        }
    }
    out
}

/// The whole run of `parts` (sorted, one per number), if they are all here.
fn join(parts: &[MeasuredRun]) -> Option<MeasuredRun> {
    let first = parts.first()?;
    let last = parts.last()?;
    let numbered = parts
        .iter()
        .enumerate()
        .all(|(i, p)| usize::try_from(p.part).ok() == i.checked_add(1));
    let same_job = parts
        .iter()
        .all(|p| p.job == first.job && p.gpu == first.gpu && p.memory == first.memory);
    if !numbered || !same_job || last.requeued {
        return None;
    }
    let wall = parts
        .iter()
        .try_fold(0u64, |t, p| t.checked_add(p.wall_seconds))?;
    Some(MeasuredRun {
        wall_seconds: wall,
        peak_memory_mib: parts.iter().filter_map(|p| p.peak_memory_mib).max(),
        // Every part before the last ended to be resumed (requeued, or
        // stopped by hand and started again as the next part): the run
        // completed when its last part did.
        completed: last.completed,
        part: 0,
        requeued: false,
        parts: u32::try_from(parts.len()).ok()?,
        ..first.clone()
    })
}

/// Each run once: the student's own runs first, then the class's that are
/// not one of them (a run handed in and handed back in the course pack is
/// the student's), then no run twice ([`Seen`]).
pub fn distinct(own: Vec<MeasuredRun>, class: Vec<MeasuredRun>) -> Vec<(MeasuredRun, Source)> {
    let mut seen = Seen::default();
    own.into_iter()
        .map(|r| (r, Source::Own))
        .chain(class.into_iter().map(|r| (r, Source::Class)))
        .filter(|(r, _)| seen.first(r))
        .collect()
}

/// Each run once ([`Seen`]): what an instructor's pack keeps of runs handed
/// in more than once. Runs that state their start time come first (in the
/// order given), so a run handed in both with and without one keeps it.
pub fn unique(runs: Vec<MeasuredRun>) -> Vec<MeasuredRun> {
    let mut seen = Seen::default();
    let (dated, undated): (Vec<_>, Vec<_>) = runs.into_iter().partition(MeasuredRun::is_dated);
    dated
        .into_iter()
        .chain(undated)
        .filter(|r| seen.first(r))
        .collect()
}

impl MeasuredRun {
    /// Whether the run states when it started.
    fn is_dated(&self) -> bool {
        !self.started_at.trim().is_empty()
    }

    /// What identifies a run whatever file it came from: its identity
    /// without the start time and the memory figures, which files of the
    /// first version (and runs stored from them) lack or carry differently.
    fn loose_identity(&self) -> String {
        MeasuredRun {
            started_at: String::new(),
            peak_memory_mib: None,
            memory: MeasuredMemory::Unknown,
            ..self.clone()
        }
        .identity()
    }
}

/// The runs kept so far. A start time tells two runs that measured the
/// same apart; a run that states none (a first-version report, or a run
/// stored from one) cannot be told from a kept run that measured the same,
/// so it is that run: counting it again would teach one run twice. Each
/// undated run stands for one dated run at most.
#[derive(Default)]
struct Seen {
    /// Identities of the kept runs.
    exact: std::collections::BTreeSet<String>,
    /// Loose identities of the kept runs.
    loose: std::collections::BTreeSet<String>,
    /// Loose identities of kept undated runs that no dated run was found
    /// to be yet.
    unclaimed: std::collections::BTreeSet<String>,
}

impl Seen {
    /// Whether `r` is a run not kept yet (and keeps it).
    fn first(&mut self, r: &MeasuredRun) -> bool {
        let loose = r.loose_identity();
        if r.is_dated() {
            if !self.exact.insert(r.identity()) {
                return false;
            }
            self.loose.insert(loose.clone());
            // An undated copy kept earlier was this run: it stays and
            // stands for no other.
            !self.unclaimed.remove(&loose)
        } else {
            if !self.loose.insert(loose.clone()) {
                return false;
            }
            self.exact.insert(r.identity());
            self.unclaimed.insert(loose);
            true
        }
    }
}

/// A file of measured runs (`gpuplan ledger runs --export`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredRunFile {
    /// Always [`MEASURED_RUNS_SCHEMA`].
    pub schema: String,
    /// The runs.
    pub runs: Vec<MeasuredRun>,
}

impl MeasuredRun {
    /// Checks a run from a file or a pack: the card and model are known, the
    /// job resolves, the numbers are in range. `at` names it in errors
    /// (`measured_runs[3]`).
    pub fn check(&self, at: &str, catalog: &GpuCatalog, zoo: &ModelZoo) -> Result<(), InputError> {
        let field = |f: &str| format!("{at}.{f}");
        catalog.get(&self.gpu).map_err(|e| InputError {
            field: field("gpu"),
            ..e
        })?;
        let model = self.job.model.as_deref().ok_or_else(|| {
            InputError::new(
                &field("job.model"),
                "a measured run names its model",
                "a zoo id",
            )
            .said(
                Message::new("error.noModel"),
                Some(Message::new("allowed.zooId")),
            )
        })?;
        let entry = zoo.get(model).map_err(|e| InputError {
            field: field("job.model"),
            ..e
        })?;
        self.job.resolve(entry).map_err(|e| InputError {
            field: field(&format!("job.{}", e.field)),
            ..e
        })?;
        let started =
            (!self.started_at.is_empty()).then(|| crate::report::parse_time(&self.started_at));
        if started.is_some_and(|t| {
            t.map_or(true, |t| {
                use chrono::Datelike;
                !crate::report::YEARS.contains(&t.year())
            })
        }) {
            return Err(InputError::new(
                &field("started_at"),
                "not a time like 2026-11-30T14:05:00+0800 from 2000 to 2100",
                "the start time of the run's report, or nothing",
            )
            .said(
                Message::new("error.report.time")
                    .with("value", crate::error::short(&self.started_at)),
                Some(Message::new("allowed.reportStart")),
            ));
        }
        if self.platform.chars().count() > 100 || self.platform.chars().any(char::is_control) {
            return Err(InputError::new(
                &field("platform"),
                "too long or has control characters",
                "a platform id",
            )
            .said(Message::new("error.oneLineText").with("max", 100), None));
        }
        if self.wall_seconds == 0 || self.wall_seconds > MAX_WALL_SECONDS {
            return Err(InputError::new(
                &field("wall_seconds"),
                format!("{} is out of range", self.wall_seconds),
                "1 second to ten years",
            )
            .said(
                Message::new("error.outOfRange").with("value", self.wall_seconds),
                Some(Message::new("allowed.wallSeconds")),
            ));
        }
        if self.run_id.chars().count() > 100 || self.run_id.chars().any(char::is_control) {
            return Err(InputError::new(
                &field("run_id"),
                "too long or has control characters",
                "the run id of its report",
            )
            .said(Message::new("error.oneLineText").with("max", 100), None));
        }
        let max_parts = crate::report::MAX_PARTS;
        if self.part > max_parts || self.parts == 0 || self.parts > max_parts {
            return Err(InputError::new(
                &field("parts"),
                "out of range",
                format!("part 0 to {max_parts}, parts 1 to {max_parts}"),
            )
            .said(
                Message::new("error.outOfRange")
                    .with("value", format!("{}/{}", self.part, self.parts)),
                Some(Message::new("allowed.parts").with("max", max_parts)),
            ));
        }
        if self
            .peak_memory_mib
            .is_some_and(|m| m == 0 || m > MAX_MEMORY_MIB)
        {
            return Err(InputError::new(
                &field("peak_memory_mib"),
                "out of range",
                "1 MiB to 1 TiB",
            )
            .said(Message::new("error.report.memory"), None));
        }
        Ok(())
    }
}

impl MeasuredRunFile {
    /// Parses and checks a file of measured runs (`file` names it).
    pub fn from_json(
        file: &str,
        text: &str,
        catalog: &GpuCatalog,
        zoo: &ModelZoo,
    ) -> Result<Self, InputError> {
        let f: MeasuredRunFile = serde_json::from_str(text).map_err(|e| {
            let allowed = (
                format!("a {MEASURED_RUNS_SCHEMA} file from `gpuplan ledger runs`"),
                Message::new("allowed.measuredRuns").with("schema", MEASURED_RUNS_SCHEMA),
            );
            let e = InputError::not_json_text("measured_runs", text, &e, allowed);
            // The file it came from, before the message (the catalog's
            // `error.inFile`) and in the English text for logs.
            let said = e.said.map(|s| {
                Box::new(Said {
                    message: s.message.with("file", file),
                    ..*s
                })
            });
            InputError {
                message: format!("{file}: {}", e.message),
                said,
                ..e
            }
        })?;
        if f.schema != MEASURED_RUNS_SCHEMA && f.schema != MEASURED_RUNS_SCHEMA_V1 {
            return Err(InputError::new(
                "schema",
                format!("{file} is not a {MEASURED_RUNS_SCHEMA} file"),
                MEASURED_RUNS_SCHEMA,
            )
            .said(
                Message::new("error.notMeasuredRuns")
                    .with("file", crate::error::short(file))
                    .with("schema", MEASURED_RUNS_SCHEMA),
                Some(Message::new("allowed.measuredRuns").with("schema", MEASURED_RUNS_SCHEMA)),
            ));
        }
        check_runs("runs", &f.runs, catalog, zoo)?;
        Ok(f)
    }
}

/// Checks a list of measured runs (a file's or a pack's): at most
/// [`MAX_MEASURED_RUNS`], each valid.
pub fn check_runs(
    field: &str,
    runs: &[MeasuredRun],
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<(), InputError> {
    if runs.len() > MAX_MEASURED_RUNS {
        return Err(InputError::new(
            field,
            format!("{} measured runs", runs.len()),
            format!("at most {MAX_MEASURED_RUNS}"),
        )
        .said(
            Message::new("error.tooManyMeasuredRuns").with("count", runs.len()),
            Some(Message::new("allowed.atMost").with("max", MAX_MEASURED_RUNS)),
        ));
    }
    let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, r) in runs.iter().enumerate() {
        r.check(&format!("{field}[{i}]"), catalog, zoo)?;
        if let Some(j) = seen.insert(r.identity(), i) {
            return Err(InputError::new(
                &format!("{field}[{i}]"),
                format!("the same run as {field}[{j}]: a run counts once"),
                "each measured run once",
            )
            .said(
                Message::new("error.runTwice").with("first", format!("{field}[{j}]")),
                Some(Message::new("allowed.eachRunOnce")),
            ));
        }
    }
    Ok(())
}

/// Whose run it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Source {
    /// The student's own, from the ledger.
    Own,
    /// A classmate's, from the course pack.
    Class,
}

/// One measured run against the estimator's uncalibrated answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Model family.
    pub family: crate::zoo::ModelFamily,
    /// Card id.
    pub gpu: String,
    /// Mode.
    pub mode: Mode,
    /// Whose run.
    pub source: Source,
    /// `ln(measured / estimated)` of the whole run's time (completed runs).
    pub time_log_ratio: Option<f64>,
    /// `ln(measured / estimated)` of peak memory.
    pub memory_log_ratio: Option<f64>,
    /// Memory of the card the run measured on, MiB: a run shows the job
    /// fits a card that size, not a smaller one.
    pub card_mib: f64,
    /// Its time and memory were both off the estimate the same way, as
    /// another batch or sequence length would be: set aside, it teaches
    /// nothing ([`another_job`]).
    pub another_job: bool,
}

fn log_ratio(measured: f64, estimated: f64) -> Option<f64> {
    if !(measured.is_finite() && estimated.is_finite() && measured > 0.0 && estimated > 0.0) {
        return None;
    }
    let r = measured / estimated;
    (1.0 / MAX_RATIO..=MAX_RATIO).contains(&r).then(|| r.ln())
}

/// The estimator's own (uncalibrated) answer for a measured run's job on its
/// card: the whole run's seconds (when the dataset size is known) and the
/// peak process memory, bytes ([`crate::estimate::expected_on`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expected {
    /// Seconds of the whole run.
    pub run_s: Option<f64>,
    /// Peak process memory of one GPU, bytes.
    pub peak_bytes: f64,
    /// The live tensors at that peak, bytes: what PyTorch's
    /// `max_memory_allocated` measures (no CUDA context, no allocator
    /// reserve).
    pub live_bytes: f64,
    /// Memory of the run's card, MiB.
    pub card_mib: f64,
}

/// A measured run against what the estimator expected of it. Time counts
/// only for a completed run with a known dataset size; memory for a
/// completed run that recorded a peak (a crashed run's peak may be the
/// crash's).
pub fn observe(
    run: &MeasuredRun,
    family: crate::zoo::ModelFamily,
    mode: Mode,
    source: Source,
    expected: Expected,
) -> Observation {
    // A part of a run says nothing of the whole run's time.
    let time = match (expected.run_s, run.completed && run.is_whole()) {
        (Some(s), true) => log_ratio(run.wall_seconds as f64, s),
        _ => None,
    };
    let against = match run.memory {
        MeasuredMemory::Process => Some(expected.peak_bytes),
        MeasuredMemory::LiveTensors => Some(expected.live_bytes),
        MeasuredMemory::Unknown => None,
    };
    let memory = match (run.peak_memory_mib, against, run.completed) {
        (Some(m), Some(e), true) => log_ratio(m as f64 * crate::vocab::MIB, e),
        _ => None,
    };
    // Memory and time off together, the same way, is another job (a
    // different batch or sequence length), as the ledger's plan-versus-
    // actual says (`crate::versus`): it teaches this job nothing.
    let set_aside = another_job(time, memory);
    let (time, memory) = if set_aside {
        (None, None)
    } else {
        (time, memory)
    };
    Observation {
        family,
        gpu: run.gpu.clone(),
        mode,
        source,
        time_log_ratio: time,
        memory_log_ratio: memory,
        card_mib: expected.card_mib,
        another_job: set_aside,
    }
}

/// Whether a run's time and memory are both off its estimate, the same
/// way, by more than any set of runs may ever correct ([`CAP_LOG`]: ×1.5
/// or ×0.67). A different batch or sequence length moves both together
/// (the ledger's plan-versus-actual names it from a quarter off); the
/// memory estimate is within a few percent on the jobs it was checked on,
/// so both this far off say the run was not the job it is filed under,
/// while an honest run off by less in both still teaches both.
fn another_job(time: Option<f64>, memory: Option<f64>) -> bool {
    let (Some(t), Some(m)) = (time, memory) else {
        return false;
    };
    (t >= CAP_LOG && m >= CAP_LOG) || (t <= -CAP_LOG && m <= -CAP_LOG)
}

/// One learnt factor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Factor {
    /// What the runs say: measured / estimated, shrunk toward 1.
    pub measured: f64,
    /// Lower end of its 90% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// The factor applied to the estimate: `measured` when the interval
    /// excludes 1 (within the cap), else 1.
    pub applied: f64,
    /// The runs said more than the cap lets them apply ([`cap_log`]).
    pub capped: bool,
}

impl Factor {
    /// Whether the estimate was changed.
    pub fn is_applied(&self) -> bool {
        self.applied != 1.0
    }
}

/// What calibration did to one estimate, for the answer to say.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Calibration {
    /// The student's own runs that informed it.
    pub own_runs: u32,
    /// Classmates' runs (from the course pack) that informed it.
    pub class_runs: u32,
    /// Of those runs (own and class), the ones on the target card: runs on
    /// other cards count for time at [`OTHER_CARD_WEIGHT`].
    pub on_card_runs: u32,
    /// Time factor on the target card.
    pub time: Option<Factor>,
    /// Memory factor.
    pub memory: Option<Factor>,
    /// The smallest card, MiB, on which a run that taught memory ran: a
    /// memory correction below 1 may let a job fit a card this size or
    /// larger, never a smaller one no run was seen on.
    pub memory_evidence_mib: Option<f64>,
}

impl Calibration {
    /// The time factor applied (1 when none).
    pub fn time_factor(&self) -> f64 {
        self.time.map_or(1.0, |f| f.applied)
    }

    /// The memory factor applied (1 when none).
    pub fn memory_factor(&self) -> f64 {
        self.memory.map_or(1.0, |f| f.applied)
    }
}

/// The measured runs an estimate may learn from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Corrections {
    observations: Vec<Observation>,
}

/// Posterior of weighted log ratios; `None` without weight.
///
/// Robust: each ratio is winsorised to ±[`WINSOR_LOG`], the centre is a
/// Huber estimate (a run far from the others counts less), and what is
/// applied is capped by [`cap_log`]: a set of runs can never move an
/// estimate further than that, whatever they say.
fn posterior(points: &[(f64, f64)]) -> Option<Factor> {
    let w: f64 = points.iter().map(|(_, w)| w).sum();
    if w <= 0.0 {
        return None;
    }
    let ys: Vec<(f64, f64)> = points
        .iter()
        .map(|(y, wi)| (y.clamp(-WINSOR_LOG, WINSOR_LOG), *wi))
        .collect();
    let (centre, robust_w) = huber_centre(&ys);
    // The noise is learnt too (the conjugate update of a scaled inverse
    // chi-square prior): it starts at NOISE_SD, worth NOISE_PRIOR_RUNS runs,
    // and moves toward the runs' own spread as they accumulate, so quiet runs
    // earn a narrower interval and noisy ones a wider one.
    let scatter = ys
        .iter()
        .map(|(y, wi)| wi * (y - centre).powi(2))
        .sum::<f64>();
    let dof = (w - 1.0).max(0.0);
    let spread = (scatter / w).sqrt();
    let noise = ((NOISE_PRIOR_RUNS * NOISE_SD.powi(2) + scatter * dof / w.max(1.0))
        / (NOISE_PRIOR_RUNS + dof))
        .sqrt();
    let k = (noise / PRIOR_SD).powi(2);
    let mean = centre * robust_w / (robust_w + k);
    let sd = noise / (robust_w + k).sqrt();
    let bound = cap_log(w, spread, &ys);
    let capped = mean.abs() > bound;
    let applied = if mean.abs() > Z_APPLY * sd {
        mean.clamp(-bound, bound).exp()
    } else {
        1.0
    };
    Some(Factor {
        measured: mean.exp(),
        low: (mean - Z90 * sd).exp(),
        high: (mean + Z90 * sd).exp(),
        applied,
        capped: capped && applied != 1.0,
    })
}

/// Huber's M-estimate of the centre of weighted points (iteratively
/// reweighted), and the total weight the points keep at it.
fn huber_centre(points: &[(f64, f64)]) -> (f64, f64) {
    let w: f64 = points.iter().map(|(_, w)| w).sum();
    let mut centre = points.iter().map(|(y, wi)| y * wi).sum::<f64>() / w;
    let limit = HUBER_K * NOISE_SD;
    let mut kept = w;
    for _ in 0..30 {
        let (mut num, mut den) = (0.0, 0.0);
        for (y, wi) in points {
            let r = (y - centre).abs();
            let h = if r <= limit { 1.0 } else { limit / r };
            num += wi * h * y;
            den += wi * h;
        }
        if den <= 0.0 {
            break;
        }
        let next = num / den;
        kept = den;
        if (next - centre).abs() < 1e-9 {
            centre = next;
            break;
        }
        centre = next;
    }
    (centre, kept)
}

/// The most a set of runs of total weight `w` may apply, log units: one
/// run's worth ([`PER_RUN_LOG`]) per unit of weight, up to [`CAP_LOG`];
/// up to [`WIDE_CAP_LOG`] when three or more runs agree (their spread
/// within [`AGREE_SPREAD`] times the noise, all on one side of 1).
pub fn cap_log(w: f64, spread: f64, points: &[(f64, f64)]) -> f64 {
    let one_side = points.iter().all(|(y, _)| *y > 0.0) || points.iter().all(|(y, _)| *y < 0.0);
    let agree = w >= WIDE_AFTER_RUNS && spread <= AGREE_SPREAD * NOISE_SD && one_side;
    let ceiling = if agree { WIDE_CAP_LOG } else { CAP_LOG };
    (w * PER_RUN_LOG).min(ceiling)
}

fn weight(source: Source) -> f64 {
    match source {
        Source::Own => 1.0,
        Source::Class => CLASS_WEIGHT,
    }
}

impl Corrections {
    /// Corrections from observations.
    pub fn new(observations: Vec<Observation>) -> Self {
        Self { observations }
    }

    /// No corrections (calibration off, or no runs).
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether any run was observed.
    pub fn is_empty(&self) -> bool {
        self.observations.is_empty()
    }

    /// The observations.
    pub fn observations(&self) -> &[Observation] {
        &self.observations
    }

    /// What the runs say about a job of `family` and `mode` on `gpu`;
    /// `None` when no run of that family and mode was measured.
    pub fn for_job(
        &self,
        family: crate::zoo::ModelFamily,
        gpu: &str,
        mode: Mode,
    ) -> Option<Calibration> {
        let same: Vec<&Observation> = self
            .observations
            .iter()
            .filter(|o| o.family == family && o.mode == mode)
            .collect();
        if same.is_empty() {
            return None;
        }
        let time: Vec<(f64, f64)> = same
            .iter()
            .filter_map(|o| {
                let card = if o.gpu == gpu { 1.0 } else { OTHER_CARD_WEIGHT };
                o.time_log_ratio.map(|y| (y, weight(o.source) * card))
            })
            .collect();
        let memory: Vec<(f64, f64)> = same
            .iter()
            .filter_map(|o| o.memory_log_ratio.map(|y| (y, weight(o.source))))
            .collect();
        let count = |s: Source| {
            u32::try_from(
                same.iter()
                    .filter(|o| {
                        o.source == s
                            && (o.time_log_ratio.is_some() || o.memory_log_ratio.is_some())
                    })
                    .count(),
            )
            .unwrap_or(u32::MAX)
        };
        let on_card = same
            .iter()
            .filter(|o| {
                o.gpu == gpu
                    && (o.source == Source::Own || o.source == Source::Class)
                    && (o.time_log_ratio.is_some() || o.memory_log_ratio.is_some())
            })
            .count();
        let c = Calibration {
            own_runs: count(Source::Own),
            class_runs: count(Source::Class),
            on_card_runs: u32::try_from(on_card).unwrap_or(u32::MAX),
            time: posterior(&time),
            memory: posterior(&memory),
            memory_evidence_mib: same
                .iter()
                .filter(|o| o.memory_log_ratio.is_some())
                .map(|o| o.card_mib)
                .reduce(f64::min),
        };
        (c.own_runs > 0 || c.class_runs > 0).then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zoo::ModelFamily;

    fn obs(gpu: &str, source: Source, t: f64, m: Option<f64>) -> Observation {
        Observation {
            family: ModelFamily::Vision,
            gpu: gpu.into(),
            mode: Mode::Train,
            source,
            time_log_ratio: Some(t.ln()),
            memory_log_ratio: m.map(f64::ln),
            card_mib: 24_576.0,
            another_job: false,
        }
    }

    #[test]
    fn a_run_resumed_by_hand_or_by_slurm_is_whole_when_its_last_part_completes() {
        let part = |n: u32, wall: u64, completed: bool, requeued: bool| MeasuredRun {
            job: JobSpec {
                model: Some("resnet50".into()),
                ..JobSpec::default()
            },
            gpu: "rtx3090".into(),
            platform: "autodl".into(),
            wall_seconds: wall,
            peak_memory_mib: Some(9000),
            completed,
            started_at: format!("2026-11-30T1{n}:00:00+0800"),
            memory: MeasuredMemory::Process,
            run_id: "myrun".into(),
            part: n,
            requeued,
            parts: 1,
        };
        // (parts, whole and completed?, why)
        let cases = [
            (
                vec![part(1, 600, false, false), part(2, 900, true, false)],
                Some(true),
                "stopped by hand (exit 143), resumed as part 2, which finished",
            ),
            (
                vec![part(1, 600, false, true), part(2, 900, true, false)],
                Some(true),
                "requeued by Slurm, then finished",
            ),
            (
                vec![part(1, 600, true, true), part(2, 900, false, false)],
                Some(false),
                "the last part failed: the run did not complete",
            ),
            (
                vec![part(1, 600, false, false), part(2, 900, true, true)],
                None,
                "the last part asks to be resumed: not all here",
            ),
            (vec![part(2, 900, true, false)], None, "part 1 missing"),
        ];
        for (parts, want, why) in cases {
            let n = parts.len();
            let joined = join_parts(parts);
            match want {
                Some(completed) => {
                    assert_eq!(joined.len(), 1, "{why}: one run");
                    assert_eq!(joined[0].completed, completed, "{why}");
                    assert_eq!(joined[0].wall_seconds, 1500, "{why}: the parts' time added");
                    assert!(joined[0].is_whole(), "{why}: whole");
                }
                None => {
                    assert_eq!(joined.len(), n, "{why}: the parts stay parts");
                    assert!(
                        joined.iter().all(|r| !r.is_whole()),
                        "{why}: never teaches time"
                    );
                }
            }
        }
    }

    #[test]
    fn one_run_copied_under_other_run_ids_counts_once() {
        let run = MeasuredRun {
            job: JobSpec {
                model: Some("resnet50".into()),
                ..JobSpec::default()
            },
            gpu: "rtx3090".into(),
            platform: "autodl".into(),
            wall_seconds: 3600,
            peak_memory_mib: Some(9000),
            completed: true,
            started_at: "2026-11-30T10:00:00+0800".into(),
            memory: MeasuredMemory::Process,
            run_id: "x0".into(),
            part: 1,
            requeued: false,
            parts: 1,
        };
        let copies: Vec<MeasuredRun> = (0..5)
            .map(|i| MeasuredRun {
                run_id: format!("x{i}"),
                ..run.clone()
            })
            .collect();
        assert_eq!(
            distinct(Vec::new(), copies.clone()).len(),
            1,
            "five ids on one measurement are one run: they cannot unlock what three agreeing runs may do"
        );
        let later = MeasuredRun {
            started_at: "2026-11-30T12:00:00+0800".into(),
            ..run.clone()
        };
        assert_eq!(
            unique(vec![run.clone(), later.clone()]).len(),
            2,
            "another start is another run"
        );
        let undated = MeasuredRun {
            started_at: String::new(),
            ..run.clone()
        };
        // As a first-version report stores it: no start time, and its peak
        // memory of an unknown kind (or none).
        let first_version = MeasuredRun {
            started_at: String::new(),
            peak_memory_mib: None,
            memory: MeasuredMemory::Unknown,
            ..run.clone()
        };
        // (own runs, class runs, runs counted, why)
        let cases = [
            (
                vec![run.clone()],
                vec![undated.clone()],
                1,
                "the student's run handed back without its start time is the student's",
            ),
            (
                vec![undated.clone()],
                vec![run.clone()],
                1,
                "and the other way round",
            ),
            (
                vec![],
                vec![undated.clone(), undated.clone()],
                1,
                "two undated copies are one run",
            ),
            (
                vec![run.clone(), later.clone()],
                vec![undated.clone()],
                2,
                "an undated copy is one of the dated runs, not a third",
            ),
            (
                vec![undated.clone()],
                vec![run.clone(), later.clone()],
                2,
                "an undated run stands for one dated run, not both",
            ),
            (
                vec![run.clone()],
                vec![first_version.clone()],
                1,
                "a first-version copy without its memory figures is the same run",
            ),
            (
                vec![run.clone()],
                vec![later.clone()],
                2,
                "two dated runs that measured the same are two runs",
            ),
        ];
        for (own, class, counted, why) in cases {
            assert_eq!(distinct(own, class).len(), counted, "{why}");
        }
        let kept = unique(vec![first_version.clone(), run.clone()]);
        assert_eq!(
            (kept.len(), kept[0].started_at.as_str()),
            (1, run.started_at.as_str()),
            "a pack keeps the copy that states its start time"
        );
    }

    #[test]
    fn a_run_off_in_time_and_memory_the_same_way_teaches_nothing() {
        let run = MeasuredRun {
            job: JobSpec {
                model: Some("resnet18-cifar".into()),
                ..JobSpec::default()
            },
            gpu: "rtx3090".into(),
            platform: "autodl".into(),
            wall_seconds: 1000,
            peak_memory_mib: Some(2000),
            completed: true,
            started_at: "2026-11-30T10:00:00+0800".into(),
            memory: MeasuredMemory::Process,
            run_id: "r".into(),
            part: 0,
            requeued: false,
            parts: 1,
        };
        let mib = crate::vocab::MIB;
        // (estimated run seconds, estimated peak MiB, learns time, learns
        // memory, why)
        let cases = [
            (1000.0, 2000.0, true, true, "on plan: both are learnt"),
            (
                500.0,
                2000.0,
                true,
                true,
                "only slower: the card or the loader, learnt",
            ),
            (
                1000.0,
                1500.0,
                true,
                true,
                "only more memory (1.33x): learnt",
            ),
            (
                500.0,
                1200.0,
                false,
                false,
                "twice the time and 1.67x the memory: a bigger batch, not this job",
            ),
            (
                700.0,
                1500.0,
                true,
                true,
                "1.43x the time, 1.33x the memory: within what runs may correct, learnt",
            ),
            (
                2000.0,
                4000.0,
                false,
                false,
                "half the time and half the memory: a smaller batch",
            ),
            (
                500.0,
                4000.0,
                true,
                true,
                "slower with less memory: opposite ways, no batch explains it",
            ),
            (
                400.0,
                1340.0,
                true,
                true,
                "2.5x the time, 1.49x the memory: memory a hair within x1.5, learnt",
            ),
        ];
        for (run_s, peak_mib, time, memory, why) in cases {
            let o = observe(
                &run,
                ModelFamily::Vision,
                Mode::Train,
                Source::Own,
                Expected {
                    run_s: Some(run_s),
                    peak_bytes: peak_mib * mib,
                    live_bytes: peak_mib * mib,
                    card_mib: 24_576.0,
                },
            );
            assert_eq!(
                (o.time_log_ratio.is_some(), o.memory_log_ratio.is_some()),
                (time, memory),
                "{why}"
            );
            assert_eq!(o.another_job, !time, "{why}: set aside is said, not silent");
        }
    }

    #[test]
    fn one_run_moves_the_estimate_part_of_the_way_and_many_all_the_way() {
        let one = Corrections::new(vec![obs("rtx4090", Source::Own, 1.5, None)]);
        let f1 = one
            .for_job(ModelFamily::Vision, "rtx4090", Mode::Train)
            .and_then(|c| c.time);
        let f1 = f1.map(|f| f.measured).unwrap_or(0.0);
        assert!(
            f1 > 1.2 && f1 < 1.5,
            "one run 50% slower moves the estimate part of the way: {f1}"
        );
        let many = Corrections::new(
            (0..30)
                .map(|_| obs("rtx4090", Source::Own, 1.5, None))
                .collect(),
        );
        let f = many
            .for_job(ModelFamily::Vision, "rtx4090", Mode::Train)
            .and_then(|c| c.time)
            .map(|f| f.applied)
            .unwrap_or(0.0);
        assert!(
            (f - 1.5).abs() < 0.02,
            "thirty agreeing runs carry the estimate to them: {f}"
        );
    }

    #[test]
    fn runs_that_agree_with_the_estimate_change_nothing() {
        let c = Corrections::new(vec![
            obs("rtx4090", Source::Own, 1.04, Some(0.97)),
            obs("rtx4090", Source::Own, 0.98, Some(1.02)),
        ]);
        let cal = c.for_job(ModelFamily::Vision, "rtx4090", Mode::Train);
        assert_eq!(
            cal.map(|c| (c.time_factor(), c.memory_factor())),
            Some((1.0, 1.0)),
            "runs within their noise of the estimate apply no correction"
        );
        assert_eq!(
            cal.map(|c| c.own_runs),
            Some(2),
            "but the answer still says it looked at 2 runs"
        );
    }

    #[test]
    fn other_families_and_modes_do_not_count_and_other_cards_count_less() {
        let c = Corrections::new(vec![obs("a100-80g", Source::Own, 1.6, Some(1.3))]);
        assert!(
            c.for_job(ModelFamily::Decoder, "a100-80g", Mode::Train)
                .is_none(),
            "another family"
        );
        assert!(
            c.for_job(ModelFamily::Vision, "a100-80g", Mode::Lora)
                .is_none(),
            "another mode"
        );
        let on = |gpu: &str| c.for_job(ModelFamily::Vision, gpu, Mode::Train);
        let (same, other) = (on("a100-80g"), on("rtx4090"));
        let time = |k: Option<Calibration>| k.and_then(|k| k.time).map(|f| f.measured);
        assert!(
            time(other) < time(same) && time(other) > Some(1.0),
            "a run on another card moves time less: {:?} vs {:?}",
            time(other),
            time(same)
        );
        let (m_same, m_other) = (same.and_then(|k| k.memory), other.and_then(|k| k.memory));
        assert_eq!(m_same, m_other, "memory does not depend on the card");
    }

    #[test]
    fn a_classmates_run_counts_less_than_ones_own() {
        let own = Corrections::new(vec![obs("rtx4090", Source::Own, 1.5, None)]);
        let class = Corrections::new(vec![obs("rtx4090", Source::Class, 1.5, None)]);
        let f = |c: &Corrections| {
            c.for_job(ModelFamily::Vision, "rtx4090", Mode::Train)
                .and_then(|c| c.time)
                .map(|f| f.measured)
        };
        assert!(
            f(&class) < f(&own),
            "class {:?} own {:?}",
            f(&class),
            f(&own)
        );
    }

    #[test]
    fn a_report_of_another_job_is_left_out() {
        assert_eq!(
            log_ratio(100.0, 1.0),
            None,
            "100x the estimate is another job"
        );
        assert_eq!(log_ratio(0.0, 1.0), None, "zero seconds");
        assert!(
            log_ratio(2.0, 1.0).is_some(),
            "twice the estimate is a real gap"
        );
    }
}
