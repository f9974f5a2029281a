//! The student's situation: the stage they are at (seed 000 §6), their
//! skills and constraints, and the job, each value checked against the same
//! bounds a plan file allows.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::InputError;
use crate::job::JobSpec;
use crate::message::Message;
use crate::plan::{MAX_CNY, MAX_GB, MAX_HOURS, MAX_RUNS};

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

    /// The Chinese names the zh help gives beside each spelling (and the
    /// words of the stage's label), which a student reading it types.
    const CHINESE: [(&'static str, Self); 8] = [
        ("入门", Self::FirstDemo),
        ("入门跑通demo", Self::FirstDemo),
        ("课程作业", Self::CourseProject),
        ("课程大作业", Self::CourseProject),
        ("科研", Self::ThesisResearch),
        ("毕业论文", Self::ThesisResearch),
        ("竞赛冲刺", Self::CompetitionSprint),
        ("竞赛", Self::CompetitionSprint),
    ];

    /// Parses the CLI spelling (in any case, with spaces or underscores
    /// for its dashes) or a Chinese name.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        let bare = |t: &str| t.trim().to_lowercase().replace([' ', '-', '_'], "");
        let typed = bare(s);
        let spelt = Self::ALL.iter().zip(Self::VALUES).map(|(n, v)| (*n, v));
        match spelt
            .chain(Self::CHINESE)
            .find(|(name, _)| bare(name) == typed)
        {
            Some((_, stage)) => Ok(stage),
            None => Err(InputError::unknown_choice(
                "stage",
                "stage",
                s,
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
                format!("1 to {MAX_RUNS}"),
            )
            .said(
                Message::new("error.outOfRange").with("value", self.runs),
                Some(
                    Message::new("allowed.whole")
                        .with("min", 1)
                        .with("max", MAX_RUNS),
                ),
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
                )
                .said(
                    Message::new("error.outOfRange").with("value", v),
                    Some(
                        Message::new(if open_zero {
                            "allowed.above"
                        } else {
                            "allowed.between"
                        })
                        .with("min", 0)
                        .with("max", max),
                    ),
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

#[cfg(test)]
mod tests {
    use super::Stage;

    #[test]
    fn a_stage_is_read_as_students_type_it() {
        // (typed, read as, why)
        let cases = [
            (
                "course-project",
                Some(Stage::CourseProject),
                "the spelling itself",
            ),
            (
                "Course_Project",
                Some(Stage::CourseProject),
                "case and underscores",
            ),
            (
                " thesis research ",
                Some(Stage::ThesisResearch),
                "spaces for dashes",
            ),
            ("课程作业", Some(Stage::CourseProject), "the zh help's name"),
            ("科研", Some(Stage::ThesisResearch), "the zh help's name"),
            (
                "竞赛冲刺",
                Some(Stage::CompetitionSprint),
                "the zh help's name",
            ),
            ("入门", Some(Stage::FirstDemo), "the zh help's name"),
            ("", None, "nothing typed"),
            ("research", None, "a part of a name is not a name"),
        ];
        for (typed, want, why) in cases {
            assert_eq!(Stage::parse(typed).ok(), want, "{why}: {typed:?}");
        }
    }
}
