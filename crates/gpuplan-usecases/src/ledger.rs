//! Use case: the ledger of real bills, its totals and months, and a run
//! against its plan.

use std::str::FromStr;

use gpuplan_core::limits::FieldLimit;
use gpuplan_core::plan::Plan;
use gpuplan_store::LedgerEntry;
use rust_decimal::Decimal;

use crate::userdata::{
    excerpt, parse_amount, HOURS_PLACES, LEDGER_PAGE, MAX_LEDGER_AMOUNT, MAX_PROBLEMS_CHARS,
    MONEY_PLACES,
};
use crate::views::{DeletedBill, LedgerInput, LedgerPage, LedgerRow, PlanVersusActual, VersusView};
use crate::{AppError, Planner, Result};

/// A typed bill's hours, as its errors and the app's form name them.
pub const BILL_HOURS: &str = "bill.hours";
/// A typed bill's amount paid, CNY.
pub const BILL_COST: &str = "bill.cost";

impl Planner {
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
            )
            .said(
                gpuplan_core::Message::new("error.noLedgerEntry").with("id", id),
                Some(gpuplan_core::Message::new("allowed.ledgerId")),
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
        let per = match &bill.report {
            // Beside one run of its plan, unless it was another job's run
            // (its plan edited since the kit was made): set beside nothing,
            // as its import did.
            Some(text) => self.planned_for_report(text, bill.entry.plan_id)?,
            None => Planned::Whole,
        };
        let e = self.ledger_entry(&bill.entry, per)?;
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
                    .said(gpuplan_core::Message::new("error.notMeasuredRun"), None)
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
        // A report imported again since the delete is that bill already.
        ids.first()
            .map(|(id, _)| *id)
            .ok_or_else(|| AppError::internal("the restored bill was not added"))
    }

    /// The range of a typed bill's hours and amount, for the app's form.
    pub fn bill_limits() -> [FieldLimit; 2] {
        [BILL_HOURS, BILL_COST].map(|field| FieldLimit {
            field,
            min: 0.0,
            max: f64::from(MAX_LEDGER_AMOUNT),
            min_exclusive: false,
            integer: false,
        })
    }

    /// Adds a real bill to the ledger, with the linked plan's quoted total
    /// for plan-versus-actual; returns its id.
    pub fn add_ledger(&mut self, entry: &LedgerInput) -> Result<i64> {
        let e = self.ledger_entry(entry, Planned::Whole)?;
        let now = self.now();
        Ok(self.store()?.add_ledger(&e, &now)?)
    }

    /// A ledger input checked field by field, with the linked plan's quote:
    /// its total for a bill of the whole plan, one run's cost for a bill of
    /// one run (a run report).
    pub(crate) fn ledger_entry(
        &mut self,
        entry: &LedgerInput,
        per: Planned,
    ) -> Result<LedgerEntry> {
        let date = chrono::NaiveDate::from_str(entry.date.trim()).map_err(|_| {
            AppError::input(
                "date",
                format!("`{}` is not a date", excerpt(&entry.date)),
                "YYYY-MM-DD",
            )
            .said(
                gpuplan_core::Message::new("error.notADate").with("value", excerpt(&entry.date)),
                Some(gpuplan_core::Message::new("allowed.dateFormat")),
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
            )
            .said(
                gpuplan_core::Message::new("error.outOfRange").with("value", date),
                Some(
                    gpuplan_core::Message::new("allowed.between")
                        .with("min", format!("{}-01-01", years.start()))
                        .with("max", format!("{}-12-31", years.end())),
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
                )
                .said(
                    gpuplan_core::Message::new("error.nameLength").with("max", max),
                    None,
                ));
            }
            Ok(t.to_owned())
        };
        let platform = text("platform", &entry.platform, 100)?;
        let gpu = text("gpu", &entry.gpu, 100)?;
        // Stored as they are shown, to the fen and the hundredth of an hour
        // ("1.2元" is 1.20, "0" is 0.00).
        let hours = to_places(
            parse_amount(BILL_HOURS, &entry.hours, MAX_LEDGER_AMOUNT, HOURS_PLACES)?,
            HOURS_PLACES,
        );
        let cost = to_places(
            parse_amount(BILL_COST, &entry.cost, MAX_LEDGER_AMOUNT, MONEY_PLACES)?,
            MONEY_PLACES,
        );
        // What went wrong is kept whole or refused, never cut short.
        if entry.problems.chars().count() > MAX_PROBLEMS_CHARS {
            return Err(AppError::input(
                "problems",
                format!("too long: at most {MAX_PROBLEMS_CHARS} characters"),
                format!("up to {MAX_PROBLEMS_CHARS} characters"),
            )
            .said(
                gpuplan_core::Message::new("error.tooLong").with("max", MAX_PROBLEMS_CHARS),
                None,
            ));
        }
        let planned_cost = match entry.plan_id.filter(|_| !matches!(per, Planned::Nothing)) {
            Some(id) => {
                let saved = self.store()?.get_plan(id)?;
                let platforms = self.platforms()?;
                // A run is set beside the model's own answer, as plan versus
                // actual is (the import said "0.18 -> 0.24" and the bill
                // stored 0.23: the run itself had taught the quote).
                let none = gpuplan_core::correction::Corrections::none();
                Plan::from_toml(&format!("saved plan {id}"), &saved.body)
                    .ok()
                    .and_then(|p| {
                        let q = match per {
                            Planned::OneRun => self.quote_with(&p, &none),
                            Planned::Whole | Planned::Nothing => self.quote(&p),
                        };
                        Some((q.ok()?, p))
                    })
                    .map(|(q, p)| match per {
                        Planned::Whole => q.cash_total,
                        // A run is set beside one run of the plan, not the
                        // plan's total over all its runs.
                        Planned::OneRun | Planned::Nothing => {
                            longest_run_cost(&q, platforms.get(&p.platform).ok())
                        }
                    })
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
            problems: entry.problems.clone(),
            plan_id: entry.plan_id,
            planned_cost,
        };
        Ok(e)
    }

    /// What a run report's bill is set beside: one run of its plan, or
    /// nothing when the report was made for another job than the plan's.
    fn planned_for_report(&mut self, text: &str, plan_id: Option<i64>) -> Result<Planned> {
        let report = gpuplan_core::report::RunReport::from_json("restored report", text)?;
        let Some(id) = plan_id else {
            return Ok(Planned::OneRun);
        };
        let saved = self.store()?.get_plan(id).ok();
        let other_job = saved
            .and_then(|s| Plan::from_toml(&format!("saved plan {id}"), &s.body).ok())
            .is_some_and(|p| crate::reports::made_for_another_job(&report, &p));
        Ok(if other_job {
            Planned::Nothing
        } else {
            Planned::OneRun
        })
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
            .said(
                gpuplan_core::Message::new("error.noVersus").with("id", ledger_id),
                Some(gpuplan_core::Message::new("allowed.versusEntry")),
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
        // The run compared is the plan's longest: its hours and what one
        // of it costs (its group's line over the group's count), not the
        // plan's total spread over runs of other lengths.
        let platforms = self.platforms()?;
        let planned_cost = longest_run_cost(&q, platforms.get(&plan.platform).ok());
        // To the second, not the two places the bill shows: a 39 s run
        // planned is not 36 s (0.01 h), or an honest 44 s reads as 20% slow.
        let planned_hours = q.longest_run_seconds.to_f64().unwrap_or(0.0) / 3600.0;
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
        let (planned_peak_gib, measured_peak_gib) = peaks(estimate.as_ref(), report);
        let input_bound = estimate
            .as_ref()
            .and_then(|e| {
                e.run
                    .map(|r| r.bound == gpuplan_core::pipeline::Bound::Input)
            })
            .unwrap_or(false);
        let (planned_step_seconds, measured_step_seconds) = step_times(estimate.as_ref(), report);
        let gaps = gpuplan_core::versus::gaps(&gpuplan_core::versus::Observed {
            succeeded: report.exit_status == 0,
            same_card: gpu == plan.gpu,
            hours: (planned_hours, measured_hours),
            peak_gib: (planned_peak_gib, measured_peak_gib),
            step_seconds: (planned_step_seconds, measured_step_seconds),
            input_bound,
            cpu_percent: report.cpu_percent,
            stopped_short: crate::reports::stopped_short(report, plan),
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
        let total = to_places(months.iter().map(|m| m.cost).sum(), MONEY_PLACES);
        let chart = self.month_chart(&months)?;
        Ok(LedgerPage {
            entries: entries
                .into_iter()
                .map(|e| LedgerRow {
                    id: e.id,
                    date: e.date,
                    platform: e.platform,
                    gpu: e.gpu,
                    hours: to_places(e.hours, HOURS_PLACES),
                    cost: to_places(e.cost, MONEY_PLACES),
                    note: shown_note(&e.problems),
                    problems: if shown_note(&e.problems).is_empty() {
                        e.problems
                    } else {
                        String::new()
                    },
                    plan_id: e.plan_id,
                    planned_cost: e.planned_cost,
                    has_report: reported.binary_search(&e.id).is_ok(),
                })
                .collect(),
            chart,
            total,
        })
    }
}

/// How a note the app wrote itself is stored in a bill's problems column:
/// its messages as JSON after this mark, worded in the reader's language
/// when shown (what a student typed is stored as typed).
const NOTE_MARK: &str = "gpuplan-note/1:";

/// A note of the app's own, as stored.
pub(crate) fn stored_note(note: &[gpuplan_core::Message]) -> String {
    format!(
        "{NOTE_MARK}{}",
        serde_json::to_string(note).unwrap_or_default()
    )
}

/// The app's own note in a stored problems text, if it is one.
/// Whether a stored bill's cost was estimated from the price (its note
/// says so), not given: a re-import answers as the first import did.
pub(crate) fn cost_was_estimated(stored: &str) -> bool {
    shown_note(stored)
        .iter()
        .any(|m| m.key.starts_with("ledger.note.estimated"))
}

pub(crate) fn shown_note(stored: &str) -> Vec<gpuplan_core::Message> {
    stored
        .strip_prefix(NOTE_MARK)
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

/// `d` with exactly `places` decimals (it already has at most that many:
/// [`parse_amount`] refuses more), as every amount is shown.
fn to_places(mut d: Decimal, places: u32) -> Decimal {
    d.rescale(places);
    d
}

/// What one of the quote's longest runs costs: the run line with the most
/// seconds each, over its count; the whole bill when there is none.
/// What a bill's planned cost is set beside.
#[derive(Clone, Copy)]
pub(crate) enum Planned {
    /// The whole plan (a bill typed for it).
    Whole,
    /// One run of it, the longest (a run report's bill).
    OneRun,
    /// Nothing: the run is another job than the plan's.
    Nothing,
}

/// What one run of the plan costs, the longest: its runs line's share,
/// billed as the platform bills one start, its time rounded up to the
/// billing unit and the minimum charge, as the run's own bill is (a
/// 30-minute run on a platform with a one-hour minimum is planned at the
/// hour it will be charged, not at half of it).
fn longest_run_cost(
    q: &gpuplan_core::quote::Quote,
    profile: Option<&gpuplan_core::platform::PlatformProfile>,
) -> Decimal {
    use gpuplan_core::quote::{billed_hours, cny, seconds_to_hours};
    let param = |l: &gpuplan_core::quote::LineItem, k: &str| -> Option<Decimal> {
        l.params.0.iter().find(|(key, _)| *key == k)?.1.parse().ok()
    };
    let Some((seconds, share)) = q
        .lines
        .iter()
        .filter(|l| l.kind == gpuplan_core::quote::LineKind::Runs)
        .filter_map(|l| Some((param(l, "time_s")?, param(l, "count")?, l.amount)))
        .max_by(|a, b| a.0.cmp(&b.0))
        .and_then(|(seconds, count, amount)| Some((seconds, amount.checked_div(count)?)))
    else {
        return q.cash_total;
    };
    let used = seconds_to_hours(seconds);
    let billed = profile.map_or(used, |p| {
        billed_hours(
            used,
            p.billing.granularity.value,
            p.billing.minimum_charge_minutes.value,
        )
    });
    cny(share
        .checked_mul(billed)
        .and_then(|x| x.checked_div(used))
        .unwrap_or(share))
}

/// The run's memory peak (GiB), planned and measured: what the report
/// measured against the estimate's figure of the same thing. nvidia-smi's
/// process memory (CUDA context and the allocator's cache included) against
/// the per-GPU peak; PyTorch's live tensors against the peak without the
/// context and the allocator's reserve; a first-version report's one figure
/// as it always was compared.
fn peaks(
    estimate: Option<&gpuplan_core::estimate::EstimateReport>,
    report: &gpuplan_core::report::RunReport,
) -> (Option<f64>, Option<f64>) {
    use gpuplan_core::report::MemoryMeasure;
    let gib = |m: u64| m as f64 / 1024.0;
    match report.memory() {
        MemoryMeasure::Process(m) => (estimate.map(|e| e.peak_gib), Some(gib(m))),
        MemoryMeasure::LiveTensors(m) => (
            estimate.map(|e| {
                let part = |k: &str| e.components.get(k).copied().unwrap_or(0.0);
                (e.peak_gib - part("context") - part("allocator")).max(0.0)
            }),
            Some(gib(m)),
        ),
        MemoryMeasure::Unknown => (
            estimate.map(|e| e.peak_gib),
            report.peak_memory_mib.map(gib),
        ),
    }
}

/// The epoch number a progress line names ("Epoch 50", "epoch: 7/30").
fn last_epoch(line: &str) -> Option<u64> {
    let lower = line.to_ascii_lowercase();
    let after = &lower[lower.find("epoch")?.saturating_add(5)..];
    let digits: String = after
        .trim_start_matches([' ', ':', '=', '#'])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    // A run has at most a million epochs; a longer number is something else.
    digits.parse().ok().filter(|n: &u64| *n <= 1_000_000)
}

/// Seconds per step, planned and measured: an epoch of the estimate
/// (without the one-off warm-up and cold cache) over its steps; measured
/// from the epoch lines after the first, whose spacing is one epoch each.
fn step_times(
    estimate: Option<&gpuplan_core::estimate::EstimateReport>,
    report: &gpuplan_core::report::RunReport,
) -> (Option<f64>, Option<f64>) {
    let run = estimate.and_then(|e| e.run);
    let epochs = estimate.and_then(|e| e.job.epochs).filter(|e| *e >= 1.0);
    let steps = run.map(|r| r.steps_per_epoch).filter(|s| *s > 0);
    let planned = match (run, epochs, steps) {
        (Some(r), Some(n), Some(k)) => {
            Some((r.total_s - r.warmup_s - r.cold_cache_s) / n / k as f64)
        }
        _ => None,
    };
    // The lines are one per epoch only when the last one's epoch number
    // is about their count ("Epoch 50" on the 50th line); per-batch lines
    // ("Epoch 50 [300/391]", 200 of them) are not, and give no step time
    // rather than a wrong one.
    let one_per_epoch =
        last_epoch(&report.last_progress).is_some_and(|n| n.abs_diff(report.progress_lines) <= 1);
    let measured = match (report.first_progress_seconds, steps) {
        (Some(first), Some(k)) if report.progress_lines >= 2 && one_per_epoch => {
            let span = report.wall_seconds.saturating_sub(first) as f64;
            Some(span / report.progress_lines.saturating_sub(1) as f64 / k as f64)
        }
        _ => None,
    };
    (planned, measured)
}

#[cfg(test)]
mod tests {
    use super::last_epoch;

    #[test]
    fn the_epoch_a_progress_line_names() {
        // (line, epoch, why)
        let cases = [
            ("Epoch 50", Some(50), "the wrapper's own sample"),
            ("epoch: 7/30 loss 0.3", Some(7), "a colon and a total"),
            (
                "Epoch 50 [300/391] loss 0.12",
                Some(50),
                "a per-batch line still names its epoch",
            ),
            ("Step 1200", None, "a step line names no epoch"),
            ("epoch", None, "no number"),
            (
                "Epoch 99999999999999999999",
                None,
                "too long to be an epoch",
            ),
        ];
        for (line, want, why) in cases {
            assert_eq!(last_epoch(line), want, "{why}");
        }
    }
}
