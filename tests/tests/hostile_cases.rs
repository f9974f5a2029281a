//! One named regression test per case issue 12 reported, each run the way a
//! student or an attacker would: through the released CLI binary where the
//! case was a command, through the use-case layer where it was the app.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpuplan_usecases::{AppError, Home, Planner};

fn home(tag: &str) -> PathBuf {
    let h = std::env::temp_dir().join(format!("gpuplan-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&h);
    std::fs::create_dir_all(&h).expect("home");
    h
}

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(common::gpuplan_binary())
        .args(args)
        .env("GPUPLAN_HOME", home)
        .current_dir(crate::common::root())
        .output()
        .expect("runs")
}

/// The command was refused as bad input (exit 2) with an error naming
/// `field`, short, without a panic.
fn refused(out: &Output, field: &str, why: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{why}: exit 2 (bad input), got {:?}: {err}",
        out.status.code()
    );
    assert!(!err.contains("panicked"), "{why}: no panic: {err}");
    assert!(
        err.contains(field),
        "{why}: the error names `{field}`: {err}"
    );
    assert!(
        err.len() < 1000,
        "{why}: the error is short ({} bytes)",
        err.len()
    );
}

fn planner(dir: &Path) -> Planner {
    Planner::new(common::bundled(), Home::Folder(dir.to_path_buf()), || {
        chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
            .and_then(|d| d.and_hms_opt(10, 0, 0))
            .unwrap_or_default()
    })
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

#[test]
fn a_file_saved_with_a_byte_order_mark_or_old_mac_line_ends_reads_as_its_lines() {
    let h = home("line-ends");
    let bom = write(&h, "bom.toml", "\u{feff}[pack]\nname = \"X\"\ncolor = 1\n");
    refused(
        &run(&h, &["pack", "import", &bom]),
        "pack.color",
        "an unknown key under a byte-order mark is named with its table",
    );
    // A platform given twice is located at the second, the one to remove.
    let pack = h.join("two.toml");
    let out = run(
        &h,
        &[
            "pack",
            "export",
            "--name",
            "D",
            "--platform",
            "autodl",
            "--platform",
            "gpushare",
            "--out",
            &pack.to_string_lossy(),
        ],
    );
    assert!(out.status.success(), "exported");
    let text = std::fs::read_to_string(&pack).expect("read");
    let second = text
        .lines()
        .position(|l| l == "id = \"gpushare\"")
        .expect("gpushare")
        + 1;
    let twice = write(
        &h,
        "twice.toml",
        &text.replace("id = \"gpushare\"", "id = \"autodl\""),
    );
    let out = run(&h, &["pack", "import", &twice]);
    refused(&out, "platform.id", "a platform given twice");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!(":{second}:")),
        "at line {second}, the second id: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cr = write(
        &h,
        "cr.toml",
        "name = \"x\"\rplatform = \"autodl\"\rgpu = \"rtx3090\"\r[job]\rhours = 2\r",
    );
    let out = run(&h, &["quote", &cr]);
    assert!(
        out.status.success(),
        "a plan whose lines end in \\r alone is read line by line: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_pack_edited_by_hand_keeps_money_to_the_fen_and_one_offer_per_card() {
    let h = home("pack-edited");
    let file = h.join("pack.toml");
    let path = file.to_string_lossy().into_owned();
    let out = run(
        &h,
        &[
            "pack",
            "export",
            "--name",
            "C",
            "--platform",
            "autodl",
            "--budget-cap",
            "150",
            "--out",
            &path,
        ],
    );
    assert!(
        out.status.success(),
        "exported: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let good = std::fs::read_to_string(&file).expect("read");
    let cap = good
        .lines()
        .find(|l| l.starts_with("budget_cap"))
        .expect("a cap line")
        .to_owned();
    // (edit from, edit to, field, why)
    let cases = [
        (
            cap.as_str(),
            "budget_cap = 150.123456",
            "budget_cap",
            "a cap in fen, as `pack export --budget-cap` takes it",
        ),
        (
            "gpu = \"rtx3090\"",
            "gpu = \"rtx4090\"",
            "gpu",
            "a second offer of one card: the instructor's price was silently dropped",
        ),
        (
            "typical = \"1.39\"",
            "typical = \"1.39005\"",
            "price_per_hour",
            "a price billed at places the bill's rate does not print",
        ),
    ];
    for (from, to, field, why) in cases {
        assert!(
            good.contains(from),
            "test setup: `{from}` is in the exported pack"
        );
        let edited = h.join("edited.toml");
        std::fs::write(&edited, good.replacen(from, to, 1)).expect("write");
        let out = run(&h, &["pack", "import", &edited.to_string_lossy()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{why}: refused as bad input: {err}"
        );
        assert!(err.contains(field), "{why}: names {field}: {err}");
    }
}

#[test]
fn what_an_instructor_or_student_typed_is_named_in_their_language() {
    let h = home("typed-fields");
    let out_file = h.join("pack.toml");
    let out_s = out_file.to_string_lossy().into_owned();
    for lang in ["en", "zh"] {
        let out = run(
            &h,
            &[
                "--lang",
                lang,
                "pack",
                "export",
                "--name",
                "a\u{1}b",
                "--platform",
                "autodl",
                "--out",
                &out_s,
            ],
        );
        refused(&out, "pack.name", "a control character in --name");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("exported pack"),
            "{lang}: not a line of a file the instructor never saw: {err}"
        );
        let out = run(
            &h,
            &[
                "--lang",
                lang,
                "pack",
                "export",
                "--name",
                "C",
                "--instructor",
                "a\u{1b}[2J",
                "--platform",
                "autodl",
                "--out",
                &out_s,
            ],
        );
        refused(
            &out,
            "pack.instructor",
            "an escape sequence in --instructor",
        );
    }
    // A platform named twice is in the pack once.
    let out = run(
        &h,
        &[
            "--lang",
            "zh",
            "pack",
            "export",
            "--name",
            "C",
            "--platform",
            "autodl",
            "--platform",
            "autodl",
            "--out",
            &out_s,
            "--force",
        ],
    );
    assert!(
        out.status.success(),
        "exported: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&out_file).expect("read");
    assert_eq!(text.matches("[[platform]]").count(), 1, "autodl once");
    // An unnamed plan is listed by ids, not by an English word.
    let plan = write(
        &h,
        "plan.toml",
        "name = \"\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n",
    );
    let out = run(&h, &["--lang", "zh", "plans", "import", &plan]);
    assert!(out.status.success(), "imported");
    let listed = run(&h, &["--lang", "zh", "plans", "list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains("autodl-rtx3090") && !text.contains(" plan "),
        "the unnamed plan is named by its platform and card: {text}"
    );
    let empty = home("typed-fields-ledger");
    let out = run(&empty, &["--lang", "zh", "ledger", "list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("账本") && !text.contains("FILE"),
        "the empty ledger's hint is Chinese: {text}"
    );
}

#[test]
fn a_pack_price_seen_in_the_future_is_refused_at_its_line() {
    let h = home("future-observed");
    let pack = h.join("pack.toml");
    let pack_s = pack.to_string_lossy().into_owned();
    let out = run(
        &h,
        &[
            "pack",
            "export",
            "--name",
            "C",
            "--platform",
            "autodl",
            "--out",
            &pack_s,
        ],
    );
    assert!(out.status.success(), "exported");
    let text = std::fs::read_to_string(&pack).expect("read");
    let at = text.find("observed = \"20").expect("a dated figure");
    let end = at + text[at..].find('\n').expect("line end");
    let edited = format!("{}observed = \"2099-01-01\"{}", &text[..at], &text[end..]);
    let line = edited[..at].matches('\n').count() + 1;
    std::fs::write(&pack, &edited).expect("write");
    let out = run(&h, &["--lang", "en", "pack", "import", &pack_s]);
    refused(&out, "observed", "a price seen in 2099");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("pack.toml:{line}:")),
        "the file and the line that writes the date (line {line}): {err}"
    );
    // A date that is no date is refused at the figure's own table, not at
    // its platform's id.
    let bad = format!("{}observed = \"2026-13-01\"{}", &text[..at], &text[end..]);
    let header = bad[..at]
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('['))
        .map(|(i, _)| i + 1)
        .last()
        .expect("a table above");
    std::fs::write(&pack, &bad).expect("write");
    let out = run(&h, &["--lang", "en", "pack", "import", &pack_s]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused: {err}");
    assert!(
        err.contains(&format!("pack.toml:{header}:")),
        "at the table of the figure (line {header}): {err}"
    );
}

#[test]
fn a_timeline_made_long_by_a_slow_upload_names_the_upload() {
    let h = home("slow-upload");
    let plan = write(
        &h,
        "plan.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n[data]\nsize_gb = 100000\nupload_mbps = 0.001\n",
    );
    for lang in ["en", "zh"] {
        refused(
            &run(&h, &["--lang", lang, "quote", &plan]),
            "data.upload_mbps",
            "100 TB at 1 kbit/s is what makes the plan centuries long, not its runs",
        );
    }
    // A plan over ten years names the part that made it so.
    let head = "name = \"n\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n";
    // (rest of the file, field named, why)
    let cases = [
        (
            "setup_hours = 87600\n[job]\nhours = 2\n",
            "setup_hours",
            "ten years of setup",
        ),
        (
            "[job]\nhours = 2\n[debug]\ngpu = \"rtx3090\"\nhours = 87600\n",
            "debug.hours",
            "ten years of debugging",
        ),
        ("[job]\nhours = 87600\n", "job.hours", "a ten-year job"),
    ];
    for (rest, field, why) in cases {
        let plan = write(&h, "long.toml", &format!("{head}{rest}"));
        refused(&run(&h, &["--lang", "en", "quote", &plan]), field, why);
    }
}

#[test]
fn a_missing_name_is_named_even_beside_a_number_no_toml_table_holds() {
    let h = home("missing-name");
    // u64's largest number is no TOML integer; the plan also lacks `name`.
    let plan = write(
        &h,
        "plan.toml",
        "platform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 18446744073709551615\n",
    );
    let out = run(&h, &["--lang", "en", "quote", &plan]);
    refused(
        &out,
        "\"name\" is missing",
        "the missing key, not `platform`",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("not a valid TOML") && !err.contains("platform:"),
        "the file is TOML and `platform` is fine: {err}"
    );
    // A key missing from a table is named with its table.
    let plan = write(
        &h,
        "stops.toml",
        "name = \"n\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n[stops]\ncount = 2\n",
    );
    for lang in ["en", "zh"] {
        refused(
            &run(&h, &["--lang", lang, "quote", &plan]),
            "stops.hours_each",
            "the stop's length, named in its table",
        );
    }
}

#[test]
fn a_value_of_the_wrong_kind_is_told_what_its_field_takes() {
    let h = home("field-takes");
    let head = "name = \"n\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n";
    // (rest of the plan, field, words of what it takes, why)
    let cases = [
        (
            "payment = \"package\"\n[job]\nhours = 2\n",
            "payment",
            "{ package = \"day\" }",
            "a package is a table naming its period",
        ),
        (
            "[job]\nhours = 2\n[prices]\nminimum_charge_minutes = 12.5\n",
            "prices.minimum_charge_minutes",
            "a whole number from 0 to 1440",
            "minutes are whole, not a price",
        ),
        (
            "[job]\nhours = 2\n[prices]\ngranularity = 1e-30\n",
            "prices.granularity",
            "second, minute or hour",
            "a unit is a word",
        ),
    ];
    for (rest, field, takes, why) in cases {
        let plan = write(&h, "plan.toml", &format!("{head}{rest}"));
        let out = run(&h, &["--lang", "en", "quote", &plan]);
        refused(&out, field, why);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(takes), "{why}: {err}");
    }
}

#[test]
fn a_refused_number_is_shown_as_the_file_writes_it() {
    let h = home("as-typed");
    // (hours as written, words the English error holds, why)
    let cases = [
        (
            "1e-30",
            "1e-30 is too small to tell apart from 0",
            "below a decimal's 28 places: not \"1e-30 is not above 0\"",
        ),
        ("1e5", "1e5 is out of range", "the exponent form as typed"),
        (
            "1e308",
            "1e308 is of the wrong kind or out of range",
            "beyond any decimal: the value as typed, not 'this value'",
        ),
        (
            "1_000_000",
            "1_000_000 is out of range",
            "underscores as typed",
        ),
        (
            "0.000000000000000000000000000000000001",
            "is too small",
            "a long run of zeros is one number, not a garbled 0.0.00000…",
        ),
    ];
    for (hours, words, why) in cases {
        let plan = write(
            &h,
            "plan.toml",
            &format!("name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = {hours} # note\n"),
        );
        let out = run(&h, &["--lang", "en", "quote", &plan]);
        refused(&out, "job.hours", why);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{why}: {err}");
        assert!(!err.contains("0.0."), "{why}: no garbled number: {err}");
        let zh = run(&h, &["--lang", "zh", "quote", &plan]);
        let err = String::from_utf8_lossy(&zh.stderr);
        assert!(
            err.contains("job.hours")
                && (err.contains("超出范围") || err.contains("太小") || err.contains("不适合")),
            "{why}: said in Chinese: {err}"
        );
    }
}

#[test]
fn hours_with_tiny_huge_or_infinite_epochs_are_refused_everywhere() {
    let h = home("epochs");
    for epochs in ["1e-9", "1e300", "inf", "nan"] {
        let plan = write(
            &h,
            "plan.toml",
            &format!("name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 6\nepochs = {epochs}\n"),
        );
        let why = format!("epochs = {epochs}");
        refused(&run(&h, &["quote", &plan]), "epochs", &why);
        refused(
            &run(
                &h,
                &[
                    "script",
                    "checklist",
                    "--platform",
                    "autodl",
                    "--plan",
                    &plan,
                ],
            ),
            "epochs",
            &why,
        );
        refused(
            &run(
                &h,
                &[
                    "script",
                    "shutdown",
                    "--platform",
                    "autodl",
                    "--command",
                    "python t.py",
                    "--plan",
                    &plan,
                ],
            ),
            "epochs",
            &why,
        );
        refused(
            &run(
                &h,
                &[
                    "script",
                    "slurm",
                    "--job-name",
                    "t",
                    "--command",
                    "python t.py",
                    "--plan",
                    &plan,
                ],
            ),
            "epochs",
            &why,
        );
    }
    refused(
        &run(
            &h,
            &[
                "recommend",
                "--stage",
                "first-demo",
                "--hours",
                "2",
                "--epochs",
                "1e-9",
            ],
        ),
        "epochs",
        "recommend with hours over a billionth of an epoch",
    );
}

#[test]
fn a_spot_plan_with_every_field_in_range_is_answered_or_refused_not_overflowed() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    // A large model, the most runs, the most preemptions, checkpoints every
    // millionth of an epoch: each field in range, together the old overflow.
    let text = "name = \"spot\"\nplatform = \"autodl\"\ngpu = \"h800\"\npayment = \"spot\"\nparallel = 64\n\
        [job]\nmodel = \"llama-2-13b\"\nmode = \"qlora\"\nbatch = 1\nseq_len = 4096\ndataset_samples = 4000000000\nepochs = 100000\n\
        [[run]]\nname = \"r\"\ncount = 87600\n\
        [spot]\ncheckpoint_every_epochs = \"0.000001\"\npreemptions_per_day = \"1000\"\nrestart_minutes = \"1440\"\n";
    let plan = p.parse_plan("spot.toml", text).expect("the plan parses");
    match p.quote(&plan) {
        Ok(q) => assert!(
            q.cash_total <= rust_decimal::Decimal::from(gpuplan_core::plan::MAX_CNY),
            "a sane bill"
        ),
        Err(AppError::Input { field, .. }) => assert!(!field.is_empty(), "refused by field"),
        Err(e) => panic!("refused without a field: {e}"),
    }
}

#[test]
fn an_absurd_package_price_is_refused_and_a_broken_stored_pack_stops_nothing() {
    let h = home("pack-price");
    let autodl = gpuplan_data::PLATFORMS
        .iter()
        .find(|(f, _)| f.ends_with("autodl.toml"))
        .map(|(_, t)| *t)
        .expect("autodl");
    let mut profile: toml::Value = toml::from_str(autodl).expect("profile");
    // Put a 7.9e28 CNY package on the first offer.
    if let Some(offer) = profile
        .get_mut("offer")
        .and_then(|o| o.as_array_mut())
        .and_then(|a| a.first_mut())
    {
        let package = toml::toml! { period = "month" price = 7.9e28 grade = "estimate" source = "s" confidence = "low" };
        if let Some(t) = offer.as_table_mut() {
            t.insert(
                "packages".into(),
                toml::Value::Array(vec![toml::Value::Table(package)]),
            );
        }
    }
    if let Some(t) = profile.as_table_mut() {
        t.insert("id".into(), toml::Value::String("cheap-cloud".into()));
    }
    let mut pack = toml::Table::new();
    pack.insert(
        "pack".into(),
        toml::Value::Table(toml::toml! { name = "Greedy" }),
    );
    pack.insert("platform".into(), toml::Value::Array(vec![profile]));
    let file = write(&h, "greedy.toml", &toml::to_string(&pack).expect("pack"));
    refused(
        &run(&h, &["pack", "import", &file]),
        "packages",
        "a package price no student could pay",
    );

    // A pack stored by an older build that no longer validates: listed with
    // its error, and every other command keeps working.
    {
        let mut store =
            gpuplan_store::Store::open(&h.join(gpuplan_usecases::home::DATABASE_FILE)).expect("db");
        store
            .save_pack(
                "Broken",
                "[pack]\nname = \"Broken\"\n[[platform]]\nid = 1\n",
                "2026-11-30",
                16,
            )
            .expect("stored");
    }
    let list = run(&h, &["pack", "list"]);
    assert!(
        list.status.success(),
        "pack list works: {}",
        String::from_utf8_lossy(&list.stderr)
    );
    assert!(
        String::from_utf8_lossy(&list.stdout).contains("Broken"),
        "the broken pack is listed"
    );
    for args in [
        vec!["platforms"],
        vec!["recommend", "--stage", "first-demo", "--hours", "2"],
        vec!["quote", "examples/seed003-autodl-resnet50.toml"],
        vec!["override", "list"],
    ] {
        let out = run(&h, &args);
        assert!(
            out.status.success(),
            "{args:?} works beside a broken pack: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        run(&h, &["pack", "remove", "Broken"]).status.success(),
        "and it can be removed"
    );
}

#[test]
fn packs_whose_names_differ_only_in_script_or_case_are_kept_apart() {
    let h = home("pack-names");
    let names = ["深度学习", "计算机视觉", "CV 101", "cv-101"];
    for n in names {
        let file = write(&h, "pack.toml", &format!("[pack]\nname = \"{n}\"\n"));
        let out = run(&h, &["pack", "import", &file]);
        assert!(
            out.status.success(),
            "{n} imports: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let list = run(&h, &["pack", "list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&list.stdout).expect("json");
    let listed: Vec<String> = v
        .as_array()
        .or_else(|| v.get("packs").and_then(|p| p.as_array()))
        .expect("a list")
        .iter()
        .filter_map(|p| p.get("name").and_then(|n| n.as_str()).map(str::to_owned))
        .collect();
    for n in names {
        assert!(
            listed.iter().any(|l| l == n),
            "{n} is kept beside the others: {listed:?}"
        );
    }
}

#[test]
fn the_number_of_packs_is_capped() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    for i in 0..gpuplan_usecases::userdata::MAX_PACKS {
        p.import_pack("p.toml", &format!("[pack]\nname = \"course {i}\"\n"))
            .expect("within the cap");
    }
    let err = p
        .import_pack("p.toml", "[pack]\nname = \"one more\"\n")
        .expect_err("past the cap");
    assert!(
        matches!(err, AppError::Input { ref field, .. } if field == "pack"),
        "refused naming the pack: {err}"
    );
    p.import_pack("p.toml", "[pack]\nname = \"course 0\"\n")
        .expect("re-importing a known pack replaces it");
}

#[test]
fn atomic_writes_never_follow_a_planted_link() {
    let dir = tempfile::tempdir().expect("tmp");
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "precious").expect("victim");
    // The temp names the old writer used, planted as links to the victim.
    for planted in [".out.toml.tmp", "out.toml.tmp", ".out.toml"] {
        #[cfg(unix)]
        std::os::unix::fs::symlink(&victim, dir.path().join(planted)).expect("plant");
    }
    let out = dir.path().join("out.toml");
    gpuplan_usecases::files::write_atomic(&out, b"the export").expect("written");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("victim"),
        "precious",
        "the link's target is untouched"
    );
    assert_eq!(
        std::fs::read_to_string(&out).expect("out"),
        "the export",
        "the file is written"
    );
}

#[test]
fn devices_and_fifos_are_refused_without_reading_or_hanging() {
    let h = home("devices");
    let zero = h.join("plan.toml");
    #[cfg(unix)]
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
    // A read that hung would never return: nextest's slow-timeout ends the
    // test then (.config/nextest.toml), so no clock is asserted here.
    refused(
        &run(&h, &["quote", &zero.to_string_lossy()]),
        "regular file",
        "a link to /dev/zero",
    );
    let fifo = h.join("pack.toml");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        refused(
            &run(&h, &["pack", "import", &fifo.to_string_lossy()]),
            "regular file",
            "a FIFO pack",
        );
        refused(
            &run(
                &h,
                &[
                    "estimate",
                    "--model",
                    "custom",
                    "--config",
                    &fifo.to_string_lossy(),
                ],
            ),
            "regular file",
            "a FIFO config",
        );
    }
}

#[test]
fn absurd_but_in_range_results_are_errors_not_figures() {
    let h = home("absurd");
    // 87,600 runs of 87,600 hours each: every field in range, the whole a
    // million years.
    let plan = write(
        &h,
        "plan.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[[run]]\nname = \"r\"\ncount = 87600\nhours = 87600\n",
    );
    refused(
        &run(&h, &["quote", &plan]),
        "run",
        "a plan of a million years",
    );
    refused(
        &run(
            &h,
            &[
                "recommend",
                "--stage",
                "first-demo",
                "--hours",
                "2",
                "--runs",
                "100000",
            ],
        ),
        "runs",
        "the CLI allows no more runs than a quote",
    );
    // Hours that only a slow card stretches past ten years are ruled out
    // there, never printed as a figure.
    let out = run(
        &h,
        &[
            "recommend",
            "--stage",
            "first-demo",
            "--hours",
            "87000",
            "--json",
        ],
    );
    if out.status.success() {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        for o in v["options"].as_array().expect("options") {
            let t: f64 = o["quote"]["time_to_result_hours"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
            assert!(
                t <= 87_600.0,
                "{} {}: time to result {t} h printed",
                o["platform"],
                o["gpu"]
            );
        }
    }
}

#[test]
fn terminal_escapes_in_user_files_never_reach_the_terminal() {
    let h = home("escapes");
    let plan = write(
        &h,
        "plan.toml",
        "name = \"x\\u001b[2J\\u001b]0;owned\\u0007\\u001b]8;;http://evil\\u001b\\\\\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 1\n",
    );
    let out = run(&h, &["quote", &plan]);
    assert!(
        out.status.success(),
        "quotes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !out.stdout.contains(&0x1b) && !out.stdout.contains(&0x07),
        "no ESC or BEL reaches stdout"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("[U+001B]"),
        "they show as visible text"
    );
    // A name with line breaks cannot print a line of its own (a fake total
    // above the real one), in the quote or in the list of saved plans.
    let forged = write(
        &h,
        "forged.toml",
        "name = \"Cheap\\n\\n  Cash total    0.42 CNY\\u200b\"\nplatform = \"autodl\"\ngpu = \"a100-80g-sxm\"\n[job]\nhours = 100\n",
    );
    let out = run(&h, &["--lang", "en", "quote", &forged]);
    assert!(
        out.status.success(),
        "quotes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text
            .lines()
            .any(|l| l.trim_start().starts_with("Cash total    0.42")),
        "no line of the plan's name stands alone: {text}"
    );
    assert!(
        text.contains("[U+000A]") && text.contains("[U+200B]"),
        "the breaks and the zero-width space show as text"
    );
    let out = run(&h, &["plans", "import", &forged]);
    assert!(
        out.status.success(),
        "kept: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed =
        String::from_utf8_lossy(&run(&h, &["--lang", "en", "plans", "list"]).stdout).into_owned();
    assert_eq!(
        listed.trim().lines().count(),
        1,
        "one saved plan, one line: {listed}"
    );
    // A 100 KB value in an error is quoted as a short excerpt.
    let flood = write(
        &h,
        "flood.toml",
        &format!("name = \"{}\"\nplatform = 7\n", "A".repeat(100_000)),
    );
    let out = run(&h, &["quote", &flood]);
    assert!(
        out.stderr.len() < 1000,
        "the error is short: {} bytes",
        out.stderr.len()
    );
    assert!(!out.stderr.contains(&0x1b), "and inert");
}

#[test]
fn config_import_never_truncates_or_mislabels() {
    let h = home("config");
    let llama = r#"{"model_type":"llama","num_hidden_layers":2,"hidden_size":256,"num_attention_heads":4,
        "num_key_value_heads":4294967297,"intermediate_size":512,"vocab_size":1000,"max_position_embeddings":512}"#;
    let cfg = write(&h, "config.json", llama);
    refused(
        &run(&h, &["estimate", "--model", "custom", "--config", &cfg]),
        "num_key_value_heads",
        "2^32+1 key/value heads",
    );
    let bert = r#"{"model_type":"bert","num_hidden_layers":2,"hidden_size":256,"num_attention_heads":4,
        "intermediate_size":512,"vocab_size":1000,"max_position_embeddings":512,"type_vocab_size":68719476736}"#;
    let cfg = write(&h, "bert.json", bert);
    refused(
        &run(&h, &["estimate", "--model", "custom", "--config", &cfg]),
        "type_vocab",
        "a trillion token types",
    );
    let ok = write(&h, "ok.json", &llama.replace("4294967297", "4"));
    refused(
        &run(&h, &["estimate", "--model", "resnet50", "--config", &ok]),
        "config",
        "a config under another model's name",
    );
    refused(
        &run(
            &h,
            &[
                "script",
                "shutdown",
                "--platform",
                "autodl",
                "--command",
                "python t.py",
                "--destroy",
            ],
        ),
        "destroy",
        "--destroy on a platform that cannot destroy",
    );
}

#[test]
fn small_items_each_fixed() {
    let h = home("small");
    // A 2.5-epoch checkpoint interval is not silently 2.
    let plan = write(
        &h,
        "plan.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 6\nepochs = 10\n[spot]\ncheckpoint_every_epochs = \"2.5\"\n",
    );
    refused(
        &run(&h, &["script", "resume", "--plan", &plan]),
        "checkpoint_every_epochs",
        "a fractional interval",
    );
    // Python 3.10.0 asks pip for 3.10, never a tag "3100".
    let out = run(&h, &["script", "offline-install", "--python", "3.10.0"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--python-version 3.10") && !text.contains("3100"),
        "the wheel tag is the minor version"
    );
    // A pack preset with a NaN batch is refused at import.
    let pack = write(
        &h,
        "pack.toml",
        "[pack]\nname = \"NaN\"\n[[preset]]\nid = \"p\"\nname = \"p\"\nruns = 1\n[preset.job]\nmodel = \"resnet18-cifar\"\nbatch = nan\n",
    );
    refused(
        &run(&h, &["pack", "import", &pack]),
        "batch",
        "a NaN batch in a preset",
    );
    let preset = |name: &str, hours: &str| {
        format!("[[preset]]\nname = \"{name}\"\nruns = 1\n[preset.job]\nhours = {hours}\n")
    };
    let pack = write(
        &h,
        "twice.toml",
        &format!(
            "[pack]\nname = \"Twice\"\n{}{}",
            preset("HW1", "1"),
            preset("HW1", "2")
        ),
    );
    refused(
        &run(&h, &["pack", "import", &pack]),
        "preset.name",
        "two presets of one name: a student cannot tell them apart",
    );
    let pack = write(
        &h,
        "negative.toml",
        &format!(
            "[pack]\nname = \"Neg\"\n{}{}",
            preset("HW1", "1"),
            preset("HW2", "-2")
        ),
    );
    refused(
        &run(&h, &["pack", "import", &pack]),
        "preset.job.hours",
        "a preset's hours are its job's",
    );
}

#[test]
fn a_line_past_the_limit_is_refused_even_when_credit_brings_the_total_under() {
    // Found by the long fuzz run: 15 M CNY of runs less 10 M of credit left
    // a 5 M total, and the 15 M line was printed.
    let h = home("credit-line");
    let plan = write(
        &h,
        "plan.toml",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\ncredit = 10000000\n[job]\nhours = 1500\n[prices]\ngpu_per_hour = 10000\n",
    );
    refused(
        &run(&h, &["quote", &plan]),
        "run.count",
        "a 15 M CNY line behind a 10 M credit",
    );
}

/// The fuzz smoke run found two plans that hung the quote for minutes: 87,600
/// stops of 33,525 h each on a platform where stops keep billing the GPU,
/// paid in week packages (a package count in the millions), and a Kaggle
/// plan whose 170,000 hours of setup and debugging ran past the quota
/// windows counted one by one. The first is refused naming the stops; the
/// second is answered, quickly.
#[test]
fn plans_that_hung_the_quote_answer_at_once() {
    let dir = home("hang");
    let stops = write(
        &dir,
        "stops.toml",
        r#"name = "edges"
platform = "matpool"
gpu = "rtx4090"
parallel = 64
payment = { package = "week" }
[prices]
package_price = 3333333.33
[[run]]
name = "r"
count = 29200
minutes = 1440
[stops]
count = 87600
hours_each = 33524.84
"#,
    );
    let started = std::time::Instant::now();
    let out = run(&dir, &["quote", &stops]);
    refused(&out, "stops.hours_each", "a timeline of millennia");
    let kaggle = write(
        &dir,
        "kaggle.toml",
        r#"name = "edges"
platform = "kaggle"
gpu = "t4"
setup_hours = 87600
[job]
hours = 1
[debug]
gpu = "t4"
hours = 82640.57
"#,
    );
    let out = run(&dir, &["quote", &kaggle]);
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(2),
        "answered or refused, not crashed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "both answered within seconds, not minutes: {:?}",
        started.elapsed()
    );
}

#[test]
fn dates_that_do_not_exist_or_fall_outside_this_century_are_refused() {
    let h = home("dates");
    for (start, why) in [
        ("+10000-01-01", "a five-digit year"),
        ("1999-12-31", "before 2000"),
    ] {
        let plan = write(
            &h,
            "plan.toml",
            &format!("name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\nstart_date = {start}\n[job]\nhours = 6\n"),
        );
        let out = run(&h, &["quote", &plan]);
        assert_eq!(out.status.code(), Some(2), "{why}: refused");
    }
    // A pack's price observed on 30 February would hide how old it is.
    let exported = h.join("cv.toml");
    let out = run(
        &h,
        &[
            "pack",
            "export",
            "--name",
            "CV 101",
            "--platform",
            "autodl",
            "--out",
            exported.to_str().expect("utf8"),
        ],
    );
    assert!(
        out.status.success(),
        "exported: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&exported).expect("pack");
    let at = text.find("observed = \"").expect("a dated figure") + "observed = \"".len();
    let end = at + text[at..].find('"').expect("closing quote");
    let bad = format!("{}2019-02-30{}", &text[..at], &text[end..]);
    let pack = write(&h, "bad-pack.toml", &bad);
    let out = run(&h, &["pack", "import", &pack]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "a 30 February is not a date: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn money_a_student_types_is_kept_to_the_fen() {
    let h = home("fen");
    let report = h.join("r.json");
    std::fs::create_dir_all(&h).expect("home");
    std::fs::copy(
        common::root().join("examples/run-report-example.json"),
        &report,
    )
    .expect("copy");
    let r = report.to_str().expect("utf8");
    for cost in [
        "3.456",
        "0.0000000000000000000000000001",
        "9999999.999999999999999999999",
    ] {
        refused(
            &run(&h, &["--lang", "en", "ledger", "import", r, "--cost", cost]),
            "cost",
            "a bill with more places than the fen",
        );
    }
    refused(
        &run(
            &h,
            &[
                "override",
                "set",
                "--platform",
                "autodl",
                "--gpu",
                "rtx3090",
                "--price",
                "1.999999999999999999999999999",
            ],
        ),
        "price",
        "a price per hour past a tenth of a fen",
    );
    let out = run(&h, &["ledger", "import", r, "--cost", "3.45"]);
    assert!(
        out.status.success(),
        "two places are a bill: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
