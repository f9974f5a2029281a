//! Use case: the ranked options for a situation.

use gpuplan_core::recommend::{recommend_with, Recommendation, Situation};

use crate::planning::APP_OPTIONS;
use crate::views::RecommendationView;
use crate::{Planner, Result, Snapshot};

impl Planner {
    /// Ranked platform x GPU options for a situation.
    pub fn recommend(&mut self, s: &Situation) -> Result<Recommendation> {
        self.snapshot()?.recommend(s)
    }

    /// The options screen: the first options and their cost chart.
    pub fn recommend_view(&mut self, s: &Situation) -> Result<RecommendationView> {
        self.snapshot()?.recommend_view(s)
    }
}

impl Snapshot {
    /// Ranked platform x GPU options for a situation, on the course's
    /// platforms.
    pub fn recommend(&self, s: &Situation) -> Result<Recommendation> {
        Ok(recommend_with(
            s,
            &self.course_platforms,
            &self.bundled.catalog,
            &self.bundled.zoo,
            &self.corrections,
        )?)
    }

    /// The options screen: the first options and their cost chart.
    pub fn recommend_view(&self, s: &Situation) -> Result<RecommendationView> {
        let mut recommendation = self.recommend(s)?;
        recommendation.options.truncate(APP_OPTIONS);
        let chart = self.cost_chart(&recommendation.options)?;
        Ok(RecommendationView {
            recommendation,
            chart,
        })
    }
}
