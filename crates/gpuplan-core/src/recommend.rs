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

use crate::catalog::{GpuCatalog, ThroughputClass};
use crate::error::InputError;
use crate::estimate::{self, Verdict};
use crate::plan::{Payment, Plan, PlanJob, RunGroup, SpotSpec, StorageSpec};
use crate::platform::{Localized, PlatformKind, PlatformProfile, PlatformSet};
use crate::quote::{quote, Quote, Warning};
use crate::zoo::ModelZoo;

/// Where the student is (seed 000 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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
pub struct Situation {
    /// Stage.
    pub stage: Stage,
    /// Budget in CNY, if any.
    #[serde(default)]
    pub budget: Option<Decimal>,
    /// Hours until results are needed, if any.
    #[serde(default)]
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
    pub job: PlanJob,
    /// How many runs.
    #[serde(default = "one")]
    pub runs: u32,
    /// Dataset and checkpoints kept, GB.
    #[serde(default)]
    pub storage_gb: Decimal,
}

fn yes() -> bool {
    true
}

fn one() -> u32 {
    1
}

/// One ranked option.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    pub time_to_result_hours: Decimal,
    /// Cash cost, CNY.
    pub cost: Decimal,
    /// Ranking score (higher is better).
    pub score: f64,
    /// Why it is recommended, in both languages.
    pub reasons: Vec<Localized>,
    /// What to watch for: the platform's pitfalls and the quote's warnings.
    pub watch_out: Vec<Localized>,
    /// The full quote.
    pub quote: Quote,
}

/// An option that was ruled out, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuledOut {
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// Why.
    pub reason: Localized,
}

/// The shortlist.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recommendation {
    /// Ranked options, best first.
    pub options: Vec<RankedOption>,
    /// Options ruled out.
    pub ruled_out: Vec<RuledOut>,
}

fn l(zh: &str, en: &str) -> Localized {
    Localized {
        zh: zh.to_owned(),
        en: en.to_owned(),
    }
}

/// Ranks every platform x GPU option for `s`.
pub fn recommend(
    s: &Situation,
    platforms: &PlatformSet,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<Recommendation, InputError> {
    if s.runs == 0 || s.runs > 100_000 {
        return Err(InputError::new(
            "runs",
            format!("{} is out of range", s.runs),
            "1..=100000",
        ));
    }
    if s.job.hours.is_none() && s.job.model.is_none() {
        return Err(InputError::new(
            "job",
            "give the hours of one run or a model",
            "job.hours, or job.model with dataset_samples and epochs",
        ));
    }
    let reference = catalog.get("rtx3090")?;
    let mut options = Vec::new();
    let mut ruled_out = Vec::new();
    for p in &platforms.platforms {
        for offer in &p.offers {
            let gpu = catalog.get(&offer.gpu)?;
            let out = |reason: Localized, ruled_out: &mut Vec<RuledOut>| {
                ruled_out.push(RuledOut {
                    platform: p.id.clone(),
                    gpu: gpu.id.clone(),
                    reason,
                })
            };
            if p.kind == PlatformKind::CampusHpc && !s.campus_access {
                out(
                    l("没有校园集群账号", "no campus cluster account"),
                    &mut ruled_out,
                );
                continue;
            }
            // Fit and hours on this card.
            let mut job = s.job.clone();
            if let Some(model) = &s.job.model {
                let entry = zoo.get(model)?;
                let j = s.job.request().resolve(entry)?;
                let est = estimate::estimate(entry, &j, catalog, Some(gpu));
                let row = est.gpus.iter().find(|g| g.id == gpu.id);
                if !matches!(row.map(|r| r.verdict), Some(Verdict::Fits | Verdict::Tight)) {
                    out(
                        l(
                            "显存放不下这个任务",
                            "the job does not fit in this card's memory",
                        ),
                        &mut ruled_out,
                    );
                    continue;
                }
            } else if let Some(h) = s.job.hours {
                // Hours are given for an RTX 3090; carry them by measured throughput.
                let rel = |g: &crate::catalog::Gpu| {
                    [ThroughputClass::ConvAmp, ThroughputClass::TransformerAmp]
                        .iter()
                        .map(|c| g.spec.relative_throughput(*c))
                        .sum::<f64>()
                };
                let ratio = Decimal::try_from(rel(reference) / rel(gpu))
                    .unwrap_or(Decimal::ONE)
                    .round_dp(4);
                job.hours = Some((h * ratio).max(Decimal::new(1, 2)));
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
                    start_date: None,
                    student: s.student,
                    payment,
                    own_time_per_hour: Decimal::ZERO,
                    forgotten_shutdown_hours: Decimal::ZERO,
                    setup_hours: if p.kind == PlatformKind::Marketplace {
                        Decimal::ONE
                    } else {
                        Decimal::new(25, 2)
                    },
                    job: job.clone(),
                    runs: vec![RunGroup {
                        name: "run".into(),
                        count: s.runs,
                        hours: None,
                        epochs: None,
                    }],
                    debug: None,
                    data: None,
                    storage: (s.storage_gb > Decimal::ZERO).then(|| StorageSpec {
                        gb: s.storage_gb,
                        days: Decimal::from(7),
                    }),
                    stops: None,
                    spot: (payment == Payment::Spot).then(|| SpotSpec {
                        checkpoint_every_hours: Some(Decimal::ONE),
                        checkpoint_every_epochs: None,
                        preemptions_per_day: Decimal::from(2),
                        restart_minutes: Decimal::from(5),
                    }),
                    prices: Default::default(),
                };
                let q = match quote(&plan, p, catalog, zoo) {
                    Ok(q) => q,
                    Err(e) => {
                        out(
                            l(
                                &format!("无法报价：{}", e.message),
                                &format!("cannot quote: {}", e.message),
                            ),
                            &mut ruled_out,
                        );
                        continue;
                    }
                };
                if let Some(deadline) = s.deadline_hours {
                    if q.time_to_result_hours > deadline {
                        out(
                            l(
                                &format!(
                                    "约 {} 小时才出结果，赶不上截止时间",
                                    q.time_to_result_hours.round_dp(1)
                                ),
                                &format!(
                                    "results in about {} h, after the deadline",
                                    q.time_to_result_hours.round_dp(1)
                                ),
                            ),
                            &mut ruled_out,
                        );
                        continue;
                    }
                }
                options.push(score(s, p, &gpu.id, payment, q));
            }
        }
    }
    options.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.cost.cmp(&b.cost)));
    Ok(Recommendation { options, ruled_out })
}

fn score(
    s: &Situation,
    p: &PlatformProfile,
    gpu: &str,
    payment: Payment,
    q: Quote,
) -> RankedOption {
    let mut score = 0.0;
    let mut reasons = Vec::new();
    let mut watch_out: Vec<Localized> = p.pitfalls.clone();
    use PlatformKind::*;
    // Seed 000 §6.1-6.4: which kind each stage should start with.
    let (fit, why) = match (s.stage, p.kind) {
        (Stage::FirstDemo, HostedNotebook) => (
            3.0,
            l(
                "§6.1：先用免费额度跑通完整流程",
                "§6.1: run the whole flow once on free quota first",
            ),
        ),
        (Stage::FirstDemo, ContainerCloud | CampusHpc) => (
            1.5,
            l(
                "§6.1：低配实例或校内免费资源作补充",
                "§6.1: a low-end instance or free campus resources as a complement",
            ),
        ),
        (Stage::CourseProject, ContainerCloud) => (
            3.0,
            l(
                "§6.2：按需实例启动快、镜像可复用，适合反复改代码",
                "§6.2: on-demand instances start fast and reuse images, good for frequent changes",
            ),
        ),
        (Stage::CourseProject, CampusHpc) => (
            1.5,
            l(
                "§6.2：不急的任务可同时排校园队列",
                "§6.2: queue non-urgent runs on the campus cluster in parallel",
            ),
        ),
        (Stage::ThesisResearch, CampusHpc) => (
            3.0,
            l(
                "§6.3：校园超算做主力队列，可复现、成本低",
                "§6.3: the campus cluster as the main queue: reproducible and cheap",
            ),
        ),
        (Stage::ThesisResearch, ContainerCloud) => (
            2.0,
            l(
                "§6.3：按需实例做快速验证",
                "§6.3: on-demand instances for quick checks",
            ),
        ),
        (Stage::ThesisResearch, Marketplace) => (
            1.5,
            l(
                "§6.3：竞价实例提高性价比（需 checkpoint）",
                "§6.3: spot instances for value (checkpoint required)",
            ),
        ),
        (Stage::CompetitionSprint, ContainerCloud) => (
            2.5,
            l(
                "§6.4：时间比钱重要，高端卡按小时租",
                "§6.4: time matters more than money: rent a high-end card by the hour",
            ),
        ),
        (Stage::CompetitionSprint, Marketplace) => (
            1.5,
            l(
                "§6.4：共享市场的旗舰卡作备选",
                "§6.4: flagship cards on a marketplace as a fallback",
            ),
        ),
        _ => (0.0, l("", "")),
    };
    score += fit;
    if fit > 0.0 {
        reasons.push(why);
    }
    // §6.5: sweeps that tolerate interruption go to spot instances.
    if payment == Payment::Spot {
        score += if s.interruptible { 2.5 } else { -3.0 };
        reasons.push(l(
            "§6.5：大量超参数实验用竞价实例，写好 checkpoint 和断点续跑",
            "§6.5: sweeps on spot instances, with checkpoints and automatic resume",
        ));
    }
    if s.stage == Stage::CompetitionSprint {
        // Time to result dominates: reward speed.
        let hours = q.time_to_result_hours.to_f64().unwrap_or(0.0);
        score -= hours / 4.0;
        reasons.push(l(
            &format!("约 {:.1} 小时出结果", hours),
            &format!("results in about {hours:.1} h"),
        ));
    }
    if p.kind == CampusHpc && !s.slurm {
        score -= 2.0;
        watch_out.push(l(
            "需要先学会写 sbatch 脚本",
            "you will need to learn sbatch scripts first",
        ));
    }
    if p.kind == Marketplace && !s.linux {
        score -= 2.5;
        watch_out.push(l(
            "需要自己用 SSH 配环境",
            "you set up the environment yourself over SSH",
        ));
    }
    if p.kind == HostedNotebook {
        if s.mainland_china {
            score -= 1.5;
            watch_out.push(l("国内访问不稳定", "unstable from mainland China"));
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
    for w in &q.warnings {
        match w {
            Warning::QuotaExhausted { .. } | Warning::RunExceedsCap { .. } => {
                score -= 2.0;
                watch_out.push(l(
                    "单次时长或配额不够，需要断点续跑",
                    "a session or quota is too short: make the run resumable",
                ));
            }
            Warning::BudgetExceeded { total, budget } => {
                score -= 4.0;
                watch_out.push(l(
                    &format!("总价 {total} 超出预算 {budget}"),
                    &format!("total {total} exceeds the budget of {budget}"),
                ));
            }
            Warning::DataWiped { .. } | Warning::ScratchWiped { .. } => {
                watch_out.push(l("数据会在期限后被清除", "data is wiped after a deadline"))
            }
            Warning::StopKeepsBilling => watch_out.push(l(
                "停止不停计费，必须释放",
                "stopping does not end billing: release",
            )),
            _ => {}
        }
    }
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
    reasons.push(l(
        &format!("预计花费 {cost:.2} 元"),
        &format!("about {cost:.2} CNY"),
    ));
    let m = &p.metrics;
    score += 0.1
        * f64::from(
            m.startup_speed.value
                + m.environment.value
                + m.billing_transparency.value
                + m.data_transfer.value,
        );
    RankedOption {
        platform: p.id.clone(),
        platform_name: p.name.clone(),
        kind: p.kind,
        gpu: gpu.to_owned(),
        payment,
        time_to_result_hours: q.time_to_result_hours,
        cost: q.cash_total,
        score,
        reasons,
        watch_out,
        quote: q,
    }
}
