//! Personal and class calibration: the measured runs the estimates learn
//! from (the student's imported run reports, and the course pack's class
//! runs), the switch that turns it off, and the file a student hands to the
//! instructor. The learning itself is `gpuplan_core::correction`.

use std::collections::BTreeSet;

use gpuplan_core::correction::{
    distinct, join_parts, observe, unique, Calibration, Corrections, Factor, MeasuredRun,
    MeasuredRunFile, Observation, Source, MEASURED_RUNS_SCHEMA,
};
use gpuplan_core::platform::PlatformSet;
use gpuplan_core::zoo::ModelFamily;
use gpuplan_core::Mode;
use gpuplan_store::Store;

use crate::{defaults, AppError, Planner, Result};

/// What calibration knows, for the ledger screen and `gpuplan calibration`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CalibrationView {
    /// Whether estimates apply the corrections.
    pub enabled: bool,
    /// The student's measured runs the estimator could compare.
    pub own_runs: u32,
    /// The course pack's measured runs.
    pub class_runs: u32,
    /// Of those runs (own and class), the ones set aside: time and memory
    /// both off the estimate the same way, as another batch or sequence
    /// length would be, so they teach nothing.
    pub set_aside: u32,
    /// One row per model family, card and mode that was measured.
    pub rows: Vec<CalibrationRow>,
}

/// What the runs of one family, card and mode say.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CalibrationRow {
    /// Model family.
    pub family: ModelFamily,
    /// Card id.
    pub gpu: String,
    /// Mode.
    pub mode: Mode,
    /// Own runs that count.
    pub own_runs: u32,
    /// Class runs that count.
    pub class_runs: u32,
    /// Time factor.
    pub time: Option<Factor>,
    /// Memory factor.
    pub memory: Option<Factor>,
    /// What an estimate of this family, card and mode is told: the runs
    /// behind it on every card (those on other cards weigh less for time).
    pub applied: Calibration,
}

/// The measured runs as the estimator sees them: every own and class run
/// compared with the uncalibrated estimate of its job on its card and its
/// platform's host. Runs whose model, card or platform is unknown to this
/// build are left out.
pub(crate) fn observations(
    store: &Store,
    class_runs: Vec<MeasuredRun>,
    platforms: &PlatformSet,
    bundled: &crate::Bundled,
) -> Result<Vec<Observation>> {
    let runs = distinct(own_runs(store)?, class_runs);
    Ok(runs
        .iter()
        .filter_map(|(run, source)| observe_on_its_host(run, *source, platforms, bundled))
        .collect())
}

/// A run against its estimate on its platform's host for its card (a
/// platform this build lacks: a typical host).
pub(crate) fn observe_on_its_host(
    run: &MeasuredRun,
    source: Source,
    platforms: &PlatformSet,
    bundled: &crate::Bundled,
) -> Option<Observation> {
    let host = platforms
        .get(&run.platform)
        .ok()
        .map(|p| {
            p.offer(&run.gpu, &bundled.catalog)
                .ok()
                .map_or_else(|| p.host(), |o| p.host_for(o))
        })
        .unwrap_or(gpuplan_core::pipeline::Host::TYPICAL);
    observe_run(run, source, bundled, &host)
}

/// The student's own runs, parts of one run joined into it.
fn own_runs(store: &Store) -> Result<Vec<MeasuredRun>> {
    let mut runs = Vec::new();
    for body in store.measured_runs()? {
        // A stored run was written by this program; one that no longer
        // parses (an older shape) is skipped, never fatal.
        if let Ok(r) = serde_json::from_str::<MeasuredRun>(&body) {
            runs.push(r);
        }
    }
    Ok(join_parts(runs))
}

/// A run against what the estimator expects of its job on its card; `None`
/// when the model or card is no longer known (a pack from an older
/// catalog) or the job no longer resolves.
fn observe_run(
    run: &MeasuredRun,
    source: Source,
    bundled: &crate::Bundled,
    host: &gpuplan_core::pipeline::Host,
) -> Option<Observation> {
    let entry = bundled.zoo.get(run.job.model.as_deref()?).ok()?;
    let job = run.job.resolve(entry).ok()?;
    let card = bundled.catalog.get(&run.gpu).ok()?;
    let expected = gpuplan_core::estimate::expected_on(&entry.model, &job, card, host);
    Some(observe(
        run,
        entry.model.family(),
        job.mode,
        source,
        expected,
    ))
}

impl Planner {
    /// Whether estimates apply what measured runs taught (on unless the
    /// student turned it off).
    pub fn calibration_enabled(&mut self) -> Result<bool> {
        Ok(self.setting(defaults::CALIBRATION_SETTING)?.as_deref() != Some("off"))
    }

    /// Turns calibration on or off.
    pub fn set_calibration(&mut self, on: bool) -> Result<()> {
        self.set_setting(defaults::CALIBRATION_SETTING, if on { "on" } else { "off" })
    }

    /// The corrections estimates apply now (none when the switch is off).
    pub(crate) fn corrections(&mut self) -> Result<Corrections> {
        if !self.calibration_enabled()? {
            return Ok(Corrections::none());
        }
        Ok(self.layer()?.corrections.clone())
    }

    /// What calibration knows: per family, card and mode, the runs and the
    /// factors they give.
    pub fn calibration(&mut self) -> Result<CalibrationView> {
        let enabled = self.calibration_enabled()?;
        let corrections = self.layer()?.corrections.clone();
        let keys: BTreeSet<(ModelFamily, String, String)> = corrections
            .observations()
            .iter()
            .map(|o| (o.family, o.gpu.clone(), o.mode.to_string()))
            .collect();
        let rows = keys
            .into_iter()
            .filter_map(|(family, gpu, mode)| {
                let mode = Mode::parse(&mode).ok()?;
                let c = corrections.for_job(family, &gpu, mode)?;
                let obs = corrections.observations();
                let own_runs = count(obs, (family, &gpu, mode), Source::Own);
                let class_runs = count(obs, (family, &gpu, mode), Source::Class);
                Some(CalibrationRow {
                    family,
                    gpu,
                    mode,
                    // Rows count the runs on this card; the factors also
                    // weigh the family's runs on other cards.
                    own_runs,
                    class_runs,
                    time: c.time,
                    memory: c.memory,
                    applied: c,
                })
            })
            .collect();
        let total = |s: Source| {
            u32::try_from(
                corrections
                    .observations()
                    .iter()
                    .filter(|o| o.source == s)
                    .count(),
            )
            .unwrap_or(u32::MAX)
        };
        Ok(CalibrationView {
            enabled,
            own_runs: total(Source::Own),
            class_runs: total(Source::Class),
            set_aside: u32::try_from(
                corrections
                    .observations()
                    .iter()
                    .filter(|o| o.another_job)
                    .count(),
            )
            .unwrap_or(u32::MAX),
            rows,
        })
    }

    /// The student's measured runs as a file to hand to the instructor:
    /// the planned job, card, platform and measurements only, parts of one
    /// run joined, each run once, and only runs an instructor's pack
    /// accepts (a run whose model or card this build no longer knows is
    /// left out, so the hand-in never fails at the instructor's).
    pub fn export_measured_runs(&mut self) -> Result<String> {
        let own = unique(own_runs(self.store()?)?);
        let (catalog, zoo) = (&self.bundled.catalog, &self.bundled.zoo);
        let runs: Vec<MeasuredRun> = own
            .into_iter()
            .filter(|r| r.check("run", catalog, zoo).is_ok())
            .collect();
        let file = MeasuredRunFile {
            schema: MEASURED_RUNS_SCHEMA.to_owned(),
            runs,
        };
        serde_json::to_string_pretty(&file).map_err(|e| AppError::io(format!("runs: {e}")))
    }

    /// Reads a file of measured runs a student handed in (checked like any
    /// untrusted file).
    pub fn parse_measured_runs(&self, file: &str, text: &str) -> Result<Vec<MeasuredRun>> {
        MeasuredRunFile::from_json(file, text, &self.bundled.catalog, &self.bundled.zoo)
            .map(|f| f.runs)
            .map_err(|e| AppError::from(e).in_file(file))
    }
}

fn count(obs: &[Observation], key: (ModelFamily, &str, Mode), source: Source) -> u32 {
    let (family, gpu, mode) = key;
    u32::try_from(
        obs.iter()
            .filter(|o| o.family == family && o.gpu == gpu && o.mode == mode && o.source == source)
            .count(),
    )
    .unwrap_or(u32::MAX)
}
