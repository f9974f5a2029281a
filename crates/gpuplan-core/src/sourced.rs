//! Numbers with provenance.
//!
//! Data is reviewed like code: every number in the GPU catalog says where it
//! came from, when it was observed and how far to trust it, so a reviewer can
//! check it and a user can see which figures are estimates.

use serde::{Deserialize, Serialize};

use crate::message::Message;

/// How far to trust a figure. Ordered from the least to the most trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Confidence {
    /// Derived, unverified or from a single informal source.
    Low,
    /// A careful secondary source quoting primary ones.
    Medium,
    /// Primary source (vendor datasheet, official docs) or our own measurement.
    High,
}

impl Confidence {
    /// Every level.
    pub const ALL: [Self; 3] = [Self::Low, Self::Medium, Self::High];

    /// As spelled in files.
    pub fn key(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

/// Where a platform figure comes from, strongest first. The grade decides
/// how far it may be trusted ([`Grade::max_confidence`]) and whether a bill
/// resting on it says so ([`Grade::is_unverified`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Grade {
    /// The figure the student entered (a price override): theirs to vouch
    /// for.
    Own,
    /// The figure the student's instructor set in the course pack (their
    /// own price, handed to the class): the course's to vouch for.
    Course,
    /// The platform's own page, with its URL.
    PlatformPage,
    /// The platform's own words (docs, UI text, an announcement) reproduced
    /// elsewhere; the source says where.
    PlatformQuoted,
    /// The hardware maker's specification (a card's interconnect).
    Vendor,
    /// A dated third-party report (a survey, a price scrape, a write-up).
    ThirdParty,
    /// Only the seed articles support it.
    Seed,
    /// Nobody documents it; the source gives the reasoning.
    Estimate,
}

impl Grade {
    /// Every grade, strongest first.
    pub const ALL: [Self; 8] = [
        Self::Own,
        Self::Course,
        Self::PlatformPage,
        Self::PlatformQuoted,
        Self::Vendor,
        Self::ThirdParty,
        Self::Seed,
        Self::Estimate,
    ];

    /// As spelled in files and catalog keys (`enum.grade.*`).
    pub fn key(self) -> &'static str {
        match self {
            Self::Own => "own",
            Self::Course => "course",
            Self::PlatformPage => "platform-page",
            Self::PlatformQuoted => "platform-quoted",
            Self::Vendor => "vendor",
            Self::ThirdParty => "third-party",
            Self::Seed => "seed",
            Self::Estimate => "estimate",
        }
    }

    /// A figure nobody checked against the platform: a bill resting on it
    /// says so.
    pub fn is_unverified(self) -> bool {
        matches!(self, Self::Seed | Self::Estimate)
    }

    /// The most confidence a figure of this grade may claim: high needs the
    /// platform's (or the maker's) own words; a seed article or a
    /// third-party report is at most medium; an estimate is low.
    pub fn max_confidence(self) -> Confidence {
        match self {
            Self::Own | Self::Course | Self::PlatformPage | Self::PlatformQuoted | Self::Vendor => {
                Confidence::High
            }
            Self::ThirdParty | Self::Seed => Confidence::Medium,
            Self::Estimate => Confidence::Low,
        }
    }
}

/// How a figure is sourced, read off any graded value for checking and
/// display.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Provenance<'a> {
    /// The grade.
    pub grade: Grade,
    /// Where it came from, or the reasoning of an estimate.
    pub source: &'a str,
    /// The page, where the grade is a platform page.
    pub url: Option<&'a str>,
    /// The date the source shows, if it shows one.
    pub observed: Option<&'a str>,
    /// How far to trust it.
    pub confidence: Confidence,
}

impl Provenance<'_> {
    /// What is wrong with this provenance, if anything (in English, and as
    /// the catalog's key): the rules a reviewer would apply, so that a
    /// grade means the same everywhere.
    pub fn problem(&self) -> Option<(String, Message)> {
        let said = |english: String, key: &str| Some((english, Message::new(key)));
        if self.source.trim().is_empty() {
            return said("source must not be empty".into(), "error.fact.noSource");
        }
        if let Some(o) = self.observed {
            if !valid_observed(o) {
                return Some((
                    format!("observed {o} is not YYYY-MM or YYYY-MM-DD"),
                    Message::new("error.fact.observed").with("value", crate::error::short(o)),
                ));
            }
        }
        let url_ok = self
            .url
            .is_some_and(|u| u.starts_with("https://") || u.starts_with("http://"));
        match self.grade {
            Grade::PlatformPage if !url_ok => {
                return said(
                    "a platform-page figure needs the page's url".into(),
                    "error.fact.needsUrl",
                );
            }
            Grade::ThirdParty if self.observed.is_none() => {
                return said(
                    "a third-party figure needs the date its report shows (observed); an undated one is an estimate".into(),
                    "error.fact.needsDate",
                );
            }
            Grade::Estimate if self.observed.is_some() => {
                return said(
                    "an estimate has no observed date: nobody saw it".into(),
                    "error.fact.estimateDated",
                );
            }
            Grade::Seed if !self.source.contains("seed") => {
                return said(
                    "a seed figure names the seed article it rests on".into(),
                    "error.fact.seedNamed",
                );
            }
            _ => {}
        }
        if self.confidence > self.grade.max_confidence() {
            return Some((
                format!(
                    "confidence {} is more than a {} figure allows ({} at most)",
                    self.confidence.key(),
                    self.grade.key(),
                    self.grade.max_confidence().key()
                ),
                Message::new("error.fact.confidence")
                    .with(
                        "confidence",
                        format!("enum.confidence.{}", self.confidence.key()),
                    )
                    .with("grade", format!("enum.grade.{}", self.grade.key()))
                    .with(
                        "most",
                        format!("enum.confidence.{}", self.grade.max_confidence().key()),
                    ),
            ));
        }
        None
    }
}

/// A platform figure with its graded source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact<T> {
    /// The figure itself.
    pub value: T,
    /// Where it comes from.
    pub grade: Grade,
    /// Where exactly (a document, a page, a quote) or the reasoning.
    pub source: String,
    /// The page, for a platform page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The date the source shows (`YYYY-MM` or `YYYY-MM-DD`), if it shows one;
    /// never the day a file was edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
    /// How far to trust it.
    pub confidence: Confidence,
}

impl<T> Fact<T> {
    /// Its provenance.
    pub fn provenance(&self) -> Provenance<'_> {
        Provenance {
            grade: self.grade,
            source: &self.source,
            url: self.url.as_deref(),
            observed: self.observed.as_deref(),
            confidence: self.confidence,
        }
    }
}

/// A value with its source, observation date (`YYYY-MM` or `YYYY-MM-DD`) and confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    /// The figure itself.
    pub value: T,
    /// Where it came from: a URL, a document or "measured: ...".
    pub source: String,
    /// When it was observed.
    pub observed: String,
    /// How far to trust it.
    pub confidence: Confidence,
}

/// Years an observation may carry: GPU rentals and their sources exist
/// from 2000 on; a year past 2100 is a typo.
const OBSERVED_YEARS: std::ops::RangeInclusive<i32> = 2000..=2100;

/// Checks that `observed` is `YYYY-MM` or `YYYY-MM-DD`, a month or a day
/// that exists (no 30 February), in [`OBSERVED_YEARS`].
pub fn valid_observed(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, len: usize| {
        (p.len() == len && p.chars().all(|c| c.is_ascii_digit())).then(|| p.parse::<u32>().ok())
    };
    let (y, m, d) = match parts.as_slice() {
        [y, m] => (num(y, 4), num(m, 2), Some(Some(1))),
        [y, m, d] => (num(y, 4), num(m, 2), num(d, 2)),
        _ => return false,
    };
    let (Some(Some(y)), Some(Some(m)), Some(Some(d))) = (y, m, d) else {
        return false;
    };
    let Ok(year) = i32::try_from(y) else {
        return false;
    };
    OBSERVED_YEARS.contains(&year) && chrono::NaiveDate::from_ymd_opt(year, m, d).is_some()
}

#[cfg(test)]
mod tests {
    use super::valid_observed;

    #[test]
    fn observed_dates() {
        // (input, valid, why)
        let cases = [
            ("2026-11", true, "year and month"),
            ("2026-11-30", true, "full date"),
            ("2026-13", false, "no 13th month"),
            ("2026-11-32", false, "no 32nd day"),
            ("2019-02-30", false, "no 30 February (it hid a price's age)"),
            ("2024-02-29", true, "a leap day"),
            ("2023-02-29", false, "no leap day in 2023"),
            ("1999-12", false, "before any GPU rental"),
            ("2101-01", false, "a typo for this century"),
            ("26-11", false, "two-digit year"),
            ("last year", false, "words"),
            ("", false, "empty"),
        ];
        for (input, valid, why) in cases {
            assert_eq!(valid_observed(input), valid, "{why}: `{input}`");
        }
    }
}
