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
use crate::message::Message;
use crate::plan::{Between, Disk, Plan, MAX_HOURS};
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

pub use crate::plan::DEFAULT_GROUP;

/// The plan's run groups with their hours. `per_epoch`: the hours each
/// epoch adds and those a run spends once, for runs given in epochs.
pub fn groups(
    plan: &Plan,
    job_hours: Decimal,
    per_epoch: Option<(Decimal, Decimal)>,
) -> Result<Vec<Group>, InputError> {
    if plan.runs.is_empty() {
        return Ok(vec![Group {
            // A catalog value, worded by the shells ("运行" / "run").
            name: DEFAULT_GROUP.into(),
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
                (None, None, Some(e), Some((pe, once))) => e
                    .checked_mul(pe)
                    .and_then(|h| h.checked_add(once))
                    .ok_or_else(|| {
                        InputError::new("run.epochs", "too many epochs", "fewer epochs").said(
                            Message::new("error.tooManyEpochs"),
                            Some(Message::new("allowed.fewerEpochs")),
                        )
                    })?,
                (None, None, Some(_), None) => {
                    return Err(InputError::new(
                        "run.epochs",
                        format!(
                            "run `{}` gives epochs but the job's time per epoch is unknown",
                            r.name
                        ),
                        "hours on the run, or job.epochs with job.hours",
                    )
                    .said(
                        of_group(
                            ("error.epochsWithoutTime", "error.epochsWithoutTimeUnnamed"),
                            &r.name,
                        ),
                        Some(Message::new("allowed.epochsWithTime")),
                    ))
                }
                (None, None, None, _) => job_hours,
            };
            if hours <= Decimal::ZERO || hours > Decimal::from(MAX_HOURS) {
                return Err(InputError::new(
                    "run.hours",
                    format!("run `{}` lasts {hours} hours", r.name),
                    "hours in (0, 87600]",
                )
                .said(
                    of_group(("error.runHours", "error.runHoursUnnamed"), &r.name)
                        .with("hours", hours),
                    Some(
                        Message::new("allowed.above")
                            .with("min", 0)
                            .with("max", MAX_HOURS),
                    ),
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
    /// Hours in it.
    pub fn len(&self) -> Decimal {
        (self.end - self.start).max(Decimal::ZERO)
    }
}

/// For each interval of `a`, the hours of it that `b` covers (`b`'s
/// intervals do not overlap one another). One sweep over both, sorted by
/// start: tens of thousands of runs, each its own instance, each billed
/// against its package periods, stay linear (a pairwise sum took minutes).
pub fn covered_each(a: &[Interval], b: &[Interval]) -> Vec<Decimal> {
    let mut order: Vec<usize> = (0..a.len()).collect();
    order.sort_by_key(|x| a[*x].start);
    let mut b: Vec<Interval> = b.to_vec();
    b.sort_by_key(|w| w.start);
    let mut out = vec![Decimal::ZERO; a.len()];
    let mut first = 0;
    for i in order {
        let span = a[i];
        // Intervals of b that end before this one starts end before every
        // later one starts too (a sorted by start): skip them for good.
        while b.get(first).is_some_and(|w| w.end <= span.start) {
            first += 1;
        }
        let mut covered = Decimal::ZERO;
        for w in b.iter().skip(first) {
            if w.start >= span.end {
                break;
            }
            covered += (span.end.min(w.end) - span.start.max(w.start)).max(Decimal::ZERO);
        }
        out[i] = covered;
    }
    out
}

/// Time between runs and what the instance does in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// When.
    pub span: Interval,
    /// Stopped, released or left running.
    pub between: Between,
    /// Hours into a stop at which the platform's deadline recycles the
    /// instance (its stopped-days deadline, after what is left of a
    /// package that spares it), if any.
    pub deadline: Option<Decimal>,
}

impl Gap {
    /// A stop as long as its deadline (exactly the deadline counts).
    pub fn reaches_deadline(&self) -> bool {
        self.between == Between::Stop && self.deadline.is_some_and(|d| self.span.len() >= d)
    }
}

/// What a running interval is billed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// The runs' price (spot on spot): runs, reruns, idle running, forgotten.
    Run,
    /// The debug card's price.
    Debug,
    /// Setup and uploads: the no-GPU rate where there is one, else the GPU's.
    Setup,
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
    /// Every interval the instance runs, with what it is billed at: the
    /// bill's peak hours are read off these, wherever they fall.
    pub on: Vec<(Interval, Rate)>,
    /// When the instance disk exists (it goes with a release, by the
    /// student or the platform's deadline).
    pub disk: Vec<Interval>,
    /// Fresh instances after the first (each release, and each stop the
    /// platform's deadline ended): each needs its data again.
    pub reprovisions: u32,
    /// Hours of setting up those instances and bringing the data back.
    pub reupload_hours: Decimal,
    /// When the platform's deadline released the stopped instance (and its
    /// disk), before its work was done.
    pub deadline_releases: u32,
    /// Those of the fresh instances that found the data still there (the
    /// deadline kept the data disk): set up again, nothing uploaded.
    pub data_kept: u32,
    /// Stops long enough for the platform to wipe its scratch directory
    /// (恒源云's /hy-tmp after 24 h), the instance itself kept: the data is
    /// uploaded to it again before the next work.
    pub scratch_wipes: u32,
    /// When the last run ends (the result is there).
    pub work_end: Decimal,
    /// When storage is released (the plan's storage days, or the end).
    pub storage_end: Decimal,
    /// The longest time the instance sits stopped in a row.
    pub longest_stop: Decimal,
    /// A `[schedule]` slot came before the previous run had ended: the
    /// schedule cannot hold its runs.
    pub schedule_overrun: bool,
    /// A stop inside a run reached the platform's deadline, which deleted
    /// the instance and the run's checkpoints with it: the run cannot
    /// resume (refused by [`lay_out`]).
    pub split_run_lost: bool,
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

    /// The lengths of the gaps of one kind (of some length).
    pub fn gap_lengths(&self, b: Between) -> Vec<Decimal> {
        self.gaps
            .iter()
            .filter(|g| g.between == b && g.span.len() > Decimal::ZERO)
            .map(|g| g.span.len())
            .collect()
    }

    /// Hours the instance disk bills: all the time it exists, or only while
    /// the instance runs where a stopped disk does not bill.
    pub fn disk_hours(&self, bills_while_stopped: bool) -> Decimal {
        self.disk_spans(bills_while_stopped)
            .iter()
            .map(Interval::len)
            .sum()
    }

    /// When the instance disk bills (see [`Lane::disk_hours`]).
    pub fn disk_spans(&self, bills_while_stopped: bool) -> Vec<Interval> {
        if bills_while_stopped {
            self.disk.clone()
        } else {
            self.on.iter().map(|(i, _)| *i).collect()
        }
    }

    /// Intervals in which the GPU bills at the runs' price (for packages
    /// and weekly quotas).
    pub fn gpu_billed(&self, stop_bills_gpu: bool) -> Vec<Interval> {
        let mut v: Vec<Interval> = self
            .on
            .iter()
            .filter(|(_, r)| *r == Rate::Run)
            .map(|(i, _)| *i)
            .collect();
        if stop_bills_gpu {
            v.extend(
                self.gaps
                    .iter()
                    .filter(|g| g.between == Between::Stop)
                    .map(|g| g.span),
            );
        }
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
    /// Hours of setup before the first upload.
    pub setup_hours: Decimal,
    /// Hours of uploading and unpacking the dataset onto an instance.
    pub upload_hours: Decimal,
    /// Hours of debugging on the first instance before its runs.
    pub debug_hours: Decimal,
    /// Whether setup and uploads run on the GPU instance (no no-GPU mode):
    /// they are then part of its start, rounded up with the runs.
    pub setup_on_gpu: bool,
}

/// One run in a lane: its used and wall hours.
#[derive(Clone, Copy)]
struct Run {
    used: Decimal,
    wall: Decimal,
}

/// Lays the plan out in time, one lane per instance.
pub fn lay_out(i: &Inputs<'_>) -> Result<Vec<Lane>, InputError> {
    let p = i.plan.parallel.max(1) as usize;
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
    let lanes: Vec<Lane> = per_lane
        .into_iter()
        .enumerate()
        .map(|(j, runs)| lay_out_lane(i, j, &runs))
        .collect();
    check_span(i, &lanes)?;
    check_split_runs(i, &lanes)?;
    Ok(lanes)
}

/// A run split by a stop that the platform's deadline ends resumes from
/// checkpoints the release deleted (data on the instance disk): the plan
/// cannot happen as written, so it is refused with what would make it
/// possible rather than priced as if the run resumed.
fn check_split_runs(i: &Inputs<'_>, lanes: &[Lane]) -> Result<(), InputError> {
    match &i.profile.lifecycle.release_after_stopped_days {
        Some(d) if lanes.iter().any(|l| l.split_run_lost) => Err(InputError::new(
            "stops.hours_each",
            format!(
                "a stop inside a run reaches the {}-day release deadline, which deletes the run's checkpoints",
                d.value
            ),
            "shorter stops, a stop only between runs, or the data on persistent storage",
        )
        .said(
            Message::new("error.splitRunDeleted").with("days", d.value),
            Some(Message::new("allowed.splitRunKept").with("count", d.value)),
        )),
        _ => Ok(()),
    }
}

/// Longest timeline a plan may lay out, hours (twenty years: ten years of
/// work plus ten of storage): longer is a typo, and refused naming what made
/// it long rather than priced hour by hour.
const MAX_SPAN_HOURS: i64 = 2 * MAX_HOURS;

fn check_span(i: &Inputs<'_>, lanes: &[Lane]) -> Result<(), InputError> {
    let plan = i.plan;
    let Some(lane) = lanes.iter().max_by_key(|l| l.work_end) else {
        return Ok(());
    };
    if lane.work_end <= Decimal::from(MAX_SPAN_HOURS) {
        return Ok(());
    }
    let runs: Decimal = lane.runs.iter().map(Interval::len).sum();
    let gaps: Decimal = lane.gaps.iter().map(|g| g.span.len()).sum();
    let gap_field = if plan.stops.is_some() {
        "stops.hours_each"
    } else {
        "schedule.days"
    };
    let (field, _) = [
        ("run", runs),
        (gap_field, gaps),
        ("setup_hours", plan.setup_hours),
        // Bringing the data onto the instance: its size over the link.
        ("data.upload_mbps", i.upload_hours),
        (
            "debug.hours",
            plan.debug.as_ref().map(|d| d.hours).unwrap_or_default(),
        ),
    ]
    .into_iter()
    .max_by_key(|(_, h)| *h)
    .unwrap_or(("run", runs));
    Err(InputError::new(
        field,
        format!(
            "the plan's timeline is {} years long",
            crate::limits::years_of(lane.work_end)
        ),
        "a plan of at most 20 years (fewer or shorter stops, runs or phases)",
    )
    .said(
        Message::new("error.timelineYears").with("years", crate::limits::years_of(lane.work_end)),
        Some(Message::new("allowed.twentyYears")),
    ))
}

/// One lane being laid out: the time reached, the instance's time on since
/// its last start, and what has been laid out.
struct Builder {
    lane: Lane,
    t: Decimal,
    on: Decimal,
    /// The platform's deadline for a stopped instance, hours.
    deadline: Option<Decimal>,
    /// Hours of the plan's package where the deadline is for pay-as-you-go
    /// instances only (优云智算): a stopped instance is kept until its
    /// package runs out, then the deadline runs.
    spared_package: Option<Decimal>,
    /// When the packages bought so far run out (bought, as
    /// [`packages`] counts them, when GPU time is needed and none is paid).
    paid_until: Option<Decimal>,
    /// Hours a fresh instance takes before its work: setup, then the data.
    fresh_start: Decimal,
    /// Setup and uploads bill as GPU time of the start they open.
    setup_on_gpu: bool,
    /// Hours of setting up a fresh instance alone, when its data is kept.
    setup_only: Decimal,
    /// The deadline keeps the data disk (the profile says so).
    deadline_keeps_data: bool,
    /// Hours after a stop when the platform wipes the scratch directory
    /// the data sits in (none when the data is on persistent storage).
    scratch_wipe: Option<Decimal>,
    /// Hours of bringing the data onto the instance again.
    upload_only: Decimal,
    /// A run's checkpoints outlive the platform's deadline: they are on
    /// persistent storage or a data disk the deadline keeps.
    progress_kept: bool,
}

impl Builder {
    /// Hours into a stop starting at `t` at which the deadline recycles the
    /// instance: the deadline itself, after what is left of the package
    /// where a package spares it.
    fn deadline_at(&self, t: Decimal) -> Option<Decimal> {
        let left = match (self.spared_package, self.paid_until) {
            (Some(_), Some(until)) => (until - t).max(Decimal::ZERO),
            _ => Decimal::ZERO,
        };
        self.deadline.map(|d| d + left)
    }

    /// The instance is stopped, released or kept running until `until`.
    fn gap(&mut self, until: Decimal, between: Between) {
        if until <= self.t {
            return;
        }
        let span = Interval {
            start: self.t,
            end: until,
        };
        let deadline = self.deadline_at(self.t);
        let gap = Gap {
            span,
            between,
            deadline,
        };
        let expired = gap.reaches_deadline();
        self.lane.gaps.push(gap);
        match between {
            Between::KeepRunning => {
                self.lane.on.push((span, Rate::Run));
                self.on += span.len();
            }
            Between::Stop | Between::Release => self.end_start(),
        }
        self.t = until;
        // A release, or a stop the platform's deadline ends, leaves no
        // instance: the next work starts on a fresh one and brings its data
        // back first.
        if between == Between::Release || expired {
            self.lane.deadline_releases += u32::from(expired);
            if expired && self.deadline_keeps_data {
                self.lane.data_kept += 1;
                self.reprovision_taking(self.setup_only);
            } else {
                self.reprovision();
            }
        } else if between == Between::Stop && self.scratch_wipe.is_some_and(|w| span.len() >= w) {
            self.lane.scratch_wipes += 1;
            self.bring_back(self.upload_only);
        }
    }

    /// `hours` of setup or upload before the next work: a fresh instance's,
    /// or the same instance getting its data again (the platform wiped its
    /// scratch directory while it was stopped).
    fn bring_back(&mut self, hours: Decimal) {
        self.lane.reupload_hours += hours;
        let span = Interval {
            start: self.t,
            end: self.t + hours,
        };
        if span.len() > Decimal::ZERO {
            self.lane.on.push((span, Rate::Setup));
            if self.setup_on_gpu {
                self.on += span.len();
            }
        }
        self.t = span.end;
    }

    /// The schedule's slot for the next run has come (or passed) as the
    /// last one ends: the rule between runs still holds, with no time in
    /// it. A stop ends the start (the next run is a new one); a release
    /// leaves no instance, so the next run brings its data to a fresh one,
    /// as after any release. Without this, a denser schedule (one more run
    /// on the same days) skipped its releases and cost less.
    fn at_once(&mut self, between: Between) {
        match between {
            Between::KeepRunning => {}
            Between::Stop => self.end_start(),
            Between::Release => {
                self.end_start();
                let span = Interval {
                    start: self.t,
                    end: self.t,
                };
                self.lane.gaps.push(Gap {
                    span,
                    between,
                    deadline: None,
                });
                self.reprovision();
            }
        }
    }

    /// A fresh instance set up and its data brought again, before its next
    /// work.
    fn reprovision(&mut self) {
        self.reprovision_taking(self.fresh_start);
    }

    /// A fresh instance that takes `hours` before its next work.
    fn reprovision_taking(&mut self, hours: Decimal) {
        self.lane.reprovisions += 1;
        self.bring_back(hours);
    }

    /// The instance stops (or is released): its time on is one start.
    fn end_start(&mut self) {
        if self.on > Decimal::ZERO {
            self.lane.starts.push(self.on);
        }
        self.on = Decimal::ZERO;
    }

    /// A run (or a piece of one) from now.
    fn run(&mut self, used: Decimal, wall: Decimal) {
        let span = Interval {
            start: self.t,
            end: self.t + wall,
        };
        self.lane.runs.push(span);
        self.lane.on.push((span, Rate::Run));
        self.on += used;
        self.t = span.end;
        // The packages this run's GPU time needs (as `packages` buys them).
        if let Some(period) = self.spared_package.filter(|p| *p > Decimal::ZERO) {
            let mut until = match self.paid_until {
                Some(u) if u > span.start => u,
                _ => span.start + period,
            };
            while until < span.end {
                until += period;
            }
            self.paid_until = Some(until);
        }
    }
}

/// One instance: setup and upload, debugging (the first instance), its runs
/// with the plan's schedule or stops between them, forgotten idle time, the
/// storage kept afterwards, and the disk's life.
fn lay_out_lane(i: &Inputs<'_>, j: usize, runs: &[Run]) -> Lane {
    let plan = i.plan;
    let mut b = Builder {
        lane: Lane::default(),
        t: Decimal::ZERO,
        on: Decimal::ZERO,
        deadline: i
            .profile
            .lifecycle
            .release_after_stopped_days
            .as_ref()
            .map(|d| Decimal::from(d.value) * Decimal::from(24)),
        spared_package: match plan.payment {
            crate::plan::Payment::Package(p) if i.profile.lifecycle.spares_packages() => {
                Some(p.hours())
            }
            _ => None,
        },
        paid_until: None,
        // Data on persistent storage is still there for a fresh instance.
        fresh_start: if i.plan.data_persists() {
            i.setup_hours
        } else {
            i.setup_hours + i.upload_hours
        },
        setup_on_gpu: i.setup_on_gpu,
        setup_only: i.setup_hours,
        deadline_keeps_data: i.profile.lifecycle.keeps_data_disk(),
        scratch_wipe: i
            .profile
            .lifecycle
            .scratch_wipe_after_stopped_hours
            .as_ref()
            .filter(|_| !i.plan.data_persists())
            .map(|h| Decimal::from(h.value)),
        upload_only: i.upload_hours,
        progress_kept: i.plan.data_persists() || i.profile.lifecycle.keeps_data_disk(),
    };
    let before = i.setup_hours + i.upload_hours;
    if before > Decimal::ZERO {
        b.lane.on.push((
            Interval {
                start: Decimal::ZERO,
                end: before,
            },
            Rate::Setup,
        ));
        if i.setup_on_gpu {
            b.on += before;
        }
    }
    b.t = before;
    if j == 0 && i.debug_hours > Decimal::ZERO {
        b.lane.on.push((
            Interval {
                start: b.t,
                end: b.t + i.debug_hours,
            },
            Rate::Debug,
        ));
        b.t += i.debug_hours;
    }
    lay_out_runs(&mut b, i, j, runs);
    b.lane.work_end = b.t;
    if plan.forgotten_shutdown_hours > Decimal::ZERO {
        let span = Interval {
            start: b.t,
            end: b.t + plan.forgotten_shutdown_hours,
        };
        b.lane.forgotten = Some(span);
        b.lane.on.push((span, Rate::Run));
        b.on += span.len();
        b.t = span.end;
    }
    b.end_start();
    b.lane.starts.retain(|s| *s > Decimal::ZERO);
    let end = b.t;
    let last_deadline = b.deadline_at(end);
    finish_storage(&mut b.lane, plan, end, last_deadline);
    let keeps_data = b.deadline_keeps_data;
    // Data kept on persistent storage outlives the instance, which is
    // released when the work ends: its disk bills no longer than that.
    let on_instance = plan.storage.as_ref().is_none_or(|s| s.on == Disk::Instance);
    let disk_end = if on_instance {
        b.lane.storage_end
    } else {
        end.min(b.lane.storage_end)
    };
    disk_life(&mut b.lane, keeps_data, disk_end);
    b.lane
}

/// The lane's runs: a `[schedule]` spreads them evenly over its days with
/// the instance stopped, released or left running in the gaps; explicit
/// `[stops]` go between runs first and split runs when there are more stops
/// than gaps; otherwise back to back, each its own start (the auto-shutdown
/// wrapper stops the instance after each).
fn lay_out_runs(b: &mut Builder, i: &Inputs<'_>, j: usize, runs: &[Run]) {
    let plan = i.plan;
    let p = plan.parallel.max(1) as usize;
    let n = runs.len();
    let (stop_count, stop_hours) = match &plan.stops {
        Some(s) => {
            let share = s.count as usize / p + usize::from(j < s.count as usize % p);
            (share, s.hours_each)
        }
        None => (0, Decimal::ZERO),
    };
    let between_stops = stop_count.min(n.saturating_sub(1));
    let mut splits = vec![0usize; n];
    for s in 0..stop_count - between_stops {
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
    let origin = b.t;
    for (r, run) in runs.iter().enumerate() {
        if r > 0 {
            match spacing {
                Some((sp, between)) => {
                    let slot = origin + sp * Decimal::from(r as u64);
                    if slot < b.t {
                        b.lane.schedule_overrun = true;
                    }
                    if slot <= b.t {
                        b.at_once(between);
                    } else {
                        b.gap(slot, between);
                    }
                }
                None if r <= between_stops => b.gap(b.t + stop_hours, Between::Stop),
                None => b.end_start(),
            }
        }
        // The run, split into pieces by extra stops.
        let pieces = splits.get(r).copied().unwrap_or(0) + 1;
        let piece_used = run.used / Decimal::from(pieces as u64);
        let piece_wall = run.wall / Decimal::from(pieces as u64);
        for piece in 0..pieces {
            if piece > 0 {
                let releases = b.lane.deadline_releases;
                b.gap(b.t + stop_hours, Between::Stop);
                // The deadline took the instance mid-run: its checkpoints
                // survive only on a kept data disk or persistent storage.
                if b.lane.deadline_releases > releases && !b.progress_kept {
                    b.lane.split_run_lost = true;
                }
            }
            b.run(piece_used, piece_wall);
        }
        b.lane.run_hours.push(run.used);
    }
}

/// Storage after the work: kept on the instance disk longer, the instance
/// sits stopped until it is released (a plan that releases between runs
/// releases after the last one too); the disk exists from the first start,
/// gone at each release (the student's, or the deadline's after that long
/// a stop) and back with each fresh instance.
fn finish_storage(lane: &mut Lane, plan: &Plan, end: Decimal, deadline: Option<Decimal>) {
    let kept_days = plan.storage.as_ref().and_then(|s| s.days);
    let releases = plan
        .schedule
        .as_ref()
        .is_some_and(|s| s.between_runs == Between::Release);
    let on_instance = plan.storage.as_ref().is_none_or(|s| s.on == Disk::Instance);
    lane.storage_end = match kept_days {
        Some(d) => (d * Decimal::from(24)).max(end),
        None => end,
    };
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
            deadline,
        });
    }
    lane.longest_stop = lane
        .gaps
        .iter()
        .filter(|g| g.between == Between::Stop)
        .map(|g| g.span.len())
        .max()
        .unwrap_or_default();
}

/// The instance disk's life on `lane`: from the first start until a
/// release, again from each fresh instance, ending at the platform's
/// deadline in any stop that long (unless the deadline keeps the disk:
/// `keeps_data`).
fn disk_life(lane: &mut Lane, keeps_data: bool, disk_end: Decimal) {
    let mut disk_from = Decimal::ZERO;
    let mut gaps = lane.gaps.clone();
    gaps.sort_by_key(|a| a.span.start);
    for g in &gaps {
        let gone_at = match g.between {
            Between::Release => Some(g.span.start),
            Between::Stop => g
                .deadline
                .filter(|_| g.reaches_deadline() && !keeps_data)
                .map(|dl| g.span.start + dl),
            Between::KeepRunning => None,
        };
        if let Some(at) = gone_at {
            lane.disk.push(Interval {
                start: disk_from,
                end: at,
            });
            disk_from = g.span.end;
        }
    }
    if disk_from < disk_end {
        lane.disk.push(Interval {
            start: disk_from,
            end: disk_end,
        });
    }
    lane.disk.retain(|d| d.len() > Decimal::ZERO);
}

/// Packages of `period` hours bought from the moment GPU time is first
/// needed and again whenever the paid period has run out: how many, and the
/// day each is bought on.
pub fn packages(lanes: &[Lane], period: Decimal, stop_bills_gpu: bool) -> (u32, Vec<u32>) {
    let windows = package_windows(lanes, period, stop_bills_gpu);
    let mut days: Vec<u32> = windows.iter().flatten().map(|w| day_of(w.start)).collect();
    days.sort_unstable();
    (u32::try_from(days.len()).unwrap_or(u32::MAX), days)
}

/// The periods each lane's packages run, lane by lane: a package is bought
/// when the GPU bills and no package bought before covers that time, and
/// lasts its period whether used or not.
pub fn package_windows(
    lanes: &[Lane],
    period: Decimal,
    stop_bills_gpu: bool,
) -> Vec<Vec<Interval>> {
    lanes
        .iter()
        .map(|lane| {
            let mut bought: Vec<Interval> = Vec::new();
            for iv in lane.gpu_billed(stop_bills_gpu) {
                let mut t = iv.start;
                while t < iv.end {
                    match bought.last() {
                        Some(w) if t < w.end => t = w.end,
                        _ => {
                            bought.push(Interval {
                                start: t,
                                end: t + period,
                            });
                            t += period;
                        }
                    }
                }
            }
            bought
        })
        .collect()
}

/// Packages beyond the first on each lane whose period covers only what is
/// left after the one before (a few hours past a full period), and the GPU
/// hours they cover: what paying as you go for those hours is compared
/// with.
pub fn last_package_hours(lanes: &[Lane], period: Decimal, stop_bills_gpu: bool) -> (u32, Decimal) {
    let mut extra = 0u32;
    let mut hours = Decimal::ZERO;
    for (lane, bought) in lanes
        .iter()
        .zip(package_windows(lanes, period, stop_bills_gpu))
    {
        if let (true, Some(last)) = (bought.len() > 1, bought.last()) {
            let used: Decimal = lane
                .gpu_billed(stop_bills_gpu)
                .iter()
                .map(|s| (s.end.min(last.end) - s.start.max(last.start)).max(Decimal::ZERO))
                .sum();
            extra += 1;
            hours += used;
        }
    }
    (extra, hours)
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
}

/// Hours from the first start to the last result: the slowest instance,
/// plus waiting for weekly quota resets.
pub fn time_to_result(t: &TimeInputs<'_>) -> Result<TimeToResult, InputError> {
    let profile = t.profile;
    let waits = Waits::of(profile);
    let mut slowest = TimeToResult {
        waiting: Decimal::ZERO,
        setup: Decimal::ZERO,
        running: Decimal::ZERO,
        reruns: Decimal::ZERO,
        gaps: Decimal::ZERO,
        total: Decimal::ZERO,
    };
    for (j, lane) in t.lanes.iter().enumerate() {
        let time = lane_time(t, &waits, lane, j == 0);
        if time.total > slowest.total {
            slowest = time;
        }
    }
    // A weekly quota: what does not fit its week waits for the next reset.
    if let Some(q) = weekly_quota(profile) {
        let weeks = quota_weeks(t.lanes, q);
        if weeks.carried > Decimal::ZERO {
            let quota_total = weeks.done_at / Decimal::from(t.plan.parallel.max(1))
                + Decimal::from(weeks.weeks.saturating_sub(1)) * Decimal::from(168)
                + waits.queue
                + waits.startup;
            if quota_total > slowest.total {
                slowest.waiting += quota_total - slowest.total;
                slowest.total = quota_total;
            }
        }
    }
    Ok(slowest)
}

/// How long a platform makes each start wait.
struct Waits {
    /// Booting an instance, hours.
    startup: Decimal,
    /// Queueing for one, hours.
    queue: Decimal,
    /// Whether every job queues anew (a campus Slurm cluster).
    campus: bool,
    /// The longest one job or session may run.
    cap: Option<Decimal>,
}

impl Waits {
    fn of(profile: &PlatformProfile) -> Self {
        let minutes = |m: Decimal| m / Decimal::from(60);
        Self {
            startup: minutes(profile.timing.startup_minutes.value),
            queue: minutes(profile.timing.queue_minutes.value),
            campus: profile.kind == PlatformKind::CampusHpc,
            cap: profile
                .quota
                .walltime_max_hours
                .as_ref()
                .or(profile.quota.session_max_hours.as_ref())
                .map(|c| c.value)
                .filter(|c| *c > Decimal::ZERO),
        }
    }

    /// Jobs or sessions a run of `hours` needs: one longer than the
    /// walltime runs as several (requeued), each waiting again.
    fn parts(&self, hours: Decimal) -> Decimal {
        match self.cap {
            Some(c) => (hours / c).ceil().max(Decimal::ONE),
            None => Decimal::ONE,
        }
    }
}

/// One instance's time to its last result.
fn lane_time(t: &TimeInputs<'_>, w: &Waits, lane: &Lane, first: bool) -> TimeToResult {
    let mut waiting = w.queue + w.startup;
    for (r, h) in lane.run_hours.iter().enumerate() {
        let extra = w.parts(*h) - Decimal::ONE;
        // Every Slurm job queues and boots; requeued parts of a run longer
        // than the walltime or session do again.
        let new_start = if w.campus && r > 0 {
            w.queue + w.startup
        } else {
            Decimal::ZERO
        };
        waiting += new_start + extra * (w.queue + w.startup);
    }
    // Elsewhere only the first start queues, and each later start (a run
    // after a stop or release, a piece of a split run) boots again; runs
    // on an instance kept running between them boot once.
    let later = if w.campus {
        // Jobs are counted above; pieces of a run split by stops start again.
        lane.starts.len().saturating_sub(lane.run_hours.len())
    } else {
        lane.starts.len().saturating_sub(1)
    };
    waiting += w.startup * Decimal::from(later as u64);
    let running: Decimal = lane.run_hours.iter().copied().sum();
    let wall: Decimal = lane.runs.iter().map(Interval::len).sum();
    let gaps: Decimal = lane
        .gaps
        .iter()
        .filter(|g| g.span.end <= lane.work_end)
        .map(|g| g.span.len())
        .sum();
    // Bringing the data back to each fresh instance is setup too.
    let debug = if first { t.debug_hours } else { Decimal::ZERO };
    let setup = t.setup_hours + lane.reupload_hours + debug;
    TimeToResult {
        waiting,
        setup,
        running,
        reruns: wall - running,
        gaps,
        total: waiting + setup + wall + gaps,
    }
}

/// The platform's weekly GPU-hour quota, when it has one.
pub fn weekly_quota(profile: &PlatformProfile) -> Option<Decimal> {
    profile
        .quota
        .weekly_gpu_hours
        .as_ref()
        .map(|q| q.value)
        .filter(|q| *q > Decimal::ZERO)
}

/// How a plan's GPU hours fall into the quota's weeks (168-hour windows
/// from the first start; the account's hours over every instance).
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaWeeks {
    /// GPU hours scheduled in each week.
    pub scheduled: Vec<Decimal>,
    /// The first week (1-based) whose hours, with what earlier weeks could
    /// not fit, pass the quota.
    pub first_short: Option<u32>,
    /// Hours still owed after the last scheduled week.
    pub carried: Decimal,
    /// Weeks the plan needs in all.
    pub weeks: u32,
    /// Hours into the last week when the last owed hour is done.
    pub done_at: Decimal,
}

/// Weeks of quota windows counted one by one (twenty years); hours after
/// that fall in the last.
const MAX_QUOTA_WEEKS: usize = 1044;

/// The plan's GPU hours week by week against a weekly `quota`.
pub fn quota_weeks(lanes: &[Lane], quota: Decimal) -> QuotaWeeks {
    let week = Decimal::from(168);
    let mut scheduled: Vec<Decimal> = Vec::new();
    for lane in lanes {
        let mut spans = lane.gpu_billed(false);
        spans.extend(
            lane.on
                .iter()
                .filter(|(_, r)| *r == Rate::Debug)
                .map(|(i, _)| *i),
        );
        for s in spans {
            let mut a = s.start;
            while a < s.end {
                let k = (a / week)
                    .floor()
                    .to_usize()
                    .unwrap_or(MAX_QUOTA_WEEKS)
                    .min(MAX_QUOTA_WEEKS);
                // The last window takes everything after it: a plan that long
                // is refused on quota anyway, and the loop stays bounded.
                let b = if k == MAX_QUOTA_WEEKS {
                    s.end
                } else {
                    s.end.min(Decimal::from(k as u64 + 1) * week)
                };
                if scheduled.len() <= k {
                    scheduled.resize(k + 1, Decimal::ZERO);
                }
                scheduled[k] += b - a;
                a = b;
            }
        }
    }
    let mut carry = Decimal::ZERO;
    let mut first_short = None;
    for (k, h) in scheduled.iter().enumerate() {
        let demand = *h + carry;
        if demand > quota && first_short.is_none() {
            first_short = Some(k as u32 + 1);
        }
        carry = (demand - quota).max(Decimal::ZERO);
    }
    let extra = (carry / quota).ceil().to_u32().unwrap_or(0);
    let last = carry - Decimal::from(extra.saturating_sub(1)) * quota;
    QuotaWeeks {
        weeks: (scheduled.len() as u32).saturating_add(extra),
        done_at: if extra > 0 { last } else { Decimal::ZERO },
        first_short,
        carried: carry,
        scheduled,
    }
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
    // Sum the lines per set of spans first, then spread each sum once: a plan
    // with a hundred run groups spreads one amount over its runs, not a
    // hundred.
    let mut sums: std::collections::BTreeMap<When, Decimal> = Default::default();
    for l in lines {
        if let Some(when) = When::of(l.kind) {
            *sums.entry(when).or_insert(Decimal::ZERO) += l.amount;
        }
    }
    for (when, amount) in sums {
        let (spans, at) = when.spans(lanes, end);
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

/// When a bill line's money is spent, for the timeline.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum When {
    /// Over the runs.
    Runs,
    /// Over the idle running between runs.
    Idle,
    /// Over the stops.
    Stopped,
    /// Over the forgotten hours after the work.
    Forgotten,
    /// Over the instance disks' lives.
    Disk,
    /// Over the whole plan.
    Whole,
    /// At the end of the work.
    WorkEnd,
    /// At the start.
    Start,
}

impl When {
    /// When a line of `kind` is spent; credit and own time are not cash
    /// spent on a day.
    fn of(kind: LineKind) -> Option<Self> {
        Some(match kind {
            LineKind::Runs
            | LineKind::Waste
            | LineKind::Rounding
            | LineKind::Reruns
            | LineKind::PeakSurcharge
            | LineKind::Package => Self::Runs,
            LineKind::IdleBetween => Self::Idle,
            LineKind::Stopped | LineKind::StoppedBilling => Self::Stopped,
            LineKind::Forgotten => Self::Forgotten,
            LineKind::Storage | LineKind::DataDisk => Self::Disk,
            LineKind::PersistentStorage => Self::Whole,
            LineKind::Egress => Self::WorkEnd,
            LineKind::Credit | LineKind::Coupon | LineKind::NewcomerCredit | LineKind::OwnTime => {
                return None
            }
            LineKind::Setup
            | LineKind::Upload
            | LineKind::Traffic
            | LineKind::Debug
            | LineKind::DebugWaste => Self::Start,
        })
    }

    /// The spans this money is spread over, or the hour it falls at.
    fn spans(self, lanes: &[Lane], end: Decimal) -> (Vec<Interval>, Decimal) {
        let collect = |f: &dyn Fn(&Lane) -> Vec<Interval>| -> Vec<Interval> {
            lanes.iter().flat_map(f).collect()
        };
        let gaps_of = |b: Between| {
            collect(&|l| {
                l.gaps
                    .iter()
                    .filter(|g| g.between == b)
                    .map(|g| g.span)
                    .collect()
            })
        };
        let work_end = lanes.iter().map(|l| l.work_end).max().unwrap_or_default();
        match self {
            Self::Runs => (collect(&|l| l.runs.clone()), Decimal::ZERO),
            Self::Idle => (gaps_of(Between::KeepRunning), Decimal::ZERO),
            Self::Stopped => (gaps_of(Between::Stop), Decimal::ZERO),
            Self::Forgotten => (collect(&|l| l.forgotten.into_iter().collect()), work_end),
            Self::Disk => (collect(&|l| l.disk.clone()), Decimal::ZERO),
            Self::Whole => (
                vec![Interval {
                    start: Decimal::ZERO,
                    end,
                }],
                Decimal::ZERO,
            ),
            Self::WorkEnd => (Vec::new(), work_end),
            Self::Start => (Vec::new(), Decimal::ZERO),
        }
    }
}

/// A message about one run group, naming it (`keys.0`); the group nobody
/// named has its own wording (`keys.1`: "the runs give epochs", not "run
/// run gives epochs").
fn of_group(keys: (&str, &str), name: &str) -> Message {
    if name == DEFAULT_GROUP {
        Message::new(keys.1)
    } else {
        Message::new(keys.0).with("name", crate::error::short(name))
    }
}

#[cfg(test)]
mod covered_tests {
    use super::{covered_each, Interval};
    use rust_decimal::Decimal;

    fn iv(start: i64, end: i64) -> Interval {
        Interval {
            start: Decimal::from(start),
            end: Decimal::from(end),
        }
    }

    #[test]
    fn each_interval_gets_the_hours_the_others_cover() {
        // Disks 0-10, 20-30, 35-40 against packages 5-25 and 28-36, given
        // out of order: 5 + (5 + 2) + 1, as the pairwise sum gives.
        let a = [iv(20, 30), iv(0, 10), iv(35, 40)];
        let b = [iv(28, 36), iv(5, 25)];
        let want = [Decimal::from(7), Decimal::from(5), Decimal::from(1)];
        assert_eq!(covered_each(&a, &b), want, "per interval, in a's order");
        assert_eq!(covered_each(&a, &[]), [Decimal::ZERO; 3], "nothing covers");
        let many: Vec<Interval> = (0..40_000).map(|i| iv(2 * i, 2 * i + 1)).collect();
        let started = std::time::Instant::now();
        let c = covered_each(&many, &many);
        assert_eq!(
            c.iter().sum::<Decimal>(),
            Decimal::from(40_000),
            "each covers itself"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "forty thousand instances against their packages in one sweep, not pairwise"
        );
    }
}
