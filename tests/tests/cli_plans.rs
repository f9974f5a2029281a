//! CLI tests of the planning commands: quote, recommend, platforms, overrides
//! and course packs (with a private GPUPLAN_HOME per test).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn binary() -> PathBuf {
    common::gpuplan_binary()
}

fn home(tag: &str) -> PathBuf {
    let h = std::env::temp_dir().join(format!("gpuplan-home-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&h);
    h
}

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(binary())
        .args(args)
        .env("GPUPLAN_HOME", home)
        .current_dir(crate::common::root())
        .output()
        .expect("runs")
}

fn ok_json(home: &Path, args: &[&str]) -> serde_json::Value {
    let out = run(home, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn quote_json_matches_the_seed_case() {
    let h = home("quote");
    let q = ok_json(
        &h,
        &["quote", "examples/seed003-autodl-resnet50.toml", "--json"],
    );
    assert_eq!(
        q["cash_total"], "16.60",
        "money is an exact decimal string with two places in JSON"
    );
    assert!(
        q["lines"]
            .as_array()
            .is_some_and(|l| l.iter().all(|x| x["amount"]
                .as_str()
                .is_some_and(|a| a.split('.').nth(1).is_some_and(|f| f.len() == 2)))),
        "every line's amount has two places"
    );
    assert!(
        q["lines"].as_array().is_some_and(|l| !l.is_empty()),
        "line items are listed"
    );
    assert!(
        q["timeline"].as_array().is_some_and(|t| !t.is_empty()),
        "a timeline is included"
    );
}

#[test]
fn bad_plans_exit_2_naming_file_line_and_field() {
    let h = home("badplan");
    std::fs::create_dir_all(&h).expect("dir");
    // (plan text, expected fragment, why)
    let cases = [
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = -3\n",
            "plan.toml:5: job.hours",
            "negative hours, at their line",
        ),
        (
            "name = \"x\"\nplatform = \"nowhere\"\ngpu = \"rtx3090\"\n[job]\nhours = 3\n",
            "plan.toml:2: platform",
            "unknown platform, at its line",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"h200\"\n[job]\nhours = 3\n",
            "plan.toml:3: gpu",
            "a GPU the platform does not offer, at its line",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nmodel = \"resnet5000\"\nbatch = 8\ndataset_samples = 1000\nepochs = 1\n",
            "plan.toml:5: job.model",
            "an unknown model, at its line in [job]",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 3\n[debug]\ngpu = \"rtx30600\"\nhours = 1\n",
            "plan.toml:7: debug.gpu",
            "an unknown debugging card: the second `gpu` line, the one that names it",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\ncolour = 1\n",
            "line 4, column 1",
            "unknown field, with its line and column",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nmodel = \"resnet50\"\n",
            "plan.toml:4: job.dataset_samples",
            "a key its table leaves out: at the table's header, the key named",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 1\n[[run]]\nname = \"a\"\ncount = 87600\nhours = 1\n",
            "plan.toml:6: run",
            "runs that add up past ten years: at the [[run]] header",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n",
            "plan.toml",
            "no [job] at all: nowhere to point at, but the file is named",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\npayment = { package = \"year\" }\n[job]\nhours = 2\n",
            "day, week, month",
            "a choice that is not one: the choices listed",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\nstart_date = \"2026-02-30\"\n[job]\nhours = 2\n",
            "YYYY-MM-DD",
            "a date that is not one: what a date looks like",
        ),
        (
            "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n[prices]\ngpu_per_hour = \"¥2.5\"\n",
            "a number such as 12.5",
            "a price that is not a number: what it takes",
        ),
    ];
    for (text, fragment, why) in cases {
        let f = h.join("plan.toml");
        std::fs::write(&f, text).expect("write");
        let out = run(&h, &["quote", f.to_str().expect("utf8")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{why}: exit 2 ({err})");
        assert!(
            err.contains(fragment),
            "{why}: message names `{fragment}`: {err}"
        );
    }
}

#[test]
fn recommend_ranks_and_explains() {
    let h = home("rec");
    let r = ok_json(
        &h,
        &[
            "recommend",
            "--stage",
            "course-project",
            "--hours",
            "2",
            "--runs",
            "8",
            "--budget",
            "150",
            "--json",
        ],
    );
    let first = &r["options"][0];
    assert_eq!(
        first["kind"], "container-cloud",
        "a course project starts on a container cloud"
    );
    assert!(
        first["reasons"].as_array().is_some_and(|x| !x.is_empty()),
        "with reasons"
    );
    let out = run(&h, &["recommend", "--stage", "exam-cram", "--hours", "2"]);
    assert_eq!(out.status.code(), Some(2), "an unknown stage is refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stage:"),
        "naming the field"
    );
}

#[test]
fn overrides_survive_and_change_quotes() {
    let h = home("override");
    let before = ok_json(
        &h,
        &[
            "quote",
            "examples/seed000-forgotten-shutdown.toml",
            "--json",
        ],
    );
    let out = run(
        &h,
        &[
            "override",
            "set",
            "--platform",
            "autodl",
            "--gpu",
            "rtx3090",
            "--price",
            "1.20",
            "--note",
            "seen today",
        ],
    );
    assert!(
        out.status.success(),
        "override set works: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = ok_json(&h, &["platforms", "--json"]);
    let autodl = listed["platforms"]
        .as_array()
        .expect("list")
        .iter()
        .find(|p| p["id"] == "autodl")
        .expect("autodl")
        .clone();
    let offer = autodl["offer"]
        .as_array()
        .expect("offers")
        .iter()
        .find(|o| o["gpu"] == "rtx3090")
        .expect("3090")
        .clone();
    assert_eq!(
        offer["price_per_hour"]["typical"], "1.20",
        "the override replaces the typical price"
    );
    // The example pins its own price, so the quote must not move.
    let after = ok_json(
        &h,
        &[
            "quote",
            "examples/seed000-forgotten-shutdown.toml",
            "--json",
        ],
    );
    assert_eq!(
        before["cash_total"], after["cash_total"],
        "plan-level prices win over user overrides"
    );
    let out = run(
        &h,
        &[
            "override",
            "set",
            "--platform",
            "autodl",
            "--gpu",
            "h200",
            "--price",
            "9",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "a GPU the platform does not offer cannot be overridden"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn course_pack_round_trip() {
    let h = home("pack");
    let pack = h.join("course.toml");
    std::fs::create_dir_all(&h).expect("dir");
    let out = run(
        &h,
        &[
            "pack",
            "export",
            "--name",
            "CV 101",
            "--platform",
            "campus-slurm",
            "--platform",
            "autodl",
            "--preset",
            "examples/seed000-weekly-budget.toml",
            "--budget-cap",
            "150",
            "--out",
            pack.to_str().expect("utf8"),
        ],
    );
    assert!(
        out.status.success(),
        "export works: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let student = home("pack-student");
    let out = run(&student, &["pack", "import", pack.to_str().expect("utf8")]);
    assert!(
        out.status.success(),
        "import works: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8_lossy(&run(&student, &["pack", "list"]).stdout).to_string();
    assert!(
        listed.contains("CV 101"),
        "the imported pack is listed: {listed}"
    );
    // A tampered pack is rejected with the field named.
    let text = std::fs::read_to_string(&pack)
        .expect("pack text")
        .replacen("\"0.95\"", "\"7\"", 1);
    let bad = h.join("bad.toml");
    std::fs::write(&bad, text).expect("write");
    let out = run(&student, &["pack", "import", bad.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(2), "an invalid pack is refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("discount"),
        "naming the field: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&h);
    let _ = std::fs::remove_dir_all(&student);
}

#[test]
fn a_plan_saved_by_the_app_quotes_the_same_in_the_cli() {
    // The app's use cases save into the database the CLI reads; the saved
    // plan's text is a plan file the CLI prices identically, with the same
    // user prices applied.
    let h = home("shared");
    let mut app = gpuplan_usecases::Planner::new(
        common::bundled(),
        gpuplan_usecases::Home::Folder(h.clone()),
        chrono::NaiveDateTime::default,
    );
    app.set_override("gpushare", "rtx3090", "2.34", "app")
        .expect("an override set in the app");
    let mut plan = gpuplan_usecases::defaults::plan(gpuplan_core::job::JobSpec {
        hours: Some(rust_decimal::Decimal::new(75, 1)),
        ..Default::default()
    });
    plan.platform = "gpushare".into();
    plan.gpu = "rtx3090".into();
    app.save_plan(None, &plan, None).expect("saved");
    let saved = app.plans().expect("listed");
    let file = h.join("exported.toml");
    std::fs::write(&file, &saved[0].toml).expect("export");
    let cli = ok_json(&h, &["quote", file.to_str().expect("utf-8"), "--json"]);
    let q = app.quote(&plan).expect("quote");
    assert_eq!(
        cli["cash_total"],
        q.cash_total.to_string(),
        "the CLI's total of the exported plan is the app's"
    );
    assert_eq!(
        cli["price_per_hour"],
        q.price_per_hour.to_string(),
        "both used the price set in the app"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn a_chinese_bill_is_worded_in_chinese() {
    let h = home("zh-bill");
    let out = run(
        &h,
        &[
            "--lang",
            "zh",
            "quote",
            "examples/seed003-autodl-resnet50.toml",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("存储") && text.contains("现金合计"),
        "Chinese labels:\n{text}"
    );
    for english in ["above the free", "each on", "Cash total", "storage"] {
        assert!(
            !text.contains(english),
            "no English line label `{english}`:\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn a_reader_that_closes_the_pipe_early_is_no_crash() {
    use std::io::Read as _;
    let h = home("pipe");
    let mut child = Command::new(binary())
        // More than a pipe buffer (64 KiB) of output, so the write after
        // the hang-up really meets a closed pipe.
        .args(["platforms", "--json"])
        .env("GPUPLAN_HOME", &h)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    // Read one byte and hang up, as `| head -c1` does.
    let mut first = [0u8; 1];
    let _ = child.stdout.as_mut().expect("stdout").read(&mut first);
    drop(child.stdout.take());
    let status = child.wait().expect("exits");
    let mut err = String::new();
    let _ = child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err);
    assert_ne!(status.code(), Some(101), "no panic on a closed pipe: {err}");
    assert!(!err.contains("panicked"), "no panic message: {err}");
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn a_plan_file_opened_as_a_pack_is_told_what_it_is() {
    let h = home("plan-as-pack");
    let out = run(
        &h,
        &["pack", "import", "examples/seed003-autodl-resnet50.toml"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused as an input error");
    assert!(
        err.contains("plan file") && err.contains("gpuplan quote"),
        "says it is a plan and where plans go, not which field a pack lacks: {err}"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn plans_move_between_the_cli_and_the_app() {
    // A plan file imported by the CLI is a saved plan the app lists; shown
    // and exported, it is the same plan file (quoted to the same total); an
    // unknown id is refused naming it.
    let h = home("plans");
    let empty = run(&h, &["--lang", "en", "plans", "list"]);
    assert!(empty.status.success(), "an empty list is not an error");
    let out = run(
        &h,
        &[
            "--lang",
            "en",
            "plans",
            "import",
            "examples/seed003-autodl-resnet50.toml",
        ],
    );
    assert!(
        out.status.success(),
        "import: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = ok_json(&h, &["plans", "list", "--json"]);
    let row = &rows.as_array().expect("rows")[0];
    let id = row["id"].as_i64().expect("an id");
    assert_eq!(
        row["plan"]["platform"], "autodl",
        "the saved plan is the file's"
    );
    let dir = tempfile::tempdir().expect("tmp");
    let exported = dir.path().join("back.toml");
    let out = run(
        &h,
        &[
            "plans",
            "export",
            &id.to_string(),
            "--out",
            exported.to_str().expect("path"),
        ],
    );
    assert!(
        out.status.success(),
        "export: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let original = ok_json(
        &h,
        &["quote", "examples/seed003-autodl-resnet50.toml", "--json"],
    );
    let again = ok_json(&h, &["quote", exported.to_str().expect("path"), "--json"]);
    assert_eq!(
        original["cash_total"], again["cash_total"],
        "the exported plan quotes the same"
    );
    let shown = run(&h, &["plans", "show", &id.to_string()]);
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout).trim(),
        std::fs::read_to_string(&exported).expect("exported").trim(),
        "show prints the plan file export writes"
    );
    let missing = run(&h, &["--lang", "en", "plans", "show", "999"]);
    assert_eq!(missing.status.code(), Some(2), "an unknown id is bad input");
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("id"),
        "and names the id"
    );
}

#[test]
fn files_a_student_hands_in_are_checked_as_the_quote_checks_them() {
    let h = home("handed-in");
    let dir = std::env::temp_dir().join(format!("gpuplan-handed-in-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    // A plan that parses but does not price: AutoDL sells no H100 SXM.
    let plan = std::fs::read_to_string(
        crate::common::root().join("examples/resnet18-cifar-estimated.toml"),
    )
    .expect("example")
    .replace("gpu = \"rtx3090\"", "gpu = \"h100-sxm\"");
    assert!(
        plan.contains("h100-sxm"),
        "the example names its card as expected"
    );
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, &plan).expect("write");
    let out = run(
        &h,
        &[
            "--lang",
            "en",
            "plans",
            "import",
            bad.to_str().expect("utf8"),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "a plan that does not price is not kept"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("gpu"),
        "the error names the field: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = ok_json(&h, &["plans", "list", "--json"]);
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(0),
        "nothing was saved"
    );
    // The same plan given beside a run report is refused too, not skipped.
    let report = dir.join("r.json");
    std::fs::copy(
        crate::common::root().join("examples/run-report-example.json"),
        &report,
    )
    .expect("copy");
    let out = run(
        &h,
        &[
            "--lang",
            "en",
            "ledger",
            "import",
            report.to_str().expect("utf8"),
            "--plan",
            bad.to_str().expect("utf8"),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "the plan it is compared with must price"
    );
    let ledger = ok_json(&h, &["ledger", "list", "--json"]);
    assert_eq!(
        ledger.as_array().map(Vec::len),
        Some(0),
        "and no bill was added: {ledger}"
    );
    // An export into a folder that does not exist creates nothing.
    let good = dir.join("good.toml");
    std::fs::copy(
        crate::common::root().join("examples/resnet18-cifar-estimated.toml"),
        &good,
    )
    .expect("copy");
    let out = run(&h, &["plans", "import", good.to_str().expect("utf8")]);
    assert!(out.status.success(), "a plan that prices is kept");
    let nowhere = dir.join("no-such-folder").join("x.toml");
    let out = run(
        &h,
        &[
            "--lang",
            "zh",
            "plans",
            "export",
            "1",
            "--out",
            nowhere.to_str().expect("utf8"),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "refused as the user's input");
    assert!(
        !dir.join("no-such-folder").exists(),
        "no folder is created where a path was mistyped"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("不存在"),
        "said in Chinese: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn recommend_says_it_assumes_a_student_and_takes_no_student() {
    let h = home("no-student");
    let args = [
        "recommend",
        "--stage",
        "course-project",
        "--hours",
        "2",
        "--json",
    ];
    let student = ok_json(&h, &args);
    let mut list = args.to_vec();
    list.push("--no-student");
    let listed = ok_json(&h, &list);
    let discount = |v: &serde_json::Value, platform: &str| {
        v["options"]
            .as_array()
            .and_then(|o| {
                o.iter()
                    .find(|x| x["platform"] == platform && x["gpu"] == "rtx4090")
            })
            .map(|x| x["quote"]["student_discount"].clone())
    };
    assert_eq!(
        discount(&student, "autodl"),
        Some(serde_json::json!("0.95")),
        "by default AutoDL's student price (95% of list) and the quote says so"
    );
    assert_eq!(
        discount(&listed, "autodl"),
        Some(serde_json::Value::Null),
        "--no-student: list prices"
    );
    let text = run(
        &h,
        &[
            "--lang",
            "en",
            "recommend",
            "--stage",
            "course-project",
            "--hours",
            "2",
        ],
    );
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("--no-student"),
        "the text says what it assumed and how to change it"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn saved_plans_and_bills_can_be_deleted_from_the_cli_as_in_the_app() {
    let h = home("delete");
    let plan = crate::common::root().join("examples/resnet18-cifar-estimated.toml");
    assert!(
        run(&h, &["plans", "import", plan.to_str().expect("utf8")])
            .status
            .success(),
        "kept"
    );
    let report = crate::common::root().join("examples/run-report-example.json");
    assert!(
        run(&h, &["ledger", "import", report.to_str().expect("utf8")])
            .status
            .success(),
        "billed"
    );
    let out = run(&h, &["--lang", "zh", "plans", "delete", "1"]);
    assert!(
        out.status.success(),
        "deleted: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("已删除"),
        "said in Chinese"
    );
    assert_eq!(
        ok_json(&h, &["plans", "list", "--json"])
            .as_array()
            .map(Vec::len),
        Some(0),
        "the plan is gone"
    );
    assert!(
        run(&h, &["ledger", "delete", "1"]).status.success(),
        "the bill is deleted"
    );
    assert_eq!(
        ok_json(&h, &["ledger", "list", "--json"])
            .as_array()
            .map(Vec::len),
        Some(0),
        "the ledger is empty"
    );
    let out = run(&h, &["--lang", "en", "ledger", "delete", "1"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a bill deleted already is the student's mistake, said"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn exports_never_overwrite_a_file_unless_forced() {
    let h = home("noclobber");
    let dir = tempfile::tempdir().expect("tmp");
    let plan = dir.path().join("plan.toml");
    std::fs::copy(
        common::root().join("examples/seed003-autodl-resnet50.toml"),
        &plan,
    )
    .expect("copy an example plan");
    let out = run(&h, &["plans", "import", plan.to_str().expect("utf-8 path")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = ok_json(&h, &["plans", "list", "--json"]);
    let id = rows[0]["id"].to_string();
    let target = dir.path().join("mine.toml");
    let target_s = target.to_str().expect("utf-8 path");
    // (args, why) — each export aimed at a file the student already has.
    let exports: [(Vec<&str>, &str); 3] = [
        (
            vec!["plans", "export", &id, "--out", target_s],
            "a saved plan",
        ),
        (
            vec!["ledger", "runs", "--out", target_s],
            "the measured runs",
        ),
        (
            vec![
                "pack",
                "export",
                "--name",
                "C",
                "--platform",
                "autodl",
                "--out",
                target_s,
            ],
            "a course pack",
        ),
    ];
    for (args, why) in &exports {
        std::fs::write(&target, "my own notes\n").expect("write");
        let out = run(&h, args);
        assert_eq!(out.status.code(), Some(2), "{why}: refused as bad input");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--force") && err.contains("mine.toml"),
            "{why}: the message names the file and the way to replace it: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(&target).expect("read"),
            "my own notes\n",
            "{why}: the student's file is untouched"
        );
        let mut forced = args.clone();
        forced.push("--force");
        let out = run(&h, &forced);
        assert!(
            out.status.success(),
            "{why} with --force: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_ne!(
            std::fs::read_to_string(&target).expect("read"),
            "my own notes\n",
            "{why}: --force replaces it"
        );
    }
    let fresh = dir.path().join("new.toml");
    let out = run(
        &h,
        &[
            "plans",
            "export",
            &id,
            "--out",
            fresh.to_str().expect("utf-8"),
        ],
    );
    assert!(out.status.success(), "a new file needs no --force");
    #[cfg(unix)]
    {
        // A link the student keeps (a handout folder pointing at the
        // course's copy) is written through, as a shell's `>` would.
        let course = dir.path().join("course.toml");
        std::fs::write(&course, "old\n").expect("write");
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&course, &link).expect("symlink");
        let link_s = link.to_str().expect("utf-8");
        let out = run(&h, &["plans", "export", &id, "--out", link_s]);
        assert_eq!(out.status.code(), Some(2), "a link is a file that exists");
        let out = run(&h, &["plans", "export", &id, "--out", link_s, "--force"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink(),
            "--force keeps the link a link"
        );
        assert!(
            std::fs::read_to_string(&course)
                .expect("read")
                .contains("[job]"),
            "and the file it names holds the plan"
        );
    }
    let _ = std::fs::remove_dir_all(&h);
}

#[cfg(unix)]
#[test]
fn exports_never_replace_a_pipe_and_name_a_link_to_nothing_the_same_way_forced_or_not() {
    use std::os::unix::fs::FileTypeExt as _;
    let h = home("pipes");
    let dir = tempfile::tempdir().expect("tmp");
    let fifo = dir.path().join("pipe.toml");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let dangling = dir.path().join("gone.toml");
    std::os::unix::fs::symlink(dir.path().join("nothing-here.toml"), &dangling).expect("link");
    let to_fifo = dir.path().join("to-pipe.toml");
    std::os::unix::fs::symlink(&fifo, &to_fifo).expect("link");
    // (target, words the refusal must hold, why)
    let afile = dir.path().join("afile");
    std::fs::write(&afile, "mine\n").expect("write");
    let mut targets = vec![
        (dangling.clone(), "does not exist", "a link to nothing"),
        (
            afile.join("x.toml"),
            "is a file, not a folder",
            "a path under a file",
        ),
        (
            PathBuf::from(format!("{}/", dir.path().join("x.toml").display())),
            "ends with a slash",
            "a path ending with a slash",
        ),
    ];
    if made {
        targets.push((fifo.clone(), "not a regular file", "a pipe"));
        targets.push((to_fifo.clone(), "not a regular file", "a link to a pipe"));
    }
    for (target, words, why) in &targets {
        let t = target.to_str().expect("utf-8");
        for force in [false, true] {
            let mut args = vec!["--lang", "en", "ledger", "runs", "--out", t];
            if force {
                args.push("--force");
            }
            let out = run(&h, &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{why} (force {force}): refused: {err}"
            );
            assert!(
                err.contains(words) && err.contains("(out)"),
                "{why} (force {force}): one message naming the field and what the path is: {err}"
            );
        }
    }
    if made {
        assert!(
            std::fs::symlink_metadata(&fifo)
                .expect("meta")
                .file_type()
                .is_fifo(),
            "the pipe is still a pipe after --force"
        );
    }
    assert!(
        std::fs::symlink_metadata(&dangling).is_ok()
            && !dir.path().join("nothing-here.toml").exists(),
        "the link is left as it was and nothing was created through it"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn a_plan_imported_twice_is_saved_once() {
    let h = home("twice");
    let plan = common::root().join("examples/seed003-autodl-resnet50.toml");
    let plan_s = plan.to_str().expect("utf-8");
    let first = run(&h, &["--lang", "en", "plans", "import", plan_s]);
    assert!(first.status.success(), "imported");
    let again = run(&h, &["--lang", "en", "plans", "import", plan_s]);
    assert!(again.status.success(), "a second import is no error");
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("Already saved as plan #1"),
        "it names the plan that holds it: {}",
        String::from_utf8_lossy(&again.stdout)
    );
    let zh = run(&h, &["--lang", "zh", "plans", "import", plan_s]);
    assert!(
        String::from_utf8_lossy(&zh.stdout).contains("已经保存过"),
        "said in Chinese too"
    );
    assert_eq!(
        ok_json(&h, &["plans", "list", "--json"])
            .as_array()
            .map(Vec::len),
        Some(1),
        "one saved plan, not three"
    );
    // The same plan renamed is another plan.
    let dir = tempfile::tempdir().expect("tmp");
    let renamed = dir.path().join("renamed.toml");
    let text = std::fs::read_to_string(&plan).expect("read");
    std::fs::write(&renamed, text.replacen("name = \"", "name = \"mine: ", 1)).expect("write");
    let out = run(&h, &["plans", "import", renamed.to_str().expect("utf-8")]);
    assert!(out.status.success(), "imported");
    assert_eq!(
        ok_json(&h, &["plans", "list", "--json"])
            .as_array()
            .map(Vec::len),
        Some(2),
        "a changed plan is saved as a new one"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn one_file_imported_by_eight_processes_at_once_is_saved_once() {
    let h = home("parallel-import");
    let plan = common::root().join("examples/seed003-autodl-resnet50.toml");
    let plan_s = plan.to_str().expect("utf-8");
    // The first import creates the database; the race is between the eight.
    let first = run(&h, &["plans", "list", "--json"]);
    assert!(first.status.success(), "the database is created");
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(binary())
                .args(["--lang", "en", "plans", "import", plan_s])
                .env("GPUPLAN_HOME", &h)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "each import succeeds: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        ok_json(&h, &["plans", "list", "--json"])
            .as_array()
            .map(Vec::len),
        Some(1),
        "eight imports of one file at once leave one saved plan"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn toml_and_json_outputs_keep_hidden_characters_as_their_own_escapes() {
    let h = home("hidden-chars");
    let dir = tempfile::tempdir().expect("tmp");
    // A name with a right-to-left override, a zero-width space, a backslash
    // and quotes: prose marks the first two as [U+..]; data must not.
    let name = "evil\u{202E}gnp.exe \u{200B} x\\y \"q\"";
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "name = {}\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 2\n",
            toml::Value::String(name.to_owned())
        ),
    )
    .expect("write");
    let out = run(&h, &["plans", "import", plan.to_str().expect("utf-8")]);
    assert!(
        out.status.success(),
        "imported: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = run(&h, &["plans", "show", "1"]);
    let text = String::from_utf8_lossy(&shown.stdout).into_owned();
    assert!(
        !text.contains("[U+") && !text.contains('\u{202E}'),
        "the TOML shown has no prose marks and no raw override: {text}"
    );
    let back: toml::Table = text.parse().expect("the TOML shown parses");
    assert_eq!(
        back.get("name").and_then(toml::Value::as_str),
        Some(name),
        "and reads back as the same name"
    );
    let again = dir.path().join("shown.toml");
    std::fs::write(&again, &text).expect("write");
    let out = run(
        &h,
        &[
            "--lang",
            "en",
            "plans",
            "import",
            again.to_str().expect("utf-8"),
        ],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Already saved as plan #1"),
        "the plan shown is the plan saved: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let rows = ok_json(&h, &["plans", "list", "--json"]);
    assert_eq!(
        rows[0]["name"].as_str(),
        Some(name),
        "JSON names it exactly"
    );
    assert!(
        rows[0]["toml"]
            .as_str()
            .is_some_and(|t| t.contains('\u{202E}')),
        "and carries the TOML's characters, not marks"
    );
    let set = run(
        &h,
        &[
            "override",
            "set",
            "--platform",
            "autodl",
            "--gpu",
            "rtx3090",
            "--price",
            "1.5",
            "--note",
            name,
        ],
    );
    assert!(
        set.status.success(),
        "override set: {}",
        String::from_utf8_lossy(&set.stderr)
    );
    let overrides = ok_json(&h, &["override", "list", "--json"]);
    let note = overrides
        .as_array()
        .and_then(|a| a.first())
        .and_then(|o| o["note"].as_str())
        .map(str::to_owned);
    assert_eq!(
        note.as_deref(),
        Some(name),
        "an override's note too: {overrides}"
    );
    let listed = run(&h, &["plans", "list"]);
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("[U+202E]"),
        "prose still marks what would reorder the line"
    );
    let _ = std::fs::remove_dir_all(&h);
}

#[test]
fn recommend_refuses_a_model_without_its_dataset_size_once() {
    // `estimate` and `quote` refuse it with exit 2; `recommend` ruled out
    // every offer with the same sentence (about 30 times) and exited 0.
    let h = home("rec-nosamples");
    for (lang, said) in [("en", "dataset size"), ("zh", "数据集的样本数")] {
        let out = run(
            &h,
            &[
                "--lang",
                lang,
                "recommend",
                "--stage",
                "course-project",
                "--model",
                "resnet50",
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{lang}: refused, exit 2: {err}");
        assert!(
            err.contains("dataset_samples") && err.matches(said).count() == 1,
            "{lang}: the field named, once: {err}"
        );
    }
}
