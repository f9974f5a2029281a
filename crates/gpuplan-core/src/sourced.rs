//! Numbers with provenance.
//!
//! Data is reviewed like code: every number in the GPU catalog says where it
//! came from, when it was observed and how far to trust it, so a reviewer can
//! check it and a user can see which figures are estimates.

use serde::{Deserialize, Serialize};

/// How far to trust a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Primary source (vendor datasheet, official docs) or our own measurement.
    High,
    /// A careful secondary source quoting primary ones.
    Medium,
    /// Derived, unverified or from a single informal source.
    Low,
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

/// Checks that `observed` is `YYYY-MM` or `YYYY-MM-DD` with plausible parts.
pub fn valid_observed(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, len: usize| p.len() == len && p.chars().all(|c| c.is_ascii_digit());
    match parts.as_slice() {
        [y, m] => num(y, 4) && num(m, 2) && (1..=12).contains(&m.parse::<u32>().unwrap_or(0)),
        [y, m, d] => {
            num(y, 4)
                && num(m, 2)
                && num(d, 2)
                && (1..=12).contains(&m.parse::<u32>().unwrap_or(0))
                && (1..=31).contains(&d.parse::<u32>().unwrap_or(0))
        }
        _ => false,
    }
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
            ("26-11", false, "two-digit year"),
            ("last year", false, "words"),
            ("", false, "empty"),
        ];
        for (input, valid, why) in cases {
            assert_eq!(valid_observed(input), valid, "{why}: `{input}`");
        }
    }
}
