//! Errors that cross the core's boundary.
//!
//! Two kinds: [`DataError`] for a data file that does not parse or validate (it
//! names the file, line and field), and [`InputError`] for a job a user typed
//! that is out of range (it names the field and the allowed range). Neither
//! ever carries a panic message: every check is explicit.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::message::Message;

/// A bundled or imported data file that failed to parse or validate.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{file}:{line}:{column}: {field}: {message}")]
pub struct DataError {
    /// The file as the caller named it.
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column, 0 when unknown.
    pub column: usize,
    /// Dotted path of the offending field, e.g. `gpu.rtx3090.vram_mib`.
    pub field: String,
    /// What is wrong, in one sentence (English, for logs; the parser's own
    /// words where a parser refused the file).
    pub message: String,
    /// The same as a catalog key, which the shells word in the user's
    /// language (absent where an error is not keyed yet).
    pub said: Option<Box<Message>>,
    /// What is allowed instead, as a catalog key, where the refusal came
    /// from a value's range (a preset's job, a measured run).
    pub allowed: Option<Box<Message>>,
}

impl DataError {
    /// A value of `table` an input check refused (a preset's job, a
    /// measured run), located at its key, with the check's own words.
    pub fn from_input(file: &str, text: &str, table: &str, e: InputError) -> Self {
        let mut d = Self::invalid(
            file,
            text,
            table,
            &e.field,
            format!("{} ({})", e.message, e.allowed),
        );
        if let Some(s) = e.said {
            d.said = Some(Box::new(s.message));
            d.allowed = s.allowed.map(Box::new);
        }
        d
    }

    /// An input check that refused a value written in a file (an unknown
    /// platform, card or model a plan names), located at the line that
    /// writes it: the first `key = value` whose key is the error's field and
    /// whose value the error quotes, else the first line of that key. A
    /// refusal naming several fields (`run.count, job.hours`) keeps them
    /// all, at the first one the file writes. `Err` gives the error back when
    /// the file writes none of them (the value came from elsewhere).
    pub fn at_value(file: &str, text: &str, e: InputError) -> Result<Self, InputError> {
        let quoted = e.message.split('`').nth(1);
        let fields: Vec<&str> = e.field.split(',').map(str::trim).collect();
        let Some(start) = fields.iter().find_map(|f| written_at(text, f, quoted)) else {
            return Err(e);
        };
        let (line, column) = line_col(text, start);
        let field = match enclosing_key(text, start) {
            // Found at its table's header (the key is not written): the key
            // the refusal names, not just its table.
            k if fields.len() == 1 && !e.field.starts_with(&format!("{k}.")) => k,
            _ => e.field.clone(),
        };
        Ok(Self::input_at(file, (line, column), &field, e))
    }

    /// An input check's refusal told at `(line, column)` of `file` under
    /// `field`, with its catalog words.
    pub fn input_at(
        file: &str,
        (line, column): (usize, usize),
        field: &str,
        e: InputError,
    ) -> Self {
        Self {
            file: short(file),
            line,
            column,
            field: short(field),
            message: short(&format!("{} ({})", e.message, e.allowed)),
            said: e.said.as_ref().map(|s| Box::new(s.message.clone())),
            allowed: e.said.and_then(|s| s.allowed).map(Box::new),
        }
    }

    /// Builds an error from a TOML deserialisation failure, locating its span.
    ///
    /// The keyed form says what kind of failure it is (the file is not TOML
    /// at all, or a key or value does not fit) and where; the parser's own
    /// sentence stays only in `message`, for logs. It is English, quotes with
    /// backticks and names Rust types ("invalid type: integer `3`, expected
    /// a string"), and a catalog text has the same placeholders in both
    /// languages, so it cannot follow in English only; line and column point
    /// the student at the place, which the editor they fix it in shows.
    pub fn from_toml(file: &str, text: &str, err: &toml::de::Error) -> Self {
        let (line, column) = err
            .span()
            .map(|s| line_col(text, s.start))
            .unwrap_or((0, 0));
        let field = err
            .span()
            .map(|s| enclosing_key(text, s.start))
            .unwrap_or_default();
        // A text that does not parse as a table is not TOML; one that does
        // holds a key or a value this file's schema refuses.
        // A missing or unknown key is named first: a file that also holds
        // a number no TOML table can (18446744073709551615) would otherwise
        // be "not TOML" at line 1, blaming whichever key is written there.
        let schema = refused(err.message());
        let said = if err.message().contains("duplicate key") {
            // TOML refuses a key written twice as a syntax error; say which.
            Message::new("error.parse.duplicateKey")
        } else if schema.key != "error.parse.wrongValue" {
            schema
        } else if toml::from_str::<toml::Table>(text).is_err() {
            // A Chinese input method writes ＝, “ ” and ： in place of the
            // ASCII marks TOML reads; "a syntax error" alone leaves the
            // student looking at a line that looks right.
            match err.span().and_then(|s| full_width_mark(text, s.start)) {
                Some((at, mark, ascii)) => {
                    let (line, column) = line_col(text, at);
                    Message::new("error.parse.fullWidthMark")
                        .with("mark", mark.to_string())
                        .with("ascii", ascii.to_string())
                        .with("markLine", line)
                        .with("markColumn", column)
                }
                None => Message::new("error.parse.notToml"),
            }
        } else {
            // The value as the file writes it (`1e308`), where it is short.
            match err
                .span()
                .and_then(|s| text.get(s))
                .map(str::trim)
                .filter(|v| !v.is_empty() && v.chars().count() <= 40 && !v.contains('\n'))
            {
                Some(v) => match number_with_unit(v) {
                    Some(n) => Message::new("error.parse.numberWithUnit")
                        .with("value", short(v))
                        .with("number", n),
                    None => Message::new("error.parse.wrongValueTyped").with("value", short(v)),
                },
                None => schema,
            }
        };
        // A missing key is reported at its table, where the key on that
        // line is some other one: the field is the table's header and the
        // missing key (`stops.hours_each`), or the key alone at the top.
        let field = if said.key == "error.parse.missingField" {
            let name = said.params.get("name").cloned().unwrap_or_default();
            let header = err
                .span()
                .and_then(|s| text.get(s.start..))
                .and_then(|rest| rest.lines().next())
                .and_then(header_of);
            match header {
                Some(table) if !table.is_empty() => format!("{table}.{name}"),
                _ => name,
            }
        } else {
            field
        };
        Self {
            file: short(file),
            line,
            column,
            field: short(&field),
            message: short(err.message().trim()),
            allowed: choices(err.message(), &said),
            said: Some(Box::new(said.with("line", line).with("column", column))),
        }
    }

    /// Whether this is a value of the wrong kind for its field (nan,
    /// "150元", 1e308), which the caller may pair with the field's range.
    pub fn is_wrong_value(&self) -> bool {
        self.said.as_ref().is_some_and(|m| {
            m.key == "error.parse.wrongValue"
                || m.key == "error.parse.wrongValueTyped"
                || m.key == "error.parse.numberWithUnit"
        })
    }

    /// Builds an error from a JSON deserialisation failure (a run report, a
    /// plan an older app saved), keyed like [`DataError::from_toml`]'s.
    pub fn from_json(file: &str, field: &str, err: &serde_json::Error) -> Self {
        Self {
            file: short(file),
            line: err.line(),
            column: err.column(),
            field: short(field),
            message: short(&err.to_string()),
            said: Some(Box::new(json_said(err))),
            allowed: None,
        }
    }

    /// A value the file's checks refuse, located as [`DataError::invalid`]
    /// does, with the catalog's words.
    pub fn refused(file: &str, text: &str, r: Refusal) -> Self {
        let mut e = Self::invalid(file, text, &r.table, &r.key, r.english);
        e.said = Some(Box::new(as_typed(r.said, text, e.line)));
        e
    }

    /// A JSON file that does not parse, its field named by the last key
    /// written before the error (`wall_seconds` for `"wall_seconds": -5`),
    /// else `field`: serde_json says where, not which field.
    pub fn from_json_text(file: &str, text: &str, field: &str, err: &serde_json::Error) -> Self {
        let mut e = Self::from_json(file, field, err);
        // Text after the document belongs to no key: the last key before it
        // (`exit_status`) is not what is wrong.
        if err.to_string().starts_with("trailing characters") {
            return e;
        }
        if let Some(key) = json_field(text, err) {
            e.field = short(&key);
        }
        e
    }

    /// A validation failure for `field`, located at the first mention of its
    /// last path segment after its table header.
    pub fn invalid(
        file: &str,
        text: &str,
        table: &str,
        key: &str,
        message: impl Into<String>,
    ) -> Self {
        let (line, column) = locate(text, table, key);
        let field = match (table.is_empty(), key.is_empty()) {
            (_, true) => table.to_owned(),
            // A top-level field is its key alone (`budget`, not `.budget`).
            (true, false) => key.to_owned(),
            (false, false) => format!("{table}.{key}"),
        };
        Self {
            file: short(file),
            line,
            column,
            field: short(&field),
            message: short(&message.into()),
            said: None,
            allowed: None,
        }
    }
}

/// A value a file's checks refuse: where it sits (table and key), what is
/// wrong in English (for logs) and in the catalog's words (what a student
/// reads, in their language).
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The table (`offer[2]`, `stops`, or empty for the top level).
    pub table: String,
    /// The key in it.
    pub key: String,
    /// What is wrong, in English.
    pub english: String,
    /// The same as a catalog key and its parameters.
    pub said: Message,
}

impl Refusal {
    /// A refusal of `table.key`.
    pub fn new(table: &str, key: &str, english: impl Into<String>, said: Message) -> Self {
        Self {
            table: table.to_owned(),
            key: key.to_owned(),
            english: english.into(),
            said,
        }
    }

    /// `value` is outside `min` to `max` (above `min` when `min_open`).
    pub fn range(
        table: &str,
        key: &str,
        value: impl std::fmt::Display,
        min: impl std::fmt::Display,
        max: impl std::fmt::Display,
        min_open: bool,
    ) -> Self {
        let (from, k) = if min_open {
            (format!("above {min}"), "error.range.above")
        } else {
            (min.to_string(), "error.range.from")
        };
        Self::new(
            table,
            key,
            format!("{value} is outside {from} to {max}"),
            Message::new(k)
                .with("value", short(&value.to_string()))
                .with("min", min)
                .with("max", max),
        )
    }

    /// The refusal as an input error naming the dotted field
    /// (`job.hours`), as a form or a command line reports it.
    pub fn into_input(self) -> InputError {
        let field = if self.table.is_empty() {
            self.key.clone()
        } else {
            format!("{}.{}", self.table, self.key)
        };
        InputError::new(&field, self.english, "").said(self.said, None)
    }
}

/// A JSON parser's refusal as a catalog key with its line and column: the
/// text is not JSON, or it is and a key or value does not fit (serde_json's
/// own sentence stays English, for logs only, as with TOML).
pub fn json_said(err: &serde_json::Error) -> Message {
    use serde_json::error::Category;
    let english = err.to_string();
    // serde_json ends its sentence with the place, given apart here.
    let what = english
        .rsplit_once(" at line ")
        .map_or(english.as_str(), |(what, _)| what);
    let said = match err.classify() {
        // A key written twice is a mistake of its own, as in a plan file,
        // not a value of the wrong kind.
        _ if what.starts_with("duplicate field") => Message::new("error.parse.duplicateKey"),
        Category::Syntax | Category::Eof => Message::new("error.parse.notJson"),
        Category::Data | Category::Io => refused(what),
    };
    // serde_json quotes the value it refused ("invalid value: integer `-1`,
    // expected u64"): say it, as a plan file's refusal does.
    let said = match what.split('`').nth(1) {
        Some(v) if said.key == "error.parse.wrongValue" && !v.is_empty() => {
            Message::new("error.parse.wrongValueTyped").with("value", short(v))
        }
        _ => said,
    };
    said.with("line", err.line()).with("column", err.column())
}

/// The choices serde lists after a value that is not one of them
/// ("unknown variant `year`, expected one of `day`, `week`, `month`"), as
/// the allowed text, so the student sees what to write instead.
fn choices(english: &str, said: &Message) -> Option<Box<Message>> {
    if said.key != "error.parse.unknownVariant" {
        return None;
    }
    let (_, expected) = english.split_once("expected")?;
    let names: Vec<String> = expected.split('`').skip(1).step_by(2).map(short).collect();
    (!names.is_empty())
        .then(|| Box::new(Message::new("error.oneOf").with("list", names.join(", "))))
}

/// What a deserialiser refused in a file that parses, from serde's own
/// sentence ("unknown field `x`, expected ...", "missing field `x`",
/// "unknown variant `x`, ..."), as a catalog key with the name it quotes;
/// anything else (a wrong type, a value out of a type's range, a check of
/// our own) is a value that does not fit its field.
fn refused(english: &str) -> Message {
    let quoted = |prefix: &str| {
        english
            .trim()
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| short(name))
    };
    let kinds = [
        ("unknown field `", "error.parse.unknownField", "name"),
        ("missing field `", "error.parse.missingField", "name"),
        ("unknown variant `", "error.parse.unknownVariant", "value"),
    ];
    // serde lists the fields the table takes ("expected one of `hours`,
    // …"): a near one is offered (`hour` for `hours`).
    if let Some(name) = quoted("unknown field `") {
        if let Some(near) = nearest_expected(&name, english) {
            return Message::new("error.parse.unknownFieldNear")
                .with("name", name)
                .with("near", near);
        }
    }
    kinds
        .iter()
        .find_map(|(prefix, key, param)| quoted(prefix).map(|v| Message::new(key).with(param, v)))
        .unwrap_or_else(|| Message::new("error.parse.wrongValue"))
}

/// The field of serde's "expected one of `a`, `b`" list nearest to `name`
/// typed, if one is near enough to be what was meant.
fn nearest_expected(name: &str, english: &str) -> Option<String> {
    let (_, list) = english.split_once("expected one of ")?;
    let want = name.to_ascii_lowercase();
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(|k| (strsim::jaro_winkler(&want, &k.to_ascii_lowercase()), k))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| short(k))
}

/// Converts a byte offset into 1-based line and column.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count().saturating_add(1);
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count().saturating_add(1))
        .unwrap_or(1);
    (line, column)
}

/// The key on the line holding `offset` (`key = ...`), or the table header above it.
fn enclosing_key(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let start = text[..offset]
        .rfind('\n')
        .map(|i| i.saturating_add(1))
        .unwrap_or(0);
    let line = text[start..].lines().next().unwrap_or("");
    // The table is the last header up to this line, this line included (a
    // header itself names its table).
    let end = start.saturating_add(line.len()).min(text.len());
    let table = text[..end]
        .lines()
        .rev()
        .find_map(|l| {
            l.trim()
                .strip_prefix('[')
                .map(|h| h.trim_end_matches(']').trim_matches('[').to_owned())
        })
        .unwrap_or_default()
        .replace('"', "");
    match line.split_once('=') {
        Some((k, _)) if !line.trim_start().starts_with('[') => {
            let k = k.trim().trim_matches('"');
            if table.is_empty() {
                k.to_owned()
            } else {
                format!("{table}.{k}")
            }
        }
        _ => table,
    }
}

/// The byte offset of the line writing `field`'s last key: the first whose
/// value is `value` (quotes aside), else the first of that key.
fn written_at(text: &str, field: &str, value: Option<&str>) -> Option<usize> {
    let key = field.rsplit('.').next().unwrap_or(field);
    // A field in a table (`stops.count`) is looked for in that table first:
    // `count` under `[[run]]` is another field.
    if let Some((table, _)) = field.rsplit_once('.') {
        if let Some(at) = key_at(text, Some(table), key, value) {
            return Some(at);
        }
    }
    key_at(text, None, key, value)
        .or_else(|| table_header_at(text, field))
        .or_else(|| table_header_at(text, field.rsplit_once('.')?.0))
}

/// The byte offset of the first line writing `key` (in `table`, when
/// given) whose value is `value`, else of the first writing `key`.
fn key_at(text: &str, table: Option<&str>, key: &str, value: Option<&str>) -> Option<usize> {
    let mut first = None;
    let mut offset = 0usize;
    let mut current = String::new();
    for l in text.split_inclusive('\n') {
        let at = offset;
        offset = offset.saturating_add(l.len());
        if let Some(name) = header_of(l) {
            current = name;
            continue;
        }
        let Some((k, v)) = l.split_once('=') else {
            continue;
        };
        if key.is_empty()
            || l.trim_start().starts_with(['#', '['])
            || k.trim().trim_matches('"') != key
            || table.is_some_and(|t| t != current)
        {
            continue;
        }
        let start = at.saturating_add(l.find(k.trim()).unwrap_or(0));
        if value == Some(v.split('#').next().unwrap_or("").trim().trim_matches('"')) {
            return Some(start);
        }
        first = first.or(Some(start));
    }
    // A refusal of a whole table (`job`: neither hours nor a model) is at
    // its header, `[job]` or `[[run]]` (the caller's fallback).
    first
}

/// The table a header line names (`[[run]]` is `run`, `[a."b"]` is `a.b`);
/// `None` for any other line.
fn header_of(line: &str) -> Option<String> {
    let t = line.split('#').next().unwrap_or("").trim();
    t.starts_with('[').then(|| {
        t.trim_matches(|c| c == '[' || c == ']')
            .replace('"', "")
            .trim()
            .to_owned()
    })
}

/// Where the header of table `field` (`[job]`, `[[run]]`) starts.
fn table_header_at(text: &str, field: &str) -> Option<usize> {
    let mut offset = 0usize;
    for l in text.split_inclusive('\n') {
        let at = offset;
        offset = offset.saturating_add(l.len());
        if header_of(l).is_some_and(|name| !name.is_empty() && name == field) {
            return Some(at.saturating_add(l.len().saturating_sub(l.trim_start().len())));
        }
    }
    None
}

/// Finds the line of `key` inside the table whose header names `table`.
fn locate(text: &str, table: &str, key: &str) -> (usize, usize) {
    let last = table.rsplit('.').next().unwrap_or(table).trim_matches('"');
    // `offer[2]` is the third `[[offer]]`; a plain name is the first.
    let (last, nth) = match last.split_once('[') {
        Some((name, rest)) => (
            name,
            rest.trim_end_matches(']').parse::<usize>().unwrap_or(0),
        ),
        None => (last, 0),
    };
    let mut seen = 0usize;
    // An empty table means the top level: the lines before the first header.
    let mut in_table = table.is_empty();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.starts_with('[') {
            let named = !table.is_empty()
                && t.replace('"', "")
                    .trim_matches(|c| c == '[' || c == ']')
                    .ends_with(last);
            in_table = named && seen == nth;
            if named {
                seen = seen.saturating_add(1);
            }
            if in_table && key.is_empty() {
                return (i.saturating_add(1), 1);
            }
            continue;
        }
        if in_table && !key.is_empty() {
            if let Some((k, _)) = t.split_once('=') {
                if k.trim().trim_matches('"') == key {
                    return (
                        i.saturating_add(1),
                        l.find(key).unwrap_or(0).saturating_add(1),
                    );
                }
            }
        }
    }
    (0, 0)
}

/// A job parameter outside its allowed range, or an unknown id.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{field}: {message} (allowed: {allowed})")]
pub struct InputError {
    /// The field as the user knows it (`batch`, `seq_len`, `gpu`, ...).
    pub field: String,
    /// What is wrong with the value given.
    pub message: String,
    /// The allowed range or set, in words.
    pub allowed: String,
    /// The same error as catalog keys, for the shells to word in the
    /// user's language. The English `message` and `allowed` stay for logs
    /// and for errors not yet keyed; a shell prefers this where present.
    pub said: Option<Box<Said>>,
}

/// An input error as catalog keys: what is wrong and what is allowed, each
/// a key with its parameters. A parameter whose value is itself a catalog
/// key (`field.batch`, `enum.…`, `noun.…`) is worded too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Said {
    /// What is wrong with the value given.
    pub message: Message,
    /// What is allowed, when the error has a range or set.
    pub allowed: Option<Message>,
}

impl InputError {
    /// `value` is not a number at all.
    pub fn not_a_number(field: &str, value: &str, allowed: (String, Message)) -> Self {
        let value = short(value);
        Self::new(field, format!("`{value}` is not a number"), allowed.0).said(
            Message::new("error.notNumber").with("value", value),
            Some(allowed.1),
        )
    }

    /// `value` is a number but not a whole one.
    pub fn not_whole(
        field: &str,
        value: impl std::fmt::Display,
        allowed: (String, Message),
    ) -> Self {
        let value = short(&value.to_string());
        Self::new(field, format!("{value} is not a whole number"), allowed.0).said(
            Message::new("error.notWhole").with("value", value),
            Some(allowed.1),
        )
    }

    /// A job named by its model but not its dataset size: no epoch, so no
    /// run, can be timed (`quote` and `recommend` refuse it alike).
    pub fn needs_dataset_samples() -> Self {
        Self::new(
            "job.dataset_samples",
            "an estimated job needs the dataset size to time an epoch",
            "a whole number of samples",
        )
        .said(
            Message::new("error.needsSamples"),
            Some(Message::new("allowed.positiveWhole")),
        )
    }

    /// `value` is outside the allowed range.
    pub fn out_of_range(
        field: &str,
        value: impl std::fmt::Display,
        allowed: (String, Message),
    ) -> Self {
        let value = short(&value.to_string());
        Self::new(field, format!("{value} is out of range"), allowed.0).said(
            Message::new("error.outOfRange").with("value", value),
            Some(allowed.1),
        )
    }

    /// `value` is none of the choices `allowed` lists (a precision, a mode).
    pub fn unknown_choice(
        field: &str,
        what: &str,
        value: &str,
        allowed: impl Into<String>,
    ) -> Self {
        let allowed = allowed.into();
        let value = short(value);
        Self::new(field, format!("unknown {what} `{value}`"), allowed.clone()).said(
            Message::new("error.unknownChoice").with("value", value),
            Some(Message::new("error.oneOf").with("list", short(&allowed.replace(" or ", ", ")))),
        )
    }

    /// A JSON text `field` holds that does not parse (or does not fit what
    /// it should hold), keyed like a data file's ([`json_said`]).
    pub fn not_json(field: &str, err: &serde_json::Error, allowed: (String, Message)) -> Self {
        Self::new(field, format!("not valid JSON: {err}"), allowed.0)
            .said(json_said(err), Some(allowed.1))
    }

    /// [`InputError::not_json`] for the JSON `text` itself (a file the
    /// student handed in), naming the key the error is about
    /// (`wall_seconds` for `"wall_seconds": -5`) rather than the whole file
    /// (`field`), as a run report's errors do.
    pub fn not_json_text(
        field: &str,
        text: &str,
        err: &serde_json::Error,
        allowed: (String, Message),
    ) -> Self {
        let e = Self::not_json(field, err, allowed);
        match json_field(text, err) {
            Some(key) => e.for_field(&key),
            None => e,
        }
    }

    /// The same error with its catalog keys.
    #[must_use]
    pub fn said(mut self, message: Message, allowed: Option<Message>) -> Self {
        self.said = Some(Box::new(Said { message, allowed }));
        self
    }

    /// The same error about another field (a nested value reported under
    /// the name the user typed it as), keys kept.
    #[must_use]
    pub fn for_field(mut self, field: &str) -> Self {
        self.field = short(field);
        self
    }

    /// An unknown id: says the closest known ids ("did you mean") rather
    /// than every id there is, and where the whole list is (`list`, e.g.
    /// `gpuplan models`).
    pub fn unknown<'a>(
        field: &str,
        what: &str,
        id: &str,
        known: impl IntoIterator<Item = &'a str>,
        list: &str,
    ) -> Self {
        let want = id.trim().to_ascii_lowercase();
        let mut scored: Vec<(f64, &str)> = known
            .into_iter()
            .map(|k| {
                // A known id that contains what was typed (or the other way
                // round) is a strong hint: `llama` for `llama-2-7b`.
                let contains = !want.is_empty() && (k.contains(&want) || want.contains(k));
                let similar = strsim::jaro_winkler(&want, k);
                (if contains { similar.max(0.9) } else { similar }, k)
            })
            .filter(|(score, _)| *score >= 0.75)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let near: Vec<String> = scored
            .iter()
            .take(3)
            .map(|(_, k)| format!("`{k}`"))
            .collect();
        let message = if near.is_empty() {
            format!("unknown {what} `{id}`")
        } else {
            format!("unknown {what} `{id}`; did you mean {}?", near.join(" or "))
        };
        let id = short(id.trim());
        let said = if near.is_empty() {
            Message::new("error.unknownId").with("id", &id)
        } else {
            let near: Vec<&str> = scored.iter().take(3).map(|(_, k)| *k).collect();
            Message::new("error.unknownIdNear")
                .with("id", &id)
                .with("near", near.join(" / "))
        };
        Self::new(field, message, format!("a {what} from `{list}`")).said(
            said.with("what", format!("noun.{}", noun(what))),
            Some(Message::new("error.fromList").with("list", list)),
        )
    }

    /// Shorthand constructor.
    pub fn new(field: &str, message: impl Into<String>, allowed: impl Into<String>) -> Self {
        Self {
            field: short(field),
            message: short(&message.into()),
            allowed: short(&allowed.into()),
            said: None,
        }
    }
}

/// The catalog noun (`noun.<key>`) for the English `what` of an unknown id.
fn noun(what: &str) -> String {
    what.trim()
        .to_ascii_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
}

/// The first full-width or Chinese punctuation mark TOML cannot read on the
/// line of `offset` or the line before it (an unclosed “ leaves the parser
/// failing further on): its byte offset, the mark and the ASCII it stands
/// for.
fn full_width_mark(text: &str, offset: usize) -> Option<(usize, char, char)> {
    let end = text
        .get(offset..)?
        .find('\n')
        .map_or(text.len(), |n| offset.saturating_add(n));
    let line_start = text
        .get(..offset)?
        .rfind('\n')
        .map_or(0, |n| n.saturating_add(1));
    let from = text
        .get(..line_start.saturating_sub(1))?
        .rfind('\n')
        .map_or(0, |n| n.saturating_add(1));
    let ascii_of = |c: char| match c {
        '＝' => Some('='),
        '“' | '”' | '＂' => Some('"'),
        '‘' | '’' | '＇' => Some('\''),
        '［' | '【' => Some('['),
        '］' | '】' => Some(']'),
        '：' => Some(':'),
        '，' => Some(','),
        '＃' => Some('#'),
        '．' | '。' => Some('.'),
        _ => None,
    };
    let lines = text.get(from..end)?;
    // Marks inside a quoted string are the student's text ("数据，模型"),
    // not syntax: only marks outside ASCII quotes count.
    // A comment after `#` is the student's text too.
    let mut start = from;
    for line in lines.split('\n') {
        let mut quoted = false;
        for (i, c) in line.char_indices() {
            match c {
                '"' => quoted = !quoted,
                '#' if !quoted => break,
                _ if quoted => {}
                _ => {
                    if let Some(a) = ascii_of(c) {
                        return Some((start.saturating_add(i), c, a));
                    }
                }
            }
        }
        start = start.saturating_add(line.len()).saturating_add(1);
    }
    None
}

/// The number in a quoted value written as people write amounts
/// (`"150元"`, `"¥2.5"`, `"2h"`, `"１５０"`, `"1,500"`), which a plan file
/// takes only as the number: the number alone, when that is what it is.
fn number_with_unit(v: &str) -> Option<String> {
    let inner = v
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))?
        .trim();
    let mut t: String = inner
        .chars()
        .map(|c| match c {
            '０'..='９' => (c as u32)
                .checked_sub('０' as u32)
                .and_then(|d| char::from_digit(d, 10))
                .unwrap_or(c),
            '．' => '.',
            c => c,
        })
        .filter(|c| *c != ',' && *c != '，' && !c.is_whitespace())
        .collect();
    for prefix in ["¥", "￥", "$"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest.to_owned();
        }
    }
    for suffix in [
        "元/小时",
        "元/h",
        "元",
        "块",
        "CNY",
        "RMB",
        "小时",
        "hours",
        "h",
        "GB",
        "G",
        "天",
        "days",
    ] {
        if let Some(rest) = t.strip_suffix(suffix) {
            t = rest.to_owned();
            break;
        }
    }
    let numeric = t.chars().any(|c| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_digit() || c == '.')
        && t.matches('.').count() <= 1;
    (numeric && t != inner).then_some(t)
}

/// Longest error text kept, in characters.
pub const MAX_MESSAGE_CHARS: usize = 240;
/// A character a person cannot see or that changes how a line reads:
/// control characters, zero-width marks, line and paragraph separators,
/// word joiners, the byte-order mark and the bidirectional overrides and
/// isolates (U+202A..U+202E, U+2066..U+2069, which reorder what a line
/// appears to say).
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// A character that must not act on a terminal, shown as its code point
/// (`[U+001B]`), in words no language has to translate.
pub fn visible(c: char) -> String {
    format!("[U+{:04X}]", c as u32)
}

/// An error text that cannot flood or attack a terminal: control characters
/// become visible escapes, a number longer than people type (1e300 printed
/// in full) is written in scientific notation
/// ([`crate::message::short_numbers`]), and the whole is cut to
/// [`MAX_MESSAGE_CHARS`]. Every error built here goes through it, so
/// user text echoed in a message is always a short, inert excerpt.
pub fn short(text: &str) -> String {
    let mut out = String::new();
    let mut kept = 0usize;
    for c in crate::message::short_numbers(text).chars() {
        if kept >= MAX_MESSAGE_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() && c != '\n' {
            out.push_str(&visible(c));
        } else {
            out.push(c);
        }
        kept = kept.saturating_add(1);
    }
    out
}

/// A range refusal showing the number as the file writes it on `line`
/// (`1e-30`, not the `0.0000…` it read as): a number too small for a
/// decimal's 28 places reads as 0, and "1e-30 is not above 0" would
/// contradict itself, so that one is told as too small to tell from 0. A
/// value the line does not write (one computed from several fields) stays.
fn as_typed(mut said: Message, text: &str, line: usize) -> Message {
    let Some(read) = said.params.get("value").and_then(|v| v.parse::<f64>().ok()) else {
        return said;
    };
    let Some(typed) = text
        .lines()
        .nth(line.saturating_sub(1))
        .filter(|_| line > 0)
        .and_then(|l| l.split_once('='))
        .map(|(_, v)| v.split('#').next().unwrap_or("").trim().to_owned())
        .filter(|v| !v.starts_with(['"', '\'']))
    else {
        return said;
    };
    let Ok(number) = typed.replace('_', "").parse::<f64>() else {
        return said;
    };
    let same = (number - read).abs() <= read.abs().max(1.0) * 1e-9;
    if read == 0.0 && number != 0.0 && said.key == "error.range.above" {
        said.key = "error.range.tooSmall".to_owned();
    } else if !same {
        return said;
    }
    said.params.insert("value".to_owned(), short(&typed));
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_value_is_found_at_the_line_that_writes_it() {
        let text = "name = \"x\"\ngpu = \"rtx3090\" # main\n[job]\nmodel = \"nosuch\"\n[debug]\ngpu = \"rtx30600\"\n[[run]]\ncount = 2\n[stops]\ncount = 1\n";
        // (field, quoted value, expected line and field, why)
        let cases = [
            (
                "gpu",
                "rtx30600",
                Some((6, "debug.gpu")),
                "the line whose value is the one refused, not the first `gpu`",
            ),
            (
                "gpu",
                "rtx3090",
                Some((2, "gpu")),
                "a comment after the value is no part of it",
            ),
            (
                "model",
                "other",
                Some((4, "job.model")),
                "no line with that value: the first of the key",
            ),
            (
                "run.count, job.model",
                "",
                Some((8, "run.count, job.model")),
                "several fields: at the first of them the file writes, all named",
            ),
            (
                "job",
                "",
                Some((3, "job")),
                "a whole table refused (no hours, no model): at its header",
            ),
            (
                "storage.gb",
                "",
                None,
                "a field the file does not write is given back",
            ),
            (
                "storage",
                "",
                None,
                "a table the file does not write is given back",
            ),
            (
                "stops.count",
                "",
                Some((10, "stops.count")),
                "a key of that name in another table first (`[[run]] count`) is not it",
            ),
            (
                "job.dataset_samples",
                "",
                Some((3, "job.dataset_samples")),
                "a key the file leaves out of its table: at the table's header, the key named",
            ),
        ];
        for (field, value, want, why) in cases {
            let e = InputError::new(field, format!("unknown `{value}`"), "an id");
            let got = DataError::at_value("plan.toml", text, e).ok();
            assert_eq!(
                got.as_ref().map(|d| (d.line, d.field.as_str())),
                want,
                "{why}"
            );
        }
    }

    #[test]
    fn error_texts_are_short_and_inert() {
        let long = "1".repeat(300);
        let flood = "a".repeat(100_000);
        let escape = "name \u{1b}[2J\u{1b}]0;owned\u{7}";
        // (input, must contain, must not contain, why)
        let cases: [(&str, &str, &str, &str); 8] = [
            (&long, "1.11111e299", "1111111", "a huge number is cut"),
            (
                "0.000000000000000000000000000001 is too small",
                "1e-30 is too small",
                "0.0",
                "a tiny number is one number, in scientific notation",
            ),
            (
                "0.0000000000000000000000000000 is not above 0",
                "0 is not above 0",
                "0.0",
                "a zero written with many places is 0",
            ),
            (
                "hours 1. More text",
                "hours 1. More text",
                "…",
                "a full stop after a number is not its decimal point",
            ),
            (
                "99999999999999999999 is out of range",
                "99999999999999999999 is",
                "e19",
                "a number as long as people type is echoed as typed",
            ),
            (&flood, "…", &flood[..300], "a flood of text is cut"),
            (
                escape,
                "[U+001B][2J",
                "\u{1b}",
                "escape sequences become visible text",
            ),
            (
                "12.5 is out of range",
                "12.5 is out of range",
                "…",
                "ordinary text is kept",
            ),
        ];
        for (input, has, lacks, why) in cases {
            let out = short(input);
            assert!(out.contains(has), "{why}: {out:?} should contain {has:?}");
            assert!(
                !out.contains(lacks),
                "{why}: {out:?} should not contain {lacks:?}"
            );
            assert!(
                out.chars().count() <= MAX_MESSAGE_CHARS + 30,
                "{why}: at most a short excerpt"
            );
        }
    }

    #[test]
    fn offsets_become_lines_and_columns() {
        let text = "a = 1\n[gpu.x]\nname = \"é\"\nbad = 2\n";
        // (offset, line, column, why)
        let cases = [
            (0, 1, 1, "start"),
            (6, 2, 1, "start of line 2"),
            (
                text.find("bad").unwrap_or(0),
                4,
                1,
                "after a multibyte line",
            ),
        ];
        for (offset, line, col, why) in cases {
            assert_eq!(line_col(text, offset), (line, col), "{why}");
        }
        let e = DataError::invalid("f.toml", text, "gpu.x", "bad", "nope");
        assert_eq!(
            (e.line, e.field.as_str()),
            (4, "gpu.x.bad"),
            "validation errors point at the key inside its table"
        );
    }
}

/// The field a JSON error is about: a key the schema does not know, or one
/// it needs and did not get, is that key, which serde names (a missing key
/// is reported at the object's end, after the last key written); any other
/// error is at the value of the key written before it. `None` for an empty
/// key (`"": 1`), which names nothing.
fn json_field(text: &str, err: &serde_json::Error) -> Option<String> {
    let said = err.to_string();
    ["unknown field `", "missing field `"]
        .iter()
        .find_map(|p| said.strip_prefix(p))
        .and_then(|rest| rest.split_once('`'))
        .map(|(key, _)| key.to_owned())
        .or_else(|| json_key_before(text, err.line(), err.column()))
        .filter(|k| !k.is_empty())
}

/// The last object key (`"name":`) written before `line`:`column` of `text`
/// (1-based, as serde_json counts), if the text has one.
fn json_key_before(text: &str, line: usize, column: usize) -> Option<String> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let upto = start.saturating_add(column).min(text.len());
    let head = text.get(..upto)?;
    // Walk back over `"key"` followed by optional spaces and a colon.
    let mut end = head.len();
    while let Some(colon) = head[..end].rfind(':') {
        let before = head[..colon].trim_end();
        if let Some(key_body) = before.strip_suffix('"') {
            if let Some(open) = key_body.rfind('"') {
                let key = key_body.get(open.saturating_add(1)..).unwrap_or_default();
                if !key.is_empty()
                    && key.len() <= 64
                    && key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    return Some(key.to_owned());
                }
            }
        }
        end = colon;
    }
    None
}

#[cfg(test)]
mod json_key_tests {
    use super::json_key_before;

    #[test]
    fn the_key_before_a_bad_value_is_named() {
        let text = "{\"a\": 1,\n  \"wall_seconds\": -5}";
        // (line, column, expected, why)
        let cases = [
            (2, 20, Some("wall_seconds"), "the value after its key"),
            (1, 7, Some("a"), "the first key"),
            (1, 1, None, "no key before the start"),
        ];
        for (line, column, want, why) in cases {
            assert_eq!(
                json_key_before(text, line, column).as_deref(),
                want,
                "{why}"
            );
        }
    }
}

#[cfg(test)]
mod unknown_key_tests {
    use super::DataError;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // read only by serde: the test is about its refusal
    struct Report {
        exit_status: i32,
        wall_seconds: u64,
    }

    #[test]
    fn a_key_the_schema_does_not_know_is_named_not_the_key_before_it() {
        let text = "{\"exit_status\": 0, \"extra\": 1}";
        let err = serde_json::from_str::<Report>(text).expect_err("unknown key");
        let e = DataError::from_json_text("r.json", text, "report", &err);
        assert_eq!(e.field, "extra", "the unknown key itself is named");
        let bad = "{\"exit_status\": \"zero\"}";
        let err = serde_json::from_str::<Report>(bad).expect_err("wrong kind");
        let e = DataError::from_json_text("r.json", bad, "report", &err);
        assert_eq!(e.field, "exit_status", "a bad value: the key it belongs to");
        let short = "{\"exit_status\": 0}";
        let err = serde_json::from_str::<Report>(short).expect_err("missing key");
        let e = DataError::from_json_text("r.json", short, "report", &err);
        assert_eq!(
            e.field, "wall_seconds",
            "a key left out is named, not the last key written before the object's end"
        );
        for broken in ["{\n  \"\",\n  \"exit_status\": 0}", "{\"\": 1}"] {
            let err = serde_json::from_str::<Report>(broken).expect_err("broken");
            let e = DataError::from_json_text("r.json", broken, "report", &err);
            assert_eq!(
                e.field, "report",
                "an empty key names nothing, so the error keeps its field: {broken}"
            );
        }
    }
}

#[cfg(test)]
mod number_with_unit_tests {
    use super::number_with_unit;

    #[test]
    fn an_amount_written_as_people_write_it_is_told_as_its_number() {
        // (value as the file writes it, the number alone, why)
        let cases = [
            ("\"150元\"", Some("150"), "yuan after the number"),
            ("\"¥2.5\"", Some("2.5"), "a yen sign before it"),
            ("\"2h\"", Some("2"), "hours"),
            ("\"１５０\"", Some("150"), "full-width digits"),
            ("\"1,500\"", Some("1500"), "a thousands comma"),
            (
                "\"150\"",
                None,
                "a plain number is not this case (it is read)",
            ),
            ("\"2026/12/05\"", None, "a date is not an amount"),
            ("\"abc\"", None, "no number at all"),
            ("150元", None, "not quoted: not a TOML string"),
            ("\"1.2.3\"", None, "two points"),
        ];
        for (v, want, why) in cases {
            assert_eq!(number_with_unit(v).as_deref(), want, "{why}");
        }
    }
}

#[cfg(test)]
mod full_width_mark_tests {
    use super::DataError;

    /// The mark, ASCII and place a plan file's syntax error is told with.
    fn told(text: &str) -> (String, String, String) {
        let err = toml::from_str::<toml::Table>(text).expect_err("not TOML");
        let e = DataError::from_toml("p.toml", text, &err);
        let said = e.said.expect("said");
        let p = |k: &str| said.params.get(k).cloned().unwrap_or_default();
        (
            said.key.clone(),
            format!("{} {}", p("mark"), p("ascii")),
            format!("{}:{}", p("markLine"), p("markColumn")),
        )
    }

    #[test]
    fn a_full_width_mark_is_named_with_the_ascii_to_write() {
        // (file, key told, "mark ascii", "line:column", why)
        let cases = [
            (
                "[job]\nhours ＝ 60\n",
                "fullWidthMark",
                "＝ =",
                "2:7",
                "an equals sign",
            ),
            (
                "name = “A run”\n",
                "fullWidthMark",
                "“ \"",
                "1:8",
                "curly quotes",
            ),
            (
                "［job］\nhours = 6\n",
                "fullWidthMark",
                "［ [",
                "1:1",
                "a table's brackets",
            ),
            (
                "name = \"数据，模型\"\nhours ＝ 6\n",
                "fullWidthMark",
                "＝ =",
                "2:7",
                "a comma inside a string is text, the mark after it is syntax",
            ),
            (
                "# 说明：预算\nhours = = 6\n",
                "notToml",
                " ",
                ":",
                "a mark in a comment is text; the error is elsewhere",
            ),
            (
                "hours = = 6\n",
                "notToml",
                " ",
                ":",
                "no full-width mark at all",
            ),
        ];
        for (text, key, mark, at, why) in cases {
            let (k, m, a) = told(text);
            assert_eq!(k, format!("error.parse.{key}"), "{why}");
            assert_eq!((m.as_str(), a.as_str()), (mark, at), "{why}");
        }
    }
}
