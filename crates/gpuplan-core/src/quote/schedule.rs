//! The plan laid out in time, hours from the first start: what each instance
//! ("lane") does when. The bill, the packages, the time to result and the
//! daily timeline are all read off this layout, so they cannot disagree.
//!
//! Each lane starts with setup and uploads, then runs its share of the runs
//! (run `i` goes to lane `i mod parallel`). A `[schedule]` spreads a lane's
//! runs evenly over its days with the instance stopped, released or left
//! running in the gaps; explicit `[stops]` go between runs first and split
//! runs when there are more stops than gaps. Each run (or piece of a split
//! run) is one start, billed at the platform's unit and minimum. After the
//! last run comes any forgotten idle time, then, when the plan keeps its data
//! on the instance disk longer, a trailing stop until the disk is released.

// Operators allowed on the bound stated in `quote/mod.rs`: every input is
// validated before the cost engine runs.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "inputs bounded by Plan::check and profile validation; see quote/mod.rs"
)]

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use super::{date_of, day_of, DayCost, LineItem, LineKind, TimeToResult};
use crate::error::InputError;
use crate::plan::{Between, Disk, Plan};
use crate::platform::{PlatformKind, PlatformProfile};

/// A group of identical runs with the hours of one run.
pub struct Group {
    /// Name.
    pub name: String,
    /// How many.
    pub count: u32,
    /// Hours of one run (used GPU time, reruns not included).
    pub hours: Decimal,
}

/// The plan's run groups with their hours.
pub fn groups(
    plan: &Plan,
    job_hours: Decimal,
    per_epoch: Option<Decimal>,
) -> Result<Vec<Group>, InputError> {
    if plan.runs.is_empty() {
        return Ok(vec![Group {
            name: "run".into(),
            count: 1,
            hours: super::to_whole_seconds(job_hours),
        }]);
    }
    plan.runs
        .iter()
        .map(|r| {
            let hours = match (r.hours, r.minutes, r.epochs, per_epoch) {
                (Some(h), _, _, _) => h,
                (None, Some(m), _, _) => m / Decimal::from(60),
                (None, None, Some(e), Some(pe)) => e.checked_mul(pe).ok_or_else(|| {
                    InputError::new("run.epochs", "too many epochs", "fewer epochs")
                })?,
                (None, None, Some(_), None) => {
                    return Err(InputError::new(
                        "run.epochs",
                        format!(
                            "run `{}` gives epochs but the job's time per epoch is unknown",
                            r.name
                        ),
                        "hours on the run, or job.epochs with job.hours",
                    ))
                }
                (None, None, None, _) => job_hours,
            };
            if hours <= Decimal::ZERO || hours > Decimal::from(crate::plan::MAX_HOURS) {
                return Err(InputError::new(
                    "run.hours",
                    format!("run `{}` lasts {hours} hours", r.name),
                    "hours in (0, 87600]",
                ));
            }
            // Platforms bill whole seconds: 1.0167 h is 3660 s, 61 minutes.
            Ok(Group {
                name: r.name.clone(),
                count: r.count,
                hours: super::to_whole_seconds(hours),
            })
        })
        .collect()
}

/// A span of time, hours from the first start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Start.
    pub start: Decimal,
    /// End.
    pub end: Decimal,
}

impl Interval {
    fn len(&self) -> Decimal {
        (self.end - self.start).max(Decimal::ZERO)
    }
}

/// Time between runs and what the instance does in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// When.
    pub span: Interval,
    /// Stopped, released or left running.
    pub between: Between,
}

/// One instance's timeline.
#[derive(Debug, Clone, Default)]
pub struct Lane {
    /// Runs as they happen (spot runs with their expected reruns).
    pub runs: Vec<Interval>,
    /// Hours the instance is on from each start to the next stop or release
    /// (runs, idle kept running between them, forgotten idle at the end):
    /// each is billed at the platform's unit and minimum.
    pub starts: Vec<Decimal>,
    /// Used hours of each run, in order (for walltime and session parts).
    pub run_hours: Vec<Decimal>,
    /// Gaps between and inside runs, and the trailing stop.
    pub gaps: Vec<Gap>,
    /// Idle running after the last run.
    pub forgotten: Option<Interval>,
    /// When the instance disk exists (it goes with a release, by the
    /// student or the platform's deadline).
    pub disk: Vec<Interval>,
    /// When the last run ends (the result is there).
    pub work_end: Decimal,
    /// When storage is released (the plan's storage days, or the end).
    pub storage_end: Decimal,
    /// The longest time the instance sits stopped in a row.
    pub longest_stop: Decimal,
}

impl Lane {
    /// Hours of gaps of one kind.
    pub fn gap_hours(&self, b: Between) -> Decimal {
        self.gaps
            .iter()
            .filter(|g| g.between == b)
            .map(|g| g.span.len())
            .sum()
    }

    /// Gaps of one kind (of some length).
    pub fn count_gaps(&self, b: Between) -> usize {
        self.gaps
            .iter()
            .filter(|g| g.between == b && g.span.len() > Decimal::ZERO)
            .count()
    }

    /// Hours the instance disk bills: all the time it exists, or only while
    /// the instance runs where a stopped disk does not bill.
    pub fn disk_hours(&self, bills_while_stopped: bool) -> Decimal {
        if bills_while_stopped {
            self.disk.iter().map(Interval::len).sum()
        } else {
            let running: Decimal = self.runs.iter().map(Interval::len).sum();
            running
                + self.gap_hours(Between::KeepRunning)
                + self.forgotten.map(|f| f.len()).unwrap_or_default()
        }
    }

    /// Intervals in which the GPU bills (for packages).
    fn gpu_billed(&self, stop_bills_gpu: bool) -> Vec<Interval> {
        let mut v: Vec<Interval> = self.runs.clone();
        v.extend(
            self.gaps
                .iter()
                .filter(|g| {
                    g.between == Between::KeepRunning
                        || (stop_bills_gpu && g.between == Between::Stop)
                })
                .map(|g| g.span),
        );
        v.extend(self.forgotten);
        v.retain(|i| i.len() > Decimal::ZERO);
        v.sort_by_key(|a| a.start);
        v
    }
}

/// What [`lay_out`] needs.
pub struct Inputs<'a> {
    /// The plan.
    pub plan: &'a Plan,
    /// The platform.
    pub profile: &'a PlatformProfile,
    /// Run groups.
    pub groups: &'a [Group],
    /// Wall hours of one run of each group (spot reruns included).
    pub walls: &'a [Decimal],
    /// Hours of setup and uploads before the first run.
    pub before_runs: Decimal,
}

/// One run in a lane: its used and wall hours.
#[derive(Clone, Copy)]
struct Run {
    used: Decimal,
    wall: Decimal,
}

/// Lays the plan out in time, one lane per instance.
pub fn lay_out(i: &Inputs<'_>) -> Result<Vec<Lane>, InputError> {
    let plan = i.plan;
    let p = plan.parallel.max(1) as usize;
    let mut per_lane: Vec<Vec<Run>> = vec![Vec::new(); p];
    let mut k = 0usize;
    for (g, wall) in i.groups.iter().zip(i.walls) {
        for _ in 0..g.count {
            per_lane[k % p].push(Run {
                used: g.hours,
                wall: *wall,
            });
            k += 1;
        }
    }
    let stops = plan.stops.clone();
    let deadline = i
        .profile
        .lifecycle
        .release_after_stopped_days
        .as_ref()
        .map(|d| Decimal::from(d.value) * Decimal::from(24));
    let kept_days = plan.storage.as_ref().and_then(|s| s.days);
    let releases = plan
        .schedule
        .as_ref()
        .is_some_and(|s| s.between_runs == Between::Release);
    let on_instance = plan.storage.as_ref().is_none_or(|s| s.on == Disk::Instance);
    let mut lanes = Vec::with_capacity(p);
    for (j, runs) in per_lane.into_iter().enumerate() {
        let mut lane = Lane::default();
        let n = runs.len();
        // Explicit stops: this lane's share, between runs first, then
        // splitting runs (round-robin).
        let (stop_count, stop_hours) = match &stops {
            Some(s) => {
                let share = s.count as usize / p + usize::from(j < s.count as usize % p);
                (share, s.hours_each)
            }
            None => (0, Decimal::ZERO),
        };
        let between_stops = stop_count.min(n.saturating_sub(1));
        let extra = stop_count - between_stops;
        let mut splits = vec![0usize; n];
        for s in 0..extra {
            if n > 0 {
                splits[s % n] += 1;
            }
        }
        let spacing = plan.schedule.as_ref().map(|s| {
            (
                s.days * Decimal::from(24) / Decimal::from(n.max(1) as u64),
                s.between_runs,
            )
        });
        let mut t = i.before_runs;
        let origin = t;
        let mut on = Decimal::ZERO;
        for (r, run) in runs.iter().enumerate() {
            if r > 0 {
                let (start, between) = match spacing {
                    Some((sp, b)) => ((origin + sp * Decimal::from(r as u64)).max(t), b),
                    None if r <= between_stops => (t + stop_hours, Between::Stop),
                    None => (t, Between::Stop),
                };
                if start > t {
                    lane.gaps.push(Gap {
                        span: Interval {
                            start: t,
                            end: start,
                        },
                        between,
                    });
                    if between == Between::KeepRunning {
                        on += start - t;
                    } else {
                        lane.starts.push(on);
                        on = Decimal::ZERO;
                    }
                } else if spacing.is_none() {
                    // Back-to-back runs: each its own start (the auto-shutdown
                    // wrapper stops the instance after each).
                    lane.starts.push(on);
                    on = Decimal::ZERO;
                }
                t = start;
            }
            // The run, split into pieces by extra stops.
            let pieces = splits.get(r).copied().unwrap_or(0) + 1;
            let piece_used = (run.used / Decimal::from(pieces as u64)).round_dp(6);
            let piece_wall = (run.wall / Decimal::from(pieces as u64)).round_dp(6);
            for piece in 0..pieces {
                if piece > 0 {
                    lane.gaps.push(Gap {
                        span: Interval {
                            start: t,
                            end: t + stop_hours,
                        },
                        between: Between::Stop,
                    });
                    t += stop_hours;
                    lane.starts.push(on);
                    on = Decimal::ZERO;
                }
                lane.runs.push(Interval {
                    start: t,
                    end: t + piece_wall,
                });
                on += piece_used;
                t += piece_wall;
            }
            lane.run_hours.push(run.used);
        }
        lane.work_end = t;
        if plan.forgotten_shutdown_hours > Decimal::ZERO {
            lane.forgotten = Some(Interval {
                start: t,
                end: t + plan.forgotten_shutdown_hours,
            });
            t += plan.forgotten_shutdown_hours;
            on += plan.forgotten_shutdown_hours;
        }
        if on > Decimal::ZERO {
            lane.starts.push(on);
        }
        lane.starts.retain(|s| *s > Decimal::ZERO);
        let end = t;
        lane.storage_end = match kept_days {
            Some(d) => (d * Decimal::from(24)).max(end),
            None => end,
        };
        // Kept longer on the instance disk: the instance sits stopped (a
        // plan that releases between runs releases after the last one too,
        // so its instance disk ends with the work).
        if releases {
            lane.storage_end = lane.storage_end.min(end);
        }
        if on_instance && !releases && lane.storage_end > end {
            lane.gaps.push(Gap {
                span: Interval {
                    start: end,
                    end: lane.storage_end,
                },
                between: Between::Stop,
            });
        }
        // The disk: from the first start, gone at each release (the
        // student's, or the deadline's after that long a stop).
        let mut disk_from = Decimal::ZERO;
        let mut longest_stop = Decimal::ZERO;
        let mut gaps = lane.gaps.clone();
        gaps.sort_by_key(|a| a.span.start);
        for g in &gaps {
            match g.between {
                Between::Release => {
                    lane.disk.push(Interval {
                        start: disk_from,
                        end: g.span.start,
                    });
                    disk_from = g.span.end;
                }
                Between::Stop => {
                    longest_stop = longest_stop.max(g.span.len());
                    // After the last use the platform's deadline releases the
                    // instance and its disk stops billing. A stop that long in
                    // the middle of the work also loses the data (the quote
                    // warns), but the work resumes on a disk billed again, so
                    // the disk is counted throughout.
                    let trailing = g.span.start >= end;
                    if let Some(dl) = deadline.filter(|dl| trailing && g.span.len() >= *dl) {
                        lane.disk.push(Interval {
                            start: disk_from,
                            end: g.span.start + dl,
                        });
                        disk_from = g.span.end;
                    }
                }
                Between::KeepRunning => {}
            }
        }
        if disk_from < lane.storage_end {
            lane.disk.push(Interval {
                start: disk_from,
                end: lane.storage_end,
            });
        }
        lane.disk.retain(|d| d.len() > Decimal::ZERO);
        lane.longest_stop = longest_stop;
        lanes.push(lane);
    }
    Ok(lanes)
}

/// Packages of `period` hours bought from the moment GPU time is first
/// needed and again whenever the paid period has run out: how many, and the
/// day each is bought on.
pub fn packages(lanes: &[Lane], period: Decimal, stop_bills_gpu: bool) -> (u32, Vec<u32>) {
    let mut count = 0u32;
    let mut days = Vec::new();
    for lane in lanes {
        let mut paid_until: Option<Decimal> = None;
        for iv in lane.gpu_billed(stop_bills_gpu) {
            let mut t = iv.start;
            while t < iv.end {
                match paid_until {
                    Some(until) if t < until => t = until,
                    _ => {
                        count = count.saturating_add(1);
                        days.push(day_of(t));
                        paid_until = Some(t + period);
                        t += period;
                    }
                }
            }
        }
    }
    days.sort_unstable();
    (count, days)
}

/// What [`time_to_result`] needs.
pub struct TimeInputs<'a> {
    /// The plan.
    pub plan: &'a Plan,
    /// The platform.
    pub profile: &'a PlatformProfile,
    /// The layout.
    pub lanes: &'a [Lane],
    /// Setup and uploads.
    pub setup_hours: Decimal,
    /// Debugging first.
    pub debug_hours: Decimal,
    /// GPU hours in all (runs, reruns, debugging), for weekly quotas.
    pub gpu_hours: Decimal,
}

/// Hours from the first start to the last result: the slowest instance,
/// plus waiting for weekly quota resets.
pub fn time_to_result(t: &TimeInputs<'_>) -> Result<TimeToResult, InputError> {
    let profile = t.profile;
    let minutes = |m: Decimal| m / Decimal::from(60);
    let startup = minutes(profile.timing.startup_minutes.value);
    let queue = minutes(profile.timing.queue_minutes.value);
    let campus = profile.kind == PlatformKind::CampusHpc;
    // A run longer than the walltime runs as several jobs (requeued), one
    // longer than a session as several sessions; each part waits again.
    let cap = profile
        .quota
        .walltime_max_hours
        .as_ref()
        .or(profile.quota.session_max_hours.as_ref())
        .map(|c| c.value)
        .filter(|c| *c > Decimal::ZERO);
    let parts = |h: Decimal| -> Decimal {
        match cap {
            Some(c) => (h / c).ceil().max(Decimal::ONE),
            None => Decimal::ONE,
        }
    };
    let mut slowest = TimeToResult {
        waiting: Decimal::ZERO,
        setup: Decimal::ZERO,
        running: Decimal::ZERO,
        reruns: Decimal::ZERO,
        gaps: Decimal::ZERO,
        total: Decimal::ZERO,
    };
    for (j, lane) in t.lanes.iter().enumerate() {
        let mut waiting = queue + startup;
        for (r, h) in lane.run_hours.iter().enumerate() {
            let extra = parts(*h) - Decimal::ONE;
            // Every Slurm job queues; elsewhere only the first start does,
            // and each later start or session boots again.
            let each = if campus { queue + startup } else { startup };
            let new_start = if r == 0 { Decimal::ZERO } else { each };
            waiting += new_start + extra * (queue + startup);
        }
        // Pieces of split runs start again too.
        let pieces = lane.starts.len().saturating_sub(lane.run_hours.len());
        waiting += startup * Decimal::from(pieces as u64);
        let running: Decimal = lane.run_hours.iter().copied().sum();
        let wall: Decimal = lane.runs.iter().map(Interval::len).sum();
        let gaps: Decimal = lane
            .gaps
            .iter()
            .filter(|g| g.span.end <= lane.work_end)
            .map(|g| g.span.len())
            .sum();
        let setup = t.setup_hours + if j == 0 { t.debug_hours } else { Decimal::ZERO };
        let total = waiting + setup + wall + gaps;
        if total > slowest.total {
            slowest = TimeToResult {
                waiting,
                setup,
                running,
                reruns: wall - running,
                gaps,
                total,
            };
        }
    }
    // A weekly quota: what does not fit this week waits for the next reset.
    if let Some(q) = profile
        .quota
        .weekly_gpu_hours
        .as_ref()
        .map(|q| q.value)
        .filter(|q| *q > Decimal::ZERO)
    {
        if t.gpu_hours > q {
            let weeks = (t.gpu_hours / q).ceil();
            let done_before = (weeks - Decimal::ONE) * q;
            let last_week = (t.gpu_hours - done_before) / Decimal::from(t.plan.parallel.max(1));
            let quota_total = (weeks - Decimal::ONE) * Decimal::from(168)
                + slowest.setup
                + queue
                + startup
                + last_week;
            if quota_total > slowest.total {
                slowest.waiting += quota_total - slowest.total;
                slowest.total = quota_total;
            }
        }
    }
    Ok(slowest)
}

/// Spreads `amount` over the hours of `spans` (the day holding `at` when they
/// are empty), adding to `days`.
fn spread(days: &mut [Decimal], amount: Decimal, spans: &[Interval], at: Decimal) {
    if amount.is_zero() || days.is_empty() {
        return;
    }
    let last = days.len() - 1;
    let total: Decimal = spans.iter().map(Interval::len).sum();
    if total.is_zero() {
        let d = (day_of(at) as usize).saturating_sub(1).min(last);
        days[d] += amount;
        return;
    }
    // Hours per day first (additions only), then one division per day.
    let day = Decimal::from(24);
    let mut hours = vec![Decimal::ZERO; days.len()];
    let mut idx = 0usize;
    for s in spans {
        let mut a = s.start;
        while a < s.end {
            // Spans mostly come in time order: walk from the last day found.
            idx = day_index(a, idx);
            if idx > last {
                // Beyond the chart: the rest lands on its last day.
                hours[last] += s.end - a;
                break;
            }
            let boundary = Decimal::from(idx as u64 + 1) * day;
            let b = s.end.min(boundary);
            hours[idx] += b - a;
            a = b;
        }
    }
    for (d, h) in days.iter_mut().zip(hours) {
        if !h.is_zero() {
            *d += amount * h / total;
        }
    }
}

/// The 0-based day `hours` falls on, walking from the day `from` (spans
/// come mostly in time order, so this is a step or two of comparisons; a
/// division of decimals costs far more).
fn day_index(hours: Decimal, from: usize) -> usize {
    let day = Decimal::from(24);
    let mut idx = from;
    while idx > 0 && Decimal::from(idx as u64) * day > hours {
        idx -= 1;
    }
    while Decimal::from(idx as u64 + 1) * day <= hours {
        idx += 1;
    }
    idx
}

/// Longest chart, days.
const MAX_TIMELINE_DAYS: u32 = 3650;

/// Cumulative cash by day: each line spread over the hours it bills, credit
/// consumed as spending happens. The last day equals the cash total.
pub fn timeline(
    plan: &Plan,
    lines: &[LineItem],
    lanes: &[Lane],
    cash_total: Decimal,
    credit: Decimal,
) -> Vec<DayCost> {
    let end = lanes
        .iter()
        .map(|l| {
            l.storage_end
                .max(l.forgotten.map(|f| f.end).unwrap_or(l.work_end))
        })
        .max()
        .unwrap_or_default();
    let n = (end / Decimal::from(24))
        .ceil()
        .to_u32()
        .unwrap_or(MAX_TIMELINE_DAYS)
        .clamp(1, MAX_TIMELINE_DAYS);
    let mut days = vec![Decimal::ZERO; n as usize];
    let collect = |f: &dyn Fn(&Lane) -> Vec<Interval>| -> Vec<Interval> {
        lanes.iter().flat_map(f).collect()
    };
    let runs = collect(&|l| l.runs.clone());
    let gaps_of = |b: Between| {
        collect(&|l| {
            l.gaps
                .iter()
                .filter(|g| g.between == b)
                .map(|g| g.span)
                .collect()
        })
    };
    let forgotten = collect(&|l| l.forgotten.into_iter().collect());
    let disk = collect(&|l| l.disk.clone());
    let work_end = lanes.iter().map(|l| l.work_end).max().unwrap_or_default();
    // Sum the lines per set of spans first, then spread each sum once: a plan
    // with a hundred run groups spreads one amount over its runs, not a
    // hundred.
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum When {
        Runs,
        Idle,
        Stopped,
        Forgotten,
        Disk,
        Whole,
        WorkEnd,
        Start,
    }
    let mut sums: std::collections::BTreeMap<When, Decimal> = Default::default();
    for l in lines {
        let when = match l.kind {
            LineKind::Runs
            | LineKind::Waste
            | LineKind::Reruns
            | LineKind::PeakSurcharge
            | LineKind::Package => When::Runs,
            LineKind::IdleBetween => When::Idle,
            LineKind::Stopped | LineKind::StoppedBilling => When::Stopped,
            LineKind::Forgotten => When::Forgotten,
            LineKind::Storage => When::Disk,
            LineKind::PersistentStorage => When::Whole,
            LineKind::Egress => When::WorkEnd,
            LineKind::Credit | LineKind::OwnTime => continue,
            LineKind::Setup
            | LineKind::Upload
            | LineKind::Traffic
            | LineKind::Debug
            | LineKind::DebugWaste => When::Start,
        };
        *sums.entry(when).or_insert(Decimal::ZERO) += l.amount;
    }
    for (when, amount) in sums {
        let (spans, at) = match when {
            When::Runs => (runs.clone(), Decimal::ZERO),
            When::Idle => (gaps_of(Between::KeepRunning), Decimal::ZERO),
            When::Stopped => (gaps_of(Between::Stop), Decimal::ZERO),
            When::Forgotten => (forgotten.clone(), work_end),
            When::Disk => (disk.clone(), Decimal::ZERO),
            When::Whole => (
                vec![Interval {
                    start: Decimal::ZERO,
                    end,
                }],
                Decimal::ZERO,
            ),
            When::WorkEnd => (Vec::new(), work_end),
            When::Start => (Vec::new(), Decimal::ZERO),
        };
        spread(&mut days, amount, &spans, at);
    }
    let mut gross = Decimal::ZERO;
    let mut out = Vec::with_capacity(days.len());
    for (i, d) in days.iter().enumerate() {
        gross += *d;
        let day = i as u32 + 1;
        let cumulative = if day == n {
            cash_total
        } else {
            super::cny((gross - credit).max(Decimal::ZERO)).min(cash_total)
        };
        out.push(DayCost {
            day,
            date: date_of(plan, day),
            cumulative,
        });
    }
    out
}
