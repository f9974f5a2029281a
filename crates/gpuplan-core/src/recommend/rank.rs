//! How options rank: one function of four things a student weighs, each
//! measured on its own scale and weighted by their stage and budget.
//!
//! - **cost**: the quote's cash total over the budget (or 100 CNY);
//! - **time**: hours to the last result, over a day (a sprint weighs it most);
//! - **risk** (points): spot preemptions, traps the quote found (money the
//!   student lacks, quotas and walltimes, data a deadline deletes), a tight
//!   fit, figures nobody checked (as the cost they may be off by), a hosted
//!   notebook's unstable sessions;
//! - **hassle** (points): how far the platform kind is from what the stage
//!   needs (seed 000 §6.1-6.5), skills it takes that the student lacks (Slurm,
//!   SSH), and the platform's ease (its four metrics).
//!
//! `score = -(cost_weight x cost + time_weight x time + risk + hassle)`: an
//! option no dearer, no slower, no riskier and no harder than another never
//! ranks below it (property-tested), and ties go to the cheaper, then the
//! faster. Badges go to the single best option at each thing.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use super::{Badge, RankedOption, Situation, Stage};
use crate::catalog::Gpu;
use crate::estimate::{Fix, Verdict};
use crate::message::Message;
use crate::plan::Payment;
use crate::platform::{PlatformKind, PlatformProfile};
use crate::quote::{Quote, Warning};

/// Card tiers the reasons talk about: a low-end card has at most this much
/// memory (GiB); a high-end one at least the other.
const LOW_END_MAX_GIB: f64 = 16.5;
const HIGH_END_MIN_GIB: f64 = 31.0;

/// Points a platform kind earns for a stage when it is what the stage needs
/// (seed 000 §6.1-6.4); the hassle of an option counts the points it misses
/// of this best fit.
const BEST_FIT: f64 = 3.0;

/// How far a bill resting wholly on unverified figures (a seed's or an
/// estimate) may be off, as a share of it: its risk is that much more cost,
/// weighed as cost. A judgement, not a measurement: issue 22's check of the
/// bundled figures moved prices by 5-40% where a platform's own page was
/// found (docs/research/checked/); a quarter is their middle.
const UNVERIFIED_COST_SHARE: f64 = 0.25;

/// The weights of cost and time for a stage: a sprint pays for speed
/// (seed 000 §6.4), the others for money.
fn weights(stage: Stage) -> (f64, f64) {
    match stage {
        Stage::CompetitionSprint => (0.5, 6.0),
        _ => (2.0, 0.25),
    }
}

/// How well a platform kind suits a stage, and the reason worded for the
/// options it is about (seed 000 §6.1-6.4).
fn stage_fit(
    s: &Situation,
    kind: PlatformKind,
    gpu: &Gpu,
    payment: Payment,
) -> (f64, &'static str) {
    use PlatformKind::*;
    let vram = gpu.vram_gib();
    let low_end = vram <= LOW_END_MAX_GIB;
    let high_end = vram >= HIGH_END_MIN_GIB;
    let on_demand = payment == Payment::OnDemand;
    let spot = payment == Payment::Spot;
    // §6.5: sweeps that tolerate interruption belong on spot instances.
    if spot && s.interruptible {
        return (BEST_FIT, "reason.spot-sweeps");
    }
    match (s.stage, kind) {
        (Stage::FirstDemo, HostedNotebook) => (3.0, "reason.first-demo-notebook"),
        (Stage::FirstDemo, CampusHpc) => (1.5, "reason.first-demo-campus"),
        (Stage::FirstDemo, ContainerCloud) if low_end => (1.5, "reason.first-demo-low-end"),
        (Stage::FirstDemo, ContainerCloud) => (0.5, ""),
        (Stage::CourseProject, ContainerCloud) if on_demand => (3.0, "reason.course-container"),
        (Stage::CourseProject, ContainerCloud) => (1.5, ""),
        (Stage::CourseProject, CampusHpc) => (3.0, "reason.course-campus"),
        (Stage::ThesisResearch, CampusHpc) => (3.0, "reason.thesis-campus"),
        (Stage::ThesisResearch, ContainerCloud) if on_demand => (2.0, "reason.thesis-container"),
        (Stage::ThesisResearch, Marketplace) if spot => (1.5, "reason.thesis-marketplace"),
        (Stage::CompetitionSprint, ContainerCloud) if high_end => (2.5, "reason.sprint-container"),
        (Stage::CompetitionSprint, ContainerCloud) => (1.0, ""),
        (Stage::CompetitionSprint, Marketplace) if high_end => (1.5, "reason.sprint-marketplace"),
        _ => (0.0, ""),
    }
}

/// What can go wrong with this option, in points, and what to watch for.
fn risk(
    s: &Situation,
    p: &PlatformProfile,
    payment: Payment,
    q: &Quote,
    fit: Option<Verdict>,
    cost_points: f64,
) -> (f64, Vec<Message>) {
    let mut points = 0.0;
    let mut watch: Vec<Message> = q.warnings.iter().map(|w| w.message()).collect();
    for w in &q.warnings {
        points += match w {
            Warning::BudgetExceeded { .. } | Warning::BalanceRunsOut { .. } => 4.0,
            Warning::QuotaExhausted { .. } | Warning::RunExceedsCap { .. } => 2.0,
            Warning::DataWiped { .. } | Warning::ScratchWiped { .. } => 0.5,
            Warning::InstanceReleased { .. } => 0.25,
            _ => 0.0,
        };
    }
    if payment == Payment::Spot && !s.interruptible {
        // Work that cannot be interrupted loses more than the expected
        // reruns the bill already prices.
        points += 3.0;
    }
    if fit == Some(Verdict::Tight) {
        points += 1.0;
        watch.push(Message::new("watch.tight-fit"));
    }
    // A bill resting on figures nobody checked may be off by that share. A
    // template (the campus cluster) is the student's own cluster's figures
    // once the instructor fills it in: not a risk of the platform.
    if !p.template {
        points += cost_points * UNVERIFIED_COST_SHARE * f64::from(q.unverified.percent) / 100.0;
    }
    if p.kind == PlatformKind::HostedNotebook {
        if s.mainland_china {
            points += 1.5;
            watch.push(Message::new("watch.unstable-mainland"));
        }
        if s.needs_persistence {
            points += 2.0;
        }
    }
    if s.needs_persistence && p.kind == PlatformKind::Marketplace {
        points += 1.0;
    }
    (points, watch)
}

/// What this option asks of the student, in points, what to watch for, and
/// the reason it suits the stage (if it does).
fn hassle(
    s: &Situation,
    p: &PlatformProfile,
    gpu: &Gpu,
    payment: Payment,
) -> (f64, Vec<Message>, Option<Message>) {
    let (fit, why) = stage_fit(s, p.kind, gpu, payment);
    let mut points = BEST_FIT - fit;
    let mut watch = Vec::new();
    // The kit writes the sbatch scripts, so a cluster asks less of a
    // student who has never written one than a bare SSH host does.
    if p.kind == PlatformKind::CampusHpc && !s.slurm {
        points += 1.0;
        watch.push(Message::new("watch.learn-sbatch"));
    }
    if p.kind == PlatformKind::Marketplace && !s.linux {
        points += 2.5;
        watch.push(Message::new("watch.ssh-setup"));
    }
    if p.kind == PlatformKind::HostedNotebook && s.stage != Stage::FirstDemo {
        points += 2.0;
    }
    // The platform's own ease: four metrics of 1-5, 20 at best.
    let m = &p.metrics;
    let ease: u32 = [
        m.startup_speed.value,
        m.environment.value,
        m.billing_transparency.value,
        m.data_transfer.value,
    ]
    .iter()
    .map(|v| u32::from(*v))
    .sum();
    points += 0.1 * f64::from(20u32.saturating_sub(ease));
    (points, watch, (!why.is_empty()).then(|| Message::new(why)))
}

/// One option weighed: its risk, hassle and score, its reasons and what to
/// watch for.
pub fn weigh(
    s: &Situation,
    p: &PlatformProfile,
    gpu: &Gpu,
    payment: Payment,
    q: Quote,
    fit: Option<Verdict>,
    fix: Option<&Fix>,
) -> RankedOption {
    let (cost_weight, time_weight) = weights(s.stage);
    let scale = s
        .budget
        .and_then(|b| b.to_f64())
        .filter(|b| *b > 0.0)
        .unwrap_or(100.0);
    let hours = q.time_to_result_hours.to_f64().unwrap_or(0.0);
    let cost_points = cost_weight * q.cash_total.to_f64().unwrap_or(0.0) / scale;
    let time_points = time_weight * hours / 24.0;
    let (risk, mut watch_out) = risk(s, p, payment, &q, fit, cost_points);
    let (hassle, watch, suits) = hassle(s, p, gpu, payment);
    watch_out.extend(watch);
    watch_out.dedup();
    let mut reasons: Vec<Message> = suits.into_iter().collect();
    if let Some(f) = fix {
        reasons
            .push(Message::new("reason.fits-with-fix").with("fix", format!("enum.fix.{}", f.kind)));
    }
    if s.stage == Stage::CompetitionSprint {
        reasons.push(Message::new("reason.results-in").with("hours", format!("{hours:.1}")));
    }
    // The parts as shown (to 0.01), and the score their sum: the printed
    // total adds up, and ranks what is printed.
    let shown = |x: f64| (x * 100.0).round() / 100.0;
    let (cost_points, time_points, risk, hassle) = (
        shown(cost_points),
        shown(time_points),
        shown(risk),
        shown(hassle),
    );
    // Rounded again: a sum of hundredths in binary floats is -0.66999...
    // in JSON; its hundredths are the exact sum of the printed parts.
    let score = -shown(cost_points + time_points + risk + hassle);
    RankedOption {
        platform: p.id.clone(),
        platform_name: p.name.clone(),
        kind: p.kind,
        gpu: gpu.id.clone(),
        gpu_name: gpu.label(),
        payment,
        time_to_result_hours: q.time_to_result_hours,
        cost: q.cash_total,
        score,
        cost_points,
        time_points,
        risk,
        hassle,
        fit,
        fix: None,
        badges: Vec::new(),
        reasons,
        watch_out,
        pitfalls: p
            .pitfalls
            .iter()
            .filter(|t| t.applies_to(&gpu.id, payment == Payment::Spot))
            .map(|t| t.text())
            .collect(),
        quote: q,
        layout: None,
        plan: None,
    }
}

/// Best first: by score, then the cheaper, then the faster.
pub fn order(options: &mut [RankedOption]) {
    options.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.cost.cmp(&b.cost))
            .then(a.time_to_result_hours.cmp(&b.time_to_result_hours))
    });
}

/// Each badge to the one option best at it (the higher-ranked among equals),
/// and only when the options differ at it.
pub fn badge(options: &mut [RankedOption]) {
    let hassle = |o: &RankedOption| o.hassle;
    let pick = |key: &dyn Fn(&RankedOption) -> f64| -> Option<usize> {
        let best = options.iter().map(key).fold(f64::INFINITY, f64::min);
        let worst = options.iter().map(key).fold(f64::NEG_INFINITY, f64::max);
        // A badge every option would share says nothing.
        (options.len() > 1 && best < worst)
            .then(|| options.iter().position(|o| key(o) == best))
            .flatten()
    };
    let to_f = |d: Decimal| d.to_f64().unwrap_or(f64::INFINITY);
    let cheapest = pick(&|o| to_f(o.cost));
    let fastest = pick(&|o| to_f(o.time_to_result_hours));
    let easiest = pick(&hassle);
    for (badge, at) in [
        (Badge::Cheapest, cheapest),
        (Badge::Fastest, fastest),
        (Badge::LeastHassle, easiest),
    ] {
        if let Some(i) = at {
            options[i].badges.push(badge);
        }
    }
}
