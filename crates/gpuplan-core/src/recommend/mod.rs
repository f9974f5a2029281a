//! Recommendation: from a student's situation and job to a ranked shortlist of
//! platform x GPU options, each priced by the cost engine, with time to result,
//! reasons and what to watch for.
//!
//! Hard facts come first: a job that does not fit the card (even with a fix
//! or several GPUs), a missing campus account or a deadline the option
//! cannot meet rule an option out, with the reason; every offer of every
//! platform is either ranked or ruled out. The rest are ordered by one
//! function of cost, time to result, risk and hassle ([`rank`]), weighted by
//! the student's stage (seed 000 §6) and budget.

mod candidates;
pub use candidates::hours_on_reference;
pub mod rank;
mod situation;

pub use situation::{Situation, Stage};

use rust_decimal::Decimal;
use serde::Serialize;

use crate::catalog::GpuCatalog;
use crate::correction::Corrections;
use crate::error::InputError;
use crate::estimate::{self, Verdict};
use crate::message::Message;
use crate::plan::{default_setup, Payment, Plan, RunGroup, SpotSpec, StorageSpec};
use crate::platform::{Localized, Offer, PlatformKind, PlatformProfile, PlatformSet};
use crate::quote::{quote_with, Quote};
use crate::zoo::ModelZoo;

/// What an option is best at among the shortlist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Badge {
    /// The lowest cash cost.
    Cheapest,
    /// The shortest time to result.
    Fastest,
    /// The least hassle: quickest start, ready images, clear bills, easy data.
    LeastHassle,
}

impl Badge {
    /// Every badge.
    pub const ALL: [Self; 3] = [Self::Cheapest, Self::Fastest, Self::LeastHassle];
}

/// One ranked option.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RankedOption {
    /// Platform id.
    pub platform: String,
    /// Platform names.
    pub platform_name: Localized,
    /// Kind of platform.
    pub kind: PlatformKind,
    /// GPU id.
    pub gpu: String,
    /// The card as a person reads it ([`crate::catalog::Gpu::label`]).
    pub gpu_name: String,
    /// On-demand or spot.
    pub payment: Payment,
    /// Hours from start to the last result.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub time_to_result_hours: Decimal,
    /// Cash cost, CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cost: Decimal,
    /// Ranking score (higher is better; see docs/plans.md, "How options
    /// rank"): minus the weighed cost, time, risk and hassle.
    pub score: f64,
    /// The weighed cost in the score, points (cost over the budget times
    /// the stage's cost weight).
    pub cost_points: f64,
    /// The weighed time to result in the score, points.
    pub time_points: f64,
    /// What can go wrong, in points ([`rank`]): spot preemptions, traps in
    /// the quote, a tight fit, figures nobody checked, an unstable platform.
    pub risk: f64,
    /// What it asks of the student, in points ([`rank`]): how far the
    /// platform kind is from what this stage needs, skills it takes, and the
    /// platform's ease.
    pub hassle: f64,
    /// How the job fits the card (with the fix applied, on the layout
    /// chosen), when the model is known.
    pub fit: Option<Verdict>,
    /// The change to the job that makes it fit this card, when it did not as
    /// given: the option's plan has it applied.
    pub fix: Option<estimate::Fix>,
    /// What it is best at among the options.
    pub badges: Vec<Badge>,
    /// Why it suits this situation (only reasons that apply to this platform,
    /// card and payment).
    pub reasons: Vec<Message>,
    /// What to watch for: the quote's warnings (money first), then what the
    /// student's skills make hard.
    pub watch_out: Vec<Message>,
    /// The platform's own pitfalls (profile data, in both languages).
    pub pitfalls: Vec<Localized>,
    /// The full quote.
    pub quote: Quote,
    /// Several GPUs of the card on one instance, when one does not hold the job.
    pub layout: Option<crate::parallel::Layout>,
    /// The plan this option's quote priced: choosing the option opens exactly
    /// this plan, so the plan screen shows the same bill and time.
    pub plan: Option<Plan>,
}

/// An option that was ruled out, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RuledOut {
    /// Platform id.
    pub platform: String,
    /// Platform names.
    pub platform_name: Localized,
    /// GPU id.
    pub gpu: String,
    /// The card as a person reads it.
    pub gpu_name: String,
    /// Why.
    pub reason: Message,
}

/// The shortlist.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Recommendation {
    /// Ranked options, best first.
    pub options: Vec<RankedOption>,
    /// Options ruled out.
    pub ruled_out: Vec<RuledOut>,
    /// When the job fits no rentable card: changes that would make it fit the
    /// largest one (empty otherwise).
    pub fixes: Vec<estimate::Fix>,
    /// The card the fixes are for.
    pub fixes_for: Option<String>,
}

/// Ranks every platform x GPU option for `s`.
pub fn recommend(
    s: &Situation,
    platforms: &PlatformSet,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<Recommendation, InputError> {
    recommend_with(s, platforms, catalog, zoo, &Corrections::none())
}

/// [`recommend`] with memory and time corrected by measured runs
/// ([`crate::correction`]); each option's quote says what was applied.
pub fn recommend_with(
    s: &Situation,
    platforms: &PlatformSet,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
    corrections: &Corrections,
) -> Result<Recommendation, InputError> {
    s.check()?;
    if s.job.hours.is_none() && s.job.model.is_none() {
        return Err(InputError::new(
            "job",
            "give the hours of one run or a model",
            "job.hours, or job.model with dataset_samples and epochs",
        )
        .said(
            Message::new("error.hoursOrModel"),
            Some(Message::new("allowed.hoursOrModel")),
        ));
    }
    // A model without the dataset size times no run on any card: refused
    // once, as `estimate` and `quote` refuse it, not once per offer.
    if s.job.hours.is_none() && s.job.model.is_some() && s.job.dataset_samples.is_none() {
        return Err(InputError::needs_dataset_samples());
    }
    let estimated = candidates::estimated(s, catalog, zoo, corrections)?;
    let mut options = Vec::new();
    let mut ruled_out = Vec::new();
    for p in &platforms.platforms {
        for offer in &p.offers {
            let gpu = catalog.get(&offer.gpu)?;
            let out = |reason: Message| RuledOut {
                platform: p.id.clone(),
                platform_name: p.name.clone(),
                gpu: gpu.id.clone(),
                gpu_name: gpu.label(),
                reason,
            };
            match candidates::candidate(s, p, offer, gpu, estimated.as_ref(), catalog)? {
                Err(reason) => ruled_out.push(out(reason)),
                Ok(ways) => {
                    for c in &ways {
                        for payment in payments(s, offer) {
                            match option(s, p, gpu, payment, c, catalog, zoo, corrections) {
                                Ok(o) => options.push(o),
                                Err(reason) => ruled_out.push(out(reason)),
                            }
                        }
                    }
                }
            }
        }
    }
    rank::order(&mut options);
    let shown = options.len().min(SHORTLIST);
    rank::badge(&mut options[..shown]);
    let (fixes, fixes_for) = match (&estimated, options.is_empty()) {
        (Some(e), true) => candidates::fixes_for_largest(s, platforms, catalog, e),
        _ => (Vec::new(), None),
    };
    Ok(Recommendation {
        options,
        ruled_out,
        fixes,
        fixes_for,
    })
}

/// On demand, and spot too where the offer has it and the work tolerates
/// interruption.
fn payments(s: &Situation, offer: &Offer) -> Vec<Payment> {
    if s.interruptible && offer.spot_per_hour.is_some() {
        vec![Payment::OnDemand, Payment::Spot]
    } else {
        vec![Payment::OnDemand]
    }
}

/// One option: the plan this situation makes on this offer, priced and
/// weighed; or why it is ruled out (it cannot be quoted, or misses the
/// deadline).
#[allow(
    clippy::too_many_arguments,
    reason = "the recommendation's own inputs, passed through"
)]
fn option(
    s: &Situation,
    p: &PlatformProfile,
    gpu: &crate::catalog::Gpu,
    payment: Payment,
    c: &candidates::Candidate,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
    corrections: &Corrections,
) -> Result<RankedOption, Message> {
    let plan = plan_for(s, p, gpu, payment, c);
    // Why it cannot be quoted, in the quote's own words (every error the
    // quote makes is keyed).
    let q = quote_with(&plan, p, catalog, zoo, corrections).map_err(|e| match e.said {
        Some(said) => said.message,
        None => Message::new("ruled.cannot-quote")
            .with("field", &e.field)
            .with("message", &e.message),
    })?;
    if let Some(deadline) = s.deadline_hours {
        if q.time_to_result_hours > deadline {
            return Err(Message::new("ruled.after-deadline")
                .with("hours", q.time_to_result_hours.round_dp(1)));
        }
    }
    let mut o = rank::weigh(s, p, gpu, payment, q, c.fit, c.fix.as_ref());
    o.layout = c.layout;
    o.fix = c.fix.clone();
    o.plan = Some(plan);
    Ok(o)
}

/// The plan an option prices: the situation's runs, storage and budget on
/// this offer, with the candidate's job.
fn plan_for(
    s: &Situation,
    p: &PlatformProfile,
    gpu: &crate::catalog::Gpu,
    payment: Payment,
    c: &candidates::Candidate,
) -> Plan {
    Plan {
        name: format!(
            "{} on {} {}",
            s.job.model.clone().unwrap_or_else(|| "job".into()),
            p.id,
            gpu.id
        ),
        platform: p.id.clone(),
        gpu: gpu.id.clone(),
        budget: s.budget,
        student: s.student,
        payment,
        setup_hours: if p.kind == PlatformKind::Marketplace {
            Decimal::from(MARKETPLACE_SETUP_HOURS)
        } else {
            default_setup()
        },
        job: c.job.clone(),
        runs: vec![RunGroup::of_job(crate::quote::DEFAULT_GROUP, s.runs)],
        storage: (s.storage_gb > Decimal::ZERO).then(|| StorageSpec {
            gb: s.storage_gb,
            days: Some(Decimal::from(7)),
            on: Default::default(),
        }),
        spot: (payment == Payment::Spot).then(|| SpotSpec {
            checkpoint_every_hours: Some(Decimal::ONE),
            ..SpotSpec::default()
        }),
        ..Plan::default()
    }
}

/// Options a student is shown first (the app's list, the CLI's default
/// `--top`); badges go to the best among these.
pub const SHORTLIST: usize = 10;

/// Hours of setup a marketplace plan assumes: the student installs the
/// environment over SSH on a bare host (seed 000 §3.4).
pub const MARKETPLACE_SETUP_HOURS: u32 = 1;
