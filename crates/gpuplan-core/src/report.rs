//! Run reports: what a rented GPU really did, as the kit's shutdown wrapper
//! records it (`scripts::shutdown_wrapper`, schema
//! [`crate::scripts::RUN_REPORT_SCHEMA`]).
//!
//! A report comes back from a rented machine, so it is untrusted input: its
//! size is bounded before parsing, unknown fields are refused, every number
//! is range-checked and every string is bounded, exactly like a plan file.

use chrono::{DateTime, FixedOffset, NaiveDate};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalog::GpuCatalog;
use crate::error::DataError;
use crate::scripts::RUN_REPORT_SCHEMA;

/// Largest report accepted, bytes (a real one is under 1 KB).
pub const MAX_REPORT_BYTES: usize = 65_536;
/// Longest run a report may describe: ten years, as a plan.
const MAX_WALL_SECONDS: u64 = 10 * 365 * 24 * 3600;
/// Largest GPU memory a report may state, MiB (1 TiB per run, far above any
/// instance).
const MAX_MEMORY_MIB: u64 = 1_048_576;
/// Longest text field.
const MAX_TEXT_CHARS: usize = 200;

/// One run, as the wrapper wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunReport {
    /// Always [`RUN_REPORT_SCHEMA`].
    pub schema: String,
    /// The plan's name the kit was generated for.
    pub plan: String,
    /// The job's name.
    pub job: String,
    /// Platform id.
    pub platform: String,
    /// GPU model as `nvidia-smi` names it (empty when it was not found).
    pub gpu_name: String,
    /// Driver version.
    pub driver: String,
    /// GPUs the machine had.
    pub gpu_count: u32,
    /// Peak GPU memory of the job's processes, MiB (null without nvidia-smi).
    pub peak_memory_mib: Option<u64>,
    /// Billing window start, `YYYY-MM-DDTHH:MM:SS+hhmm`.
    pub started_at: String,
    /// Billing window end (the stop).
    pub ended_at: String,
    /// Wall time of the run, seconds.
    pub wall_seconds: u64,
    /// Seconds until the first progress line, if any.
    pub first_progress_seconds: Option<u64>,
    /// Progress lines seen.
    pub progress_lines: u64,
    /// The last progress line's match ("Epoch 50").
    pub last_progress: String,
    /// The machine's CPU use over the run, percent.
    pub cpu_percent: Option<u32>,
    /// The job's exit status (128 + signal when killed).
    pub exit_status: u32,
}

fn bad(file: &str, field: &str, message: impl Into<String>) -> DataError {
    DataError {
        file: file.into(),
        line: 0,
        column: 0,
        field: field.into(),
        message: message.into(),
    }
}

fn time(file: &str, field: &str, s: &str) -> Result<DateTime<FixedOffset>, DataError> {
    DateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%z")
        .map_err(|_| bad(file, field, "not a time like 2026-11-30T14:05:00+0800"))
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
            ));
        }
        let r: RunReport = serde_json::from_str(text).map_err(|e| {
            let what = e.to_string();
            let what: String = what.chars().take(160).collect();
            DataError {
                file: file.into(),
                line: e.line(),
                column: e.column(),
                field: "report".into(),
                message: what,
            }
        })?;
        if r.schema != RUN_REPORT_SCHEMA {
            return Err(bad(
                file,
                "schema",
                format!("this gpuplan reads {RUN_REPORT_SCHEMA} reports"),
            ));
        }
        for (field, v) in [
            ("plan", &r.plan),
            ("job", &r.job),
            ("platform", &r.platform),
            ("gpu_name", &r.gpu_name),
            ("driver", &r.driver),
            ("last_progress", &r.last_progress),
        ] {
            if v.chars().count() > MAX_TEXT_CHARS || v.chars().any(char::is_control) {
                return Err(bad(
                    file,
                    field,
                    format!("at most {MAX_TEXT_CHARS} characters, no control characters"),
                ));
            }
        }
        if r.gpu_count > crate::parallel::MAX_GPUS {
            return Err(bad(file, "gpu_count", "more GPUs than any instance has"));
        }
        if r.wall_seconds > MAX_WALL_SECONDS {
            return Err(bad(file, "wall_seconds", "longer than ten years"));
        }
        if r.peak_memory_mib.is_some_and(|m| m > MAX_MEMORY_MIB) {
            return Err(bad(file, "peak_memory_mib", "more than 1 TiB"));
        }
        if r.cpu_percent.is_some_and(|c| c > 100) {
            return Err(bad(file, "cpu_percent", "above 100"));
        }
        if r.exit_status > 255 {
            return Err(bad(file, "exit_status", "an exit status is 0..=255"));
        }
        if r.first_progress_seconds.is_some_and(|s| s > r.wall_seconds) {
            return Err(bad(file, "first_progress_seconds", "after the run ended"));
        }
        let start = time(file, "started_at", &r.started_at)?;
        let end = time(file, "ended_at", &r.ended_at)?;
        if end < start {
            return Err(bad(file, "ended_at", "before started_at"));
        }
        Ok(r)
    }

    /// The day the billing window opened (local to the machine).
    pub fn date(&self) -> Option<NaiveDate> {
        DateTime::parse_from_str(&self.started_at, "%Y-%m-%dT%H:%M:%S%z")
            .ok()
            .map(|t| t.date_naive())
    }

    /// Hours of the billing window, rounded up to the hundredth (at least
    /// 0.01: a bill line never reads zero for a run that happened).
    pub fn hours(&self) -> Decimal {
        // wall_seconds is at most ten years (checked on parsing), so the
        // division cannot fail; checked all the same.
        let h = Decimal::from(self.wall_seconds)
            .checked_div(Decimal::from(3600))
            .unwrap_or(Decimal::ZERO);
        let up = h.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::AwayFromZero);
        up.max(Decimal::new(1, 2))
    }

    /// The catalog id of the GPU `nvidia-smi` named, matched on the name
    /// without vendor words, spaces or case ("NVIDIA GeForce RTX 4090" and
    /// "RTX 4090" are `rtx4090`); `None` when no card matches.
    pub fn gpu_id(&self, catalog: &GpuCatalog) -> Option<String> {
        let norm = |s: &str| {
            s.to_ascii_lowercase()
                .replace("nvidia", "")
                .replace("geforce", "")
                .replace("tesla", "")
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
        };
        let want = norm(&self.gpu_name);
        if want.is_empty() {
            return None;
        }
        catalog
            .gpus()
            .iter()
            .find(|g| norm(&g.spec.name) == want || norm(&g.id) == want)
            .or_else(|| {
                // nvidia-smi adds the memory to some names ("A100-SXM4-80GB");
                // the catalog's name may too: a name that starts the other
                // with the memory agreeing is the same card.
                catalog.gpus().iter().find(|g| {
                    let n = norm(&g.spec.name);
                    (want.starts_with(&n) || n.starts_with(&want))
                        && want.contains(&format!("{}gb", g.vram_gib().round()))
                })
            })
            .map(|g| g.id.clone())
    }
}
