//! User price overrides and course packs.
//!
//! An override is a price a user typed (a platform's price moved); it lives in
//! its own file, layered over the bundled profiles when they are loaded, so an
//! update of the bundled data never overwrites it. A course pack is what an
//! instructor hands a class: platform profiles (the campus cluster's real
//! tariff and walltime), preset jobs and a budget cap. A pack is untrusted
//! input and is validated exactly like bundled data.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalog::GpuCatalog;
use crate::error::{DataError, Refusal};
use crate::job::JobSpec;
use crate::message::Message;
use crate::plan::MAX_RUNS;
use crate::platform::Localized;
use crate::platform::{PlatformProfile, PlatformSet};
use crate::zoo::ModelZoo;

/// One overridden price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceOverride {
    /// Platform id.
    pub platform: String,
    /// Catalog GPU id.
    pub gpu: String,
    /// CNY per GPU-hour on demand.
    pub price_per_hour: Decimal,
    /// When the user saw it (text).
    #[serde(default)]
    pub note: String,
    /// The day the price was set (`YYYY-MM-DD`), when known: a bill shows
    /// its age.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
}

/// The user's override file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    /// Overridden prices.
    #[serde(default, rename = "price")]
    pub prices: Vec<PriceOverride>,
}

impl Overrides {
    /// Parses an override file.
    pub fn from_toml(file: &str, text: &str) -> Result<Self, DataError> {
        let o: Overrides =
            toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
        for p in &o.prices {
            if p.price_per_hour < Decimal::ZERO || p.price_per_hour > Decimal::from(10_000) {
                return Err(DataError::refused(
                    file,
                    text,
                    Refusal::range(
                        "price",
                        "price_per_hour",
                        p.price_per_hour,
                        0,
                        10_000,
                        false,
                    ),
                ));
            }
        }
        Ok(o)
    }

    /// Sets (or replaces) one price.
    pub fn set(&mut self, p: PriceOverride) {
        self.prices
            .retain(|q| !(q.platform == p.platform && q.gpu == p.gpu));
        self.prices.push(p);
        self.prices
            .sort_by(|a, b| (&a.platform, &a.gpu).cmp(&(&b.platform, &b.gpu)));
    }

    /// Applies the overrides to `set`: the typical price becomes the user's,
    /// and the range widens to include it. Overrides naming a platform or GPU
    /// that no longer exists are returned, not dropped silently.
    pub fn apply(&self, set: &mut PlatformSet) -> Vec<PriceOverride> {
        let mut unmatched = Vec::new();
        for o in &self.prices {
            let offer = set
                .platforms
                .iter_mut()
                .find(|p| p.id == o.platform)
                .and_then(|p| p.offers.iter_mut().find(|x| x.gpu == o.gpu));
            match offer {
                Some(offer) => {
                    let r = &mut offer.price_per_hour;
                    r.typical = o.price_per_hour;
                    r.low = r.low.min(o.price_per_hour);
                    r.high = r.high.max(o.price_per_hour);
                    // A source is data, shown as written in either
                    // language: said in both.
                    r.source = format!(
                        "{OWN_PRICE_SOURCE}{}",
                        if o.note.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", o.note)
                        }
                    );
                    r.confidence = crate::sourced::Confidence::High;
                    r.grade = crate::sourced::Grade::Own;
                    r.url = None;
                    r.observed = o
                        .observed
                        .clone()
                        .filter(|d| crate::sourced::valid_observed(d));
                }
                None => unmatched.push(o.clone()),
            }
        }
        unmatched
    }

    /// The file text.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }
}

/// A preset's name: one text (a course's own language) or both languages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum PresetName {
    /// The same text in every language.
    Text(String),
    /// Chinese and English.
    Both(Localized),
}

impl PresetName {
    /// The Chinese and English text.
    pub fn localized(&self) -> Localized {
        match self {
            Self::Text(t) => Localized {
                zh: t.clone(),
                en: t.clone(),
            },
            Self::Both(l) => l.clone(),
        }
    }
}

/// A preset job in a course pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// A stable id (for links and tests); presets without one are numbered.
    #[serde(default)]
    pub id: Option<String>,
    /// Name shown to students.
    pub name: PresetName,
    /// The job.
    pub job: JobSpec,
    /// Runs of it.
    #[serde(default = "one")]
    pub runs: u32,
}

fn one() -> u32 {
    1
}

/// Who made the pack and its limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackInfo {
    /// Course name.
    pub name: String,
    /// Instructor or TA.
    #[serde(default)]
    pub instructor: String,
    /// Budget cap per student, CNY.
    #[serde(default)]
    pub budget_cap: Option<Decimal>,
    /// Platform the class should start on.
    #[serde(default)]
    pub default_platform: Option<String>,
}

/// A course pack file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoursePack {
    /// Metadata.
    pub pack: PackInfo,
    /// Platform profiles (validated like bundled ones).
    #[serde(default, rename = "platform")]
    pub platforms: Vec<PlatformProfile>,
    /// Preset jobs.
    #[serde(default, rename = "preset")]
    pub presets: Vec<Preset>,
    /// The class's measured runs, anonymised (no names, paths or hosts):
    /// every student's estimates in the course learn from them
    /// ([`crate::correction`]).
    #[serde(
        default,
        rename = "measured_run",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub measured_runs: Vec<crate::correction::MeasuredRun>,
}

/// Largest pack accepted, bytes: packs are handed around a class.
pub const MAX_PACK_BYTES: usize = 1_048_576;
/// The source of a price the user set (`override set`), in both languages.
pub const OWN_PRICE_SOURCE: &str = "你自己设的价格 / your own price";
/// The source of an instructor's own price a course pack carries.
pub const COURSE_PRICE_SOURCE: &str = "教师设定的价格 / the instructor's price";
/// Most platforms one pack may define (a class uses a handful).
pub const MAX_PACK_PLATFORMS: usize = 16;
/// Most presets one pack may define.
pub const MAX_PACK_PRESETS: usize = 256;

impl CoursePack {
    /// Parses and validates a pack: size limit, every profile validated like
    /// bundled data, ids unique, presets' jobs range-checked.
    pub fn from_toml(
        file: &str,
        text: &str,
        catalog: &GpuCatalog,
        zoo: &ModelZoo,
    ) -> Result<Self, DataError> {
        if text.len() > MAX_PACK_BYTES {
            return Err(DataError {
                file: file.into(),
                line: 0,
                column: 0,
                field: "pack".into(),
                message: format!(
                    "the pack is {} bytes; the limit is {MAX_PACK_BYTES}",
                    text.len()
                ),
                said: Some(Box::new(
                    Message::new("error.packTooLarge").with("max", MAX_PACK_BYTES),
                )),
                allowed: None,
            });
        }
        let pack: CoursePack =
            toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
        pack.check_header(file, text)?;
        let ids = pack.check_platforms(file, text, catalog)?;
        if let Some(d) = &pack.pack.default_platform {
            if !ids.contains(d) {
                return Err(DataError::refused(
                    file,
                    text,
                    Refusal::new(
                        "pack",
                        "default_platform",
                        format!("{d} is not a platform in this pack"),
                        Message::new("error.notPackPlatform").with("id", crate::error::short(d)),
                    ),
                ));
            }
        }
        if let Err(e) =
            crate::correction::check_runs("measured_run", &pack.measured_runs, catalog, zoo)
        {
            // Its field is the run's own path (`measured_run[2].job.model`),
            // told at the line of the pack that writes it.
            let lines: Vec<&str> = text.lines().collect();
            let line = locate_path(&lines, (0, lines.len()), 0, &e.field);
            let field = e.field.clone();
            return Err(DataError::input_at(file, (line, 0), &field, e));
        }
        pack.check_presets(file, text, zoo)?;
        Ok(pack)
    }

    /// The pack's own fields: its name, budget cap and sizes.
    fn check_header(&self, file: &str, text: &str) -> Result<(), DataError> {
        let pack = self;
        let name = &pack.pack.name;
        // `gpuplan pack remove NAME` must be able to type it.
        let refusal = if name.trim().is_empty() || name.chars().count() > 120 {
            Some((
                "1 to 120 characters",
                Message::new("error.nameLength").with("max", 120),
            ))
        } else if name.chars().any(crate::error::is_hidden) {
            Some((
                "contains a control character",
                Message::new("error.controlChar"),
            ))
        } else {
            None
        };
        if let Some((english, said)) = refusal {
            return Err(DataError::refused(
                file,
                text,
                Refusal::new("pack", "name", english, said),
            ));
        }
        // The instructor is shown to every student who imports the pack.
        let instructor = &pack.pack.instructor;
        if instructor.chars().count() > 120 || instructor.chars().any(crate::error::is_hidden) {
            return Err(DataError::refused(
                file,
                text,
                Refusal::new(
                    "pack",
                    "instructor",
                    "at most 120 characters, none of them control characters",
                    Message::new("error.instructorText").with("max", 120),
                ),
            ));
        }
        if let Some(b) = pack.pack.budget_cap {
            if b < Decimal::ZERO || b > Decimal::from(1_000_000) {
                return Err(DataError::refused(
                    file,
                    text,
                    Refusal::range("pack", "budget_cap", b, 0, 1_000_000, false),
                ));
            }
            // Money to the fen, as `pack export --budget-cap` takes it.
            crate::limits::at_most_places("pack", "budget_cap", b, crate::limits::MONEY_PLACES)
                .map_err(|r| DataError::refused(file, text, r))?;
        }
        if pack.platforms.len() > MAX_PACK_PLATFORMS || pack.presets.len() > MAX_PACK_PRESETS {
            return Err(DataError::refused(
                file,
                text,
                Refusal::new(
                    "pack",
                    "",
                    format!(
                        "{} platforms and {} presets; a pack holds at most {MAX_PACK_PLATFORMS} and {MAX_PACK_PRESETS}",
                        pack.platforms.len(),
                        pack.presets.len()
                    ),
                    Message::new("error.packSize")
                        .with("platforms", pack.platforms.len())
                        .with("presets", pack.presets.len())
                        .with("max_platforms", MAX_PACK_PLATFORMS)
                        .with("max_presets", MAX_PACK_PRESETS),
                ),
            ));
        }
        Ok(())
    }

    /// Every profile validated through the same path as bundled files, each
    /// id once; every rejected profile is listed, so the instructor sees them
    /// all. Returns the ids.
    fn check_platforms(
        &self,
        file: &str,
        text: &str,
        catalog: &GpuCatalog,
    ) -> Result<Vec<String>, DataError> {
        let pack = self;
        let mut seen = Vec::new();
        let mut rejected: Vec<DataError> = Vec::new();
        for p in &pack.platforms {
            let one = toml::to_string(p).map_err(|e| {
                DataError::refused(
                    file,
                    text,
                    Refusal::new(
                        "platform",
                        "",
                        e.to_string(),
                        Message::new("error.parse.wrongValue")
                            .with("line", 0)
                            .with("column", 0),
                    ),
                )
            })?;
            if let Err(e) =
                PlatformProfile::from_toml(&format!("{file} (platform {})", p.id), &one, catalog)
            {
                rejected.push(DataError {
                    file: file.into(),
                    line: locate_in_platform(text, &p.id, &e.field),
                    column: 0,
                    field: format!("platform.{}.{}", p.id, e.field),
                    message: e.message,
                    // The platform's checks' own words (they name no line
                    // of the re-serialised text).
                    said: e.said,
                    allowed: e.allowed,
                });
            }
            if seen.contains(&p.id) {
                let mut e = DataError::refused(
                    file,
                    text,
                    Refusal::new(
                        "platform",
                        "id",
                        format!("platform {} appears twice", p.id),
                        Message::new("error.platformTwice").with("id", &p.id),
                    ),
                );
                // At the second one, which is the one to remove (the
                // first is where the platform was given).
                if let Some(line) = id_lines(text, &p.id).nth(1) {
                    e.line = line;
                }
                return Err(e);
            }
            seen.push(p.id.clone());
        }
        if let Some(first) = rejected.first() {
            let mut e = first.clone();
            if rejected.len() > 1 {
                let all: Vec<String> = rejected
                    .iter()
                    .map(|r| format!("{} ({})", r.field, r.message))
                    .collect();
                e.message = format!("{} platforms rejected: {}", rejected.len(), all.join("; "));
            }
            return Err(e);
        }
        Ok(seen)
    }

    /// Every preset: a run count in range and a job the estimator takes.
    fn check_presets(&self, file: &str, text: &str, zoo: &ModelZoo) -> Result<(), DataError> {
        for (i, preset) in self.presets.iter().enumerate() {
            // A student picks a preset by its name: two of one name are
            // two assignments they cannot tell apart.
            let name = preset.name.localized();
            if self.presets[..i].iter().any(|p| {
                let n = p.name.localized();
                n.zh == name.zh || n.en == name.en
            }) {
                return Err(DataError::refused(
                    file,
                    text,
                    Refusal::new(
                        "preset",
                        "name",
                        format!("two presets are named {}", name.en),
                        Message::new("error.presetTwice").with("name", &name.en),
                    ),
                ));
            }
            if preset.runs == 0 || preset.runs > MAX_RUNS {
                return Err(DataError::refused(
                    file,
                    text,
                    Refusal::range("preset", "runs", preset.runs, 1, MAX_RUNS, false),
                ));
            }
            // A preset's job is validated as the estimator would take it: the
            // model exists and every field is in range (a NaN batch is not a
            // preset a student can start from).
            if let Some(model) = &preset.job.model {
                let resolved = zoo
                    .get(model)
                    .map_err(|e| (String::from("model"), e))
                    .and_then(|entry| preset.job.resolve(entry).map_err(|e| (e.field.clone(), e)));
                if let Err((field, e)) = resolved {
                    return Err(DataError::from_input(
                        file,
                        text,
                        "preset.job",
                        e.for_field(&field),
                    ));
                }
            } else if preset.job.hours.is_none() {
                return Err(DataError::refused(
                    file,
                    text,
                    Refusal::new(
                        "preset.job",
                        "model",
                        "a preset names a model or gives hours",
                        Message::new("error.presetJob"),
                    ),
                ));
            }
            if let Some(h) = preset.job.hours {
                if h <= Decimal::ZERO || h > Decimal::from(87_600) {
                    return Err(DataError::refused(
                        file,
                        text,
                        Refusal::range("preset.job", "hours", h, 0, 87_600, true),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The pack as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// Adds the pack's platforms to `set`; a pack platform with a bundled id replaces it.
    pub fn merge_into(&self, set: &mut PlatformSet) {
        for p in &self.platforms {
            set.platforms.retain(|q| q.id != p.id);
            set.platforms.push(p.clone());
        }
        set.platforms.sort_by(|a, b| a.id.cmp(&b.id));
    }
}

/// The line (from 1) of `field` (`offer[0].price_per_hour`, as a
/// platform's own check names it) inside the pack's platform `id`: the
/// key's line, or the header of the table it names, or as near as the
/// path gets (the offer, else the platform's `id` line). The platform was
/// checked re-serialised, whose lines are not the pack's.
fn locate_in_platform(text: &str, id: &str, field: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let at_id = locate_id(text, id);
    if at_id == 0 {
        return 0;
    }
    let platform = |l: &&str| header_name(l) == "platform" && l.trim_start().starts_with("[[");
    // The platform's block: from its `[[platform]]` to the next one.
    let start = lines[..at_id].iter().rposition(platform).unwrap_or(0);
    let end = lines[start.saturating_add(1)..]
        .iter()
        .position(platform)
        .map_or(lines.len(), |i| i.saturating_add(start).saturating_add(1));
    locate_path(&lines, (start, end), at_id, field)
}

/// The table a header line names (`[[platform.offer]]` is `platform.offer`).
fn header_name(l: &str) -> String {
    l.trim()
        .trim_start_matches('[')
        .split(']')
        .next()
        .unwrap_or("")
        .replace('"', "")
}

/// The line (from 1) of a dotted `field` (`offer[0].price_per_hour`,
/// `measured_run[2].job.model`) within `lines[from..to]`: each segment
/// narrows to its table (the nth of an array), the last may be a key;
/// `found` when nothing of it is written there.
fn locate_path(
    lines: &[&str],
    (mut from, mut to): (usize, usize),
    mut found: usize,
    field: &str,
) -> usize {
    let header = |l: &str| l.trim_start().starts_with('[');
    // A fact written as its own table (`[platform.billing.granularity]`,
    // how a pack export writes them): the longest leading part of the
    // field that a header ends with, then the next part as its key.
    if !field.contains('[') {
        let segs: Vec<&str> = field.split('.').filter(|s| !s.is_empty()).collect();
        for n in (2..=segs.len()).rev() {
            let path = segs[..n].join(".");
            let names = |l: &str| {
                let name = header_name(l);
                name == path || name.ends_with(&format!(".{path}"))
            };
            if let Some(h) = (from..to).find(|&i| header(lines[i]) && names(lines[i])) {
                let end = (h.saturating_add(1)..to)
                    .find(|&i| header(lines[i]))
                    .unwrap_or(to);
                let key = segs.get(n).and_then(|k| {
                    (h.saturating_add(1)..end).find(|&i| {
                        lines[i]
                            .split_once('=')
                            .is_some_and(|(x, _)| x.trim().trim_matches('"') == *k)
                    })
                });
                return key.unwrap_or(h).saturating_add(1);
            }
        }
    }
    for segment in field.split('.').filter(|s| !s.is_empty()) {
        let (seg, nth) = match segment.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().unwrap_or(0)),
            None => (segment, 0),
        };
        let is_seg = |l: &str| header(l) && header_name(l).rsplit('.').next() == Some(seg);
        if let Some(h) = (from..to).filter(|&i| is_seg(lines[i])).nth(nth) {
            // Its table runs to the next header of the same name (an array's
            // next element) or the block's end.
            let next = (h.saturating_add(1)..to)
                .find(|&i| is_seg(lines[i]))
                .unwrap_or(to);
            (from, to, found) = (h, next, h.saturating_add(1));
            continue;
        }
        // A key in the table reached so far.
        let key = (from..to).find(|&i| {
            !header(lines[i])
                && lines[i]
                    .split_once('=')
                    .is_some_and(|(k, _)| k.trim().trim_matches('"') == seg)
        });
        if let Some(k) = key {
            found = k.saturating_add(1);
        }
        break;
    }
    found
}

fn locate_id(text: &str, id: &str) -> usize {
    id_lines(text, id).next().unwrap_or(0)
}

/// The lines (from 1) that give a platform the id `id`.
fn id_lines<'a>(text: &'a str, id: &str) -> impl Iterator<Item = usize> + 'a {
    let quoted = format!("\"{id}\"");
    text.lines()
        .enumerate()
        .filter(move |(_, l)| l.trim_start().starts_with("id") && l.contains(&quoted))
        .map(|(i, _)| i.saturating_add(1))
}

impl CoursePack {
    /// The first figure the pack dates after `latest` (`YYYY-MM-DD`, the
    /// caller's today and a day of time zones): its dotted path and date.
    /// A price "observed" in the future would read as fresh for years.
    pub fn dated_after(&self, latest: &str) -> Option<(String, String)> {
        let value = serde_json::to_value(self).ok()?;
        dated_after(&value, "", latest)
    }
}

fn dated_after(v: &serde_json::Value, path: &str, latest: &str) -> Option<(String, String)> {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_owned()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        serde_json::Value::Object(map) => map.iter().find_map(|(k, x)| match (k.as_str(), x) {
            ("observed", serde_json::Value::String(d)) => {
                // "2026-05" is compared by its month.
                let bound = latest.get(..d.len().min(latest.len())).unwrap_or(latest);
                (d.as_str() > bound).then(|| (join(k), d.clone()))
            }
            _ => dated_after(x, &join(k), latest),
        }),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, x)| dated_after(x, &format!("{path}[{i}]"), latest)),
        _ => None,
    }
}

#[cfg(test)]
mod dated_tests {
    use super::dated_after;

    #[test]
    fn a_date_after_the_latest_is_found_with_its_path() {
        let v = serde_json::json!({
            "platform": [{ "price": { "observed": "2026-05" }, "disk": { "observed": "2027-01-02" } }]
        });
        // (latest, expected path, why)
        let cases = [
            (
                "2026-12-03",
                Some("platform[0].disk.observed"),
                "a day in the future",
            ),
            ("2027-01-02", None, "today is not the future"),
            (
                "2026-05-01",
                Some("platform[0].disk.observed"),
                "2026-05 is not after 2026-05-01",
            ),
        ];
        for (latest, want, why) in cases {
            assert_eq!(
                dated_after(&v, "", latest).map(|(p, _)| p).as_deref(),
                want,
                "{why}"
            );
        }
        let month = serde_json::json!({ "price": { "observed": "2026-05" } });
        assert_eq!(
            dated_after(&month, "", "2026-04-30")
                .map(|(p, _)| p)
                .as_deref(),
            Some("price.observed"),
            "a month after the latest month is found"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{locate_in_platform, locate_path};

    #[test]
    fn a_platform_refusal_is_found_in_its_own_block() {
        let text = "[pack]\nname = \"c\"\n\
[[platform]]\nid = \"a\"\n[[platform.offer]]\ngpu = \"t4\"\n[platform.offer.price_per_hour]\ntypical = \"1\"\n\
[[platform]]\nid = \"b\"\nkind = \"x\"\n[[platform.offer]]\ngpu = \"t4\"\n[platform.offer.price_per_hour]\ntypical = \"1\"\n\
[[platform.offer]]\ngpu = \"a10\"\n[platform.offer.price_per_hour]\ntypical = \"9\"\n";
        // (platform, field, line, why)
        let cases = [
            (
                "b",
                "offer[0].price_per_hour",
                14,
                "the first offer's price table of b, not a's",
            ),
            ("b", "offer[1].price_per_hour", 18, "the second offer's"),
            ("b", "offer[1].gpu", 17, "a key of the second offer"),
            ("b", "kind", 11, "a key of the platform itself"),
            (
                "b",
                "offer[5].gpu",
                10,
                "an offer the pack lacks: the platform's id line",
            ),
            ("a", "offer[0].gpu", 6, "the first platform"),
            ("zz", "kind", 0, "a platform the pack lacks: no line"),
        ];
        for (id, field, line, why) in cases {
            assert_eq!(locate_in_platform(text, id, field), line, "{why}");
        }
        let runs = "[pack]\nname = \"c\"\n[[measured_run]]\ngpu = \"t4\"\n[measured_run.job]\nmodel = \"a\"\n\
[[measured_run]]\ngpu = \"t4\"\n[measured_run.job]\nmodel = \"zz\"\n";
        let lines: Vec<&str> = runs.lines().collect();
        // (field, line, why)
        for (field, line, why) in [
            (
                "measured_run[1].job.model",
                10,
                "the second run's model, not the first's",
            ),
            ("measured_run[1]", 7, "a run refused whole: its header"),
            ("measured_run[0].gpu", 4, "a key of the first run"),
        ] {
            assert_eq!(
                locate_path(&lines, (0, lines.len()), 0, field),
                line,
                "{why}"
            );
        }
    }
}
