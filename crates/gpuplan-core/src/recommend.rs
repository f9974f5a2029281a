//! Recommendation: from a student's situation and job to a ranked shortlist of
//! platform x GPU options, each priced by the cost engine, with time to result,
//! reasons and what to watch for.
//!
//! The ranking encodes seed 000 §6: what a first demo, a course project, thesis
//! research and a competition sprint each need (§6.1-6.4), and its
//! needs-to-platform table (§6.5). Hard facts come first: a job that does not
//! fit the card, a missing campus account or a deadline the option cannot meet
//! rule an option out; preferences and costs then order the rest.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalog::GpuCatalog;
use crate::correction::Corrections;
use crate::error::InputError;
use crate::estimate::{self, Verdict};
use crate::job::JobSpec;
use crate::message::Message;
use crate::plan::{
    default_setup, Payment, Plan, RunGroup, SpotSpec, StorageSpec, MAX_CNY, MAX_GB, MAX_HOURS,
    MAX_RUNS,
};
use crate::platform::{Localized, Pitfall, PlatformKind, PlatformProfile, PlatformSet};
use crate::quote::{quote_with, Quote, Warning};
use crate::steptime;
use crate::zoo::ModelZoo;

/// Where the student is (seed 000 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Stage {
    /// §6.1: first contact, get a demo running (budget 0-30).
    FirstDemo,
    /// §6.2: course assignment or final project (budget 50-150).
    CourseProject,
    /// §6.3: thesis research, many reproducible runs (200-800 a month).
    ThesisResearch,
    /// §6.4: competition or deadline sprint, time over money.
    CompetitionSprint,
}

impl Stage {
    /// Every stage, in the order forms list them.
    pub const VALUES: [Self; 4] = [
        Self::FirstDemo,
        Self::CourseProject,
        Self::ThesisResearch,
        Self::CompetitionSprint,
    ];

    /// All spellings.
    pub const ALL: [&'static str; 4] = [
        "first-demo",
        "course-project",
        "thesis-research",
        "competition-sprint",
    ];

    /// Parses the CLI spelling.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s {
            "first-demo" => Ok(Self::FirstDemo),
            "course-project" => Ok(Self::CourseProject),
            "thesis-research" => Ok(Self::ThesisResearch),
            "competition-sprint" => Ok(Self::CompetitionSprint),
            _ => Err(InputError::new(
                "stage",
                format!("unknown stage `{s}`"),
                Self::ALL.join(", "),
            )),
        }
    }
}

/// A student's situation and job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Situation {
    /// Stage.
    pub stage: Stage,
    /// Budget in CNY, if any.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub budget: Option<Decimal>,
    /// Hours until results are needed, if any.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub deadline_hours: Option<Decimal>,
    /// Comfortable with Linux and SSH.
    #[serde(default)]
    pub linux: bool,
    /// Can write sbatch scripts.
    #[serde(default)]
    pub slurm: bool,
    /// Working from mainland China.
    #[serde(default = "yes")]
    pub mainland_china: bool,
    /// Needs data to persist between sessions.
    #[serde(default)]
    pub needs_persistence: bool,
    /// Has a campus cluster account.
    #[serde(default)]
    pub campus_access: bool,
    /// The work tolerates interruption (sweeps with checkpoints): spot is an option.
    #[serde(default)]
    pub interruptible: bool,
    /// Student certification done (or planned).
    #[serde(default = "yes")]
    pub student: bool,
    /// The job: hours of one run on an RTX 3090, or a model to estimate.
    pub job: JobSpec,
    /// How many runs.
    #[serde(default = "one")]
    pub runs: u32,
    /// Dataset and checkpoints kept, GB.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub storage_gb: Decimal,
}

fn yes() -> bool {
    true
}

impl Situation {
    /// Every value checked with its neighbours' bounds before anything is
    /// computed from it: the same ranges a plan file allows.
    pub fn check(&self) -> Result<(), InputError> {
        if self.runs == 0 || self.runs > MAX_RUNS {
            return Err(InputError::new(
                "runs",
                format!("{} is out of range", self.runs),
                format!("1..={MAX_RUNS}"),
            ));
        }
        let range = |field: &str, v: Decimal, open_zero: bool, max: i64| {
            let low_ok = if open_zero {
                v > Decimal::ZERO
            } else {
                v >= Decimal::ZERO
            };
            if low_ok && v <= Decimal::from(max) {
                Ok(())
            } else {
                Err(InputError::new(
                    field,
                    format!("{v} is out of range"),
                    format!("{}0, {max}]", if open_zero { "(" } else { "[" }),
                ))
            }
        };
        if let Some(h) = self.job.hours {
            range("job.hours", h, true, MAX_HOURS)?;
            if let Some(e) = self.job.epochs {
                crate::quote::per_epoch_hours(h, e)?;
            }
        }
        if let Some(b) = self.budget {
            range("budget", b, false, MAX_CNY)?;
        }
        if let Some(d) = self.deadline_hours {
            range("deadline_hours", d, true, MAX_HOURS)?;
        }
        range("storage_gb", self.storage_gb, false, MAX_GB)
    }
}

fn one() -> u32 {
    1
}

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
    /// On-demand or spot.
    pub payment: Payment,
    /// Hours from start to the last result.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub time_to_result_hours: Decimal,
    /// Cash cost, CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cost: Decimal,
    /// Ranking score (higher is better; see docs/plans.md, "How options rank").
    pub score: f64,
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
    /// GPU id.
    pub gpu: String,
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

/// Options the shortlist guarantees the campus cluster a place among, for a
/// student with an account (seed 000 §6.2: queue non-urgent runs there too).
const CAMPUS_PLACE: usize = 3;

/// Card tiers the reasons talk about: a low-end card has at most this much
/// memory (GiB); a high-end one at least the other.
const LOW_END_MAX_GIB: f64 = 16.5;
const HIGH_END_MIN_GIB: f64 = 31.0;

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
        ));
    }
    let reference = catalog.get("rtx3090")?;
    // With a model, the estimator answers once for every card: whether the
    // job fits, and (when hours are given for an RTX 3090) how much faster or
    // slower each card runs it.
    let estimated = match &s.job.model {
        Some(model) => {
            let entry = zoo.get(model)?;
            let j = s.job.resolve(entry)?;
            Some((
                entry,
                j.clone(),
                estimate::estimate_with(
                    entry,
                    &j,
                    catalog,
                    None,
                    &crate::pipeline::Host::TYPICAL,
                    corrections,
                ),
            ))
        }
        None => None,
    };
    let mut options = Vec::new();
    let mut ruled_out = Vec::new();
    for p in &platforms.platforms {
        for offer in &p.offers {
            let gpu = catalog.get(&offer.gpu)?;
            let out = |reason: Message, ruled_out: &mut Vec<RuledOut>| {
                ruled_out.push(RuledOut {
                    platform: p.id.clone(),
                    gpu: gpu.id.clone(),
                    reason,
                })
            };
            if p.kind == PlatformKind::CampusHpc && !s.campus_access {
                out(Message::new("ruled.no-campus"), &mut ruled_out);
                continue;
            }
            let mut job = s.job.clone();
            let row = estimated
                .as_ref()
                .and_then(|(_, _, est)| est.gpus.iter().find(|g| g.id == gpu.id));
            let mut layout = None;
            if estimated.is_some()
                && !matches!(row.map(|r| r.verdict), Some(Verdict::Fits | Verdict::Tight))
            {
                // Too big for one card: an instance of several of them, when
                // the platform rents that many together and the student has
                // not already asked for a layout.
                let several = match (&estimated, row.map(|r| r.verdict)) {
                    (Some((entry, j, _)), Some(Verdict::DoesNotFit)) if j.gpus == 1 => {
                        estimate::smallest_layout(&entry.model, j, gpu, &p.host_for(offer))
                            .filter(|l| l.layout.gpus <= offer.max_gpus(p.kind))
                    }
                    _ => None,
                };
                match several {
                    Some(l) => {
                        job.gpus = Some(f64::from(l.layout.gpus));
                        job.engine = Some(l.layout.engine);
                        job.offload = l.layout.offload.then_some(true);
                        layout = Some(l.layout);
                    }
                    None => {
                        out(
                            if row.is_some_and(|r| r.verdict == Verdict::Unsupported) {
                                Message::new("ruled.no-bf16")
                            } else {
                                Message::new("ruled.does-not-fit")
                            },
                            &mut ruled_out,
                        );
                        continue;
                    }
                }
            }
            if let Some(h) = s.job.hours {
                // Hours are given for an RTX 3090; carry them to this card by
                // the estimator's step times when the model is known, else by
                // the cards' times for typical training steps.
                let ratio = match (&estimated, row) {
                    (Some((_, _, est)), Some(r)) => est
                        .gpus
                        .iter()
                        .find(|g| g.id == reference.id)
                        .map(|base| r.step_seconds / base.step_seconds.max(1e-12))
                        .unwrap_or(1.0),
                    _ => {
                        steptime::typical_seconds(gpu)
                            / steptime::typical_seconds(reference).max(1e-12)
                    }
                };
                // The ratio of two cards' speeds is bounded (no card is a
                // thousand times slower than another), and `h` was checked,
                // so the product is too; it is checked all the same.
                let ratio = Decimal::try_from(ratio.clamp(1e-3, 1e3))
                    .unwrap_or(Decimal::ONE)
                    .round_dp(4);
                let scaled = h.checked_mul(ratio).ok_or_else(|| {
                    InputError::new(
                        "job.hours",
                        format!("{h} hours cannot be carried to {}", gpu.id),
                        format!("(0, {MAX_HOURS}]"),
                    )
                })?;
                job.hours = Some(scaled.max(Decimal::new(1, 2)));
                job.model = None;
            }
            let payments: Vec<Payment> = if s.interruptible && offer.spot_per_hour.is_some() {
                vec![Payment::OnDemand, Payment::Spot]
            } else {
                vec![Payment::OnDemand]
            };
            for payment in payments {
                let plan = Plan {
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
                    job: job.clone(),
                    runs: vec![RunGroup::of_job("run", s.runs)],
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
                };
                let q = match quote_with(&plan, p, catalog, zoo, corrections) {
                    Ok(q) => q,
                    Err(e) => {
                        out(
                            Message::new("ruled.cannot-quote")
                                .with("field", &e.field)
                                .with("message", &e.message),
                            &mut ruled_out,
                        );
                        continue;
                    }
                };
                if let Some(deadline) = s.deadline_hours {
                    if q.time_to_result_hours > deadline {
                        out(
                            Message::new("ruled.after-deadline")
                                .with("hours", q.time_to_result_hours.round_dp(1)),
                            &mut ruled_out,
                        );
                        continue;
                    }
                }
                let mut option = score(s, p, gpu, payment, q);
                option.layout = layout;
                option.plan = Some(plan);
                options.push(option);
            }
        }
    }
    options.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.cost.cmp(&b.cost)));
    // A student with a campus account should see the cluster for a course
    // project or research beside the rented options (seed 000 §6.2-6.3).
    if s.campus_access && matches!(s.stage, Stage::CourseProject | Stage::ThesisResearch) {
        if let Some(i) = options
            .iter()
            .position(|o| o.kind == PlatformKind::CampusHpc)
        {
            if i >= CAMPUS_PLACE {
                let campus = options.remove(i);
                options.insert(CAMPUS_PLACE - 1, campus);
            }
        }
    }
    badge(&mut options);
    // Nothing fits: the changes that would make the job fit the largest card
    // rented anywhere here.
    let (mut fixes, mut fixes_for) = (Vec::new(), None);
    if options.is_empty() {
        if let Some((entry, j, est)) = &estimated {
            let largest = platforms
                .platforms
                .iter()
                .filter(|p| p.kind != PlatformKind::CampusHpc || s.campus_access)
                .flat_map(|p| p.offers.iter())
                .filter_map(|o| catalog.get(&o.gpu).ok())
                .max_by(|a, b| a.vram_gib().total_cmp(&b.vram_gib()));
            if let Some(card) = largest {
                fixes = estimate::fixes(&entry.model, j, &est.vram, card);
                fixes_for = Some(card.id.clone());
            }
        }
    }
    Ok(Recommendation {
        options,
        ruled_out,
        fixes,
        fixes_for,
    })
}

/// Marks the cheapest, the fastest and the least-hassle options.
fn badge(options: &mut [RankedOption]) {
    let hassle = |o: &RankedOption| {
        o.quote
            .time
            .waiting
            .checked_add(o.quote.time.setup)
            .unwrap_or(Decimal::MAX)
    };
    let cheapest = options.iter().map(|o| o.cost).min();
    let fastest = options.iter().map(|o| o.time_to_result_hours).min();
    let easiest = options.iter().map(hassle).min();
    for o in options.iter_mut() {
        if Some(o.cost) == cheapest {
            o.badges.push(Badge::Cheapest);
        }
        if Some(o.time_to_result_hours) == fastest {
            o.badges.push(Badge::Fastest);
        }
        if Some(hassle(o)) == easiest {
            o.badges.push(Badge::LeastHassle);
        }
    }
}

/// Hours of setup a marketplace plan assumes: the student installs the
/// environment over SSH on a bare host (seed 000 §3.4).
pub const MARKETPLACE_SETUP_HOURS: u32 = 1;

fn score(
    s: &Situation,
    p: &PlatformProfile,
    gpu: &crate::catalog::Gpu,
    payment: Payment,
    q: Quote,
) -> RankedOption {
    use PlatformKind::*;
    let mut score = 0.0;
    let mut reasons = Vec::new();
    let vram = gpu.vram_gib();
    let low_end = vram <= LOW_END_MAX_GIB;
    let high_end = vram >= HIGH_END_MIN_GIB;
    let on_demand = payment == Payment::OnDemand;
    let spot = payment == Payment::Spot;
    // Seed 000 §6.1-6.4: which kind each stage should start with, worded only
    // for the options the advice is about.
    let fit: Option<(f64, &str)> = match (s.stage, p.kind) {
        (Stage::FirstDemo, HostedNotebook) => Some((3.0, "reason.first-demo-notebook")),
        (Stage::FirstDemo, CampusHpc) => Some((1.5, "reason.first-demo-campus")),
        (Stage::FirstDemo, ContainerCloud) if low_end => Some((1.5, "reason.first-demo-low-end")),
        (Stage::FirstDemo, ContainerCloud) => Some((0.5, "")),
        (Stage::CourseProject, ContainerCloud) if on_demand => {
            Some((3.0, "reason.course-container"))
        }
        (Stage::CourseProject, ContainerCloud) => Some((1.5, "")),
        (Stage::CourseProject, CampusHpc) => Some((1.5, "reason.course-campus")),
        (Stage::ThesisResearch, CampusHpc) => Some((3.0, "reason.thesis-campus")),
        (Stage::ThesisResearch, ContainerCloud) if on_demand => {
            Some((2.0, "reason.thesis-container"))
        }
        (Stage::ThesisResearch, Marketplace) if spot => Some((1.5, "reason.thesis-marketplace")),
        (Stage::CompetitionSprint, ContainerCloud) if high_end => {
            Some((2.5, "reason.sprint-container"))
        }
        (Stage::CompetitionSprint, ContainerCloud) => Some((1.0, "")),
        (Stage::CompetitionSprint, Marketplace) if high_end => {
            Some((1.5, "reason.sprint-marketplace"))
        }
        _ => None,
    };
    if let Some((points, why)) = fit {
        score += points;
        if !why.is_empty() {
            reasons.push(Message::new(why));
        }
    }
    // §6.5: sweeps that tolerate interruption go to spot instances.
    if spot {
        score += if s.interruptible { 2.5 } else { -3.0 };
        reasons.push(Message::new("reason.spot-sweeps"));
    }
    if s.stage == Stage::CompetitionSprint {
        // Time to result dominates: reward speed.
        let hours = q.time_to_result_hours.to_f64().unwrap_or(0.0);
        score -= hours / 4.0;
        reasons.push(Message::new("reason.results-in").with("hours", format!("{hours:.1}")));
    }
    // What to watch for: the quote's own warnings first (money the student
    // lacks leads), then what this student's skills make hard.
    let mut watch_out: Vec<Message> = q.warnings.iter().map(|w| w.message()).collect();
    for w in &q.warnings {
        match w {
            Warning::QuotaExhausted { .. } | Warning::RunExceedsCap { .. } => score -= 2.0,
            Warning::BudgetExceeded { .. } | Warning::BalanceRunsOut { .. } => score -= 4.0,
            _ => {}
        }
    }
    if p.kind == CampusHpc && !s.slurm {
        score -= 2.0;
        watch_out.push(Message::new("watch.learn-sbatch"));
    }
    if p.kind == Marketplace && !s.linux {
        score -= 2.5;
        watch_out.push(Message::new("watch.ssh-setup"));
    }
    if p.kind == HostedNotebook {
        if s.mainland_china {
            score -= 1.5;
            watch_out.push(Message::new("watch.unstable-mainland"));
        }
        if s.needs_persistence {
            score -= 2.0;
        }
        if s.stage != Stage::FirstDemo {
            score -= 2.0;
        }
    }
    if s.needs_persistence && p.kind == Marketplace {
        score -= 1.0;
    }
    watch_out.dedup();
    // Cost: cheaper is better, on the scale of the budget (or 100 CNY).
    let scale = s
        .budget
        .and_then(|b| b.to_f64())
        .filter(|b| *b > 0.0)
        .unwrap_or(100.0);
    let cost = q.cash_total.to_f64().unwrap_or(0.0);
    let weight = if s.stage == Stage::CompetitionSprint {
        0.5
    } else {
        2.0
    };
    score -= weight * cost / scale;
    let m = &p.metrics;
    score += 0.1
        * [
            m.startup_speed.value,
            m.environment.value,
            m.billing_transparency.value,
            m.data_transfer.value,
        ]
        .iter()
        .map(|v| f64::from(*v))
        .sum::<f64>();
    RankedOption {
        platform: p.id.clone(),
        platform_name: p.name.clone(),
        kind: p.kind,
        gpu: gpu.id.clone(),
        payment,
        time_to_result_hours: q.time_to_result_hours,
        cost: q.cash_total,
        score,
        badges: Vec::new(),
        reasons,
        watch_out,
        pitfalls: p
            .pitfalls
            .iter()
            .filter(|t| t.applies_to(&gpu.id))
            .map(Pitfall::text)
            .collect(),
        quote: q,
        layout: None,
        plan: None,
    }
}
