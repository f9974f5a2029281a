//! Use case: the ranked options for a situation.

use gpuplan_core::plan::Payment;
use gpuplan_core::recommend::{recommend_with, Recommendation, RuledOut, Situation};
use gpuplan_core::Message;

use crate::planning::APP_OPTIONS;
use crate::views::{OfferOption, RecommendationView};
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
    /// The situation's best option on the offer `(platform, gpu, payment)`,
    /// as the options screen ranks it (every option, not only the first
    /// ten), or why that offer is ruled out.
    pub fn offer_option(&self, s: &Situation, offer: (&str, &str, Payment)) -> Result<OfferOption> {
        let (platform, gpu, payment) = offer;
        let r = self.recommend(s)?;
        let option = r
            .options
            .into_iter()
            .find(|o| o.platform == platform && o.gpu == gpu && o.payment == payment);
        let ruled_out = match option {
            Some(_) => None,
            None => r
                .ruled_out
                .into_iter()
                .find(|x| x.platform == platform && x.gpu == gpu)
                .map(|x| x.reason),
        };
        Ok(OfferOption { option, ruled_out })
    }

    /// Ranked platform x GPU options for a situation, on the course's
    /// platforms.
    pub fn recommend(&self, s: &Situation) -> Result<Recommendation> {
        let mut r = recommend_with(
            s,
            &self.course_platforms,
            &self.bundled.catalog,
            &self.bundled.zoo,
            &self.corrections,
        )?;
        // Every offer the student could use is ranked or ruled out with its
        // reason: the ones the course's pack left out say so.
        if let Some(course) = &self.course {
            for p in &self.platforms.platforms {
                if self.course_platforms.get(&p.id).is_ok() {
                    continue;
                }
                for offer in &p.offers {
                    let gpu_name = self
                        .bundled
                        .catalog
                        .get(&offer.gpu)
                        .map(|g| g.label())
                        .unwrap_or_else(|_| offer.gpu.clone());
                    r.ruled_out.push(RuledOut {
                        platform: p.id.clone(),
                        platform_name: p.name.clone(),
                        gpu: offer.gpu.clone(),
                        gpu_name,
                        reason: Message::new("ruled.not-in-course").with("course", course),
                    });
                }
            }
        }
        Ok(r)
    }

    /// The options screen: the first options and their cost chart.
    pub fn recommend_view(&self, s: &Situation) -> Result<RecommendationView> {
        self.recommend_view_of(s, false)
    }

    /// The options screen with every option when `all` (a campus cluster
    /// ranked 16th is still one a student may want), else the first ten;
    /// the chart draws the first ten either way.
    pub fn recommend_view_of(&self, s: &Situation, all: bool) -> Result<RecommendationView> {
        let mut recommendation = self.recommend(s)?;
        let total = recommendation.options.len();
        let first = &recommendation.options[..total.min(APP_OPTIONS)];
        let chart = self.cost_chart(first)?;
        if !all {
            recommendation.options.truncate(APP_OPTIONS);
        }
        Ok(RecommendationView {
            more: u32::try_from(total.saturating_sub(recommendation.options.len()))
                .unwrap_or(u32::MAX),
            recommendation,
            chart,
        })
    }
}
