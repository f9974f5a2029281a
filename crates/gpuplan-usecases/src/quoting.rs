//! Use case: a plan priced (the bill, its chart, its prices' age).

use std::path::Path;

use gpuplan_core::plan::Plan;
use gpuplan_core::quote::{quote_with, Quote};
use rust_decimal::prelude::ToPrimitive;

use crate::views::{PriceAge, QuoteView, RunPartRow};
use crate::{files, Planner, Result, Snapshot};

impl Planner {
    /// A plan file's text, parsed and validated (`file` names it in errors).
    pub fn parse_plan(&self, file: &str, text: &str) -> Result<Plan> {
        Ok(Plan::from_toml(file, text)?)
    }

    /// Reads and parses a plan file, and prices it: a platform, card or
    /// model the plan names that is not there (or a job the quote refuses)
    /// is refused at the line of the file that writes it.
    pub fn read_plan(&mut self, path: &Path) -> Result<Plan> {
        Ok(self.quote_file(path)?.0)
    }

    /// [`Planner::read_plan`], with the quote it was checked by (with the
    /// user's overrides, packs and calibration, as [`Planner::quote`]).
    pub fn quote_file(&mut self, path: &Path) -> Result<(Plan, Quote)> {
        let text = files::read_text(path, "plan", files::MAX_USER_FILE_BYTES)?;
        let file = path.display().to_string();
        let plan = self.parse_plan(&file, &text)?;
        let snapshot = self.snapshot()?;
        match snapshot.price(&plan, &snapshot.corrections) {
            Ok(q) => Ok((plan, q)),
            Err(e) => Err(match gpuplan_core::DataError::at_value(&file, &text, e) {
                Ok(located) => located.into(),
                // Nowhere in the file (no `[job]` at all): the file is named.
                Err(e) => crate::AppError::from(e).in_file(&file),
            }),
        }
    }

    /// Prices a plan on its platform (with the user's overrides and packs).
    pub fn quote(&mut self, plan: &Plan) -> Result<Quote> {
        self.snapshot()?.quote(plan)
    }

    /// [`Snapshot::quote_with`]: a plan priced with the given corrections.
    pub(crate) fn quote_with(
        &mut self,
        plan: &Plan,
        corrections: &gpuplan_core::correction::Corrections,
    ) -> Result<Quote> {
        self.snapshot()?.quote_with(plan, corrections)
    }

    /// The plan screen: the bill and the spend chart.
    pub fn quote_view(&mut self, plan: &Plan) -> Result<QuoteView> {
        self.snapshot()?.quote_view(plan)
    }

    /// How old the prices behind `quote` are, today, and which course
    /// pack they came from.
    pub fn price_age(&mut self, quote: &Quote) -> Result<PriceAge> {
        Ok(self.snapshot()?.price_age(quote))
    }

    pub(crate) fn longest_run_hours(&mut self, plan: &Plan) -> Result<f64> {
        self.snapshot()?.longest_run_hours(plan)
    }
}

impl Snapshot {
    /// Prices a plan on its platform (with the user's overrides and packs).
    pub fn quote(&self, plan: &Plan) -> Result<Quote> {
        self.quote_with(plan, &self.corrections)
    }

    /// [`Snapshot::quote`] with the given corrections.
    pub(crate) fn quote_with(
        &self,
        plan: &Plan,
        corrections: &gpuplan_core::correction::Corrections,
    ) -> Result<Quote> {
        Ok(self.price(plan, corrections)?)
    }

    /// [`Snapshot::quote_with`] with the refusal as the check gave it (the
    /// field it names, for locating it in a file).
    fn price(
        &self,
        plan: &Plan,
        corrections: &gpuplan_core::correction::Corrections,
    ) -> std::result::Result<Quote, gpuplan_core::InputError> {
        let profile = self.platforms.get(&plan.platform)?;
        quote_with(
            plan,
            profile,
            &self.bundled.catalog,
            &self.bundled.zoo,
            corrections,
        )
    }

    /// The plan screen: the bill and the spend chart.
    pub fn quote_view(&self, plan: &Plan) -> Result<QuoteView> {
        let quote = self.quote(plan)?;
        let chart = self.spend_chart(&quote, plan.budget.and_then(|b| b.to_f64()))?;
        let warnings = quote.warnings.iter().map(|w| w.message()).collect();
        let run_parts = RunPartRow::all(quote.run_parts.as_ref());
        let prices = self.price_age(&quote);
        Ok(QuoteView {
            quote,
            warnings,
            chart,
            run_parts,
            prices,
        })
    }

    /// How old the prices behind `quote` are, today.
    pub fn price_age(&self, quote: &Quote) -> PriceAge {
        PriceAge::of(
            quote.prices_observed.as_deref().zip(quote.prices_oldest),
            self.today,
            crate::defaults::PRICE_STALE_DAYS,
            self.pack_of.get(&quote.platform).map(String::as_str),
        )
    }

    /// The plan's longest run, hours (1 when it has none).
    pub(crate) fn longest_run_hours(&self, plan: &Plan) -> Result<f64> {
        Ok(self.quote(plan)?.longest_run_hours.to_f64().unwrap_or(1.0))
    }
}
