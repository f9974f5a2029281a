//! The parsers never panic: random text and random edits of valid files give
//! either a value or an error naming a file and line. (Long fuzzing runs are
//! the hardening issue's; these run in CI.)

use crate::common;

use gpuplan_core::pack::{CoursePack, Overrides};
use gpuplan_core::plan::Plan;
use gpuplan_core::platform::PlatformProfile;
use gpuplan_core::zoo::from_hf_config;
use gpuplan_core::GpuCatalog;
use proptest::prelude::*;

fn mutate(text: &str, cut: usize, len: usize, insert: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = cut % (chars.len() + 1);
    let end = (at + len).min(chars.len());
    let mut out: String = chars[..at].iter().collect();
    out.push_str(insert);
    out.extend(chars[end..].iter());
    out
}

fn example_report() -> String {
    std::fs::read_to_string(crate::common::root().join("examples/run-report-example.json"))
        .expect("example")
}

fn example_plan() -> String {
    std::fs::read_to_string(crate::common::root().join("examples/seed000-weekly-budget.toml"))
        .expect("example")
}

proptest! {
    #![proptest_config(common::proptest_config(400))]

    #[test]
    fn run_report_parser_survives_edits(cut in any::<usize>(), len in 0usize..40, insert in "[ -~\\n中文]{0,20}") {
        let text = mutate(&example_report(), cut, len, &insert);
        if let Err(e) = gpuplan_core::report::RunReport::from_json("r.json", &text) {
            prop_assert_eq!(e.file.as_str(), "r.json", "errors name the file");
            prop_assert!(!e.field.is_empty(), "and the field");
        }
    }

    #[test]
    fn profile_parser_survives_edits(cut in any::<usize>(), len in 0usize..40, insert in "[ -~\\n]{0,20}") {
        let catalog = common::catalog();
        let text = mutate(gpuplan_data::PLATFORMS[0].1, cut, len, &insert);
        if let Err(e) = PlatformProfile::from_toml("p.toml", &text, catalog) {
            prop_assert_eq!(e.file.as_str(), "p.toml", "errors name the file");
        }
    }

    #[test]
    fn plan_parser_and_quote_survive_edits(cut in any::<usize>(), len in 0usize..40, insert in "[ -~\\n]{0,20}") {
        let text = mutate(&example_plan(), cut, len, &insert);
        if let Ok(plan) = Plan::from_toml("plan.toml", &text) {
            let platforms = common::platforms();
            if let Ok(p) = platforms.get(&plan.platform) {
                let _ = gpuplan_core::quote::quote(&plan, p, common::catalog(), common::zoo());
            }
        }
    }

    #[test]
    fn catalog_parser_survives_edits(cut in any::<usize>(), len in 0usize..40, insert in "[ -~\\n]{0,20}") {
        let text = mutate(gpuplan_data::GPUS_TOML, cut, len, &insert);
        let _ = GpuCatalog::from_toml("g.toml", &text);
    }

    #[test]
    fn pack_and_override_parsers_survive_random_text(text in "[ -~\\n]{0,300}") {
        let catalog = common::catalog();
        let _ = CoursePack::from_toml("pack.toml", &text, catalog, common::zoo());
        let _ = Overrides::from_toml("o.toml", &text);
        let _ = from_hf_config(&text);
    }

    #[test]
    fn hf_config_import_survives_odd_numbers(layers in any::<i64>(), hidden in any::<i64>(), heads in any::<i64>(), vocab in any::<i64>()) {
        let json = format!(r#"{{"model_type":"llama","num_hidden_layers":{layers},"hidden_size":{hidden},"num_attention_heads":{heads},"vocab_size":{vocab},"max_position_embeddings":4096}}"#);
        match from_hf_config(&json) {
            Ok(m) => prop_assert!(m.layers >= 1 && m.hidden >= 8, "accepted configs are in range"),
            Err(e) => prop_assert!(!e.field.is_empty(), "errors name a field"),
        }
    }
}

#[test]
fn a_pack_with_several_bad_profiles_lists_them_all() {
    let catalog = common::catalog();
    let mut profiles = Vec::new();
    for (i, (_, text)) in gpuplan_data::PLATFORMS.iter().take(2).enumerate() {
        let mut v: toml::Value = toml::from_str(text).expect("profile");
        // Break each profile differently: a discount above 1 and an unknown GPU.
        if i == 0 {
            v["student"]["discount"]["value"] = toml::Value::Float(7.0);
        } else {
            v["offer"][0]["gpu"] = toml::Value::String("gtx480".into());
        }
        profiles.push(v);
    }
    let mut pack = toml::map::Map::new();
    pack.insert(
        "pack".into(),
        toml::Value::Table(toml::toml! { name = "CV 101" }),
    );
    pack.insert("platform".into(), toml::Value::Array(profiles));
    let text = toml::to_string(&toml::Value::Table(pack)).expect("text");
    let err = CoursePack::from_toml("pack.toml", &text, catalog, common::zoo())
        .expect_err("both profiles are invalid");
    assert!(
        err.message.contains("2 platforms rejected"),
        "the message counts the rejected profiles: {err}"
    );
    assert!(
        err.message.contains("discount") && err.message.contains("gpu"),
        "and names each problem: {err}"
    );
    assert!(err.line > 0, "with a line: {err}");
}

#[test]
fn a_first_version_report_still_imports_but_its_memory_teaches_nothing() {
    let text = std::fs::read_to_string(crate::common::root().join("examples/run-report-v1.json"))
        .expect("example");
    let r =
        gpuplan_core::report::RunReport::from_json("v1.json", &text).expect("a v1 report reads");
    assert_eq!(
        r.shown_peak_mib(),
        Some(2746),
        "its figure is shown on the bill"
    );
    assert_eq!(
        r.memory(),
        gpuplan_core::report::MemoryMeasure::Unknown,
        "but not compared: a v1 figure is a sum over GPUs from nvidia-smi or PyTorch, unsaid which"
    );
    let v2 =
        std::fs::read_to_string(crate::common::root().join("examples/run-report-example.json"))
            .expect("example");
    let r2 = gpuplan_core::report::RunReport::from_json("v2.json", &v2).expect("a v2 report reads");
    assert_eq!(
        r2.memory(),
        gpuplan_core::report::MemoryMeasure::Process(2746),
        "v2: per GPU"
    );
    assert_ne!(
        r.identity(),
        r2.identity(),
        "a v1 report has no run id to name its run by: the kit writes one version of a run"
    );
    let renamed = gpuplan_core::report::RunReport::from_json(
        "renamed.json",
        &v2.replace("\"job\": \"train\"", "\"job\": \"baseline lr=0.1\"")
            .replace("\"plan\": \"ResNet-18", "\"plan\": \"My ResNet-18"),
    )
    .expect("a renamed report reads");
    assert_eq!(
        renamed.identity(),
        r2.identity(),
        "a run whose plan and job were renamed by hand is the same run, one bill"
    );
}

#[test]
fn a_plan_value_of_the_wrong_kind_says_the_fields_range() {
    // (plan text, field, why)
    let cases = [
        ("[job]\nhours = nan\n", "job.hours", "nan is no duration"),
        (
            "budget = \"150元\"\n[job]\nhours = 1\n",
            "budget",
            "a unit in a TOML string",
        ),
        (
            "[job]\nhours = 1\n[[run]]\ncount = 2.5\n",
            "run.count",
            "half a run: a whole number's range",
        ),
        (
            "parallel = \"two\"\n[job]\nhours = 1\n",
            "parallel",
            "a word for a whole number",
        ),
        (
            "[job]\nhours = 1\n[stops]\ncount = -1\nhours_each = 1\n",
            "stops.count",
            "a negative count",
        ),
    ];
    for (tail, field, why) in cases {
        let text = format!("name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n{tail}");
        let e = gpuplan_core::plan::Plan::from_toml("p.toml", &text).expect_err(why);
        assert_eq!(e.field, field, "{why}: the field is named");
        assert!(e.allowed.is_some(), "{why}: the range is given");
    }
}

#[test]
fn a_wall_time_past_its_billing_window_is_refused_beyond_the_clocks_rounding() {
    let v2 =
        std::fs::read_to_string(crate::common::root().join("examples/run-report-example.json"))
            .expect("example");
    // The example's window is 14:02:11 to 14:31:40, 1769 s.
    // (wall seconds, accepted, why)
    let cases = [
        (1769, true, "the window itself"),
        (
            1771,
            true,
            "two seconds over: whole seconds read a moment apart",
        ),
        (
            1800,
            false,
            "31 s over a 1769 s window: the report overstates its run",
        ),
    ];
    for (wall, ok, why) in cases {
        let text = v2.replace(
            "\"wall_seconds\": 1769",
            &format!("\"wall_seconds\": {wall}"),
        );
        let got = gpuplan_core::report::RunReport::from_json("r.json", &text);
        assert_eq!(got.is_ok(), ok, "{why}: {:?}", got.err());
        if let Err(e) = got {
            assert_eq!(e.field, "wall_seconds", "{why}: the field named");
        }
    }
}

#[test]
fn a_plans_money_is_in_yuan_and_fen() {
    let base = "name = \"b\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 1\n";
    // (line, accepted, why)
    let cases = [
        ("budget = 12.5", true, "a budget in yuan and jiao"),
        ("budget = 12.50", true, "two places"),
        ("credit = 0.01", true, "a fen of credit"),
        (
            "budget = 0.001",
            false,
            "a tenth of a fen would show as 0.00, exceeded by any bill",
        ),
        ("balance = 5.555", false, "a balance has fen, no finer"),
    ];
    for (line, ok, why) in cases {
        let text = base.replacen("[job]", &format!("{line}\n[job]"), 1);
        let got = gpuplan_core::plan::Plan::from_toml("p.toml", &text);
        assert_eq!(got.is_ok(), ok, "{why}: {:?}", got.err());
        if let Err(e) = got {
            let key = line.split(' ').next().unwrap_or("");
            assert_eq!(e.field, key, "{why}: the field named");
        }
    }
}

#[test]
fn an_unknown_plan_key_near_a_known_one_is_offered_it() {
    let base = "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\n";
    // (line, the key offered, why)
    let cases = [
        ("hour = 1", Some("hours"), "a missing s"),
        ("epoch = 3", Some("epochs"), "the singular"),
        ("zzz = 1", None, "nothing near: no guess"),
    ];
    for (line, near, why) in cases {
        let e = gpuplan_core::plan::Plan::from_toml("p.toml", &format!("{base}{line}\n"))
            .expect_err("an unknown key is refused");
        let said = e.said.as_ref().expect("said in the catalog's words");
        assert_eq!(said.params.get("near").map(String::as_str), near, "{why}");
    }
}

#[test]
fn a_report_figure_of_the_wrong_kind_says_what_the_field_takes() {
    let v2 =
        std::fs::read_to_string(crate::common::root().join("examples/run-report-example.json"))
            .expect("example");
    // (the field's value, field, why)
    let cases = [
        ("\"wall_seconds\": -5", "wall_seconds", "negative seconds"),
        (
            "\"exit_status\": 2.5",
            "exit_status",
            "a fraction of a status",
        ),
        (
            "\"gpu_peaks_mib\": [-1]",
            "gpu_peaks_mib",
            "a negative peak",
        ),
    ];
    for (value, field, why) in cases {
        let key = value.split(':').next().unwrap_or_default();
        let start = v2.find(key).expect("the field is in the example");
        let end = start + v2[start..].find([',', '\n']).expect("a value's end");
        let text = format!("{}{value}{}", &v2[..start], &v2[end..]);
        let e = gpuplan_core::report::RunReport::from_json("r.json", &text).expect_err(why);
        assert_eq!(e.field, field, "{why}: the field is named");
        assert!(e.allowed.is_some(), "{why}: what it takes is said");
    }
}
