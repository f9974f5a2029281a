//! `gpuplan`: the command line over the use cases (`gpuplan-usecases`).
//!
//! Each subcommand parses its flags ([`args`]), calls one use case and
//! renders the answer ([`render`]): a table in Chinese or English from the
//! shared message catalog, or with `--json` the stable schema documented in
//! `docs/cli.md`. User data (overrides, packs) lives in the same database as
//! the app's. Bad input exits with code 2 and a message that names the field
//! and its allowed range; anything else that fails exits with 1.

mod args;
mod help;
mod render;
mod usage;

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;
use gpuplan_usecases::planning::{CustomConfig, PackExport, ShutdownRequest, MAX_CONFIG_BYTES};
use gpuplan_usecases::{files, home, AppError, Bundled, Home, Lang, Planner};

use crate::args::{
    Cli, Command, EstimateArgs, LedgerAction, OverrideAction, PackAction, PlansAction, ScriptKind,
};

fn clock() -> chrono::NaiveDateTime {
    chrono::Local::now().naive_local()
}

fn run(cli: &Cli, lang: Lang, planner: &mut Planner) -> Result<String, AppError> {
    match &cli.command {
        Command::Estimate(a) => estimate(planner, lang, a),
        Command::Models { json } => Ok(if *json {
            render::json(&planner.bundled().zoo)
        } else {
            render::models(planner.labels(), lang, &planner.bundled().zoo)
        }),
        Command::Gpus { json } => Ok(if *json {
            render::json(&planner.bundled().catalog)
        } else {
            render::gpus(
                planner.labels(),
                lang,
                &planner.bundled().catalog,
                planner.bundled().held_out()?,
            )
        }),
        Command::Platforms { id, json } => platforms(planner, lang, id.as_deref(), *json),
        Command::Quote { plan, json } => quote(planner, lang, plan, *json),
        Command::Recommend(a) => {
            let mut r = planner.recommend(&a.situation()?)?;
            r.options
                .truncate(usize::try_from(a.top).unwrap_or(usize::MAX));
            Ok(if a.json {
                render::json(&r)
            } else {
                render::recommendation(planner.labels(), lang, &r)
            })
        }
        Command::Override { action } => overrides(planner, lang, action),
        Command::Ledger { action } => ledger(planner, lang, action),
        Command::Plans { action } => plans(planner, lang, action),
        Command::Calibration { off, on, json } => {
            if *off || *on {
                planner.set_calibration(*on)?;
            }
            let view = planner.calibration()?;
            Ok(if *json {
                render::json(&view)
            } else {
                render::calibration(planner.labels(), lang, &view)
            })
        }
        Command::Pack { action } => pack(planner, lang, action),
        Command::Script { kind } => script(planner, lang, kind),
    }
}

/// A plan file, when one is named.
fn read_plan(
    planner: &mut Planner,
    p: &Option<std::path::PathBuf>,
) -> Result<Option<gpuplan_core::plan::Plan>, AppError> {
    p.as_deref().map(|p| planner.read_plan(p)).transpose()
}

/// `gpuplan estimate`.
fn estimate(planner: &mut Planner, lang: Lang, a: &EstimateArgs) -> Result<String, AppError> {
    let job = a.job.spec()?;
    let text = a
        .config
        .as_deref()
        .map(|p| files::read_text(p, "config", MAX_CONFIG_BYTES))
        .transpose()?;
    let name = a.config.as_ref().map(|p| p.display().to_string());
    let config = text
        .as_deref()
        .zip(name.as_deref())
        .map(|(text, name)| CustomConfig { name, text });
    let report = planner.estimate(&job, a.gpu.as_deref(), config, a.platform.as_deref())?;
    Ok(if a.json {
        render::json(&report)
    } else {
        let accuracy = planner.bundled().held_out_note(&report)?;
        render::estimate(planner.labels(), lang, &report, accuracy.as_ref())
    })
}

/// `gpuplan platforms [ID]`.
fn platforms(
    planner: &mut Planner,
    lang: Lang,
    id: Option<&str>,
    json: bool,
) -> Result<String, AppError> {
    let set = planner.platforms()?;
    Ok(match (id, json) {
        (None, true) => render::json(&*set),
        (None, false) => render::platforms(planner.labels(), lang, &set),
        (Some(id), true) => render::json(&set.get(id)?.facts()),
        (Some(id), false) => render::platform_facts(planner.labels(), lang, set.get(id)?),
    })
}

/// `gpuplan quote PLAN`.
fn quote(
    planner: &mut Planner,
    lang: Lang,
    plan: &std::path::Path,
    json: bool,
) -> Result<String, AppError> {
    let (_, q) = planner.quote_file(plan)?;
    if json {
        return Ok(render::json(&q));
    }
    // The platform and the card by the names a person reads.
    let platform = planner
        .platforms()?
        .get(&q.platform)
        .map(|p| render::localized(lang, &p.name))
        .unwrap_or_else(|_| q.platform.clone());
    let card = planner
        .bundled()
        .catalog
        .get(&q.gpu)
        .map(|g| g.label())
        .unwrap_or_else(|_| q.gpu.clone());
    let names = render::QuoteNames { platform, card };
    let age = planner.price_age(&q)?;
    Ok(render::quote(planner.labels(), lang, &q, &names, &age))
}

/// `gpuplan override`.
fn overrides(
    planner: &mut Planner,
    lang: Lang,
    action: &OverrideAction,
) -> Result<String, AppError> {
    match action {
        OverrideAction::Set {
            platform,
            gpu,
            price,
            note,
        } => {
            let row = planner.set_override(platform, gpu, price, note)?;
            Ok(planner.labels().fill(
                lang,
                "cli.overrideSet",
                [
                    ("platform", row.platform.as_str()),
                    ("gpu", row.gpu.as_str()),
                    ("price", row.price_per_hour.to_string().as_str()),
                ],
            ))
        }
        OverrideAction::List { json } => {
            let rows = planner.overrides()?;
            Ok(if *json {
                render::json(&rows)
            } else {
                render::overrides(planner.labels(), lang, &rows)
            })
        }
        OverrideAction::Clear => planner
            .clear_overrides()
            .map(|()| planner.labels().text(lang, "cli.overridesCleared")),
    }
}

/// `gpuplan ledger`.
fn ledger(planner: &mut Planner, lang: Lang, action: &LedgerAction) -> Result<String, AppError> {
    match action {
        LedgerAction::Import {
            files: paths,
            cost,
            plan,
            json,
        } => {
            if cost.is_some() && paths.len() > 1 {
                return Err(AppError::input(
                    "cost",
                    "--cost is one bill: it cannot apply to several reports",
                    "import one report with --cost, or several without",
                )
                .said(
                    gpuplan_core::Message::new("error.costOneReport"),
                    Some(gpuplan_core::Message::new("allowed.costOneReport")),
                ));
            }
            let plan = read_plan(planner, plan)?;
            // All or none: a file that fails adds nothing, so a retry never
            // duplicates a bill (and a report seen before is not added again).
            let paths: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
            let runs = planner.import_report_files(&paths, cost.as_deref(), plan.as_ref())?;
            Ok(if *json {
                render::json(&runs)
            } else {
                render::imported_runs(planner.labels(), lang, &runs)
            })
        }
        LedgerAction::List { json } => {
            let page = planner.ledger()?;
            Ok(if *json {
                render::json(&page.entries)
            } else {
                render::ledger(planner.labels(), lang, &page)
            })
        }
        LedgerAction::Delete { id } => {
            planner.delete_ledger(*id)?;
            Ok(planner
                .labels()
                .fill(lang, "cli.billDeleted", [("id", id.to_string().as_str())]))
        }
        LedgerAction::Runs { out, force } => {
            let text = planner.export_measured_runs()?;
            files::write_new(out, text.as_bytes(), *force)?;
            Ok(out.display().to_string())
        }
    }
}

/// `gpuplan pack`.
fn pack(planner: &mut Planner, lang: Lang, action: &PackAction) -> Result<String, AppError> {
    match action {
        PackAction::Export {
            name,
            instructor,
            platforms,
            presets,
            budget_cap,
            runs,
            out,
            force,
        } => {
            let presets = presets
                .iter()
                .map(|p| planner.read_plan(p))
                .collect::<Result<Vec<_>, _>>()?;
            let mut measured_runs = Vec::new();
            for p in runs {
                let text = files::read_text(p, "measured_runs", files::MAX_USER_FILE_BYTES)?;
                measured_runs.extend(planner.parse_measured_runs(&p.display().to_string(), &text)?);
            }
            let text = planner.export_pack(&PackExport {
                name,
                instructor,
                platforms,
                presets,
                budget_cap: budget_cap.as_deref(),
                measured_runs,
            })?;
            files::write_new(out, text.as_bytes(), *force)?;
            Ok(out.display().to_string())
        }
        PackAction::Import { file } => {
            let pack = planner.import_pack_file(file)?;
            Ok(planner.labels().fill(
                lang,
                "cli.packImported",
                [
                    ("name", render::clean(&pack.pack.name).as_str()),
                    ("platforms", pack.platforms.len().to_string().as_str()),
                    ("presets", pack.presets.len().to_string().as_str()),
                    ("runs", pack.measured_runs.len().to_string().as_str()),
                ],
            ))
        }
        PackAction::List { json } => {
            let rows = planner.packs()?;
            Ok(if *json {
                render::json(&rows)
            } else {
                render::packs(planner.labels(), lang, &rows)
            })
        }
        PackAction::Remove { name } => planner.remove_pack(name).map(|()| {
            planner
                .labels()
                .fill(lang, "cli.packRemoved", [("name", name.as_str())])
        }),
    }
}

/// A generated script's notes (a walltime cut to the cluster's cap), on
/// stderr so the script itself can be redirected to a file.
fn script_notes(planner: &Planner, lang: Lang, notes: &[gpuplan_core::Message]) {
    for n in notes {
        note(&format!(
            "gpuplan{colon}{}{colon}{}",
            planner.labels().text(lang, "cli.note"),
            planner.labels().message(lang, n),
            colon = lang.colon()
        ));
    }
}

/// `gpuplan script`.
fn script(planner: &mut Planner, lang: Lang, kind: &ScriptKind) -> Result<String, AppError> {
    match kind {
        ScriptKind::Shutdown {
            platform,
            job_name,
            command,
            max_hours,
            plan,
            destroy,
        } => {
            let plan = read_plan(planner, plan)?;
            planner.shutdown_script(&ShutdownRequest {
                platform,
                job_name: job_name.as_deref(),
                command,
                max_hours: *max_hours,
                plan: plan.as_ref(),
                destroy: *destroy,
            })
        }
        ScriptKind::Slurm(a) => {
            let plan = read_plan(planner, &a.plan)?;
            let s = planner.slurm_script(&a.request(plan.as_ref()))?;
            script_notes(planner, lang, &s.notes);
            Ok(s.text)
        }
        ScriptKind::Probe => Ok(planner.probe_script().text),
        ScriptKind::OfflineInstall { python } => {
            Ok(planner.offline_script(python.as_deref())?.text)
        }
        ScriptKind::Resume { every, plan } => {
            let plan = read_plan(planner, plan)?;
            Ok(planner.resume_script(*every, plan.as_ref())?.text)
        }
        ScriptKind::Launch {
            plan,
            command,
            config,
        } => {
            let plan = read_plan(planner, &Some(plan.clone()))?.ok_or_else(|| {
                AppError::input("plan", "a plan file is needed", "--plan plan.toml").said(
                    gpuplan_core::Message::new("error.planNeeded"),
                    Some(gpuplan_core::Message::new("allowed.planFile")),
                )
            })?;
            let s = planner.launch_config(&plan, command, config)?;
            script_notes(planner, lang, &s.notes);
            Ok(s.text)
        }
        ScriptKind::Report { plan, platform } => {
            let plan = read_plan(planner, plan)?;
            Ok(planner
                .report_module(platform.as_deref(), plan.as_ref())?
                .text)
        }
        ScriptKind::Checklist { platform, plan } => {
            let plan = read_plan(planner, plan)?;
            let items = planner.checklist(platform, plan.as_ref())?;
            Ok(render::checklist(planner.labels(), lang, &items))
        }
    }
}

/// Prints a line to stderr, escaped like everything printed.
fn note(text: &str) {
    eprintln!("{}", render::clean(text));
}

/// Prints to stdout; a reader that went away (`gpuplan quote … | head`) ends
/// the output quietly instead of a panic. Everything printed passes through
/// [`render::clean`], so no text from a plan, pack or config file can reach
/// the terminal as an escape sequence, whichever renderer built it.
fn print(text: &str) -> bool {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{}", render::clean(text)).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
    }
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // clap's refusals are worded again from the catalog (`usage`), so the
    // line is parsed without letting clap print and exit.
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return usage::refuse(&e, &args, usage::lang(None, &args)),
    };
    let lang = usage::lang(cli.lang.map(Lang::from), &args);
    let bundled = match Bundled::load() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("gpuplan: bundled data is invalid: {e}");
            return ExitCode::from(1);
        }
    };
    let mut planner = Planner::new(bundled, Home::Folder(home::data_home()), clock);
    let result = run(&cli, lang, &mut planner);
    for n in planner.notices() {
        note(&format!(
            "gpuplan{colon}{}{colon}{}",
            planner.labels().text(lang, "cli.note"),
            planner.labels().message(lang, n),
            colon = lang.colon()
        ));
    }
    if let Ok(unmatched) = planner.unmatched_overrides() {
        for o in unmatched {
            note(&format!(
                "gpuplan{colon}{}{colon}{}",
                planner.labels().text(lang, "cli.note"),
                planner.labels().fill(
                    lang,
                    "cli.overrideUnmatched",
                    [("platform", o.platform.as_str()), ("gpu", o.gpu.as_str())]
                ),
                colon = lang.colon()
            ));
        }
    }
    match result {
        Ok(out) => {
            if out.is_empty() || print(&out) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            note(&format!(
                "gpuplan{colon}{}{colon}{}",
                planner.labels().text(lang, "error.prefix"),
                planner.labels().error(lang, &e),
                colon = lang.colon()
            ));
            ExitCode::from(if e.is_user_error() { 2 } else { 1 })
        }
    }
}

/// `gpuplan plans`: the app's saved plans, moved between the app and files.
fn plans(planner: &mut Planner, lang: Lang, action: &PlansAction) -> Result<String, AppError> {
    let find = |planner: &mut Planner,
                id: i64|
     -> Result<gpuplan_usecases::views::SavedPlanRow, AppError> {
        planner
            .plans()?
            .into_iter()
            .find(|p| p.id == id)
            .ok_or_else(|| {
                AppError::input(
                    "id",
                    format!("no saved plan {id}"),
                    "an id from `gpuplan plans list`",
                )
                .said(
                    gpuplan_core::Message::new("error.noSuchPlan").with("id", id),
                    Some(gpuplan_core::Message::new("allowed.planId")),
                )
            })
    };
    match action {
        PlansAction::List { json } => {
            let rows = planner.plans()?;
            Ok(if *json {
                render::json(&rows)
            } else {
                render::saved_plans(planner.labels(), lang, &rows)
            })
        }
        PlansAction::Show { id } => Ok(gpuplan_usecases::userdata::toml_for_terminal(
            find(planner, *id)?.toml.trim_end(),
        )),
        PlansAction::Export { id, out, force } => {
            let row = find(planner, *id)?;
            files::write_new(out, row.toml.as_bytes(), *force)?;
            Ok(out.display().to_string())
        }
        PlansAction::Delete { id } => {
            let deleted = planner.delete_plan(*id)?;
            Ok(planner.labels().fill(
                lang,
                "cli.planDeleted",
                [
                    ("id", id.to_string().as_str()),
                    ("name", deleted.name.as_str()),
                ],
            ))
        }
        PlansAction::Import { file } => {
            let imported = planner.import_plan(file)?;
            let key = if imported.already_saved {
                "cli.planAlreadySaved"
            } else {
                "cli.planImported"
            };
            Ok(planner.labels().fill(
                lang,
                key,
                [
                    ("id", imported.id.to_string().as_str()),
                    ("name", imported.name.as_str()),
                ],
            ))
        }
    }
}

#[cfg(test)]
mod help_texts {
    use clap::CommandFactory;

    /// The help in each language: every command and flag has its text in
    /// the catalog, the English one is the doc comment's, and the command
    /// clap builds from it passes clap's own checks (every subcommand).
    #[test]
    fn every_help_text_is_in_the_catalog_in_both_languages() {
        use gpuplan_usecases::labels::{Catalog, Lang};
        let c = Catalog::bundled().expect("catalog");
        let mut missing = Vec::new();
        let mut used = std::collections::BTreeSet::new();
        for t in crate::help::texts(&crate::args::Cli::command()) {
            let key = crate::help::key(&c, &t.path, t.arg.as_deref());
            used.insert(key.clone());
            if !c.has(&key) {
                missing.push(format!("{key}: {}", t.english));
                continue;
            }
            assert_eq!(
                c.text(Lang::En, &key),
                t.english,
                "{key}: the catalog's English is the doc comment's"
            );
            let zh = c.text(Lang::Zh, &key);
            assert!(
                zh.chars().any(|ch| ('\u{4e00}'..='\u{9fff}').contains(&ch)),
                "{key}: Chinese in Chinese: {zh}"
            );
        }
        assert!(
            missing.is_empty(),
            "help texts the catalog lacks:\n{}",
            missing.join("\n")
        );
        let dead: Vec<&str> = c
            .keys(Lang::En)
            .filter(|k| k.starts_with("help.cmd") || k.starts_with("help.arg."))
            .filter(|k| !used.contains(*k))
            .collect();
        assert!(
            dead.is_empty(),
            "help keys no command or flag uses: {dead:?}"
        );
        for lang in [Lang::Zh, Lang::En] {
            let cmd = crate::help::localized(crate::args::Cli::command(), &c, lang);
            // clap's debug checks of every command, as `--help` builds it.
            fn check(cmd: &mut clap::Command) {
                cmd.build();
                for sub in cmd.get_subcommands_mut() {
                    check(sub);
                }
            }
            let mut cmd = cmd;
            check(&mut cmd);
        }
    }

    /// Prints every help text clap holds, path, flag and English (to start
    /// a translation):
    /// `cargo test -p gpuplan-cli --bin gpuplan help_skeleton -- --ignored --nocapture`.
    #[test]
    #[ignore = "prints the help texts for the catalog"]
    fn help_skeleton() {
        for t in crate::help::texts(&crate::args::Cli::command()) {
            println!("{}", serde_json::json!([t.path, t.arg, t.english]));
        }
    }
}
