//! The message catalog: every user-visible label of the CLI and the app, once
//! per language, in `data/locales/{zh,en}.json`.
//!
//! The UI loads the same files into i18next at build time; the Rust side
//! parses them here. Texts use i18next's `{{name}}` placeholders. A parameter
//! whose value is itself a catalog key under `enum.` (e.g. a package period,
//! `enum.package-period.month`) is shown translated, so the core can pass
//! enum values without wording them. The `labels` test fails when a key is
//! missing in either language or used nowhere.

use std::collections::BTreeMap;

use gpuplan_core::Message;
use serde::{Deserialize, Serialize};

/// A UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Lang {
    /// 简体中文.
    Zh,
    /// English.
    En,
}

impl Lang {
    /// Both languages.
    pub const ALL: [Self; 2] = [Self::Zh, Self::En];

    /// The colon after a label or heading: full-width in Chinese (`注意：`),
    /// `: ` in English; headings trim the space.
    pub fn colon(self) -> &'static str {
        match self {
            Self::Zh => "：",
            Self::En => ": ",
        }
    }

    /// The parentheses around an aside after a phrase: full-width in
    /// Chinese (`（…）`), ` (…)` in English.
    pub fn parens(self) -> (&'static str, &'static str) {
        match self {
            Self::Zh => ("（", "）"),
            Self::En => (" (", ")"),
        }
    }

    /// Chinese for any `zh*` locale tag, else English.
    pub fn from_tag(tag: &str) -> Self {
        if tag.trim().to_ascii_lowercase().starts_with("zh") {
            Self::Zh
        } else {
            Self::En
        }
    }
}

/// Both catalogs, flattened to dotted keys.
#[derive(Debug, Clone)]
pub struct Catalog {
    zh: BTreeMap<String, String>,
    en: BTreeMap<String, String>,
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        serde_json::Value::String(s) => {
            out.insert(prefix.to_owned(), s.clone());
        }
        other => {
            out.insert(prefix.to_owned(), other.to_string());
        }
    }
}

/// A language's texts by dotted key.
type Texts = BTreeMap<String, String>;

fn parse(file: &str, text: &str) -> Result<Texts, gpuplan_core::DataError> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| gpuplan_core::DataError::from_json(file, "", &e))?;
    let mut out = BTreeMap::new();
    flatten("", &v, &mut out);
    Ok(out)
}

impl Catalog {
    /// The bundled catalogs.
    pub fn bundled() -> Result<Self, gpuplan_core::DataError> {
        Ok(Self {
            zh: parse("data/locales/zh.json", gpuplan_data::LOCALE_ZH_JSON)?,
            en: parse("data/locales/en.json", gpuplan_data::LOCALE_EN_JSON)?,
        })
    }

    /// Every key of one language.
    pub fn keys(&self, lang: Lang) -> impl Iterator<Item = &str> {
        self.map(lang).keys().map(String::as_str)
    }

    fn map(&self, lang: Lang) -> &BTreeMap<String, String> {
        match lang {
            Lang::Zh => &self.zh,
            Lang::En => &self.en,
        }
    }

    /// Whether the catalog has `key` (in every language: the labels test
    /// keeps them equal).
    pub fn has(&self, key: &str) -> bool {
        self.en.contains_key(key)
    }

    /// The text of `key` (the key itself when missing, which the labels test
    /// rules out for every key the code uses).
    pub fn text(&self, lang: Lang, key: &str) -> String {
        self.map(lang)
            .get(key)
            .cloned()
            .unwrap_or_else(|| key.to_owned())
    }

    /// The text of `key` with its `{{name}}` placeholders filled (each value
    /// on one line: see [`one_line`]).
    pub fn fill<'a>(
        &self,
        lang: Lang,
        key: &str,
        params: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> String {
        let params: Vec<(&str, &str)> = params.into_iter().collect();
        let mut s = self.text(lang, &self.plural(lang, key, &params));
        for (name, value) in params {
            let keyed = ["enum.", "noun.", "field.", "allowed."]
                .iter()
                .any(|p| value.starts_with(p));
            let shown = if keyed && self.map(lang).contains_key(value) {
                self.text(lang, value)
            } else if name.ends_with("_s") {
                duration(lang, value)
            } else {
                one_line(value)
            };
            s = s.replace(&format!("{{{{{name}}}}}"), &shown);
        }
        s
    }

    /// The key to word `key` with: its singular `key_one` where the
    /// language has one and the `count` parameter is 1, as i18next picks it
    /// in the UI (English only; Chinese has no plural forms).
    fn plural(&self, lang: Lang, key: &str, params: &[(&str, &str)]) -> String {
        let one = format!("{key}{PLURAL_ONE}");
        let is_one = params
            .iter()
            .any(|(name, value)| *name == "count" && value.trim() == "1");
        if is_one && self.map(lang).contains_key(&one) {
            one
        } else {
            key.to_owned()
        }
    }

    /// The note beside a bill's total when much of it rests on unverified
    /// figures: how many, what share, and which (each with its grade).
    pub fn unverified_note(
        &self,
        lang: Lang,
        u: &gpuplan_core::quote::Unverified,
    ) -> Option<String> {
        if !u.noted {
            return None;
        }
        let figures: Vec<String> = u
            .figures
            .iter()
            .map(|g| {
                let (figure, grade) = (
                    self.text(lang, &format!("figure.{}", g.figure.key())),
                    self.text(lang, &format!("enum.grade.{}", g.grade.key())),
                );
                match lang {
                    Lang::Zh => format!("{figure}（{grade}）"),
                    Lang::En => format!("{figure} ({grade})"),
                }
            })
            .collect();
        let sep = match lang {
            Lang::Zh => "、",
            Lang::En => ", ",
        };
        let count = u.figures.len().to_string();
        let percent = u.percent.to_string();
        let list = figures.join(sep);
        Some(self.fill(
            lang,
            "quote.unverified",
            [
                ("count", count.as_str()),
                ("percent", percent.as_str()),
                ("figures", list.as_str()),
            ],
        ))
    }

    /// An error in `lang`, as the app and the CLI show it: keyed errors
    /// worded from the catalog, the field by its name where it has one.
    pub fn error(&self, lang: Lang, e: &crate::AppError) -> String {
        use crate::AppError;
        match e {
            AppError::Input {
                field,
                message,
                allowed,
                said,
            } => {
                // The name a person reads, and the id a plan file or a
                // flag uses, so either finds it.
                let name = self.field(lang, field);
                let field = if name == *field {
                    name
                } else {
                    self.fill(
                        lang,
                        "error.fieldNamed",
                        [("name", name.as_str()), ("field", field.as_str())],
                    )
                };
                let (message, allowed) = match said {
                    Some(s) => (
                        self.said(lang, &s.message),
                        // An allowed range with no catalog words is English
                        // text: said in English only, never leaked into the
                        // Chinese sentence.
                        match (&s.allowed, lang) {
                            (Some(a), _) => self.message(lang, a),
                            (None, Lang::En) => allowed.clone(),
                            (None, _) => String::new(),
                        },
                    ),
                    None => (message.clone(), allowed.clone()),
                };
                let key = if allowed.is_empty() {
                    "error.inputBare"
                } else {
                    "error.input"
                };
                self.fill(
                    lang,
                    key,
                    [
                        ("field", field.as_str()),
                        ("message", message.as_str()),
                        ("allowed", allowed.as_str()),
                    ],
                )
            }
            AppError::Data {
                file,
                line,
                field,
                message,
                said,
                allowed,
            } => {
                let text = self.data_error(lang, (file, *line, field), message, said.as_deref());
                match allowed {
                    Some(a) => self.fill(
                        lang,
                        "error.withAllowed",
                        [
                            ("message", text.as_str()),
                            ("allowed", self.message(lang, a).as_str()),
                        ],
                    ),
                    None => text,
                }
            }
            AppError::Store { message, said } => {
                let text = match said {
                    Some(m) => self.message(lang, m),
                    None => message.clone(),
                };
                self.fill(lang, "error.store", [("message", text.as_str())])
            }
            AppError::Io { message, said } => {
                let text = match said {
                    Some(m) => self.message(lang, m),
                    None => message.clone(),
                };
                self.fill(lang, "error.io", [("message", text.as_str())])
            }
        }
    }

    /// A data file's error: keyed where the core keyed it (a file that is
    /// not TOML or JSON, a key or value its schema refuses), else with the
    /// validator's own sentence.
    fn data_error(
        &self,
        lang: Lang,
        (file, line, field): (&str, u32, &str),
        message: &str,
        said: Option<&Message>,
    ) -> String {
        let (key, message) = match said {
            // The keyed message says the line and column itself.
            Some(said) if field.is_empty() => ("error.dataSaid", self.message(lang, said)),
            // A refused value is at a line the student opens the file at
            // (a parser's keyed message says its line itself).
            Some(said) if line > 0 && !said.key.starts_with("error.parse.") => {
                ("error.dataSaidFieldAt", self.message(lang, said))
            }
            Some(said) => ("error.dataSaidField", self.message(lang, said)),
            None => ("error.data", message.to_owned()),
        };
        self.fill(
            lang,
            key,
            [
                ("file", file),
                ("line", line.to_string().as_str()),
                ("field", field),
                ("message", message.as_str()),
            ],
        )
    }

    /// A field by its name in `lang` (`field.<name>`, dots as dashes), or
    /// as it was given where the catalog has no name for it.
    pub fn field(&self, lang: Lang, field: &str) -> String {
        let key = format!("field.{}", field.replace('.', "-"));
        if self.map(lang).contains_key(&key) {
            self.text(lang, &key)
        } else {
            field.to_owned()
        }
    }

    /// A keyed error message, with the file it came from before it.
    fn said(&self, lang: Lang, m: &Message) -> String {
        let text = self.message(lang, m);
        match m.params.get("file") {
            Some(file) => self.fill(
                lang,
                "error.inFile",
                [("file", file.as_str()), ("message", text.as_str())],
            ),
            None => text,
        }
    }

    /// A core message in `lang` (a parameter given in both languages,
    /// `name.zh` and `name.en`, filled in as `name` in `lang`'s).
    pub fn message(&self, lang: Lang, m: &Message) -> String {
        let own = match lang {
            Lang::Zh => ".zh",
            Lang::En => ".en",
        };
        self.fill(
            lang,
            &m.key,
            m.params
                .iter()
                .filter_map(|(k, v)| match k.rsplit_once('.') {
                    Some((name, l)) if l == "zh" || l == "en" => {
                        k.ends_with(own).then_some((name, v.as_str()))
                    }
                    _ => Some((k.as_str(), v.as_str())),
                }),
        )
    }
}

/// The suffix of a key's singular form in English (`cli.ledgerTotal_one`),
/// the suffix i18next uses: only English has such keys.
pub const PLURAL_ONE: &str = "_one";

/// A duration parameter (whole seconds, the `_s` parameters of bill lines)
/// as a reader says it: seconds under a minute, minutes under an hour, then
/// hours to two places. A value that is not a number is shown as it is.
pub fn duration(lang: Lang, seconds: &str) -> String {
    // A range of durations, "a..b": each worded, joined by a dash.
    if let Some((a, b)) = seconds.split_once("..") {
        return format!("{}–{}", duration(lang, a), duration(lang, b));
    }
    let Ok(s) = seconds.trim().parse::<rust_decimal::Decimal>() else {
        return seconds.to_owned();
    };
    // Half up, as the bill's money and the JSON's hours are (f64's `{:.2}`
    // printed 3690 s as 1.02 h beside the JSON's 1.03).
    let places = |x: rust_decimal::Decimal, dp: u32| {
        x.round_dp_with_strategy(dp, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
    };
    let (minute, hour) = (
        rust_decimal::Decimal::from(60),
        rust_decimal::Decimal::from(3600),
    );
    let (n, unit) = if s > rust_decimal::Decimal::ZERO && s < rust_decimal::Decimal::ONE {
        (format!("{:.1}", places(s, 1)), ["s", "秒"])
    } else if s < minute {
        (format!("{:.0}", places(s, 0)), ["s", "秒"])
    } else if s < hour {
        let m = s.checked_div(minute).unwrap_or_default();
        let tenth = places(m, 1);
        let text = if tenth.fract().is_zero() {
            format!("{:.0}", tenth)
        } else {
            format!("{:.1}", tenth)
        };
        (text, ["min", "分钟"])
    } else {
        (
            format!("{:.2}", places(s.checked_div(hour).unwrap_or_default(), 2)),
            ["h", "小时"],
        )
    };
    match lang {
        Lang::En => format!("{n} {}", unit[0]),
        Lang::Zh => format!("{n} {}", unit[1]),
    }
}

/// A value from a file or a user (a plan's name, a note, a path) as one line
/// of text: line breaks, tabs and invisible format characters (zero-width
/// spaces, the byte-order mark, line and paragraph separators) written as
/// `\u{..}`, so a name cannot print a fake total on a line of its own or
/// hide what it says.
pub fn one_line(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if gpuplan_core::error::is_hidden(c) {
            out.push_str(&gpuplan_core::error::visible(c));
        } else {
            out.push(c);
        }
    }
    out
}
