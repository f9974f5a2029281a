//! What the core says to a student, as a key into the message catalog and
//! named parameters. The core never words anything itself: the CLI and the UI
//! translate keys from one catalog per language (`data/locales/`), so a
//! sentence exists once per language and both shells show the same one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A catalog key with its parameters (`{{name}}` placeholders in the text).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Message {
    /// Catalog key, e.g. `reason.course-container`.
    pub key: String,
    /// Values for the text's placeholders, already formatted.
    pub params: BTreeMap<String, String>,
}

impl Message {
    /// A message without parameters.
    pub fn new(key: &str) -> Self {
        Self {
            key: key.to_owned(),
            params: BTreeMap::new(),
        }
    }

    /// Adds a parameter. A number longer than anyone types (an f64 of
    /// 1e308 printed in full) is written in scientific notation, whichever
    /// check built the message.
    #[must_use]
    pub fn with(mut self, name: &str, value: impl std::fmt::Display) -> Self {
        self.params
            .insert(name.to_owned(), short_numbers(&value.to_string()));
        self
    }

    /// Adds a parameter that has a text in each language (a platform's
    /// name): `name.zh` and `name.en`, which the shells fill in as `name`
    /// in the language they show.
    #[must_use]
    pub fn with_both(self, name: &str, zh: &str, en: &str) -> Self {
        self.with(&format!("{name}.zh"), zh)
            .with(&format!("{name}.en"), en)
    }
}

/// Longest run of digits kept in an error text: a number a person types
/// in full (a 20-digit batch, u64's 18446744073709551615) is echoed as
/// typed; only longer runs (1e300 printed in full) are cut.
const MAX_DIGITS: usize = 24;

/// `text` with every number longer than people type written in scientific
/// notation (`1e308`, not 309 digits), nothing else changed: what a message
/// parameter holds, whichever check built it.
pub fn short_numbers(text: &str) -> String {
    if !text.chars().any(|c| c.is_ascii_digit()) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let run = number_at(c, &mut chars);
            if run.chars().filter(char::is_ascii_digit).count() > MAX_DIGITS {
                out.push_str(&scientific(&run));
            } else {
                out.push_str(&run);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The digits starting with `first`, with one decimal point followed by a
/// digit if there is one (`0.000…1` is one number, not two).
fn number_at(first: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut run = String::from(first);
    let mut point = false;
    loop {
        match chars.peek().copied() {
            Some(d) if d.is_ascii_digit() => run.push(d),
            Some('.') if !point => {
                // A point is the number's only when a digit follows it
                // ("1." ending a sentence stays a full stop).
                let mut ahead = chars.clone();
                ahead.next();
                if !ahead.peek().is_some_and(char::is_ascii_digit) {
                    break;
                }
                point = true;
                run.push('.');
            }
            _ => break,
        }
        chars.next();
    }
    run
}

/// A number too long to print in full, in the notation every language
/// reads, six significant digits at most: 1e-30, 1.84467e19.
fn scientific(run: &str) -> String {
    let Ok(x) = run.parse::<f64>() else {
        return run.chars().take(MAX_DIGITS).chain(['…']).collect();
    };
    if x == 0.0 {
        return "0".to_owned();
    }
    let text = format!("{x:.5e}");
    match text.split_once('e') {
        Some((mantissa, exp)) => {
            let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
            format!("{mantissa}e{exp}")
        }
        None => text,
    }
}

#[cfg(test)]
mod number_tests {
    use super::*;

    #[test]
    fn a_parameter_never_holds_a_number_longer_than_people_type() {
        // (value, parameter, why)
        let cases = [
            (format!("{}", 1e308_f64), "1e308", "an f64 printed in full"),
            (
                "18446744073709551615".to_owned(),
                "18446744073709551615",
                "u64's largest, as typed",
            ),
            ("12.5".to_owned(), "12.5", "an ordinary number"),
            ("rtx3090".to_owned(), "rtx3090", "an id with digits"),
        ];
        for (value, want, why) in cases {
            let m = Message::new("k").with("value", &value);
            assert_eq!(
                m.params.get("value").map(String::as_str),
                Some(want),
                "{why}"
            );
        }
    }
}
