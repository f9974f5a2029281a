//! The job each offer would run: as given when it fits the card; with the
//! fastest fix that keeps the task and makes it fit one card (mixed
//! precision, checkpointing…); else both on several GPUs of the card and
//! with LoRA (a different task, said as such), each an option; else ruled
//! out with the reason. Hours given for an RTX 3090 are carried to the card by the
//! estimator's step times.

use rust_decimal::Decimal;

use super::Situation;
use crate::catalog::{Gpu, GpuCatalog};
use crate::correction::Corrections;
use crate::error::InputError;
use crate::estimate::{self, Estimate, Fix, Verdict};
use crate::job::{Job, JobSpec};
use crate::message::Message;
use crate::plan::MAX_HOURS;
use crate::platform::{Offer, PlatformKind, PlatformProfile, PlatformSet};
use crate::steptime;
use crate::zoo::{ModelZoo, ZooEntry};

/// The job estimated once for every card, when the model is known.
pub struct Estimated<'a> {
    entry: &'a ZooEntry,
    job: Job,
    est: Estimate,
    /// The same job in fp16 mixed precision, when the situation left the
    /// precision to the model's bf16 default: what a card without bfloat16
    /// runs (as `estimate` does for such a card), not a reason to rule it
    /// out.
    fp16: Option<Box<Estimated<'a>>>,
}

impl<'a> Estimated<'a> {
    /// The estimate that holds on `gpu`: the fp16 one on a card without
    /// bfloat16 when the precision was left to the default.
    fn on(&self, gpu: &Gpu) -> &Estimated<'a> {
        match &self.fp16 {
            Some(e) if !gpu.supports_bf16() => e,
            _ => self,
        }
    }
}

/// What an offer would run.
pub struct Candidate {
    /// The job for this card (fix applied, layout set, hours carried).
    pub job: JobSpec,
    /// Several GPUs on one instance, when one does not hold the job.
    pub layout: Option<crate::parallel::Layout>,
    /// The fix applied, when the job as given did not fit.
    pub fix: Option<Fix>,
    /// How the job fits, when the model is known.
    pub fit: Option<Verdict>,
}

/// The estimate for every card, when the situation names a model.
pub fn estimated<'a>(
    s: &Situation,
    catalog: &GpuCatalog,
    zoo: &'a ModelZoo,
    corrections: &Corrections,
) -> Result<Option<Estimated<'a>>, InputError> {
    let Some(model) = &s.job.model else {
        return Ok(None);
    };
    let entry = zoo.get(model)?;
    let of = |spec: &crate::job::JobSpec| -> Result<Estimated<'a>, InputError> {
        let job = spec.resolve(entry)?;
        let est = estimate::estimate_with(
            entry,
            &job,
            catalog,
            None,
            &crate::pipeline::Host::TYPICAL,
            corrections,
        );
        Ok(Estimated {
            entry,
            job,
            est,
            fp16: None,
        })
    };
    let mut e = of(&s.job)?;
    if s.job.precision.is_none() && e.job.precision.needs_bf16() {
        let spec = crate::job::JobSpec {
            precision: Some(crate::job::Precision::Fp16Amp),
            ..s.job.clone()
        };
        e.fp16 = Some(Box::new(of(&spec)?));
    }
    Ok(Some(e))
}

/// What `offer` would run (one job, or two ways of making a job fit that
/// does not), or why it cannot be an option.
pub fn candidate(
    s: &Situation,
    p: &PlatformProfile,
    offer: &Offer,
    gpu: &Gpu,
    estimated: Option<&Estimated<'_>>,
    catalog: &GpuCatalog,
) -> Result<Result<Vec<Candidate>, Message>, InputError> {
    if p.kind == PlatformKind::CampusHpc && !s.campus_access {
        return Ok(Err(Message::new("ruled.no-campus")));
    }
    // A card without bfloat16 runs a defaulted 16-bit job as fp16.
    let fell_back = estimated.is_some_and(|e| e.fp16.is_some() && !gpu.supports_bf16());
    let estimated = estimated.map(|e| e.on(gpu));
    let as_given = Candidate {
        job: crate::job::JobSpec {
            precision: if fell_back {
                Some(crate::job::Precision::Fp16Amp)
            } else {
                s.job.precision
            },
            ..s.job.clone()
        },
        layout: None,
        fix: None,
        fit: None,
    };
    let row = estimated.and_then(|e| e.est.gpus.iter().find(|g| g.id == gpu.id));
    let mut out = match (estimated, row) {
        (Some(e), Some(row)) if !matches!(row.verdict, Verdict::Fits | Verdict::Tight) => {
            match make_fit(as_given, e, row.verdict, gpu, p, offer) {
                Ok(ways) => ways,
                Err(reason) => return Ok(Err(reason)),
            }
        }
        (_, row) => vec![Candidate {
            fit: row.map(|r| r.verdict),
            ..as_given
        }],
    };
    if let Some(h) = s.job.hours {
        for c in &mut out {
            let fixed_step = c.fix.as_ref().map(|f| f.step_seconds);
            let hours = carry_hours(
                h,
                gpu,
                estimated,
                row.map(|r| r.step_seconds),
                fixed_step,
                catalog,
            )?;
            // A run this card would take more than a plan's ten years on
            // is ruled out by what it would take, not by the hours field's
            // range.
            if hours > Decimal::from(MAX_HOURS) {
                return Ok(Err(Message::new("error.runTooLong")
                    .with("hours", hours.round_dp(0))
                    .with("years", crate::limits::years_of(hours))));
            }
            c.job.hours = Some(hours);
            c.job.model = None;
        }
    }
    Ok(Ok(out))
}

/// A job that does not fit one card as given: the fastest fix that keeps
/// the task (mixed precision, checkpointing, 8-bit states, a smaller
/// micro-batch); else both the smallest instance of several GPUs that runs
/// it as asked and the fastest fix that changes it (LoRA), each its own
/// option; else why not.
fn make_fit(
    c: Candidate,
    e: &Estimated<'_>,
    verdict: Verdict,
    gpu: &Gpu,
    p: &PlatformProfile,
    offer: &Offer,
) -> Result<Vec<Candidate>, Message> {
    let fastest = |fixes: Vec<Fix>| {
        fixes
            .into_iter()
            .min_by(|a, b| a.step_seconds.total_cmp(&b.step_seconds))
    };
    let (changing, keeping): (Vec<Fix>, Vec<Fix>) =
        estimate::fixes(&e.entry.model, &e.job, &e.est.vram, gpu, &p.host_for(offer))
            .into_iter()
            .partition(|f| f.kind.changes_the_task());
    let fixed = |fix: Fix| Candidate {
        job: fix.apply(&c.job),
        fit: Some(estimate::verdict(
            gpu,
            &fix.job,
            fix.peak_gib * 1024.0 * 1024.0 * 1024.0,
        )),
        fix: Some(fix),
        layout: None,
    };
    if let Some(fix) = fastest(keeping) {
        return Ok(vec![fixed(fix)]);
    }
    let several = (verdict == Verdict::DoesNotFit && e.job.gpus == 1)
        .then(|| estimate::smallest_layout(&e.entry.model, &e.job, gpu, &p.host_for(offer)))
        .flatten()
        .filter(|l| l.layout.gpus <= offer.max_gpus(p.kind))
        .map(|l| {
            let mut job = c.job.clone();
            job.gpus = Some(f64::from(l.layout.gpus));
            job.engine = Some(l.layout.engine);
            job.offload = l.layout.offload.then_some(true);
            Candidate {
                job,
                layout: Some(l.layout),
                fit: Some(Verdict::Fits),
                fix: None,
            }
        });
    let ways: Vec<Candidate> = several
        .into_iter()
        .chain(fastest(changing).map(fixed))
        .collect();
    match (ways.is_empty(), verdict) {
        (false, _) => Ok(ways),
        (true, Verdict::Unsupported) => Err(Message::new("ruled.no-bf16")),
        (true, _) => Err(Message::new("ruled.does-not-fit")),
    }
}

/// Hours given for an RTX 3090, carried to `gpu`: by the estimator's step
/// times when the model is known (the fixed job's, when a fix applies),
/// else by the cards' times for typical training steps.
fn carry_hours(
    h: Decimal,
    gpu: &Gpu,
    estimated: Option<&Estimated<'_>>,
    step: Option<f64>,
    fixed_step: Option<f64>,
    catalog: &GpuCatalog,
) -> Result<Decimal, InputError> {
    let reference = catalog.get("rtx3090")?;
    let base = estimated.and_then(|e| e.est.gpus.iter().find(|g| g.id == reference.id));
    let ratio = match (base, fixed_step.or(step)) {
        (Some(base), Some(here)) => here / base.step_seconds.max(1e-12),
        _ => steptime::typical_seconds(gpu) / steptime::typical_seconds(reference).max(1e-12),
    };
    scaled_hours(h, ratio, gpu)
}

/// Hours a plan gives for a run on its own `gpu`, as the hours for an RTX
/// 3090 that a situation's job gives (what [`carry_hours`] takes): a course
/// pack's preset made from a plan on an A100 carries the A100's 6 hours
/// back to the 3090's, not 6. By the cards' times for typical training
/// steps, as for any job without a model.
pub fn hours_on_reference(
    h: Decimal,
    gpu: &Gpu,
    catalog: &GpuCatalog,
) -> Result<Decimal, InputError> {
    let reference = catalog.get("rtx3090")?;
    if gpu.id == reference.id {
        return Ok(h);
    }
    let ratio = steptime::typical_seconds(reference) / steptime::typical_seconds(gpu).max(1e-12);
    scaled_hours(h, ratio, reference)
}

/// `h` hours times a ratio of two cards' speeds (bounded: no card is a
/// thousand times slower than another), to four places in the ratio and at
/// least 0.01 h; `gpu` names the card in the error.
fn scaled_hours(h: Decimal, ratio: f64, gpu: &Gpu) -> Result<Decimal, InputError> {
    let ratio = Decimal::try_from(ratio.clamp(1e-3, 1e3))
        .unwrap_or(Decimal::ONE)
        .round_dp(4);
    let scaled = h.checked_mul(ratio).ok_or_else(|| {
        InputError::new(
            "job.hours",
            format!("{h} hours cannot be carried to {}", gpu.id),
            format!("(0, {MAX_HOURS}]"),
        )
        .said(
            Message::new("error.outOfRange").with("value", h),
            Some(
                Message::new("allowed.above")
                    .with("min", 0)
                    .with("max", MAX_HOURS),
            ),
        )
    })?;
    Ok(scaled.max(Decimal::new(1, 2)))
}

/// When nothing fits anywhere: the changes that would make the job fit the
/// largest card rented here, and which card that is.
pub fn fixes_for_largest(
    s: &Situation,
    platforms: &PlatformSet,
    catalog: &GpuCatalog,
    e: &Estimated<'_>,
) -> (Vec<Fix>, Option<String>) {
    let largest = platforms
        .platforms
        .iter()
        .filter(|p| p.kind != PlatformKind::CampusHpc || s.campus_access)
        .flat_map(|p| p.offers.iter())
        .filter_map(|o| catalog.get(&o.gpu).ok())
        .max_by(|a, b| a.vram_gib().total_cmp(&b.vram_gib()));
    match largest {
        Some(card) => (
            estimate::fixes(
                &e.entry.model,
                &e.job,
                &e.est.vram,
                card,
                &crate::pipeline::Host::TYPICAL,
            ),
            Some(card.id.clone()),
        ),
        None => (Vec::new(), None),
    }
}
