//! Run reports into the ledger: `gpuplan ledger import`, the app's open
//! dialog and files dropped on its ledger.
//!
//! A report is untrusted input, validated by `gpuplan_core::report`. Import
//! is all or nothing: every file is read and checked first, then every new
//! bill is written in one transaction, so a retry after an error never
//! duplicates a bill. Each report is one bill however often it is imported
//! (its identity is a digest of its content, unique in the store): a report
//! seen before is answered with the bill it already is, and nothing is
//! added. A report's GPU is matched to the catalog by the names drivers
//! print; a name the catalog does not know is kept as measured, the report
//! still imports, and it teaches calibration nothing.

use std::path::Path;

use gpuplan_core::correction::{MeasuredMemory, MeasuredRun};
use gpuplan_core::plan::Plan;
use gpuplan_core::report::{MemoryMeasure, RunReport};
use gpuplan_core::Message;
use gpuplan_store::{LedgerEntry, ReportedBill};
use rust_decimal::Decimal;

use crate::userdata::excerpt;
use crate::views::{ImportedRun, ImportedRunView, LedgerInput, VersusView};
use crate::{files, AppError, Planner, Result};

/// A report read and checked, its bill ready to be written.
struct Prepared {
    text: String,
    identity: String,
    entry: LedgerEntry,
    measured: Option<String>,
    run: ImportedRun,
}

impl Planner {
    /// Imports the run reports in `paths` (bounded reads, regular files
    /// only), all or none.
    pub fn import_report_files(
        &mut self,
        paths: &[&Path],
        cost: Option<&str>,
        plan: Option<&Plan>,
    ) -> Result<Vec<ImportedRun>> {
        let mut texts = Vec::with_capacity(paths.len());
        for path in paths {
            let text = files::read_text(
                path,
                "report",
                gpuplan_core::report::MAX_REPORT_BYTES as u64,
            )?;
            texts.push((path.display().to_string(), text));
        }
        self.import_reports(&texts, cost, plan)
    }

    /// Imports run reports given as (file name, text): each is checked and
    /// matched first, then the new bills are written in one transaction.
    /// A report already in the ledger (or twice in `reports`) is answered
    /// with its bill and `already_imported`, and adds nothing.
    pub fn import_reports(
        &mut self,
        reports: &[(String, String)],
        cost: Option<&str>,
        plan_file: Option<&Plan>,
    ) -> Result<Vec<ImportedRun>> {
        let mut out: Vec<Option<ImportedRun>> = Vec::with_capacity(reports.len());
        let mut fresh: Vec<Prepared> = Vec::new();
        for (file, text) in reports {
            let report = RunReport::from_json(file, text)?;
            let identity = report.identity();
            let part = self.part_billed(&report, &fresh)?;
            // A second report of one part (its window overlapping the
            // first's) is the bill the part already is.
            let known = self.store()?.bill_of_report(&identity)?.or(part.same);
            let earlier = fresh
                .iter()
                .position(|p| p.identity == identity)
                .or(part.same_in_batch);
            match (known, earlier) {
                // A real bill, or a plan to compare with, for a run already
                // billed would be dropped without a word: say so, and how to
                // replace the bill.
                // A weekly import of every report with --plan answers the
                // ones billed before as such; one report given with it is
                // the student asking to compare that run.
                (Some(id), _) if cost.is_some() || (plan_file.is_some() && reports.len() == 1) => {
                    return Err(not_applied(id, cost.is_some()));
                }
                (Some(id), _) => out.push(Some(self.already(file, &report, id)?)),
                (None, Some(i)) => {
                    let mut twice = fresh[i].run.clone();
                    twice.already_imported = true;
                    out.push(Some(twice));
                }
                (None, None) => {
                    let mut p = self
                        .prepare(text, &report, identity, cost, plan_file)
                        .map_err(|e| e.in_file(file))?;
                    if part.reused.is_some() || part.reused_in_batch {
                        // A report earlier in this batch has no bill id yet.
                        reused_run_id(&mut p, &report, part.reused);
                    }
                    fresh.push(p);
                    out.push(None);
                }
            }
        }
        let now = self.now();
        let bills: Vec<ReportedBill<'_>> = fresh
            .iter()
            .map(|p| ReportedBill {
                entry: &p.entry,
                report: &p.text,
                measured_run: p.measured.as_deref(),
                identity: &p.identity,
            })
            .collect();
        let ids = if bills.is_empty() {
            Vec::new()
        } else {
            self.store()?.add_reported_bills(&bills, &now)?
        };
        self.invalidate();
        // A report another process imported since it was looked up is
        // answered as one seen before.
        let mut added = fresh.into_iter().zip(ids).map(|(mut p, (id, new))| {
            p.run.ledger_id = id;
            p.run.already_imported = !new;
            p.run
        });
        let mut result = Vec::with_capacity(out.len());
        for slot in out {
            match slot {
                Some(run) => result.push(run),
                None => result.extend(added.next()),
            }
        }
        // A report twice in one batch points at the bill its first copy made.
        for i in 0..result.len() {
            if result[i].already_imported && result[i].ledger_id == 0 {
                let id = result
                    .iter()
                    .find(|r| !r.already_imported && r.identity == result[i].identity)
                    .map(|r| r.ledger_id);
                result[i].ledger_id = id.unwrap_or(0);
            }
        }
        Ok(result)
    }

    /// What the ledger (and the reports before this one in the batch)
    /// already hold of this report's part of its run.
    fn part_billed(&mut self, report: &RunReport, fresh: &[Prepared]) -> Result<PartBilled> {
        let mut found = PartBilled::default();
        if report.run_id.is_empty() {
            return Ok(found);
        }
        let stored = self
            .store()?
            .reports_of_run_part(&report.run_id, report.part)?;
        for (id, body) in stored {
            let Ok(other) = RunReport::from_json("stored report", &body) else {
                continue;
            };
            if report.same_part_as(&other) {
                found.same.get_or_insert(id);
            } else if report.same_run_part(&other) {
                found.reused.get_or_insert(id);
            }
        }
        // The reports before it in the batch count as the ledger does: one
        // at a time or all at once, the same bills.
        for (i, p) in fresh.iter().enumerate() {
            let Ok(other) = RunReport::from_json("report", &p.text) else {
                continue;
            };
            if report.same_part_as(&other) {
                found.same_in_batch.get_or_insert(i);
            } else if report.same_run_part(&other) {
                found.reused_in_batch = true;
            }
        }
        Ok(found)
    }

    /// A per-GPU peak no board of the card holds is no measurement: refused
    /// naming the figure. Boards modified to twice the memory are sold (a
    /// 22 GB RTX 2080 Ti, a 48 GB RTX 4090) under the same printed name, so
    /// only a peak above twice the card's memory is impossible.
    fn check_peak_fits(&self, report: &RunReport, gpu: Option<&str>) -> Result<()> {
        let Some(card) = gpu.and_then(|g| self.bundled.catalog.get(g).ok()) else {
            return Ok(());
        };
        let most = card.spec.vram_mib.value * 2.0;
        for (field, list) in [
            ("gpu_peaks_mib", &report.gpu_peaks_mib),
            ("torch_allocated_mib", &report.torch_allocated_mib),
        ] {
            if let Some(peak) = list.iter().copied().find(|m| *m as f64 > most) {
                return Err(AppError::input(
                    field,
                    format!(
                        "{peak} MiB on one {}: more than twice the card's {} MiB",
                        card.spec.name, card.spec.vram_mib.value
                    ),
                    "what nvidia-smi measured on that card",
                )
                .said(
                    gpuplan_core::Message::new("error.report.peakOverCard")
                        .with("peak", peak)
                        .with("gpu", &card.spec.name)
                        .with("vram", card.spec.vram_mib.value),
                    None,
                ));
            }
        }
        Ok(())
    }

    /// Imports one report (see [`Planner::import_reports`]).
    pub fn import_report(
        &mut self,
        file: &str,
        text: &str,
        cost: Option<&str>,
    ) -> Result<ImportedRun> {
        self.import_reports(&[(file.to_owned(), text.to_owned())], cost, None)?
            .into_iter()
            .next()
            .ok_or_else(|| AppError::internal("the report was not imported"))
    }

    /// Imports one report and draws plan versus actual (the app's import,
    /// from the open dialog or a file dropped on the ledger).
    pub fn import_report_view(&mut self, file: &str, text: &str) -> Result<ImportedRunView> {
        let run = self.import_report(file, text, None)?;
        let versus = match &run.versus {
            Some(v) => Some(VersusView {
                versus: v.clone(),
                chart: self.versus_chart(v)?,
            }),
            None => None,
        };
        Ok(ImportedRunView { run, versus })
    }

    /// The answer for a report already in the ledger as bill `id`.
    fn already(&mut self, file: &str, report: &RunReport, id: i64) -> Result<ImportedRun> {
        let entry = self.store()?.ledger_entry(id)?.ok_or_else(|| {
            AppError::input(
                "report",
                format!("{file}: imported before, but its bill {id} is gone"),
                "a report not yet in the ledger",
            )
            .said(Message::new("error.billGone").with("id", id), None)
        })?;
        Ok(ImportedRun {
            ledger_id: id,
            plan_id: entry.plan_id,
            date: entry.date,
            platform: entry.platform,
            gpu: entry.gpu,
            gpu_in_catalog: true,
            hours: entry.hours,
            cost_estimated: crate::ledger::cost_was_estimated(&entry.problems),
            cost: entry.cost,
            peak_memory_mib: report.shown_peak_mib(),
            exit_status: report.exit_status,
            versus: None,
            already_imported: true,
            teaches_calibration: false,
            set_aside: false,
            trained_on_gpus: None,
            plan_changed: false,
            plan_file_other: false,
            plan_not_found: false,
            card_assumed: false,
            run_id_reused: None,
            identity: report.identity(),
        })
    }

    /// Reads one new report into its bill, its measured run and the answer,
    /// writing nothing.
    fn prepare(
        &mut self,
        text: &str,
        report: &RunReport,
        identity: String,
        cost: Option<&str>,
        plan_file: Option<&Plan>,
    ) -> Result<Prepared> {
        let (plan_id, plan) = self.plan_of(report, plan_file)?;
        // The plan was edited since its kit was made (or the plan file given
        // is another job): the run is not its job, so it is neither compared
        // with it nor taught from.
        let other_job = plan
            .as_ref()
            .is_some_and(|p| made_for_another_job(report, p));
        let (plan_changed, plan_file_other) = (
            other_job && plan_file.is_none(),
            other_job && plan_file.is_some(),
        );
        // A run on another number of GPUs than its plan's job is not that
        // job: its time would teach the plan's layout a wrong speed, and a
        // comparison with the plan says nothing.
        let other_layout = plan.as_ref().and_then(|p| {
            let planned = p.job.gpus.unwrap_or(1.0);
            report
                .gpus_trained_on()
                .filter(|n| f64::from(*n) != planned)
        });
        let known_gpu = report.gpu_id(&self.bundled.catalog);
        self.check_peak_fits(report, known_gpu.as_deref())?;
        // A card the catalog does not know is kept as measured: the bill
        // says what ran, and nothing is learnt from it. A report that
        // measured no card (nvidia-smi missing or failing) ran on its
        // plan's rental: the bill is the plan's card, said to be assumed,
        // and still nothing is learnt (the card was not seen).
        let unmeasured = report.gpu_name.trim().is_empty();
        let assumed_gpu = plan.as_ref().filter(|_| unmeasured).map(|p| p.gpu.clone());
        let billed_gpus = gpus_billed(report, plan.as_ref().filter(|_| unmeasured));
        let gpu = known_gpu
            .clone()
            .or_else(|| assumed_gpu.clone())
            .unwrap_or_else(|| measured_name(report));
        let platform = if report.platform.is_empty() {
            plan.as_ref()
                .map(|p| p.platform.clone())
                .unwrap_or_default()
        } else {
            report.platform.clone()
        };
        let hours = report.hours();
        let (cost, estimated, priced_as) = match cost {
            Some(c) => (c.trim().to_owned(), false, None),
            None => {
                let rental = Rental {
                    plan: plan.as_ref().filter(|_| !other_job),
                    student: plan.as_ref().is_some_and(|p| p.student),
                    platform: &platform,
                    gpus: billed_gpus,
                };
                let priced_as = known_gpu
                    .clone()
                    .or_else(|| plan.as_ref().map(|p| p.gpu.clone()));
                let amount = self.estimated_cost(report, &rental, priced_as.as_deref())?;
                (amount.to_string(), true, priced_as)
            }
        };
        let note = crate::ledger::stored_note(&bill_note(
            report,
            estimated,
            known_gpu.is_none(),
            priced_as.as_deref(),
            assumed_gpu.as_deref().map(|g| (g, billed_gpus)),
        ));
        let input = LedgerInput {
            date: report.date().map(|d| d.to_string()).unwrap_or_default(),
            platform,
            gpu,
            hours: hours.to_string(),
            cost,
            problems: note,
            plan_id,
        };
        // Another job than the plan's (its plan edited since, or another
        // plan of the same name) is billed under the plan's name but not
        // set beside its planned cost (0.70 planned against 0.02 run).
        let per = if other_job {
            crate::ledger::Planned::Nothing
        } else {
            crate::ledger::Planned::OneRun
        };
        let entry = self.ledger_entry(&input, per)?;
        // A plan file given with the report must price (it is what the run
        // is compared with: an error there is said, not skipped); a saved
        // plan that no longer prices (its pack removed since) compares
        // with nothing.
        // A part of a resumed run is not the run: its time says nothing of
        // the plan's (the parts are joined for calibration, not here).
        let a_part = report.part > 1 || report.requeued;
        let versus = match plan
            .as_ref()
            .filter(|_| !other_job && !a_part && other_layout.is_none())
        {
            Some(p) => match self.versus(p, report, &entry.gpu, entry.cost) {
                Ok(v) => Some(v),
                Err(e) if plan_file.is_some() => return Err(e),
                Err(_) => None,
            },
            None => None,
        };
        let run = match (&plan, &known_gpu) {
            (Some(p), Some(g)) if p.job.model.is_some() && other_layout.is_none() && !other_job => {
                Some(measured_run(p, g, &entry.platform, report))
            }
            _ => None,
        };
        let measured = run.as_ref().and_then(|r| serde_json::to_string(r).ok());
        // What this run says on its own: set aside as another job, or
        // nothing yet (a part of a run, a run that failed, no memory).
        // A run never resumed is a whole run of one part, as calibration
        // joins it.
        let seen = match &run {
            Some(r) => {
                let platforms = self.platforms()?;
                gpuplan_core::correction::join_parts(vec![r.clone()])
                    .first()
                    .and_then(|whole| {
                        crate::calibration::observe_on_its_host(
                            whole,
                            gpuplan_core::correction::Source::Own,
                            &platforms,
                            &self.bundled,
                        )
                    })
            }
            None => None,
        };
        let set_aside = seen.as_ref().is_some_and(|o| o.another_job);
        let run = ImportedRun {
            ledger_id: 0,
            plan_id,
            date: entry.date.clone(),
            platform: entry.platform.clone(),
            gpu: entry.gpu.clone(),
            gpu_in_catalog: known_gpu.is_some() || assumed_gpu.is_some(),
            hours: entry.hours,
            cost: entry.cost,
            cost_estimated: estimated,
            peak_memory_mib: report.shown_peak_mib(),
            exit_status: report.exit_status,
            versus,
            already_imported: false,
            // It teaches when it compares with its estimate (a part alone
            // teaches once its run is whole, so it counts as kept).
            teaches_calibration: measured.is_some() && !set_aside,
            set_aside,
            trained_on_gpus: other_layout,
            plan_changed,
            plan_file_other,
            plan_not_found: plan.is_none() && !report.plan.is_empty(),
            card_assumed: assumed_gpu.is_some(),
            run_id_reused: None,
            identity: identity.clone(),
        };
        Ok(Prepared {
            text: text.to_owned(),
            identity,
            entry,
            measured,
            run,
        })
    }

    /// The saved plan the report names (of several with that name, the
    /// newest on the report's platform and card, else the newest), or the
    /// plan file the CLI was given, parsed.
    fn plan_of(
        &mut self,
        report: &RunReport,
        plan_file: Option<&Plan>,
    ) -> Result<(Option<i64>, Option<Plan>)> {
        let wanted = plan_file.map_or(report.plan.as_str(), |p| p.name.as_str());
        let gpu = report.gpu_id(&self.bundled.catalog);
        let mut named: Vec<(i64, Option<Plan>)> = self
            .store()?
            .list_plans()?
            .into_iter()
            .filter(|p| !wanted.is_empty() && p.name == wanted)
            .map(|p| {
                let parsed = Plan::from_toml(&format!("saved plan {}", p.id), &p.body).ok();
                (p.id, parsed)
            })
            .collect();
        named.sort_by_key(|(id, _)| *id);
        let same_rental = |p: &Option<Plan>| {
            p.as_ref().is_some_and(|p| {
                p.platform == report.platform && gpu.as_deref() == Some(p.gpu.as_str())
            })
        };
        // The kit wrote the digest of the job it was made for: a saved plan
        // with that job is the run's plan, whatever else shares its name.
        let same_job = |p: &Option<Plan>| {
            p.as_ref()
                .is_some_and(|p| p.job_digest().eq_ignore_ascii_case(&report.plan_job))
        };
        // Of several, the newest with the run's job on its platform and
        // card, then with its job, then on its platform and card.
        let with_job = !report.plan_job.is_empty();
        let pick = named
            .iter()
            .rposition(|(_, p)| with_job && same_job(p) && same_rental(p))
            .or_else(|| named.iter().rposition(|(_, p)| with_job && same_job(p)))
            .or_else(|| named.iter().rposition(|(_, p)| same_rental(p)))
            .or_else(|| named.len().checked_sub(1));
        let saved = pick.and_then(|i| named.into_iter().nth(i));
        let plan_id = saved.as_ref().map(|(id, _)| *id);
        let parsed = match plan_file {
            Some(p) => Some(p.clone()),
            None => saved.and_then(|(_, p)| p),
        };
        Ok((plan_id, parsed))
    }

    /// What the platform bills for the report's window as one start: the
    /// window rounded up to its billing unit and minimum charge, at the
    /// price of `gpu` (the measured card, else the plan's) with the
    /// student discount when the plan says the student has it, for every
    /// GPU billed. The price is the plan's own where the run is its job on
    /// its rental (what the student wrote they pay: a plan at 2.50 an hour
    /// was billed at the platform's 1.39), else the platform's typical one.
    fn estimated_cost(
        &mut self,
        report: &RunReport,
        r: &Rental<'_>,
        gpu: Option<&str>,
    ) -> Result<Decimal> {
        let (platform, gpus, student) = (r.platform, r.gpus, r.student);
        let own_price = r
            .plan
            .filter(|p| p.platform == platform && gpu == Some(p.gpu.as_str()))
            .and_then(|p| p.prices.gpu_per_hour);
        let no_price = |what: String, said: Message| {
            AppError::input("cost", what, "give the real bill with --cost")
                .said(said, Some(Message::new("allowed.realBill")))
        };
        let gpu = gpu.ok_or_else(|| {
            if report.gpu_name.trim().is_empty() {
                // An empty name is a report that measured no card.
                return AppError::input(
                    "gpu_name",
                    "the report names no card, and no plan names one",
                    "give the real bill with --cost",
                )
                .said(
                    Message::new("error.reportNoCard"),
                    Some(Message::new("allowed.realBill")),
                );
            }
            no_price(
                format!(
                    "{} is not a card gpuplan knows, and no plan names one",
                    excerpt(&report.gpu_name)
                ),
                Message::new("error.unknownCard").with("gpu", excerpt(&report.gpu_name)),
            )
        })?;
        let platforms = self.platforms()?;
        let unpriced = || {
            no_price(
                format!("no price for {gpu} on {}", excerpt(platform)),
                Message::new("error.noPrice")
                    .with("gpu", gpu)
                    .with("platform", excerpt(platform)),
            )
        };
        let profile = platforms.get(platform).map_err(|_| {
            // Not a platform gpuplan has a profile of: say that, by name.
            let shown = if platform.is_empty() {
                "-".to_owned()
            } else {
                excerpt(platform)
            };
            AppError::input(
                "platform",
                format!("{shown} is not a platform gpuplan knows, so the run cannot be priced"),
                "give the real bill with --cost",
            )
            .said(
                Message::new("error.reportPlatformUnknown").with("platform", shown),
                Some(Message::new("allowed.realBill")),
            )
        })?;
        let price = profile
            .offer(gpu, &self.bundled.catalog)
            .map(|o| own_price.unwrap_or(o.price_per_hour.typical))
            .map_err(|_| unpriced())?;
        let price = if student {
            price.checked_mul(profile.student.discount.value)
        } else {
            Some(price)
        }
        .ok_or_else(|| {
            no_price(
                "the estimate overflows".into(),
                Message::new("error.tooLargeToPrice"),
            )
        })?;
        // Bounded inputs (a window of at most ten years, 1024 GPUs, a
        // checked price), but checked: an overflow is an input error.
        gpuplan_core::quote::one_start(report.window_seconds(), gpus, price, profile)
            .map(|(_, amount)| amount)
            .ok_or_else(|| {
                no_price(
                    "the estimate overflows".into(),
                    Message::new("error.tooLargeToPrice"),
                )
            })
    }
}

/// What a run report's bill is priced on when no real bill is given.
struct Rental<'a> {
    /// The plan the run is the job of (none for another job's run).
    plan: Option<&'a Plan>,
    /// Billed at the student price.
    student: bool,
    /// The platform billed.
    platform: &'a str,
    /// GPUs billed.
    gpus: u32,
}

/// What is billed already of one part of one run ([`Planner::part_billed`]).
#[derive(Default)]
struct PartBilled {
    /// The bill of a report of the part whose window overlaps this one's.
    same: Option<i64>,
    /// A report earlier in the batch of the part, overlapping.
    same_in_batch: Option<usize>,
    /// The bill of a report of the part from a window apart (the run id
    /// used again for a later run).
    reused: Option<i64>,
    /// A report earlier in the batch of the part, from a window apart.
    reused_in_batch: bool,
}

/// A run that reused another run's id (bill `id` holds that part, or a
/// report earlier in the same import when `None`): billed
/// as it ran, but joined with nothing and taught from nothing (its parts
/// would be joined with the other run's), and the bill says why.
fn reused_run_id(p: &mut Prepared, report: &RunReport, id: Option<i64>) {
    p.measured = None;
    p.run.teaches_calibration = false;
    p.run.run_id_reused = Some(crate::views::RunIdReused {
        bill: id,
        run_id: excerpt(&report.run_id),
        part: report.part,
    });
    let mut note = crate::ledger::shown_note(&p.entry.problems);
    let said = match id {
        Some(id) => Message::new("ledger.note.runIdReused").with("id", id),
        None => Message::new("ledger.note.runIdReusedHere"),
    };
    note.push(
        said.with("run", excerpt(&report.run_id))
            .with("part", report.part),
    );
    p.entry.problems = crate::ledger::stored_note(&note);
}

/// A real bill (`--cost`, else a plan to compare with) given for a run
/// already billed as bill `id`: it would be dropped without a word, so it is
/// refused, saying how to replace the bill.
fn not_applied(id: i64, cost: bool) -> AppError {
    let (field, flag) = if cost {
        ("cost", "--cost")
    } else {
        ("plan", "--plan")
    };
    AppError::input(
        field,
        format!("this run is already bill {id}: {flag} was not applied"),
        format!("delete that bill first, then import the report again with {flag}"),
    )
    .said(
        Message::new("error.alreadyBilled")
            .with("id", id)
            .with("flag", flag),
        Some(
            Message::new("allowed.alreadyBilled")
                .with("id", id)
                .with("flag", flag),
        ),
    )
}

/// The GPUs a run is billed: the machine's, or for a machine not measured
/// (`assumed`: its plan), the plan's (a two-GPU rental is not billed as one).
fn gpus_billed(report: &RunReport, assumed: Option<&Plan>) -> u32 {
    match assumed {
        Some(p) if report.gpu_count == 0 => p
            .job
            .gpus
            .and_then(|g| gpuplan_core::job::gpu_count(g).ok())
            .unwrap_or(1),
        _ => report.billed_gpus(),
    }
}

/// Whether `report`'s kit was made for another job than `plan`'s (the plan
/// edited since): not compared with it, nothing taught, no planned cost.
pub(crate) fn made_for_another_job(report: &RunReport, plan: &Plan) -> bool {
    !report.plan_job.is_empty() && !plan.job_digest().eq_ignore_ascii_case(&report.plan_job)
}

/// The GPU as the report named it, for a card the catalog lacks.
fn measured_name(report: &RunReport) -> String {
    let name = report.gpu_name.trim();
    if name.is_empty() {
        "-".to_owned()
    } else {
        name.chars().take(100).collect()
    }
}

/// The bill's note: what the report said, and how the cost was found, in
/// the catalog's words (stored with the bill, worded when shown).
fn bill_note(
    report: &RunReport,
    estimated: bool,
    unknown_card: bool,
    priced_as: Option<&str>,
    assumed: Option<(&str, u32)>,
) -> Vec<Message> {
    // A report with no memory figure says "not measured", not "-".
    let mut note = vec![match report.shown_peak_mib() {
        Some(m) => {
            Message::new("ledger.note.report").with("peak", format!("{:.1}", m as f64 / 1024.0))
        }
        None => Message::new("ledger.note.reportNoPeak"),
    }
    .with("exit", report.exit_status)
    .with("lines", report.progress_lines)];
    if !report.last_progress.is_empty() {
        note.push(Message::new("ledger.note.last").with("last", excerpt(&report.last_progress)));
    }
    if !report.run_id.is_empty() && (report.part > 1 || report.requeued) {
        note.push(
            Message::new("ledger.note.part")
                .with("part", report.part)
                .with("run", excerpt(&report.run_id)),
        );
    }
    match assumed {
        Some((g, 1)) => note.push(Message::new("ledger.note.cardAssumed").with("gpu", g)),
        Some((g, n)) => note.push(
            Message::new("ledger.note.cardsAssumed")
                .with("gpu", g)
                .with("count", n),
        ),
        None if unknown_card => note
            .push(Message::new("ledger.note.unknownCard").with("gpu", excerpt(&report.gpu_name))),
        None => {}
    }
    if estimated {
        note.push(match (unknown_card, priced_as) {
            (true, Some(g)) => Message::new("ledger.note.estimatedAs").with("gpu", g),
            _ => Message::new("ledger.note.estimated"),
        });
    }
    note
}

/// Whether `report` is a piece of `plan`'s run by its epochs (stopped
/// before the last, or started past the first): plan versus actual and
/// calibration ask the same.
pub(crate) fn stopped_short(report: &RunReport, plan: &Plan) -> bool {
    gpuplan_core::versus::stopped_short(report.first_epoch(), report.last_epoch(), plan.job.epochs)
}

/// The anonymised run calibration learns from: the plan's job, the card
/// and platform, and what was measured, in the form it is compared in.
fn measured_run(plan: &Plan, gpu: &str, platform: &str, report: &RunReport) -> MeasuredRun {
    let (peak, memory) = match report.memory() {
        MemoryMeasure::Process(m) => (Some(m), MeasuredMemory::Process),
        MemoryMeasure::LiveTensors(m) => (Some(m), MeasuredMemory::LiveTensors),
        MemoryMeasure::Unknown => (None, MeasuredMemory::Unknown),
    };
    let v2 = report.schema == gpuplan_core::scripts::RUN_REPORT_SCHEMA;
    // A run that stopped before its plan's last epoch, or started past its
    // first, is kept as a piece of a run: it teaches memory, never the
    // whole run's time (five one-epoch smoke tests of a four-epoch plan
    // taught -48%).
    let short = stopped_short(report, plan);
    let part = if v2 { report.part } else { 0 };
    MeasuredRun {
        job: gpuplan_core::JobSpec {
            hours: None,
            ..plan.job.clone()
        },
        gpu: gpu.to_owned(),
        platform: platform.to_owned(),
        wall_seconds: report.wall_seconds.max(1),
        peak_memory_mib: peak.filter(|m| *m > 0),
        completed: report.exit_status == 0,
        started_at: report.started_at.clone(),
        memory,
        run_id: report.run_id.clone(),
        // First-version reports are whole runs; a second-version report is
        // part `part` of its run (part 1 of 1 when never resumed).
        part: if short { part.max(1) } else { part },
        requeued: report.requeued || short,
        parts: 1,
    }
}
