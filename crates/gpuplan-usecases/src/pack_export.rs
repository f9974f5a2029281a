//! Use case: a course pack exported for a class.

use gpuplan_core::pack::{CoursePack, PackInfo, Preset, PresetName};
use rust_decimal::Decimal;

use crate::planning::PackExport;
use crate::{AppError, Planner, Result};

impl Planner {
    /// A course pack's text for a class: the named platforms as this user
    /// sees them (overrides applied), plans' jobs as presets, a budget cap.
    /// The text is validated by importing it before it is returned.
    pub fn export_pack(&mut self, e: &PackExport<'_>) -> Result<String> {
        let set = self.platforms()?;
        // A platform named twice (`--platform autodl --platform autodl`) is
        // in the pack once.
        let mut ids: Vec<&String> = Vec::with_capacity(e.platforms.len());
        for id in e.platforms {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        let mut profiles = ids
            .into_iter()
            .map(|id| set.get(id).cloned())
            .collect::<std::result::Result<Vec<_>, _>>()?;
        // The instructor's own prices reach the class as the course's, not
        // as each student's own figure.
        for offer in profiles.iter_mut().flat_map(|p| p.offers.iter_mut()) {
            let price = &mut offer.price_per_hour;
            if price.grade == gpuplan_core::sourced::Grade::Own {
                price.grade = gpuplan_core::sourced::Grade::Course;
                price.source = price.source.replacen(
                    gpuplan_core::pack::OWN_PRICE_SOURCE,
                    gpuplan_core::pack::COURSE_PRICE_SOURCE,
                    1,
                );
            }
        }
        let budget_cap = e
            .budget_cap
            .map(|t| {
                crate::userdata::parse_amount(
                    "budget_cap",
                    t,
                    1_000_000,
                    crate::userdata::MONEY_PLACES,
                )
            })
            .transpose()?;
        // Each plan is checked whole before it becomes a preset, so its run
        // count is within the plan format's bounds.
        let mut presets = Vec::with_capacity(e.presets.len());
        for plan in &e.presets {
            plan.check()?;
            let runs = plan
                .runs
                .iter()
                .try_fold(0u32, |n, r| n.checked_add(r.count))
                .ok_or_else(|| {
                    AppError::input(
                        "run.count",
                        "the runs add up past any count",
                        format!("1 to {}", gpuplan_core::plan::MAX_RUNS),
                    )
                    .said(
                        gpuplan_core::Message::new("error.outOfRange").with("value", "∞"),
                        Some(
                            gpuplan_core::Message::new("allowed.whole")
                                .with("min", 1)
                                .with("max", gpuplan_core::plan::MAX_RUNS),
                        ),
                    )
                })?;
            // A preset is one job run several times: runs of different
            // lengths cannot be one, and are refused rather than cut to the
            // first run's length.
            let length = |r: &gpuplan_core::plan::RunGroup| (r.hours, r.minutes, r.epochs);
            if let Some(first) = plan.runs.first() {
                if plan.runs.iter().any(|r| length(r) != length(first)) {
                    return Err(AppError::input(
                        "run",
                        format!("the runs of {} have different lengths", plan.name),
                        "one plan per run length",
                    )
                    .said(
                        gpuplan_core::Message::new("error.presetMixedRuns")
                            .with("plan", crate::userdata::excerpt(&plan.name)),
                        Some(gpuplan_core::Message::new("allowed.presetOneLength")),
                    ));
                }
            }
            // A plan that gives hours on its runs rather than on its job
            // hands its runs' length to the preset; epochs on its runs are
            // the preset's epochs.
            let mut job = plan.job.clone();
            if let Some(e) = plan.runs.first().and_then(|r| r.epochs) {
                use rust_decimal::prelude::ToPrimitive;
                job.epochs = e.to_f64();
            }
            if job.model.is_none() {
                let on_runs = plan.runs.iter().find_map(|r| {
                    r.hours.or_else(|| {
                        r.minutes
                            .and_then(|m| m.checked_div(Decimal::from(60)))
                            .map(|h| h.round_dp(4))
                    })
                });
                job.hours = on_runs.or(job.hours);
            }
            // A preset's hours are an RTX 3090's, as any situation's are;
            // the plan's are its own card's.
            if job.model.is_none() {
                if let Some(h) = job.hours {
                    let gpu = self.bundled.catalog.get(&plan.gpu)?;
                    job.hours = Some(gpuplan_core::recommend::hours_on_reference(
                        h,
                        gpu,
                        &self.bundled.catalog,
                    )?);
                }
            }
            presets.push(Preset {
                id: None,
                name: PresetName::Text(plan.name.clone()),
                job,
                runs: runs.max(1),
            });
        }
        let pack = CoursePack {
            pack: PackInfo {
                name: e.name.to_owned(),
                instructor: e.instructor.to_owned(),
                budget_cap,
                default_platform: profiles.first().map(|p| p.id.clone()),
            },
            platforms: profiles,
            presets,
            measured_runs: gpuplan_core::correction::unique(e.measured_runs.clone()),
        };
        let text = pack.to_toml();
        CoursePack::from_toml(
            "exported pack",
            &text,
            &self.bundled.catalog,
            &self.bundled.zoo,
        )
        .map_err(as_typed_field)?;
        Ok(text)
    }
}

/// A refusal of what the instructor typed (`pack.name`, `pack.instructor`)
/// names the field they typed it in (`name`), not a line of a file they
/// never saw; other refusals (a platform's figures) stay as they are.
fn as_typed_field(e: gpuplan_core::DataError) -> AppError {
    match (e.field.starts_with("pack."), e.said.clone()) {
        (true, Some(said)) => AppError::input(&e.field, e.message.clone(), "")
            .said(*said, e.allowed.clone().map(|a| *a)),
        _ => e.into(),
    }
}
