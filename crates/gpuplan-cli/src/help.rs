//! `--help` in the student's language: every command's and flag's help
//! from the catalog, and the headings and clap's own flags too. Keys:
//! `help.cmd` and `help.cmd.<command path>` for the commands; `help.arg.<id>`
//! for a flag that says the same everywhere it appears, else
//! `help.arg.<command path>.<id>`. The doc comments in `args` are the
//! English text (a test keeps the catalog's English equal to them), so a
//! reader of the code reads what an English reader of `--help` reads.

use clap::Command;
use gpuplan_usecases::labels::{Catalog, Lang};

/// One help text clap holds: where it is, and clap's (English) text.
#[cfg(test)]
pub struct HelpText {
    /// The command path (`plans.list`; empty at the top).
    pub path: String,
    /// The flag's id, or `None` for the command's own `about`.
    pub arg: Option<String>,
    /// clap's text.
    pub english: String,
}

/// Every text `--help` shows: the commands' `about`s and every flag's help
/// (a global flag once, at the top).
#[cfg(test)]
pub fn texts(cmd: &Command) -> Vec<HelpText> {
    let mut out = Vec::new();
    walk(cmd, "", &mut out);
    out
}

#[cfg(test)]
fn walk(cmd: &Command, path: &str, out: &mut Vec<HelpText>) {
    if let Some(about) = cmd.get_about() {
        out.push(HelpText {
            path: path.to_owned(),
            arg: None,
            english: about.to_string(),
        });
    }
    for a in cmd.get_arguments() {
        if a.is_global_set() && !path.is_empty() {
            continue;
        }
        if let Some(h) = a.get_help() {
            out.push(HelpText {
                path: path.to_owned(),
                arg: Some(a.get_id().to_string()),
                english: h.to_string(),
            });
        }
    }
    for sub in cmd.get_subcommands() {
        let p = if path.is_empty() {
            sub.get_name().to_owned()
        } else {
            format!("{path}.{}", sub.get_name())
        };
        walk(sub, &p, out);
    }
}

/// The catalog key of a help text (see the module's keys).
pub fn key(c: &Catalog, path: &str, arg: Option<&str>) -> String {
    match arg {
        None if path.is_empty() => "help.cmd".to_owned(),
        None => format!("help.cmd.{path}"),
        Some(id) => {
            let own = format!("help.arg.{path}.{id}");
            if !path.is_empty() && c.has(&own) {
                own
            } else {
                format!("help.arg.{id}")
            }
        }
    }
}

/// `cmd` with its help in `lang`.
pub fn localized(cmd: Command, c: &Catalog, lang: Lang) -> Command {
    let heading = c.text(lang, "help.heading.options");
    apply(cmd, c, lang, "", &heading)
        .disable_version_flag(true)
        .arg(
            clap::Arg::new("help")
                .short('h')
                .long("help")
                .action(clap::ArgAction::Help)
                .help(c.text(lang, "help.flag.help"))
                .help_heading(heading.clone())
                // Last in every list, not among a command's own flags.
                .display_order(usize::MAX)
                .global(true),
        )
        .arg(
            clap::Arg::new("version")
                .short('V')
                .long("version")
                .action(clap::ArgAction::Version)
                .help(c.text(lang, "help.flag.version"))
                .help_heading(heading)
                .display_order(usize::MAX),
        )
}

fn apply(cmd: Command, c: &Catalog, lang: Lang, path: &str, heading: &str) -> Command {
    let text = |k: String| c.has(&k).then(|| c.text(lang, &k));
    let mut cmd = match text(key(c, path, None)) {
        Some(about) => cmd.about(about),
        None => cmd,
    };
    let args: Vec<(String, bool)> = cmd
        .get_arguments()
        .map(|a| (a.get_id().to_string(), a.is_global_set()))
        .collect();
    for (id, global) in args {
        let at = if global { "" } else { path };
        let help = text(key(c, at, Some(&id)));
        let heading = heading.to_owned();
        let arguments = c.text(lang, "help.heading.arguments");
        cmd = cmd.mut_arg(id.as_str(), move |a| {
            // The choices are in the help text itself, in the reader's
            // language (clap's own list would say "Possible values").
            // So are the defaults (clap's own would say "default").
            let a = if a.get_action().takes_values() {
                a.hide_possible_values(true).hide_default_value(true)
            } else {
                a
            };
            let a = if a.is_positional() {
                a.help_heading(arguments)
            } else {
                a.help_heading(heading)
            };
            match help {
                Some(h) => a.help(h),
                None => a,
            }
        });
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        let sub = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        cmd = cmd.mut_subcommand(name.as_str(), |s| apply(s, c, lang, &sub, heading));
    }
    cmd.subcommand_help_heading(c.text(lang, "help.heading.commands"))
        .help_template(c.text(lang, "help.template"))
        .disable_help_flag(true)
        .disable_help_subcommand(true)
}
