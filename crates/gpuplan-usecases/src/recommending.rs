//! Use case: the ranked options for a situation.

use gpuplan_core::recommend::{recommend_with, Recommendation, Situation};

use crate::planning::APP_OPTIONS;
use crate::views::RecommendationView;
use crate::{Planner, Result};

impl Planner {
    /// Ranked platform x GPU options for a situation.
    pub fn recommend(&mut self, s: &Situation) -> Result<Recommendation> {
        let platforms = self.course_platforms()?;
        let corrections = self.corrections()?;
        Ok(recommend_with(
            s,
            &platforms,
            &self.bundled.catalog,
            &self.bundled.zoo,
            &corrections,
        )?)
    }

    /// The options screen: the first options and their cost chart.
    pub fn recommend_view(&mut self, s: &Situation) -> Result<RecommendationView> {
        let mut recommendation = self.recommend(s)?;
        recommendation.options.truncate(APP_OPTIONS);
        let chart = self.cost_chart(&recommendation.options)?;
        Ok(RecommendationView {
            recommendation,
            chart,
        })
    }
}
