//! The charts, drawn by `gpuplan-charts` in both languages from the one
//! message catalog. The data is computed once; only the labels differ, so the
//! app swaps languages without a round trip. Money reaches the plotting code
//! as `f64` only here, at the very end, for pixel positions.

use gpuplan_core::estimate::{EstimateReport, Verdict};
use gpuplan_core::pipeline::RunParts;
use gpuplan_core::quote::{Category, Quote};
use gpuplan_core::recommend::RankedOption;
use gpuplan_store::MonthSpend;
use rust_decimal::prelude::ToPrimitive;

use crate::views::Chart;
use crate::{Catalog, Lang, Planner, Result};

/// Memory components below this many GiB are left out of the chart.
const SMALLEST_PART_GIB: f64 = 0.0005;
/// Options shown in the cost chart.
pub const COST_CHART_OPTIONS: usize = 5;

fn both(f: impl Fn(Lang) -> Result<String>) -> Result<Chart> {
    Ok(Chart {
        zh: f(Lang::Zh)?,
        en: f(Lang::En)?,
    })
}

fn money(d: rust_decimal::Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

/// The cards drawn beside a memory breakdown: the largest card below the
/// peak, the smallest that holds it, and the target card, so the scale fits
/// the job rather than the biggest card in the catalog.
pub fn cards_near_peak(report: &EstimateReport) -> Vec<(String, f64)> {
    let mut cards: Vec<&gpuplan_core::estimate::GpuFit> = report.gpus.iter().collect();
    cards.sort_by(|a, b| a.vram_gib.total_cmp(&b.vram_gib));
    let below = cards
        .iter()
        .rev()
        .find(|g| g.vram_gib < report.peak_gib)
        .copied();
    let holds = cards
        .iter()
        .find(|g| {
            matches!(g.verdict, Verdict::Fits | Verdict::Tight) || g.vram_gib >= report.peak_gib
        })
        .copied();
    // The target card is marked when it is near the job; a card many times
    // the job's size would squash the bar into a sliver (the table beside
    // the chart names it either way).
    let reach = [below, holds]
        .into_iter()
        .flatten()
        .map(|g| g.vram_gib)
        .fold(report.peak_gib, f64::max);
    let target = cards
        .iter()
        .find(|g| g.id == report.target_gpu && g.vram_gib <= reach * 3.0)
        .copied();
    let mut out: Vec<(String, f64)> = Vec::new();
    for g in [below, holds, target].into_iter().flatten() {
        if !out.iter().any(|(_, v)| (*v - g.vram_gib).abs() < 0.05) {
            out.push((short_card_name(&g.name).to_owned(), g.vram_gib));
        }
    }
    out.sort_by(|a, b| a.1.total_cmp(&b.1));
    out
}

fn vram(labels: &Catalog, lang: Lang, r: &EstimateReport) -> Result<String> {
    let parts: Vec<(String, f64)> = gpuplan_core::vram::Components::KEYS
        .iter()
        .filter_map(|k| r.components.get(*k).map(|v| (*k, *v)))
        .filter(|(_, v)| *v > SMALLEST_PART_GIB)
        .map(|(k, v)| (labels.text(lang, &format!("memory.components.{k}")), v))
        .collect();
    let gib = format!("{:.2}", r.peak_gib);
    let title = labels.fill(
        lang,
        "chart.vramTitle",
        [("model", r.model_name.as_str()), ("gib", gib.as_str())],
    );
    Ok(gpuplan_charts::vram_breakdown(
        &title,
        &parts,
        &cards_near_peak(r),
    )?)
}

fn run(labels: &Catalog, lang: Lang, gpu: &str, r: &RunParts) -> Result<String> {
    let parts: Vec<(String, f64)> = r
        .parts()
        .iter()
        .map(|(k, s)| (labels.text(lang, &format!("run.parts.{k}")), s / 60.0))
        .collect();
    Ok(gpuplan_charts::run_split(
        &labels.fill(lang, "run.title", [("gpu", gpu)]),
        &parts,
        &labels.text(lang, "chart.minutes"),
    )?)
}

/// A card's name as listings say it ("RTX 4090"), from the catalog's.
pub fn short_card_name(name: &str) -> &str {
    name.trim_start_matches("NVIDIA ")
        .trim_start_matches("GeForce ")
}

fn costs(
    labels: &Catalog,
    lang: Lang,
    options: &[RankedOption],
    catalog: &gpuplan_core::GpuCatalog,
) -> Result<String> {
    let top: Vec<&RankedOption> = options.iter().take(COST_CHART_OPTIONS).collect();
    let categories: Vec<Category> = Category::ALL
        .into_iter()
        .filter(|c| top.iter().any(|o| o.quote.by_category.contains_key(c)))
        .collect();
    // Each category keeps its place in `Category::ALL` as its colour, so
    // storage is the same colour on every chart whatever else is shown.
    let names: Vec<(String, usize)> = categories
        .iter()
        .map(|c| {
            (
                legend_entry(&labels.text(lang, &format!("bill.category.{}", category_key(*c)))),
                Category::ALL.iter().position(|x| x == c).unwrap_or(0),
            )
        })
        .collect();
    let bars: Vec<(String, Vec<f64>)> = top
        .iter()
        .map(|o| {
            let name = match lang {
                Lang::Zh => &o.platform_name.zh,
                Lang::En => &o.platform_name.en,
            };
            let card = catalog
                .get(&o.gpu)
                .map(|g| short_card_name(&g.spec.name).to_owned())
                .unwrap_or_else(|_| o.gpu.clone());
            let count = o
                .layout
                .map(|l| format!("{}× ", l.gpus))
                .unwrap_or_default();
            // The platform's first word ("AutoDL", "恒源云") keeps the label short.
            let platform = name.split_whitespace().next().unwrap_or(name);
            (
                format!("{platform} {count}{card}"),
                categories
                    .iter()
                    .map(|c| {
                        o.quote
                            .by_category
                            .get(c)
                            .copied()
                            .map(money)
                            .unwrap_or(0.0)
                    })
                    .collect(),
            )
        })
        .collect();
    Ok(gpuplan_charts::cost_breakdown(
        &labels.text(lang, "chart.costTitle"),
        &names,
        &bars,
        &labels.text(lang, "chart.currency"),
    )?)
}

fn spend(labels: &Catalog, lang: Lang, q: &Quote, budget: Option<f64>) -> Result<String> {
    let days: Vec<(u32, f64)> = q
        .timeline
        .iter()
        .map(|d| (d.day, money(d.cumulative)))
        .collect();
    Ok(gpuplan_charts::cumulative_spend(
        &labels.text(lang, "chart.spendTitle"),
        &days,
        budget,
        &labels.text(lang, "chart.budget"),
        &labels.text(lang, "chart.day"),
        &labels.text(lang, "chart.currency"),
    )?)
}

/// A category's key in files and the catalog (`gpu-compute`).
pub fn category_key(c: Category) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl crate::Snapshot {
    pub(crate) fn vram_chart(&self, r: &EstimateReport) -> Result<Chart> {
        both(|lang| vram(&self.bundled.labels, lang, r))
    }

    pub(crate) fn run_chart(&self, gpu: &str, r: &RunParts) -> Result<Chart> {
        // The card by its name in the title, not its catalog id.
        let name = self
            .bundled
            .catalog
            .get(gpu)
            .map(|g| g.label())
            .unwrap_or_else(|_| gpu.to_owned());
        both(|lang| run(&self.bundled.labels, lang, &name, r))
    }

    pub(crate) fn cost_chart(&self, options: &[RankedOption]) -> Result<Chart> {
        both(|lang| costs(&self.bundled.labels, lang, options, &self.bundled.catalog))
    }

    pub(crate) fn spend_chart(&self, q: &Quote, budget: Option<f64>) -> Result<Chart> {
        both(|lang| spend(&self.bundled.labels, lang, q, budget))
    }
}

impl Planner {
    pub(crate) fn versus_chart(&self, v: &crate::views::PlanVersusActual) -> Result<Chart> {
        let l = &self.bundled.labels;
        both(|lang| {
            let rows = [
                (
                    l.text(lang, "chart.oneRun"),
                    v.planned_hours,
                    v.measured_hours,
                    l.text(lang, "unit.hours"),
                ),
                (
                    l.text(lang, "chart.stepTime"),
                    v.planned_step_seconds.unwrap_or(0.0),
                    v.measured_step_seconds.unwrap_or(f64::NAN),
                    l.text(lang, "unit.seconds"),
                ),
                (
                    l.text(lang, "memory.peak"),
                    v.planned_peak_gib.unwrap_or(0.0),
                    v.measured_peak_gib.unwrap_or(f64::NAN),
                    "GiB".to_owned(),
                ),
                (
                    l.text(lang, "chart.runCost"),
                    money(v.planned_cost),
                    money(v.cost),
                    l.text(lang, "chart.currency"),
                ),
            ];
            Ok(gpuplan_charts::plan_versus_actual(
                &l.text(lang, "chart.versusTitle"),
                &rows,
                (
                    &l.text(lang, "chart.planned"),
                    &l.text(lang, "chart.measured"),
                ),
            )?)
        })
    }

    pub(crate) fn month_chart(&self, months: &[MonthSpend]) -> Result<Chart> {
        let data: Vec<(String, f64)> = months
            .iter()
            .map(|m| (m.month.clone(), money(m.cost)))
            .collect();
        both(|lang| {
            Ok(gpuplan_charts::spend_by_month(
                &self.bundled.labels.text(lang, "chart.monthTitle"),
                &data,
                &self.bundled.labels.text(lang, "chart.currency"),
            )?)
        })
    }
}

/// A category as a legend entry: capitalised where the language has capitals
/// (the catalog's words are mid-sentence ones: "setup and data").
fn legend_entry(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_legend_entry_starts_with_a_capital_where_the_language_has_one() {
        // (catalog words, legend entry, why)
        let cases = [
            (
                "setup and data",
                "Setup and data",
                "English mid-sentence words",
            ),
            ("GPU compute", "GPU compute", "already capitalised"),
            ("准备与数据", "准备与数据", "Chinese has no capitals"),
            ("", "", "nothing stays nothing"),
        ];
        for (words, want, why) in cases {
            assert_eq!(super::legend_entry(words), want, "{why}");
        }
    }
}
