//! The command line's own mistakes (an unknown flag, a missing value, a
//! word where a number goes, an unknown command) in the student's language.
//!
//! clap finds them and words them in English; here its error kind and
//! context (the flag, the value, clap's suggestion) are worded again from
//! the catalog (`error.cli.*`). The language is read from the arguments
//! before clap parses them, so `--lang zh` counts even on a line clap
//! refuses.

use std::ffi::OsString;
use std::num::{IntErrorKind, ParseFloatError, ParseIntError};
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;
use gpuplan_core::error::short;
use gpuplan_usecases::labels::Catalog;
use gpuplan_usecases::Lang;

use crate::args::Cli;

/// The language asked for: `--lang` as parsed, else as written on a
/// command line clap could not parse, else the system's.
pub fn lang(parsed: Option<Lang>, args: &[OsString]) -> Lang {
    parsed.or_else(|| scanned(args)).unwrap_or_else(|| {
        sys_locale::get_locale()
            .map(|l| Lang::from_tag(&l))
            .unwrap_or(Lang::En)
    })
}

/// `--lang zh` or `--lang=zh` anywhere before a `--`, with a value clap
/// would take (the last one wins, as with clap).
fn scanned(args: &[OsString]) -> Option<Lang> {
    let mut found = None;
    let mut words = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(w) = words.next() {
        let value = match w {
            "--" => break,
            "--lang" => words.next(),
            _ => w.strip_prefix("--lang="),
        };
        found = match value {
            Some("zh") => Some(Lang::Zh),
            Some("en") => Some(Lang::En),
            _ => found,
        };
    }
    found
}

/// clap ends each heading of the help ("选项", "命令", "参数") with an
/// ASCII colon; Chinese text takes the full-width one, as `用法：` has.
fn headings_punctuated(help: &str, c: &Catalog, lang: Lang) -> String {
    if lang != Lang::Zh {
        return help.to_owned();
    }
    let headings: Vec<String> = ["options", "commands", "arguments"]
        .iter()
        .map(|h| format!("{}:", c.text(lang, &format!("help.heading.{h}"))))
        .collect();
    help.lines()
        .map(
            |l| match headings.iter().find(|h| l.trim_end() == h.as_str()) {
                Some(h) => format!("{}{}", h.trim_end_matches(':'), lang.colon()),
                None => l.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
        + if help.ends_with('\n') { "\n" } else { "" }
}

/// Ends a command line clap refused. Help and the version are not errors:
/// help prints in the reader's language (`help`: the catalog's text for
/// every command and flag) and the version as clap writes it; both exit 0. Every other refusal, a command
/// with its subcommand missing too (where clap would print the help and
/// exit 2), is worded from the catalog and exits 2, like any bad input.
pub fn refuse(e: &clap::Error, args: &[OsString], lang: Lang) -> ExitCode {
    let catalog = Catalog::bundled().ok();
    // Help in the reader's language: the same line parsed again by the
    // command with the catalog's help, which prints it.
    // `gpuplan help quote --lang zh` is a request for help too, though
    // clap's own `help` takes no flags after the command.
    let wants_help = e.kind() == ErrorKind::DisplayHelp || asks_help(args);
    if let (true, Some(c)) = (wants_help, &catalog) {
        use clap::CommandFactory;
        let localized = crate::help::localized(crate::args::Cli::command(), c, lang);
        // `gpuplan help estimate` is `gpuplan estimate --help`.
        let line: Vec<OsString> = match args.iter().position(|a| a == "help") {
            Some(i) => args[..i]
                .iter()
                .chain(args.iter().skip(i.saturating_add(1)))
                .cloned()
                .chain([OsString::from("--help")])
                .collect(),
            None => args.to_vec(),
        };
        if let Err(help) = localized.try_get_matches_from(&line) {
            if help.kind() == ErrorKind::DisplayHelp {
                print!(
                    "{}",
                    headings_punctuated(&help.render().to_string(), c, lang)
                );
                return ExitCode::SUCCESS;
            }
        }
    }
    let catalog = match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => None,
        _ => catalog,
    };
    let Some(c) = catalog else {
        // A broken bundled catalog is a build defect; clap's own text is
        // still better than nothing.
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    };
    crate::note(&format!(
        "gpuplan{colon}{}{colon}{}",
        c.text(lang, "error.prefix"),
        explain(&c, lang, e, args),
        colon = lang.colon()
    ));
    crate::note(&c.fill(
        lang,
        "error.cli.help",
        [("command", command(args).as_str())],
    ));
    ExitCode::from(2)
}

/// Whether the line's command is `help` (after the global `--lang`).
fn asks_help(args: &[OsString]) -> bool {
    let mut words = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(w) = words.next() {
        match w {
            "--lang" => {
                words.next();
            }
            w if w.starts_with("--lang=") => {}
            w => return w == "help",
        }
    }
    false
}

/// One context value as text (several joined as a list).
fn get(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => Some(v.join(", ")),
        ContextValue::StyledStr(s) => Some(s.to_string()),
        ContextValue::StyledStrs(v) => Some(
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        ContextValue::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A flag as a person names it: `--batch`, not clap's `--batch <BATCH>`
/// (a positional argument keeps its `<PLAN>`).
fn flag(arg: &str) -> String {
    let first = arg.split_whitespace().next().unwrap_or(arg);
    short(if first.starts_with('-') { first } else { arg })
}

/// The command the line names: the subcommands on it, in order, up to the
/// first word that is none (`gpuplan ledger import`), and its definition.
fn named(args: &[OsString]) -> (String, clap::Command) {
    let mut cmd = Cli::command();
    let mut path = vec!["gpuplan".to_owned()];
    for a in args.iter().skip(1).filter_map(|a| a.to_str()) {
        if a == "--" {
            break;
        }
        if let Some(sub) = cmd.find_subcommand(a).cloned() {
            path.push(short(a));
            cmd = sub;
        }
    }
    (path.join(" "), cmd)
}

/// The command whose `--help` to read.
fn command(args: &[OsString]) -> String {
    named(args).0
}

/// A command that needs a subcommand and got none, with its choices.
fn needs_command(c: &Catalog, lang: Lang, args: &[OsString]) -> String {
    let (command, cmd) = named(args);
    let list: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
    c.fill(
        lang,
        "error.cli.missingCommand",
        [
            ("command", command.as_str()),
            ("list", short(&list.join(", ")).as_str()),
        ],
    )
}

/// What clap refused, in `lang`.
fn explain(c: &Catalog, lang: Lang, e: &clap::Error, args: &[OsString]) -> String {
    let arg = flag(&get(e, ContextKind::InvalidArg).unwrap_or_default());
    let value = short(&get(e, ContextKind::InvalidValue).unwrap_or_default());
    let fill = |key: &str| {
        c.fill(
            lang,
            key,
            [("arg", arg.as_str()), ("value", value.as_str())],
        )
    };
    match e.kind() {
        ErrorKind::UnknownArgument => {
            let key = if arg.starts_with('-') {
                "error.cli.unknownFlag"
            } else {
                "error.cli.unexpected"
            };
            suggest(c, lang, fill(key), get(e, ContextKind::SuggestedArg))
        }
        ErrorKind::InvalidSubcommand => {
            let command = short(&get(e, ContextKind::InvalidSubcommand).unwrap_or_default());
            let text = c.fill(
                lang,
                "error.cli.unknownCommand",
                [("command", command.as_str())],
            );
            suggest(c, lang, text, get(e, ContextKind::SuggestedSubcommand))
        }
        ErrorKind::InvalidValue if value.is_empty() => fill("error.cli.missingValue"),
        ErrorKind::InvalidValue => {
            let text = fill("error.cli.invalidValue");
            match get(e, ContextKind::ValidValue) {
                Some(list) => sentence(c, lang, text, "error.oneOf", "list", &list),
                None => text,
            }
        }
        ErrorKind::ValueValidation => match ranged(e) {
            Some(r) => {
                let (min, max) = (r.min.to_string(), r.max.to_string());
                c.fill(
                    lang,
                    "error.cli.range",
                    [
                        ("arg", arg.as_str()),
                        ("value", value.as_str()),
                        ("min", min.as_str()),
                        ("max", max.as_str()),
                    ],
                )
            }
            None => fill(parse_failure(e)),
        },
        ErrorKind::NoEquals => fill("error.cli.noEquals"),
        ErrorKind::TooManyValues | ErrorKind::TooFewValues | ErrorKind::WrongNumberOfValues => {
            fill("error.cli.valueCount")
        }
        ErrorKind::ArgumentConflict => {
            let other = flag(&get(e, ContextKind::PriorArg).unwrap_or_default());
            if other == arg {
                return fill("error.cli.twice");
            }
            c.fill(
                lang,
                "error.cli.conflict",
                [("arg", arg.as_str()), ("other", other.as_str())],
            )
        }
        ErrorKind::MissingRequiredArgument => missing(c, lang, e),
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            needs_command(c, lang, args)
        }
        ErrorKind::InvalidUtf8 => c.text(lang, "error.cli.notUtf8"),
        _ => c.text(lang, "error.cli.other"),
    }
}

/// A whole number a flag takes only within a range: what its parser
/// returns for any other value, so the refusal can say the range.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    /// Smallest value taken.
    pub min: u64,
    /// Largest value taken.
    pub max: u64,
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a whole number from {} to {}", self.min, self.max)
    }
}

impl std::error::Error for Range {}

/// The catalog key for a typed value its parser refused: a whole number
/// with letters or out of its type's range, or a number that is not one.
fn parse_failure(e: &clap::Error) -> &'static str {
    let source = std::error::Error::source(e);
    if let Some(p) = source.and_then(|s| s.downcast_ref::<ParseIntError>()) {
        return match p.kind() {
            IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => "error.cli.outOfRange",
            _ => "error.cli.notWhole",
        };
    }
    if source.is_some_and(|s| s.is::<ParseFloatError>()) {
        return "error.cli.notNumber";
    }
    "error.cli.invalidValue"
}

/// The range a flag's parser refused a value for, when it has one.
fn ranged(e: &clap::Error) -> Option<Range> {
    std::error::Error::source(e)?
        .downcast_ref::<Range>()
        .copied()
}

/// The arguments a command needs and did not get, as a list.
fn missing(c: &Catalog, lang: Lang, e: &clap::Error) -> String {
    let args: Vec<String> = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(v)) => v.iter().map(|a| flag(a)).collect(),
        Some(ContextValue::String(s)) => vec![flag(s)],
        _ => Vec::new(),
    };
    let sep = match lang {
        Lang::Zh => "、",
        Lang::En => ", ",
    };
    c.fill(
        lang,
        "error.cli.missingArg",
        [("args", args.join(sep).as_str())],
    )
}

/// `text`, then clap's "did you mean" where it has one.
fn suggest(c: &Catalog, lang: Lang, text: String, suggestion: Option<String>) -> String {
    match suggestion {
        Some(s) => sentence(c, lang, text, "error.cli.didYouMean", "suggestion", &s),
        None => text,
    }
}

/// `text` followed by a second clause (`key` with one parameter).
fn sentence(c: &Catalog, lang: Lang, text: String, key: &str, name: &str, value: &str) -> String {
    let value = short(value);
    let more = c.fill(lang, key, [(name, value.as_str())]);
    let sep = match lang {
        Lang::Zh => "；",
        Lang::En => "; ",
    };
    format!("{text}{sep}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_is_read_before_clap_parses() {
        // (arguments after the program name, language found, why)
        let cases: [(&[&str], Option<Lang>, &str); 7] = [
            (
                &["--lang", "zh", "--bogus"],
                Some(Lang::Zh),
                "flag and value",
            ),
            (&["estimate", "--lang=en"], Some(Lang::En), "flag=value"),
            (&["--lang", "fr"], None, "a value clap refuses is no choice"),
            (&["--lang"], None, "a flag without its value"),
            (
                &["--lang", "zh", "--lang", "en"],
                Some(Lang::En),
                "the last one wins, as in clap",
            ),
            (&["--", "--lang", "zh"], None, "after -- it is a value"),
            (&["quote", "plan.toml"], None, "no flag at all"),
        ];
        for (args, want, why) in cases {
            let argv: Vec<OsString> = std::iter::once("gpuplan")
                .chain(args.iter().copied())
                .map(OsString::from)
                .collect();
            assert_eq!(scanned(&argv), want, "{why}");
        }
    }

    #[test]
    fn flags_are_named_without_their_placeholders() {
        // (clap's spelling, shown, why)
        let cases = [
            ("--batch <BATCH>", "--batch", "a flag loses its placeholder"),
            ("<PLAN>", "<PLAN>", "a positional keeps its name"),
            ("--off", "--off", "a switch is itself"),
        ];
        for (arg, want, why) in cases {
            assert_eq!(flag(arg), want, "{why}");
        }
    }
}
