//! Run reports: what a rented GPU really did, as the kit's shutdown wrapper
//! records it (`scripts::shutdown_wrapper`, schema
//! [`crate::scripts::RUN_REPORT_SCHEMA`]).
//!
//! A report comes back from a rented machine, so it is untrusted input: its
//! size is bounded before parsing, unknown fields are refused, every number
//! is range-checked and every string is bounded, exactly like a plan file.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalog::GpuCatalog;
use crate::error::DataError;
use crate::message::Message;
/// The run report's schema tag; `gpuplan ledger import` reads this version
/// and the kit's scripts (`crate::scripts`) write it.
pub const RUN_REPORT_SCHEMA: &str = "gpuplan-run-report/2";
/// The first report version (no per-GPU memory, no parts), still read.
pub const RUN_REPORT_SCHEMA_V1: &str = "gpuplan-run-report/1";

/// Largest report accepted, bytes (a real one is under 1 KB).
pub const MAX_REPORT_BYTES: usize = 65_536;
/// Longest run a report may describe: ten years, as a plan.
const MAX_WALL_SECONDS: u64 = 10 * 365 * 24 * 3600;
/// Largest GPU memory a report may state, MiB (1 TiB, far above any card).
const MAX_MEMORY_MIB: u64 = 1_048_576;
/// Longest text field.
const MAX_TEXT_CHARS: usize = 200;
/// Longest run id.
const MAX_RUN_ID_CHARS: usize = 100;
/// Most parts one run may have (a job requeued every few hours for a year).
pub const MAX_PARTS: u32 = 10_000;
/// How far the wall time may pass the billing window, seconds: the kit
/// reads both from one clock, a moment apart (whole seconds each, so two
/// seconds at most); more is a report that overstates its run, which would
/// teach a short run a much longer time.
const WINDOW_SLACK_SECONDS: i64 = 5;
/// Years a report's billing window may fall in (as the ledger's dates).
pub const YEARS: std::ops::RangeInclusive<i32> =
    (crate::limits::YEAR.min as i32)..=(crate::limits::YEAR.max as i32);
/// UTC offsets a clock can be set to, seconds: UTC-12:00 (Baker Island) to
/// UTC+14:00 (Line Islands), the range of the IANA time-zone database.
const OFFSETS: std::ops::RangeInclusive<i32> = -12 * 3600..=14 * 3600;

fn one() -> u32 {
    1
}

/// One run (or one part of a run), as the wrapper, a Slurm script or the
/// notebook module wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunReport {
    /// [`RUN_REPORT_SCHEMA`], or [`RUN_REPORT_SCHEMA_V1`] for reports of the
    /// first kit.
    pub schema: String,
    /// The plan's name the kit was generated for.
    pub plan: String,
    /// The job's name.
    pub job: String,
    /// A digest of the plan's job as the kit was generated for it (v2; none
    /// from kits before 2026-12-06): an import tells the plan the run ran
    /// from a saved plan of that name edited since ([`crate::plan::Plan::job_digest`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub plan_job: String,
    /// Platform id.
    pub platform: String,
    /// The run this report is part of (v2): parts of one run share it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// Which part of the run, from 1 (v2).
    #[serde(default = "one")]
    pub part: u32,
    /// This part ended to be resumed (a Slurm requeue): more parts follow.
    #[serde(default)]
    pub requeued: bool,
    /// GPU model as `nvidia-smi` names it (empty when it was not found).
    pub gpu_name: String,
    /// Driver version.
    pub driver: String,
    /// GPUs the machine had.
    pub gpu_count: u32,
    /// v1 only: the job's processes' memory summed over every GPU, MiB
    /// (PyTorch's figure where nvidia-smi saw none: which one, the report
    /// does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_memory_mib: Option<u64>,
    /// v2: peak memory of the job's processes on each GPU they used, MiB
    /// (nvidia-smi: process memory, CUDA context included).
    #[serde(default)]
    pub gpu_peaks_mib: Vec<u64>,
    /// v2: PyTorch's peak of live tensors of each process that opted in,
    /// MiB (no CUDA context, no allocator cache).
    #[serde(default)]
    pub torch_allocated_mib: Vec<u64>,
    /// Billing window start, `YYYY-MM-DDTHH:MM:SS+hhmm`.
    pub started_at: String,
    /// Billing window end (the stop).
    pub ended_at: String,
    /// Wall time of the run, seconds.
    pub wall_seconds: u64,
    /// Seconds until the first progress line, if any.
    pub first_progress_seconds: Option<u64>,
    /// The first progress line's match ("Epoch 26": a run resumed mid-way);
    /// empty in reports that do not say.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub first_progress: String,
    /// Progress lines seen.
    pub progress_lines: u64,
    /// The last progress line's match ("Epoch 50").
    pub last_progress: String,
    /// The machine's CPU use over the run, percent.
    pub cpu_percent: Option<u32>,
    /// The job's exit status (128 + signal when killed).
    pub exit_status: u32,
}

/// What a report measured of GPU memory, per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryMeasure {
    /// The largest GPU's process memory (nvidia-smi), MiB: compares with the
    /// per-GPU estimate.
    Process(u64),
    /// PyTorch's largest peak of live tensors, MiB: compares with the
    /// estimate's live tensors (no context, no allocator reserve).
    LiveTensors(u64),
    /// Nothing comparable: no figure, or a v1 report (a sum over GPUs, and
    /// it does not say whether PyTorch or nvidia-smi measured it).
    Unknown,
}

fn bad(file: &str, field: &str, message: impl Into<String>, said: Message) -> DataError {
    DataError {
        file: file.into(),
        line: 0,
        column: 0,
        field: field.into(),
        message: message.into(),
        said: Some(Box::new(said)),
        allowed: None,
    }
}

/// A report's time: as the kit writes it (`2026-11-30T14:05:00+0800`), or
/// in RFC 3339 as other tools do (`…T06:05:00Z`, `…+08:00`, fractions).
pub fn parse_time(s: &str) -> chrono::ParseResult<DateTime<FixedOffset>> {
    DateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%z").or_else(|_| DateTime::parse_from_rfc3339(s))
}

fn time(file: &str, field: &str, s: &str) -> Result<DateTime<FixedOffset>, DataError> {
    let t = parse_time(s).map_err(|_| {
        bad(
            file,
            field,
            "not a time like 2026-11-30T14:05:00+0800",
            Message::new("error.report.time").with("value", crate::error::short(s)),
        )
    })?;
    // chrono reads second 60 as a leap second; no clock a report comes
    // from writes one, so it is a typo.
    if t.timestamp_subsec_nanos() >= 1_000_000_000 {
        return Err(bad(
            file,
            field,
            "not a time like 2026-11-30T14:05:00+0800",
            Message::new("error.report.time").with("value", crate::error::short(s)),
        ));
    }
    if !OFFSETS.contains(&t.offset().local_minus_utc()) {
        return Err(bad(
            file,
            field,
            format!("{s}: a UTC offset from -1200 to +1400"),
            Message::new("error.report.offset").with("value", crate::error::short(s)),
        ));
    }
    if !YEARS.contains(&t.year()) {
        return Err(bad(
            file,
            field,
            format!("{s}: a year from {} to {}", YEARS.start(), YEARS.end()),
            Message::new("error.report.year")
                .with("value", crate::error::short(s))
                .with("min", YEARS.start())
                .with("max", YEARS.end()),
        ));
    }
    Ok(t)
}

/// The instant a report's time names, as UTC, so one moment written as
/// `14:02:11+0800` or `06:02:11+0000` is one identity; text that is not a
/// time stays as written.
pub fn instant(s: &str) -> String {
    parse_time(s)
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        })
        .unwrap_or_else(|_| s.to_owned())
}

/// A figure of the wrong kind in a report (-5 seconds, a fraction of a
/// MiB) says what the field takes, as a plan's fields do.
fn with_range(mut e: DataError) -> DataError {
    if e.is_wrong_value() && e.allowed.is_none() {
        let whole = |min: u64, max: u64| {
            Message::new("allowed.whole")
                .with("min", min)
                .with("max", max)
        };
        e.allowed = match e.field.as_str() {
            "part" => Some(whole(1, u64::from(MAX_PARTS))),
            "gpu_count" => Some(whole(0, u64::from(crate::parallel::MAX_GPUS))),
            "exit_status" => Some(whole(0, 255)),
            "wall_seconds"
            | "first_progress_seconds"
            | "progress_lines"
            | "cpu_percent"
            | "gpu_peaks_mib"
            | "torch_allocated_mib"
            | "peak_memory_mib" => Some(Message::new("allowed.wholeOrZero")),
            _ => None,
        }
        .map(Box::new);
    }
    e
}

fn text_ok(v: &str, max: usize) -> bool {
    v.chars().count() <= max && !v.chars().any(char::is_control)
}

impl RunReport {
    /// Parses and checks a report (`file` names it in errors).
    pub fn from_json(file: &str, text: &str) -> Result<Self, DataError> {
        if text.len() > MAX_REPORT_BYTES {
            return Err(bad(
                file,
                "report",
                format!(
                    "{} bytes; a run report is at most {MAX_REPORT_BYTES}",
                    text.len()
                ),
                Message::new("error.report.tooLarge").with("max", MAX_REPORT_BYTES),
            ));
        }
        // A byte-order mark (an editor on Windows saved the file) is no
        // part of the JSON, as it is none of a plan file's TOML.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let r: RunReport = serde_json::from_str(text)
            .map_err(|e| with_range(DataError::from_json_text(file, text, "report", &e)))?;
        r.check_version(file)?;
        r.check_fields(file)?;
        r.check_window(file)?;
        Ok(r)
    }

    /// The schema is one this build reads, and the fields are that version's.
    fn check_version(&self, file: &str) -> Result<(), DataError> {
        if self.schema == RUN_REPORT_SCHEMA_V1 {
            let v2 = [
                ("run_id", !self.run_id.is_empty()),
                ("plan_job", !self.plan_job.is_empty()),
                ("part", self.part != 1),
                ("requeued", self.requeued),
                ("gpu_peaks_mib", !self.gpu_peaks_mib.is_empty()),
                ("torch_allocated_mib", !self.torch_allocated_mib.is_empty()),
            ];
            if let Some((field, _)) = v2.iter().find(|(_, set)| *set) {
                return Err(bad(
                    file,
                    field,
                    "a field of version 2 in a version 1 report",
                    Message::new("error.report.v2Field").with("name", field),
                ));
            }
            return Ok(());
        }
        if self.schema != RUN_REPORT_SCHEMA {
            return Err(bad(
                file,
                "schema",
                format!(
                    "this gpuplan reads {RUN_REPORT_SCHEMA} and {RUN_REPORT_SCHEMA_V1} reports"
                ),
                Message::new("error.report.schema")
                    .with("value", crate::error::short(&self.schema))
                    .with("v2", RUN_REPORT_SCHEMA)
                    .with("v1", RUN_REPORT_SCHEMA_V1),
            ));
        }
        if self.peak_memory_mib.is_some() {
            return Err(bad(
                file,
                "peak_memory_mib",
                "a version 2 report gives gpu_peaks_mib instead",
                Message::new("error.report.v1Field"),
            ));
        }
        Ok(())
    }

    /// Every text bounded, every number in range.
    fn check_fields(&self, file: &str) -> Result<(), DataError> {
        for (field, v) in [
            ("plan", &self.plan),
            ("job", &self.job),
            ("platform", &self.platform),
            ("gpu_name", &self.gpu_name),
            ("driver", &self.driver),
            ("last_progress", &self.last_progress),
            ("first_progress", &self.first_progress),
        ] {
            if !text_ok(v, MAX_TEXT_CHARS) {
                return Err(bad(
                    file,
                    field,
                    format!("at most {MAX_TEXT_CHARS} characters, no control characters"),
                    Message::new("error.oneLineText").with("max", MAX_TEXT_CHARS),
                ));
            }
        }
        // A digest is hex; anything else is not one the kit wrote.
        if self.plan_job.len() > 64 || !self.plan_job.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(
                file,
                "plan_job",
                "a digest of at most 64 hexadecimal digits",
                Message::new("error.report.planJob"),
            ));
        }
        if !text_ok(&self.run_id, MAX_RUN_ID_CHARS) {
            return Err(bad(
                file,
                "run_id",
                format!("at most {MAX_RUN_ID_CHARS} characters, no control characters"),
                Message::new("error.oneLineText").with("max", MAX_RUN_ID_CHARS),
            ));
        }
        if self.part == 0 || self.part > MAX_PARTS {
            return Err(bad(
                file,
                "part",
                format!("a part is 1 to {MAX_PARTS}"),
                Message::new("error.range.from")
                    .with("value", self.part)
                    .with("min", 1)
                    .with("max", MAX_PARTS),
            ));
        }
        if self.gpu_count > crate::parallel::MAX_GPUS {
            return Err(bad(
                file,
                "gpu_count",
                "more GPUs than any instance has",
                Message::new("error.report.gpuCount").with("max", crate::parallel::MAX_GPUS),
            ));
        }
        for (field, list) in [
            ("gpu_peaks_mib", &self.gpu_peaks_mib),
            ("torch_allocated_mib", &self.torch_allocated_mib),
        ] {
            // One figure per GPU the job used, on a machine of `gpu_count`:
            // a longer list is not a measurement of this machine. Where
            // nvidia-smi answered nothing (count 0) the count is not known,
            // and PyTorch's own figures (one per rank) are all there is.
            let most = match (field, self.gpu_count) {
                ("torch_allocated_mib", 0) => crate::parallel::MAX_GPUS as usize,
                (_, n) => n as usize,
            };
            if list.len() > most {
                return Err(bad(
                    file,
                    field,
                    format!(
                        "{} figures on a machine of {} GPUs (gpu_count): one per GPU at most",
                        list.len(),
                        self.gpu_count
                    ),
                    Message::new("error.report.perGpu")
                        .with("count", list.len())
                        .with("gpus", self.gpu_count),
                ));
            }
            if list.iter().any(|m| *m == 0 || *m > MAX_MEMORY_MIB) {
                return Err(bad(
                    file,
                    field,
                    "each from 1 MiB to 1 TiB",
                    Message::new("error.report.memory"),
                ));
            }
        }
        if self.wall_seconds > MAX_WALL_SECONDS {
            return Err(bad(
                file,
                "wall_seconds",
                "longer than ten years",
                Message::new("error.report.tenYears"),
            ));
        }
        if self.peak_memory_mib.is_some_and(|m| m > MAX_MEMORY_MIB) {
            return Err(bad(
                file,
                "peak_memory_mib",
                "more than 1 TiB",
                Message::new("error.report.memory"),
            ));
        }
        if self.cpu_percent.is_some_and(|c| c > 100) {
            return Err(bad(
                file,
                "cpu_percent",
                "above 100",
                Message::new("error.range.from")
                    .with("value", self.cpu_percent.unwrap_or_default())
                    .with("min", 0)
                    .with("max", 100),
            ));
        }
        if self.exit_status > 255 {
            return Err(bad(
                file,
                "exit_status",
                "an exit status is 0 to 255",
                Message::new("error.range.from")
                    .with("value", self.exit_status)
                    .with("min", 0)
                    .with("max", 255),
            ));
        }
        Ok(())
    }

    /// The billing window is a real span, and the run fits in it: the bill
    /// comes from the window, so a wall time that contradicts it is refused
    /// with both figures rather than guessed between.
    fn check_window(&self, file: &str) -> Result<(), DataError> {
        let start = time(file, "started_at", &self.started_at)?;
        let end = time(file, "ended_at", &self.ended_at)?;
        if end < start {
            return Err(bad(
                file,
                "ended_at",
                "before started_at",
                Message::new("error.report.endBeforeStart"),
            ));
        }
        let window = end.signed_duration_since(start).num_seconds();
        let wall = i64::try_from(self.wall_seconds).unwrap_or(i64::MAX);
        // The window may hold more than the run (setup before it, the stop
        // after it, as the platform billed), but no more than a plan may
        // (ten years), and its two ends read one clock: their UTC offsets
        // differ by a daylight-saving change at most.
        if window > i64::try_from(MAX_WALL_SECONDS).unwrap_or(i64::MAX) {
            return Err(bad(
                file,
                "ended_at",
                "a billing window longer than ten years",
                Message::new("error.report.tenYears"),
            ));
        }
        let shift = end
            .offset()
            .local_minus_utc()
            .abs_diff(start.offset().local_minus_utc());
        if shift > 3600 {
            return Err(bad(
                file,
                "ended_at",
                format!(
                    "started_at {} and ended_at {} are in UTC offsets {} hours apart: one clock changes by an hour at most",
                    self.started_at,
                    self.ended_at,
                    shift / 3600
                ),
            Message::new("error.report.offsets").with("start", crate::error::short(&self.started_at)).with("end", crate::error::short(&self.ended_at))));
        }
        if wall > window.saturating_add(WINDOW_SLACK_SECONDS) {
            return Err(bad(
                file,
                "wall_seconds",
                format!(
                    "{wall} s is longer than the billing window ({window} s from started_at {} to ended_at {}): one of them is wrong",
                    self.started_at, self.ended_at
                ),
            Message::new("error.report.wallPastWindow").with("wall", wall).with("window", window).with("start", crate::error::short(&self.started_at)).with("end", crate::error::short(&self.ended_at))));
        }
        // After the window's own ends: a window ending before it starts is
        // that, not a first progress line 'after the run ended'.
        if self
            .first_progress_seconds
            .is_some_and(|s| s > self.wall_seconds)
        {
            return Err(bad(
                file,
                "first_progress_seconds",
                "after the run ended",
                Message::new("error.report.progressAfterEnd"),
            ));
        }
        Ok(())
    }

    /// The epoch number the last progress line names (`Epoch 12`,
    /// `epoch: 3`, the kit's default pattern: the word, up to three marks,
    /// the number), if it names one.
    pub fn last_epoch(&self) -> Option<u64> {
        epoch_in(&self.last_progress)
    }

    /// The epoch number the first progress line of a run's first part
    /// names, as [`RunReport::last_epoch`]; none for a later part, which
    /// resumes past the first epoch by design.
    pub fn first_epoch(&self) -> Option<u64> {
        epoch_in(&self.first_progress).filter(|_| self.part <= 1)
    }

    /// Whether this report and `other` are of the same part of the same
    /// run: its id and part on the same platform and card (Slurm job ids
    /// repeat across clusters).
    pub fn same_run_part(&self, other: &RunReport) -> bool {
        !self.run_id.is_empty()
            && self.run_id == other.run_id
            && self.part == other.part
            && self.platform == other.platform
            && self.gpu_name == other.gpu_name
            && self.gpu_count == other.gpu_count
    }

    /// Whether this report and `other` name the same part of the same run
    /// ([`RunReport::same_run_part`]) with billing windows that overlap:
    /// two reports of one part (one machine-time billed once), not a run
    /// that reused the id later (one that starts as the other ends is
    /// another).
    pub fn same_part_as(&self, other: &RunReport) -> bool {
        if !self.same_run_part(other) {
            return false;
        }
        let window = |r: &RunReport| {
            Some((
                parse_time(&r.started_at).ok()?,
                parse_time(&r.ended_at).ok()?,
            ))
        };
        match (window(self), window(other)) {
            (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1 || (a0 == b0 && a1 == b1),
            _ => false,
        }
    }

    /// Seconds of the billing window (checked on parsing to be a real span).
    pub fn window_seconds(&self) -> u64 {
        let parse = |s: &str| parse_time(s).ok();
        match (parse(&self.started_at), parse(&self.ended_at)) {
            (Some(a), Some(b)) => {
                u64::try_from(b.signed_duration_since(a).num_seconds()).unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// The day the billing window opened (local to the machine).
    pub fn date(&self) -> Option<NaiveDate> {
        parse_time(&self.started_at).ok().map(|t| t.date_naive())
    }

    /// Hours of the billing window to the hundredth, half up, as every
    /// other hour figure is shown (at least 0.01: a bill line never reads
    /// zero for a run that happened). The cost is priced from the seconds.
    pub fn hours(&self) -> Decimal {
        // The window is at most a century (years checked on parsing), so the
        // division cannot fail; checked all the same.
        let h = Decimal::from(self.window_seconds())
            .checked_div(Decimal::from(3600))
            .unwrap_or(Decimal::ZERO);
        let shown =
            h.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
        shown.max(Decimal::new(1, 2))
    }

    /// The memory the report measured, in the form calibration compares.
    pub fn memory(&self) -> MemoryMeasure {
        if self.schema == RUN_REPORT_SCHEMA_V1 {
            return MemoryMeasure::Unknown;
        }
        if let Some(m) = self.gpu_peaks_mib.iter().max() {
            return MemoryMeasure::Process(*m);
        }
        match self.torch_allocated_mib.iter().max() {
            Some(m) => MemoryMeasure::LiveTensors(*m),
            None => MemoryMeasure::Unknown,
        }
    }

    /// GPUs the job trained on, as its memory shows (v2): those holding at
    /// least half the largest peak, so a data-parallel run counts every
    /// GPU and a stray CUDA context on another does not. `None` when the
    /// report gives no memory per GPU (v1, or none measured).
    pub fn gpus_trained_on(&self) -> Option<u32> {
        let peaks = if self.gpu_peaks_mib.is_empty() {
            &self.torch_allocated_mib
        } else {
            &self.gpu_peaks_mib
        };
        let largest = *peaks.iter().max()?;
        if largest == 0 {
            return None;
        }
        let used = peaks.iter().filter(|m| **m >= largest.div_ceil(2)).count();
        u32::try_from(used).ok()
    }

    /// The largest memory figure the report gives, MiB, for the ledger's
    /// note (whatever measured it).
    pub fn shown_peak_mib(&self) -> Option<u64> {
        self.gpu_peaks_mib
            .iter()
            .max()
            .or(self.torch_allocated_mib.iter().max())
            .copied()
            .or(self.peak_memory_mib)
    }

    /// GPUs the instance bills: every GPU the machine had (a platform bills
    /// the instance, not the GPUs the job kept busy; under Slurm the
    /// machine shows the GPUs allocated), at least one.
    pub fn billed_gpus(&self) -> u32 {
        self.gpu_count.max(1)
    }

    /// This report's identity: the run (its id and part) and the machine
    /// and billing window it measured (platform, card and count, start and
    /// end as instants). One run is one bill whatever the report calls its
    /// plan or job, so a report renamed by hand is the bill it already is.
    /// What describes the run rather than names it (a driver string, a
    /// progress line, a memory figure, the wall time and exit status it
    /// measured) changes nothing either. The run id tells apart two
    /// instances that started and ended in the same seconds (a sweep's
    /// runs failing at once); a v1 report has none, so the v1 and v2
    /// reports of one run are two identities (the kit writes one of them).
    pub fn identity(&self) -> String {
        crate::digest::of_json(&(
            &self.platform,
            &self.gpu_name,
            self.gpu_count,
            &self.run_id,
            self.part,
            instant(&self.started_at),
            instant(&self.ended_at),
        ))
    }

    /// The catalog id of the GPU `nvidia-smi` named ([`GpuCatalog::by_printed_name`]);
    /// `None` when the name is not a catalog card (the report still imports,
    /// with the name as measured, and teaches nothing).
    pub fn gpu_id(&self, catalog: &GpuCatalog) -> Option<String> {
        catalog
            .by_printed_name(&self.gpu_name)
            .map(|g| g.id.clone())
    }
}

/// The epoch number a progress line's match names (`Epoch 12`, `epoch: 3`:
/// the word, up to three marks, the number), if it names one.
fn epoch_in(progress: &str) -> Option<u64> {
    let text = progress.to_ascii_lowercase();
    let after = text.rfind("epoch")?.saturating_add("epoch".len());
    let rest = text.get(after..)?;
    let digits_at = rest.find(|c: char| c.is_ascii_digit())?;
    let marks = rest.get(..digits_at)?;
    if marks.chars().count() > 3 || marks.chars().any(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let digits: String = rest
        .get(digits_at..)?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod epoch_and_per_gpu_tests {
    use super::RunReport;

    /// The repository's example report, to change one field of.
    fn example() -> RunReport {
        serde_json::from_str(include_str!("../../../examples/run-report-example.json"))
            .expect("the example report")
    }

    #[test]
    fn the_epoch_a_progress_line_names_is_read() {
        // (last progress, epoch, why)
        let cases = [
            ("Epoch 12", Some(12), "the kit's default match"),
            ("epoch: 3", Some(3), "a colon and a space"),
            ("[Epoch 7/50]", Some(7), "k of n: the k"),
            ("Step 500", None, "steps are not epochs"),
            ("epochs done", None, "no number"),
            (
                "Epoch abc 4",
                None,
                "a word between: not the epoch's number",
            ),
        ];
        for (text, want, why) in cases {
            let mut r = example();
            r.last_progress = text.to_owned();
            assert_eq!(r.last_epoch(), want, "{why}");
        }
    }

    #[test]
    fn pytorch_figures_stand_where_nvidia_smi_counted_no_gpu() {
        let mut r = example();
        // (GPUs counted, nvidia-smi's peaks, PyTorch's, taken, why)
        type Case = (u32, Vec<u64>, Vec<u64>, bool, &'static str);
        let cases: [Case; 3] = [
            (
                0,
                vec![],
                vec![1500],
                true,
                "no nvidia-smi: PyTorch's figure is the job's own",
            ),
            (
                1,
                vec![1500],
                vec![1500, 1400],
                false,
                "two ranks' figures on a one-GPU machine",
            ),
            (
                1,
                vec![1500, 1400],
                vec![],
                false,
                "two GPUs' peaks on a one-GPU machine",
            ),
        ];
        for (count, peaks, torch, taken, why) in cases {
            r.gpu_count = count;
            r.gpu_peaks_mib = peaks;
            r.torch_allocated_mib = torch;
            let text = serde_json::to_string(&r).expect("JSON");
            assert_eq!(
                RunReport::from_json("r.json", &text).is_ok(),
                taken,
                "{why}"
            );
        }
    }
}
