//! The user's own data, in the one database both shells share: price
//! overrides, imported course packs, saved plans, the ledger and settings.
//! User data is layered over the bundled data when it is used, never merged
//! into it, so an update of the bundled files never overwrites it.

use std::path::Path;
use std::str::FromStr;

use gpuplan_core::pack::{CoursePack, Overrides, PriceOverride};
use gpuplan_core::plan::Plan;
use gpuplan_core::recommend::Situation;
use gpuplan_store::{LedgerEntry, PLAN_FORMAT_TOML};
use rust_decimal::Decimal;

use crate::views::{
    DeletedBill, LedgerInput, LedgerPage, LedgerRow, OverrideRow, PackRow, PlanVersusActual,
    SavedPlanRow, VersusView,
};
use crate::{files, home, legacy, AppError, Planner, Result, UserLayer};

/// Most CNY per GPU-hour a user price may be: far above any card's price.
pub const MAX_PRICE_PER_HOUR: u32 = 10_000;
/// Longest note kept with an override, characters.
const MAX_NOTE_CHARS: usize = 200;
/// Longest plan name, characters (as the plan file allows).
const MAX_NAME_CHARS: usize = 200;
/// Largest amount or hour count in a ledger entry.
pub const MAX_LEDGER_AMOUNT: u32 = 10_000_000;
/// Ledger entries the screen shows; totals cover every entry.
pub const LEDGER_PAGE: u32 = 500;

/// A pack in the database, parsed (or the reason it no longer parses).
pub struct ImportedPack {
    /// Course name.
    pub name: String,
    /// When imported.
    pub imported_at: String,
    /// The pack, or its error.
    pub pack: std::result::Result<CoursePack, gpuplan_core::DataError>,
}

/// A decimal the user typed, checked against `0..=max`.
pub fn parse_amount(field: &str, text: &str, max: u32) -> Result<Decimal> {
    let allowed = || {
        (
            format!("an amount from 0 to {max}"),
            gpuplan_core::Message::new("allowed.amount").with("max", max),
        )
    };
    let d = Decimal::from_str(text.trim())
        .map_err(|_| AppError::not_a_number(field, text, allowed()))?;
    if d < Decimal::ZERO || d > Decimal::from(max) {
        return Err(AppError::out_of_range(field, d, allowed()));
    }
    Ok(d)
}

/// Most course packs a user can have imported at once.
pub const MAX_PACKS: usize = 16;

/// At most 40 characters of user text for an error message.
pub fn excerpt(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        s.push('…');
    }
    s
}

/// A plan as the plan file text this build writes.
pub fn plan_toml(plan: &Plan) -> Result<String> {
    toml::to_string_pretty(plan).map_err(|e| AppError::io(format!("plan: {e}")))
}

fn plan_error(e: &AppError) -> String {
    e.to_string()
}

impl Planner {
    pub(crate) fn build_layer(&mut self, data_version: i64) -> Result<UserLayer> {
        let catalog = &self.bundled.catalog;
        let mut platforms = self.bundled.platforms.clone();
        let store = match self.store.as_ref() {
            Some(s) => s,
            None => {
                return Err(AppError::Store {
                    message: "the database is not open".into(),
                })
            }
        };
        let mut packs = Vec::new();
        for row in store.packs()? {
            let parsed = CoursePack::from_toml(&row.name, &row.body, catalog, &self.bundled.zoo);
            if let Ok(p) = &parsed {
                p.merge_into(&mut platforms);
            }
            packs.push(ImportedPack {
                name: row.name,
                imported_at: row.imported_at,
                pack: parsed,
            });
        }
        let overrides = Overrides {
            prices: store
                .overrides()?
                .into_iter()
                .map(|o| PriceOverride {
                    platform: o.platform,
                    gpu: o.gpu,
                    price_per_hour: o.price,
                    note: o.note,
                    observed: o.set_on,
                })
                .collect(),
        };
        let unmatched_overrides = overrides.apply(&mut platforms);
        // The course in effect is the last pack imported (as for its
        // platforms); its class runs join the student's own.
        let course = packs.iter().rev().find_map(|p| p.pack.as_ref().ok());
        let corrections = gpuplan_core::correction::Corrections::new(
            crate::calibration::observations(store, course, &platforms, &self.bundled)?,
        );
        Ok(UserLayer {
            data_version,
            platforms: std::sync::Arc::new(platforms),
            packs,
            unmatched_overrides,
            corrections,
        })
    }

    /// Imports an earlier CLI's `overrides.toml` and `packs/` once, keeping
    /// the files. Returns a sentence for the user when something was imported
    /// or could not be.
    pub(crate) fn import_legacy(&mut self, dir: &Path) -> Result<Option<String>> {
        const DONE: &str = "legacy_cli_import";
        let (overrides, packs) = home::legacy_files(dir);
        if overrides.is_none() && packs.is_empty() {
            return Ok(None);
        }
        if self.store()?.setting(DONE)?.is_some() {
            return Ok(None);
        }
        let now = self.now();
        let mut imported = 0usize;
        let mut failed = Vec::new();
        if let Some(path) = overrides {
            let text = files::read_text(&path, "overrides", files::MAX_USER_FILE_BYTES);
            match text.and_then(|t| {
                Overrides::from_toml(&path.display().to_string(), &t).map_err(AppError::from)
            }) {
                Ok(o) => {
                    for p in o.prices {
                        self.store()?.set_override(&gpuplan_store::StoredOverride {
                            platform: p.platform,
                            gpu: p.gpu,
                            price: p.price_per_hour,
                            note: p.note,
                            set_on: p.observed,
                        })?;
                        imported = imported.saturating_add(1);
                    }
                }
                Err(e) => failed.push(e.to_string()),
            }
        }
        for path in packs {
            let result =
                files::read_text(&path, "pack", files::MAX_USER_FILE_BYTES).and_then(|t| {
                    CoursePack::from_toml(
                        &path.display().to_string(),
                        &t,
                        &self.bundled.catalog,
                        &self.bundled.zoo,
                    )
                    .map(|p| (p, t))
                    .map_err(AppError::from)
                });
            match result {
                Ok((p, text)) => {
                    self.store()?.save_pack(&p.pack.name, &text, &now)?;
                    imported = imported.saturating_add(1);
                }
                Err(e) => failed.push(e.to_string()),
            }
        }
        self.store()?.set_setting(DONE, &now)?;
        self.invalidate();
        let mut note = format!(
            "Imported {imported} price override(s) and pack(s) from {}; the files were left in place.",
            dir.display()
        );
        if !failed.is_empty() {
            note.push_str(&format!(" Not imported: {}.", failed.join("; ")));
        }
        Ok(Some(note))
    }

    /// Sets the user's price for a GPU on a platform; returns the stored row.
    pub fn set_override(
        &mut self,
        platform: &str,
        gpu: &str,
        price: &str,
        note: &str,
    ) -> Result<OverrideRow> {
        let price = parse_amount("price", price, MAX_PRICE_PER_HOUR)?;
        let gpu_id = {
            let set = self.platforms()?;
            set.get(platform)?
                .offer(gpu, &self.bundled.catalog)?
                .gpu
                .clone()
        };
        let row = OverrideRow {
            platform: platform.trim().to_ascii_lowercase(),
            gpu: gpu_id,
            price_per_hour: price,
            note: note.chars().take(MAX_NOTE_CHARS).collect(),
            set_on: Some(self.today().format("%Y-%m-%d").to_string()),
        };
        self.store()?.set_override(&gpuplan_store::StoredOverride {
            platform: row.platform.clone(),
            gpu: row.gpu.clone(),
            price: row.price_per_hour,
            note: row.note.clone(),
            set_on: row.set_on.clone(),
        })?;
        self.invalidate();
        Ok(row)
    }

    /// The user's overrides.
    pub fn overrides(&mut self) -> Result<Vec<OverrideRow>> {
        Ok(self
            .store()?
            .overrides()?
            .into_iter()
            .map(|o| OverrideRow {
                platform: o.platform,
                gpu: o.gpu,
                price_per_hour: o.price,
                note: o.note,
                set_on: o.set_on,
            })
            .collect())
    }

    /// Overrides that name an offer that no longer exists (kept, not
    /// applied); none when the database was not needed and is not open.
    pub fn unmatched_overrides(&mut self) -> Result<Vec<OverrideRow>> {
        if self.store.is_none() {
            return Ok(Vec::new());
        }
        Ok(self
            .layer()?
            .unmatched_overrides
            .iter()
            .map(|o| OverrideRow {
                platform: o.platform.clone(),
                gpu: o.gpu.clone(),
                price_per_hour: o.price_per_hour,
                note: o.note.clone(),
                set_on: o.observed.clone(),
            })
            .collect())
    }

    /// Removes every override.
    pub fn clear_overrides(&mut self) -> Result<()> {
        self.store()?.clear_overrides()?;
        self.invalidate();
        Ok(())
    }

    /// Validates and imports a course pack's text (`file` names it in errors).
    pub fn import_pack(&mut self, file: &str, text: &str) -> Result<CoursePack> {
        let pack = match CoursePack::from_toml(file, text, &self.bundled.catalog, &self.bundled.zoo)
        {
            Ok(p) => p,
            // A plan file opened as a pack is the common mistake: say what
            // the file is and where it belongs rather than which field a
            // pack does not have.
            Err(_) if gpuplan_core::plan::Plan::from_toml(file, text).is_ok() => {
                return Err(AppError::input(
                    "pack",
                    "this is a plan file, not a course pack",
                    "open plans with `gpuplan quote FILE` or save them in the app; a course pack starts with [pack]",
                ))
            }
            Err(e) => return Err(e.into()),
        };
        // Every command loads every pack, so their number is capped; a pack
        // with the name of an imported one replaces it and does not count.
        let stored = self.store()?.packs()?;
        let replaces = stored.iter().any(|p| p.name == pack.pack.name);
        if stored.len() >= MAX_PACKS && !replaces {
            return Err(AppError::input(
                "pack",
                format!("{} packs are imported already", stored.len()),
                format!("at most {MAX_PACKS}; remove one with `gpuplan pack remove`"),
            ));
        }
        let now = self.now();
        self.store()?.save_pack(&pack.pack.name, text, &now)?;
        self.invalidate();
        if replaces {
            // Same course, newer file: say so, since the old one is gone.
            self.add_notice(&format!(
                "the earlier import of `{}` was replaced by this one",
                excerpt(&pack.pack.name)
            ));
        }
        Ok(pack)
    }

    /// Imports the course pack in a file.
    pub fn import_pack_file(&mut self, path: &Path) -> Result<CoursePack> {
        let text = files::read_text(path, "pack", files::MAX_USER_FILE_BYTES)?;
        self.import_pack(&path.display().to_string(), &text)
    }

    /// Removes an imported pack by course name.
    pub fn remove_pack(&mut self, name: &str) -> Result<()> {
        if self.store()?.delete_pack(name)? {
            self.invalidate();
            Ok(())
        } else {
            let names: Vec<String> = self.packs()?.into_iter().map(|p| p.name).collect();
            Err(AppError::input(
                "pack",
                format!("no imported pack is named `{}`", excerpt(name)),
                if names.is_empty() {
                    "no packs are imported".to_owned()
                } else {
                    names.join(", ")
                },
            ))
        }
    }

    /// Imported packs, each with its error if it no longer loads.
    pub fn packs(&mut self) -> Result<Vec<PackRow>> {
        Ok(self
            .layer()?
            .packs
            .iter()
            .map(|p| match &p.pack {
                Ok(pack) => PackRow {
                    name: p.name.clone(),
                    platforms: pack.platforms.len(),
                    presets: pack.presets.len(),
                    imported_at: p.imported_at.clone(),
                    error: None,
                },
                Err(e) => PackRow {
                    name: p.name.clone(),
                    platforms: 0,
                    presets: 0,
                    imported_at: p.imported_at.clone(),
                    error: Some(e.to_string()),
                },
            })
            .collect())
    }

    /// The imported packs that load, oldest first.
    /// The platforms a student chooses among: all of them, or only the
    /// course's when the newest course pack names its platforms (the
    /// instructor chose them for the class). Quotes of a saved plan still
    /// use every platform.
    pub fn course_platforms(
        &mut self,
    ) -> Result<std::sync::Arc<gpuplan_core::platform::PlatformSet>> {
        let all = self.platforms()?;
        let ids: Vec<String> = self
            .loaded_packs()?
            .last()
            .map(|p| p.platforms.iter().map(|x| x.id.clone()).collect())
            .unwrap_or_default();
        if ids.is_empty() {
            return Ok(all);
        }
        Ok(std::sync::Arc::new(gpuplan_core::platform::PlatformSet {
            platforms: all
                .platforms
                .iter()
                .filter(|p| ids.contains(&p.id))
                .cloned()
                .collect(),
        }))
    }

    pub(crate) fn loaded_packs(&mut self) -> Result<Vec<CoursePack>> {
        Ok(self
            .layer()?
            .packs
            .iter()
            .filter_map(|p| p.pack.as_ref().ok().cloned())
            .collect())
    }

    /// Saves a plan (new when `id` is `None`) as plan TOML; returns its id.
    pub fn save_plan(
        &mut self,
        id: Option<i64>,
        plan: &Plan,
        situation: Option<&Situation>,
    ) -> Result<i64> {
        let body = plan_toml(plan)?;
        // What is stored must read back as the same plan, validated.
        let back = Plan::from_toml("plan", &body)?;
        if &back != plan {
            return Err(AppError::io(
                "the plan does not survive a round trip through TOML",
            ));
        }
        let situation = situation
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| AppError::io(format!("situation: {e}")))?;
        let name: String = if plan.name.trim().is_empty() {
            "plan".to_owned()
        } else {
            plan.name.chars().take(MAX_NAME_CHARS).collect()
        };
        let now = self.now();
        let store = self.store()?;
        match id {
            Some(id) => {
                store.update_plan(id, &name, &body, situation.as_deref(), &now)?;
                Ok(id)
            }
            None => Ok(store.save_plan(&name, &body, situation.as_deref(), &now)?),
        }
    }

    /// Saved plans, newest first; one that no longer validates carries its
    /// error. Plans saved by the first app release are converted to plan TOML
    /// on the way (the old text is replaced only when the conversion succeeds).
    pub fn plans(&mut self) -> Result<Vec<SavedPlanRow>> {
        let rows = self.store()?.list_plans()?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let file = format!("saved plan {}", r.id);
            let (toml_text, parsed) = if r.format == PLAN_FORMAT_TOML {
                let parsed = Plan::from_toml(&file, &r.body).map_err(AppError::from);
                (r.body.clone(), parsed)
            } else {
                match legacy::plan_from_app_json(&r.body) {
                    Ok(plan) => {
                        let text = plan_toml(&plan)?;
                        self.store()?.convert_plan(r.id, &text)?;
                        (text, Ok(plan))
                    }
                    Err(e) => (r.body.clone(), Err(e)),
                }
            };
            let situation = r
                .situation
                .as_deref()
                .and_then(|s| serde_json::from_str::<Situation>(s).ok());
            out.push(SavedPlanRow {
                id: r.id,
                name: r.name,
                updated_at: r.updated_at,
                error: parsed.as_ref().err().map(plan_error),
                plan: parsed.ok(),
                situation,
                toml: toml_text,
            });
        }
        Ok(out)
    }

    /// Deletes a saved plan (ledger entries keep their data, unlinked).
    pub fn delete_plan(&mut self, id: i64) -> Result<()> {
        Ok(self.store()?.delete_plan(id)?)
    }

    /// Deletes a ledger entry (the app offers to undo by adding it again).
    pub fn delete_ledger(&mut self, id: i64) -> Result<DeletedBill> {
        let (entry, report, measured_run) = {
            let store = self.store()?;
            (
                store.ledger_entry(id)?,
                store.run_report(id)?,
                store.measured_run(id)?,
            )
        };
        let Some(e) = entry else {
            return Err(AppError::input(
                "id",
                format!("no ledger entry {id}"),
                "an id from the ledger",
            ));
        };
        self.store()?.delete_ledger(id)?;
        // Its measured run goes with it: calibration forgets it.
        self.invalidate();
        Ok(DeletedBill {
            entry: LedgerInput {
                date: e.date,
                platform: e.platform,
                gpu: e.gpu,
                hours: e.hours.to_string(),
                cost: e.cost.to_string(),
                problems: e.problems,
                plan_id: e.plan_id,
            },
            report,
            measured_run,
        })
    }

    /// Puts a deleted bill back (undo), with its run report and measured
    /// run. Everything is checked again: the web view hands it back.
    pub fn restore_ledger(&mut self, bill: &DeletedBill) -> Result<i64> {
        let e = self.ledger_entry(&bill.entry)?;
        let now = self.now();
        let Some(report) = &bill.report else {
            return Ok(self.store()?.add_ledger(&e, &now)?);
        };
        if let Some(m) = &bill.measured_run {
            let run: gpuplan_core::correction::MeasuredRun =
                serde_json::from_str(m).map_err(|err| {
                    AppError::input(
                        "measured_run",
                        format!("not a measured run: {}", excerpt(&err.to_string())),
                        "the measured run the deleted bill had",
                    )
                })?;
            run.check("measured_run", &self.bundled.catalog, &self.bundled.zoo)?;
        }
        let identity =
            gpuplan_core::report::RunReport::from_json("restored report", report)?.identity();
        let ids = self.store()?.add_reported_bills(
            &[gpuplan_store::ReportedBill {
                entry: &e,
                report,
                measured_run: bill.measured_run.as_deref(),
                identity: &identity,
            }],
            &now,
        )?;
        self.invalidate();
        ids.first().copied().ok_or_else(|| AppError::Store {
            message: "the restored bill was not added".into(),
        })
    }

    /// Adds a real bill to the ledger, with the linked plan's quoted total
    /// for plan-versus-actual; returns its id.
    pub fn add_ledger(&mut self, entry: &LedgerInput) -> Result<i64> {
        let e = self.ledger_entry(entry)?;
        let now = self.now();
        Ok(self.store()?.add_ledger(&e, &now)?)
    }

    /// A ledger input checked field by field, with the linked plan's quote.
    pub(crate) fn ledger_entry(&mut self, entry: &LedgerInput) -> Result<LedgerEntry> {
        let date = chrono::NaiveDate::from_str(entry.date.trim()).map_err(|_| {
            AppError::input(
                "date",
                format!("`{}` is not a date", excerpt(&entry.date)),
                "YYYY-MM-DD",
            )
        })?;
        let years = gpuplan_core::report::YEARS;
        if !years.contains(&chrono::Datelike::year(&date)) {
            return Err(AppError::input(
                "date",
                format!("{date} is not a day a bill was paid"),
                format!(
                    "a date from {}-01-01 to {}-12-31",
                    years.start(),
                    years.end()
                ),
            ));
        }
        let text = |field: &str, s: &str, max: usize| -> Result<String> {
            let t = s.trim();
            if t.is_empty() || t.chars().count() > max {
                return Err(AppError::input(
                    field,
                    "is empty or too long",
                    format!("1 to {max} characters"),
                ));
            }
            Ok(t.to_owned())
        };
        let platform = text("platform", &entry.platform, 100)?;
        let gpu = text("gpu", &entry.gpu, 100)?;
        let hours = parse_amount("hours", &entry.hours, MAX_LEDGER_AMOUNT)?;
        let cost = parse_amount("cost", &entry.cost, MAX_LEDGER_AMOUNT)?;
        let planned_cost = match entry.plan_id {
            Some(id) => {
                let saved = self.store()?.get_plan(id)?;
                Plan::from_toml(&format!("saved plan {id}"), &saved.body)
                    .ok()
                    .and_then(|p| self.quote(&p).ok())
                    .map(|q| q.cash_total)
            }
            None => None,
        };
        let e = LedgerEntry {
            id: 0,
            date: date.to_string(),
            platform,
            gpu,
            hours,
            cost,
            problems: entry.problems.chars().take(2000).collect(),
            plan_id: entry.plan_id,
            planned_cost,
        };
        Ok(e)
    }

    /// Plan versus actual for a ledger entry imported from a run report,
    /// against its plan as it is saved now.
    pub fn run_versus(&mut self, ledger_id: i64) -> Result<VersusView> {
        let missing = || {
            AppError::input(
                "id",
                format!("ledger entry {ledger_id} has no run report and plan"),
                "an entry imported from a run report of a saved plan",
            )
        };
        let (entry, text) = {
            let store = self.store()?;
            (store.ledger_entry(ledger_id)?, store.run_report(ledger_id)?)
        };
        let (entry, text) = entry.zip(text).ok_or_else(missing)?;
        let report =
            gpuplan_core::report::RunReport::from_json(&format!("report {ledger_id}"), &text)?;
        let plan_id = entry.plan_id.ok_or_else(missing)?;
        let saved = self.store()?.get_plan(plan_id)?;
        let plan = Plan::from_toml(&format!("saved plan {plan_id}"), &saved.body)?;
        let versus = self.versus(&plan, &report, &entry.gpu, entry.cost)?;
        let chart = self.versus_chart(&versus)?;
        Ok(VersusView { versus, chart })
    }

    /// One measured run against its plan, as the model estimated it
    /// (uncalibrated). A time more than 20% off the
    /// estimate is attributed to the input pipeline when the machine's CPUs
    /// were busy (85% or more) or the estimate already said input-bound, else
    /// to the card being slower or faster than the catalog says; memory more
    /// than 15% above the estimate is named too.
    pub(crate) fn versus(
        &mut self,
        plan: &Plan,
        report: &gpuplan_core::report::RunReport,
        gpu: &str,
        cost: Decimal,
    ) -> Result<PlanVersusActual> {
        use rust_decimal::prelude::ToPrimitive;
        // Against the model's own answer, never a calibrated one: the gap is
        // what the estimator missed, and this run may itself be one of the
        // runs calibration learnt from.
        let none = gpuplan_core::correction::Corrections::none();
        let q = self.quote_with(plan, &none)?;
        let runs: u32 = plan.runs.iter().map(|r| r.count).sum::<u32>().max(1);
        let planned_cost = q
            .cash_total
            .checked_div(Decimal::from(runs))
            .unwrap_or(q.cash_total)
            .round_dp(2);
        let planned_hours = q.longest_run_hours.to_f64().unwrap_or(0.0);
        // The run's own time, not the billed hours (rounded up to the
        // hundredth), so a run on plan reads as on plan.
        let measured_hours = report.wall_seconds as f64 / 3600.0;
        let estimate = match plan.job.model {
            Some(_) => self
                .estimate_with(
                    &plan.job,
                    Some(&plan.gpu),
                    None,
                    Some(&plan.platform),
                    &none,
                )
                .ok(),
            None => None,
        };
        let planned_peak_gib = estimate.as_ref().map(|e| e.peak_gib);
        let input_bound = estimate
            .as_ref()
            .and_then(|e| {
                e.run
                    .map(|r| r.bound == gpuplan_core::pipeline::Bound::Input)
            })
            .unwrap_or(false);
        let measured_peak_gib = report.peak_memory_mib.map(|m| m as f64 / 1024.0);
        // Time per step: an epoch of the estimate (without the one-off
        // warm-up and cold cache) over its steps; measured from the epoch
        // lines after the first, whose spacing is one epoch each.
        let run = estimate.as_ref().and_then(|e| e.run);
        let epochs = estimate
            .as_ref()
            .and_then(|e| e.job.epochs)
            .filter(|e| *e >= 1.0);
        let steps = run.map(|r| r.steps_per_epoch).filter(|s| *s > 0);
        let planned_step_seconds = match (run, epochs, steps) {
            (Some(r), Some(n), Some(k)) => {
                Some((r.total_s - r.warmup_s - r.cold_cache_s) / n / k as f64)
            }
            _ => None,
        };
        let measured_step_seconds = match (report.first_progress_seconds, steps) {
            (Some(first), Some(k))
                if report.progress_lines >= 2
                    && report.last_progress.to_ascii_lowercase().contains("epoch") =>
            {
                let span = report.wall_seconds.saturating_sub(first) as f64;
                Some(span / report.progress_lines.saturating_sub(1) as f64 / k as f64)
            }
            _ => None,
        };
        let gaps = gpuplan_core::versus::gaps(&gpuplan_core::versus::Observed {
            succeeded: report.exit_status == 0,
            same_card: gpu == plan.gpu,
            hours: (planned_hours, measured_hours),
            peak_gib: (planned_peak_gib, measured_peak_gib),
            step_seconds: (planned_step_seconds, measured_step_seconds),
            input_bound,
            cpu_percent: report.cpu_percent,
        });
        Ok(PlanVersusActual {
            planned_hours,
            measured_hours,
            planned_peak_gib,
            measured_peak_gib,
            planned_step_seconds,
            measured_step_seconds,
            planned_cost,
            cost,
            gaps,
        })
    }

    /// The newest ledger entries, the total over all of them, and the spend
    /// by month.
    pub fn ledger(&mut self) -> Result<LedgerPage> {
        let (entries, months, reported) = {
            let store = self.store()?;
            (
                store.ledger_page(LEDGER_PAGE)?,
                store.spend_by_month()?,
                store.reported_ledger_ids()?,
            )
        };
        let total: Decimal = months.iter().map(|m| m.cost).sum();
        let chart = self.month_chart(&months)?;
        Ok(LedgerPage {
            entries: entries
                .into_iter()
                .map(|e| LedgerRow {
                    id: e.id,
                    date: e.date,
                    platform: e.platform,
                    gpu: e.gpu,
                    hours: e.hours,
                    cost: e.cost,
                    problems: e.problems,
                    plan_id: e.plan_id,
                    planned_cost: e.planned_cost,
                    has_report: reported.binary_search(&e.id).is_ok(),
                })
                .collect(),
            chart,
            total,
        })
    }

    /// Reads a setting.
    pub fn setting(&mut self, key: &str) -> Result<Option<String>> {
        Ok(self.store()?.setting(key)?)
    }

    /// Writes a setting (language, last step).
    pub fn set_setting(&mut self, key: &str, value: &str) -> Result<()> {
        if key.is_empty() || key.len() > 64 || value.len() > 10_000 {
            return Err(AppError::input(
                "setting",
                "empty or too long",
                "keys of 1 to 64 and values up to 10000 characters",
            ));
        }
        Ok(self.store()?.set_setting(key, value)?)
    }
}
