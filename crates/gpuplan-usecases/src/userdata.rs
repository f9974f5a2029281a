//! The user's own data, in the one database both shells share, layered over
//! the bundled data when it is used (never merged into it, so an update of
//! the bundled files never overwrites it); the earlier CLI's files imported
//! once; settings; the checks the user-data use cases share. The use cases
//! themselves are one file each: `overrides`, `packs`, `plans`, `ledger`.

use std::path::Path;
use std::str::FromStr;

use gpuplan_core::pack::{CoursePack, Overrides, PriceOverride};
use gpuplan_core::plan::Plan;
use rust_decimal::Decimal;

use crate::{files, home, AppError, Planner, Result, UserLayer};

/// Most CNY per GPU-hour a user price may be: far above any card's price.
pub const MAX_PRICE_PER_HOUR: u32 = 10_000;
/// Longest note kept with an override, characters.
pub(crate) const MAX_NOTE_CHARS: usize = 200;
/// Longest "what went wrong" a bill keeps, characters.
pub(crate) const MAX_PROBLEMS_CHARS: usize = 2000;
/// Longest plan name, characters (as the plan file allows).
pub(crate) const MAX_NAME_CHARS: usize = 200;
/// Largest amount or hour count in a ledger entry.
pub const MAX_LEDGER_AMOUNT: u32 = 10_000_000;
/// Ledger entries the screen shows; totals cover every entry.
pub const LEDGER_PAGE: u32 = 500;

/// A pack in the database, parsed (or the reason it no longer parses).
pub struct ImportedPack {
    /// Course name.
    pub name: String,
    /// When imported.
    pub imported_at: String,
    /// The pack, or its error.
    pub pack: std::result::Result<CoursePack, gpuplan_core::DataError>,
}

/// Units a number may carry as people type it (the app's `numbers.ts` reads
/// the same): money, hours, GB.
pub const MONEY_UNITS: &[&str] = &[
    "元/小时",
    "元/时",
    "元/h",
    "cny/h",
    "块钱",
    "元",
    "块",
    "cny",
    "rmb",
    "yuan",
];
/// Hours.
pub const HOUR_UNITS: &[&str] = &["个小时", "小时", "钟头", "hours", "hour", "hrs", "hr", "h"];
/// Gigabytes.
pub const GB_UNITS: &[&str] = &["gib", "gb", "g"];

/// The units a field's number may carry, by its name: `*hours*` hours,
/// `*gb*` GB, money fields CNY, others none.
pub fn units_of(field: &str) -> &'static [&'static str] {
    if field.contains("hours") {
        HOUR_UNITS
    } else if field.contains("gb") {
        GB_UNITS
    } else if ["budget", "cost", "price", "balance", "credit", "cap"]
        .iter()
        .any(|m| field.contains(m))
    {
        MONEY_UNITS
    } else {
        &[]
    }
}

/// A number as people type it, as plain ASCII: full-width digits and
/// punctuation ("１５０．５"), thousands separators grouping by three
/// ("1,000", "1，000"), a currency sign before it and one of `units` after
/// it ("¥150", "150 元", "6h"). What is left may still not be a number; the
/// parser says so.
pub fn as_typed(text: &str, units: &[&str]) -> String {
    // Full-width forms U+FF01..U+FF5E are ASCII + 0xFEE0; U+3000 a space.
    let folded: String = text
        .chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => u32::from(c)
                .checked_sub(0xFEE0)
                .and_then(char::from_u32)
                .unwrap_or(c),
            '\u{3000}' | '\u{00A0}' => ' ',
            _ => c,
        })
        .collect();
    let mut s = folded.trim().trim_end_matches('。').trim().to_owned();
    if units == MONEY_UNITS {
        for sign in ["cn¥", "CN¥", "¥", "￥"] {
            if let Some(rest) = s.strip_prefix(sign) {
                s = rest.trim_start().to_owned();
            }
        }
    }
    let lower = s.to_lowercase();
    if let Some(u) = units.iter().find(|u| lower.ends_with(&u.to_lowercase())) {
        let cut = s.len().saturating_sub(u.len());
        if s.is_char_boundary(cut) {
            s = s[..cut].trim_end().to_owned();
        }
    }
    let grouped = {
        let (int, _) = s.split_once('.').unwrap_or((&s, ""));
        let int = int.trim_start_matches(['+', '-']);
        let groups: Vec<&str> = int.split(',').collect();
        groups.len() > 1
            && (1..=3).contains(&groups[0].len())
            && groups[1..].iter().all(|g| g.len() == 3)
            && groups.iter().all(|g| g.chars().all(|c| c.is_ascii_digit()))
    };
    if grouped {
        s = s.replace(',', "");
    }
    s.trim_start_matches('+').to_owned()
}

/// A decimal the user typed, checked against `0..=max`.
pub fn parse_amount(field: &str, text: &str, max: u32, places: u32) -> Result<Decimal> {
    let allowed = || {
        (
            format!("an amount from 0 to {max} with at most {places} decimal places"),
            gpuplan_core::Message::new("allowed.amountPlaces")
                .with("max", max)
                .with("places", places),
        )
    };
    if text.trim().is_empty() {
        let (english, said) = allowed();
        return Err(AppError::input(field, "nothing was given", english)
            .said(gpuplan_core::Message::new("error.required"), Some(said)));
    }
    let typed = as_typed(text, units_of(field));
    // 1e2 is a number as much as 100 is; 1e308 is one too, just too large.
    let d = match Decimal::from_str(&typed).or_else(|_| Decimal::from_scientific(&typed)) {
        Ok(d) => d,
        Err(_) if typed.parse::<f64>().is_ok_and(f64::is_finite) => {
            return Err(AppError::out_of_range(field, text.trim(), allowed()));
        }
        Err(_) if units_of(field) == MONEY_UNITS && foreign_currency(&as_typed(text, &[])) => {
            let (english, said) = allowed();
            return Err(AppError::input(
                field,
                format!(
                    "{} is in another currency; gpuplan keeps money in CNY",
                    text.trim()
                ),
                english,
            )
            .said(
                gpuplan_core::Message::new("error.foreignCurrency").with("value", text.trim()),
                Some(said),
            ));
        }
        Err(_) => return Err(AppError::not_a_number(field, text, allowed())),
    };
    if d < Decimal::ZERO || d > Decimal::from(max) {
        return Err(AppError::out_of_range(field, d, allowed()));
    }
    // Money is kept to the fen and a bill's lines add up to its total: a
    // figure with more places than its unit would be summed with them. The
    // places are counted as typed: a decimal holds 28, so 0.000…1 with 30
    // would otherwise read as 0 and be saved as nothing.
    if d.normalize().scale() > places || typed_places(&typed) > places as usize {
        let (english, said) = allowed();
        return Err(AppError::input(
            field,
            format!("{} has more than {places} decimal places", text.trim()),
            english,
        )
        .said(
            gpuplan_core::Message::new("error.tooManyPlaces")
                .with("value", text.trim())
                .with("places", places),
            Some(said),
        ));
    }
    Ok(d.round_dp(places))
}

/// An amount marked as another currency than the yuan (`$5`, `5 USD`,
/// `€3`, `5美元`): said as such, not as "not a number".
fn foreign_currency(typed: &str) -> bool {
    let t = typed.to_lowercase();
    [
        "$", "usd", "€", "eur", "美元", "美金", "£", "gbp", "hk$", "hkd",
    ]
    .iter()
    .any(|m| t.contains(m))
        && t.chars().any(|c| c.is_ascii_digit())
}

/// Digits after the decimal point as typed, trailing zeros aside (`1.50`
/// has one, `1e-2` none counted here: an exponent form is read exactly).
fn typed_places(typed: &str) -> usize {
    let mantissa = typed.split(['e', 'E']).next().unwrap_or("");
    mantissa
        .split_once('.')
        .map_or(0, |(_, frac)| frac.trim_end_matches('0').len())
}

pub use gpuplan_core::limits::{HOURS_PLACES, MONEY_PLACES, PRICE_PLACES};

/// Most course packs a user can have imported at once.
pub const MAX_PACKS: usize = 16;

/// The first few items of a list for a notice, and how many more.
pub(crate) fn listed(items: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut s = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > SHOWN {
        s.push_str(&format!("; … (+{})", items.len().saturating_sub(SHOWN)));
    }
    s
}

/// At most 40 characters of user text for an error message.
pub fn excerpt(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        s.push('…');
    }
    s
}

/// A plan as the plan file text this build writes.
pub fn plan_toml(plan: &Plan) -> Result<String> {
    let mut v = toml::Value::try_from(plan).map_err(|e| AppError::io(format!("plan: {e}")))?;
    tidy_plan(&mut v);
    toml::to_string_pretty(&v).map_err(|e| AppError::io(format!("plan: {e}")))
}

/// Plan or pack TOML for a terminal: a string holding characters that must
/// not act on one (bidirectional overrides, zero-width marks, escapes) is
/// written again as a basic string with TOML's own `\uXXXX` escapes, so the
/// text shown reads back as the same plan; the printer's `[U+..]` marks are
/// for prose and would change the data. Text that is not TOML, or whose
/// keys hold such characters, is left for the printer.
pub fn toml_for_terminal(text: &str) -> String {
    if !text.chars().any(hidden) {
        return text.to_owned();
    }
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else {
        return text.to_owned();
    };
    toml_edit::visit_mut::VisitMut::visit_document_mut(&mut Escaper, &mut doc);
    doc.to_string()
}

/// A character the terminal printer would mark (line breaks and tabs apart:
/// TOML's own structure uses them).
fn hidden(c: char) -> bool {
    gpuplan_core::error::is_hidden(c) && c != '\n' && c != '\t'
}

/// Rewrites strings holding hidden characters with escapes.
struct Escaper;

impl toml_edit::visit_mut::VisitMut for Escaper {
    fn visit_value_mut(&mut self, node: &mut toml_edit::Value) {
        if let toml_edit::Value::String(s) = node {
            if s.value().chars().any(hidden) {
                let decor = s.decor().clone();
                if let Ok(mut escaped) = escaped_basic(s.value()).parse::<toml_edit::Value>() {
                    *escaped.decor_mut() = decor;
                    *node = escaped;
                }
            }
        }
        toml_edit::visit_mut::visit_value_mut(self, node);
    }
}

/// `s` as a one-line TOML basic string, every hidden or control character
/// as a `\u`/`\U` escape.
fn escaped_basic(s: &str) -> String {
    let mut out = String::with_capacity(s.len().saturating_add(2));
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if gpuplan_core::error::is_hidden(c) => {
                let n = u32::from(c);
                if n > 0xFFFF {
                    out.push_str(&format!("\\U{n:08X}"));
                } else {
                    out.push_str(&format!("\\u{n:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A plan file as a person writes one: an unnamed run group with no name
/// (the catalog key is the reader's, not the file's) and the job's whole
/// numbers as integers (`batch = 256`, not `256.0`). Both read back as the
/// same plan.
fn tidy_plan(v: &mut toml::Value) {
    if let Some(runs) = v.get_mut("run").and_then(toml::Value::as_array_mut) {
        for group in runs.iter_mut().filter_map(toml::Value::as_table_mut) {
            if group.get("name").and_then(toml::Value::as_str)
                == Some(gpuplan_core::plan::DEFAULT_GROUP)
            {
                group.remove("name");
            }
        }
    }
    if let Some(job) = v.get_mut("job").and_then(toml::Value::as_table_mut) {
        for (_, x) in job.iter_mut() {
            // Exact as an integer: below 2^53 every whole f64 is.
            if let toml::Value::Float(f) = *x {
                if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                    *x = toml::Value::Integer(f as i64);
                }
            }
        }
    }
}

pub(crate) fn plan_error(e: &AppError) -> String {
    e.to_string()
}

impl Planner {
    pub(crate) fn build_layer(&mut self, data_version: i64) -> Result<UserLayer> {
        let catalog = &self.bundled.catalog;
        let mut platforms = self.bundled.platforms.clone();
        let store = match self.store.as_ref() {
            Some(s) => s,
            None => return Err(AppError::internal("the database is not open")),
        };
        let mut packs = Vec::new();
        for row in store.packs()? {
            let parsed = CoursePack::from_toml(&row.name, &row.body, catalog, &self.bundled.zoo);
            if let Ok(p) = &parsed {
                p.merge_into(&mut platforms);
            }
            packs.push(ImportedPack {
                name: row.name,
                imported_at: row.imported_at,
                pack: parsed,
            });
        }
        let overrides = Overrides {
            prices: store
                .overrides()?
                .into_iter()
                .map(|o| PriceOverride {
                    platform: o.platform,
                    gpu: o.gpu,
                    price_per_hour: o.price,
                    note: o.note,
                    observed: o.set_on,
                })
                .collect(),
        };
        let unmatched_overrides = overrides.apply(&mut platforms);
        // Every course's class runs join the student's own (a student in
        // two courses learns from both classes; a run in both packs counts
        // once); which platforms a student chooses among is the newest
        // pack's (`course_platforms`).
        let class_runs: Vec<gpuplan_core::correction::MeasuredRun> = packs
            .iter()
            .filter_map(|p| p.pack.as_ref().ok())
            .flat_map(|p| p.measured_runs.iter().cloned())
            .collect();
        let corrections = gpuplan_core::correction::Corrections::new(
            crate::calibration::observations(store, class_runs, &platforms, &self.bundled)?,
        );
        Ok(UserLayer {
            data_version,
            platforms: std::sync::Arc::new(platforms),
            packs,
            unmatched_overrides,
            corrections,
        })
    }

    /// Imports an earlier CLI's `overrides.toml` and `packs/` once, keeping
    /// the files. Returns what to tell the user when something was imported
    /// or could not be.
    pub(crate) fn import_legacy(&mut self, dir: &Path) -> Result<Option<gpuplan_core::Message>> {
        const DONE: &str = "legacy_cli_import";
        let (overrides, packs) = home::legacy_files(dir);
        if overrides.is_none() && packs.is_empty() {
            return Ok(None);
        }
        if self.store()?.setting(DONE)?.is_some() {
            return Ok(None);
        }
        let now = self.now();
        let mut imported = 0usize;
        let mut failed = Vec::new();
        if let Some(path) = overrides {
            let text = files::read_text(&path, "overrides", files::MAX_USER_FILE_BYTES);
            match text.and_then(|t| {
                Overrides::from_toml(&path.display().to_string(), &t).map_err(AppError::from)
            }) {
                Ok(o) => {
                    for p in o.prices {
                        // As `override set` checks it: a price for an offer
                        // no platform has is not kept.
                        let offered = self
                            .bundled
                            .platforms
                            .get(&p.platform)
                            .is_ok_and(|x| x.offer(&p.gpu, &self.bundled.catalog).is_ok());
                        if !offered {
                            failed.push(format!("{} {}", p.platform, p.gpu));
                            continue;
                        }
                        self.store()?.set_override(&gpuplan_store::StoredOverride {
                            platform: p.platform,
                            gpu: p.gpu,
                            price: p.price_per_hour,
                            note: p.note,
                            set_on: p.observed,
                        })?;
                        imported = imported.saturating_add(1);
                    }
                }
                // Named, not explained: the reason is the import's own,
                // in the reader's language, when the file is imported by
                // hand (the notice says how).
                Err(_) => failed.push(path.display().to_string()),
            }
        }
        for path in packs {
            let result =
                files::read_text(&path, "pack", files::MAX_USER_FILE_BYTES).and_then(|t| {
                    CoursePack::from_toml(
                        &path.display().to_string(),
                        &t,
                        &self.bundled.catalog,
                        &self.bundled.zoo,
                    )
                    .map(|p| (p, t))
                    .map_err(AppError::from)
                });
            match result {
                Ok((p, text)) => {
                    match self
                        .store()?
                        .save_pack(&p.pack.name, &text, &now, MAX_PACKS)?
                    {
                        Some(_) => imported = imported.saturating_add(1),
                        None => failed.push(path.display().to_string()),
                    }
                }
                Err(_) => failed.push(path.display().to_string()),
            }
        }
        self.store()?.set_setting(DONE, &now)?;
        self.invalidate();
        let mut said = gpuplan_core::Message::new(if failed.is_empty() {
            "notice.legacyImported"
        } else {
            "notice.legacyPartly"
        })
        .with("count", imported)
        .with("dir", dir.display());
        if !failed.is_empty() {
            // Every file by its whole name (40 characters cut the second
            // off), the first few when many failed.
            said = said.with("failed", listed(&failed));
        }
        Ok(Some(said))
    }

    /// Reads a setting.
    pub fn setting(&mut self, key: &str) -> Result<Option<String>> {
        Ok(self.store()?.setting(key)?)
    }

    /// Writes a setting (language, last step).
    pub fn set_setting(&mut self, key: &str, value: &str) -> Result<()> {
        if key.is_empty() || key.len() > 64 || value.len() > 10_000 {
            return Err(AppError::input(
                "setting",
                "empty or too long",
                "keys of 1 to 64 and values up to 10000 characters",
            )
            .said(
                gpuplan_core::Message::new("error.tooLong").with("max", 10_000),
                None,
            ));
        }
        Ok(self.store()?.set_setting(key, value)?)
    }
}
