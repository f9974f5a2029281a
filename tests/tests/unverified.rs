//! Unverified is visible (issue 22): a bill says how much of it rests on
//! figures nobody checked against the platform (a seed article, an
//! estimate), and which; a figure the plan sets itself is the student's own.
//! The profile is AutoDL's with the grades of a few figures set here, so the
//! cases do not move when the bundled grades improve.

use crate::common;

use gpuplan_core::plan::Plan;
use gpuplan_core::platform::PlatformProfile;
use gpuplan_core::quote::{quote, Figure, Quote};
use gpuplan_core::sourced::Grade;

/// AutoDL's profile with the RTX 3090's price graded `price` and the disk
/// price graded `storage`; every other figure keeps its bundled grade, made
/// verified where it was not (so only these two can be unverified).
fn profile(price: &str, storage: &str) -> PlatformProfile {
    let text = gpuplan_data::PLATFORMS
        .iter()
        .find(|(f, _)| f.ends_with("autodl.toml"))
        .map(|(_, t)| *t)
        .expect("autodl");
    let mut v: toml::Value = toml::from_str(text).expect("profile");
    let regrade = |t: &mut toml::Value, grade: &str| {
        if let Some(t) = t.as_table_mut() {
            t.insert("grade".into(), grade.into());
            t.insert("source".into(), "seed 003 §5 (set by the test)".into());
            t.insert("confidence".into(), "low".into());
            t.remove("observed");
            t.remove("url");
        }
    };
    // Every figure verified first: platform-quoted needs only a source.
    fn all(v: &mut toml::Value) {
        match v {
            toml::Value::Table(t) if t.contains_key("grade") => {
                t.insert("grade".into(), "platform-quoted".into());
                t.remove("url");
            }
            toml::Value::Table(t) => t.iter_mut().for_each(|(_, v)| all(v)),
            toml::Value::Array(a) => a.iter_mut().for_each(all),
            _ => {}
        }
    }
    all(&mut v);
    if let Some(o) = v
        .get_mut("offer")
        .and_then(|o| o.as_array_mut())
        .and_then(|a| {
            a.iter_mut()
                .find(|o| o.get("gpu").and_then(|g| g.as_str()) == Some("rtx3090"))
        })
        .and_then(|o| o.get_mut("price_per_hour"))
    {
        regrade(o, price);
    }
    if let Some(s) = v
        .get_mut("storage")
        .and_then(|s| s.get_mut("price_per_gb_day"))
    {
        regrade(s, storage);
    }
    PlatformProfile::from_toml(
        "autodl.toml",
        &toml::to_string(&v).expect("text"),
        common::catalog(),
    )
    .unwrap_or_else(|e| panic!("test profile: {e}"))
}

fn priced(profile: &PlatformProfile, plan: &str) -> Quote {
    let p = Plan::from_toml("test plan", plan).unwrap_or_else(|e| panic!("{e}"));
    quote(&p, profile, common::catalog(), common::zoo()).unwrap_or_else(|e| panic!("{e}"))
}

const RUN: &str = r#"name = "ten hours"
platform = "autodl"
gpu = "rtx3090"
setup_hours = 0
[job]
hours = 10
"#;

#[test]
fn a_bill_on_a_seed_price_says_so_beside_the_total() {
    // 10 h at the seed-graded price: every line rests on it, 100%.
    let q = priced(&profile("seed", "platform-quoted"), RUN);
    let u = &q.unverified;
    assert!(u.noted, "the whole bill rests on the seed price: {u:?}");
    assert_eq!(u.percent, 100, "all of it");
    assert_eq!(
        u.figures
            .iter()
            .map(|g| (g.figure, g.grade))
            .collect::<Vec<_>>(),
        vec![(Figure::PricePerHour, Grade::Seed)],
        "the one figure, with its grade"
    );
    assert_eq!(
        u.amount, q.cash_total,
        "the money resting on it is the bill"
    );
}

#[test]
fn a_price_the_student_sets_is_theirs_not_unverified() {
    let plan = format!("{RUN}[prices]\ngpu_per_hour = 1.5\n");
    let q = priced(&profile("seed", "platform-quoted"), &plan);
    assert!(
        !q.unverified.noted,
        "the plan's own price is the student's: {:?}",
        q.unverified
    );
    assert!(
        q.unverified.figures.is_empty(),
        "no unverified figure behind it"
    );
}

#[test]
fn the_share_is_the_money_on_lines_resting_on_unverified_figures() {
    // A verified 10 h run (13.90 at 1.39) and an estimated disk: 150 GB for
    // 30 days, 100 GB above the free 50 at 0.0066 = 0.66 a day, 19.80.
    // Share 19.80 / (13.90 + 19.80) = 58.8% -> 59.
    let plan = format!("{RUN}[storage]\ngb = 150\ndays = 30\n");
    let q = priced(&profile("platform-quoted", "estimate"), &plan);
    let u = &q.unverified;
    assert_eq!(
        u.figures.iter().map(|g| g.figure).collect::<Vec<_>>(),
        vec![Figure::StoragePrice],
        "only the disk price is unverified"
    );
    let storage: rust_decimal::Decimal = q
        .lines
        .iter()
        .filter(|l| l.kind == gpuplan_core::quote::LineKind::Storage)
        .map(|l| l.amount)
        .sum();
    assert_eq!(u.amount, storage, "the money on the storage line");
    let expected = (storage * rust_decimal::Decimal::from(100) / q.cash_total).round();
    assert_eq!(
        rust_decimal::Decimal::from(u.percent),
        expected,
        "its share of the bill, whole percent"
    );
    assert!(u.noted, "over the stated 10%");
}

#[test]
fn a_small_unverified_share_is_not_noted() {
    // A long verified run and a tiny estimated disk: 200 h (278.00) and
    // 51 GB for a day (1 GB above the free 50: 0.01): well under 10%.
    let plan = "name = \"small\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n[job]\nhours = 200\n[storage]\ngb = 51\ndays = 1\n";
    let q = priced(&profile("platform-quoted", "estimate"), plan);
    assert!(
        q.unverified.percent < gpuplan_core::quote::UNVERIFIED_NOTE_PERCENT,
        "a fen of disk: {:?}",
        q.unverified
    );
    assert!(!q.unverified.noted, "not worth a note beside the total");
    assert_eq!(
        q.unverified.figures.len(),
        1,
        "but the figure is still listed in the JSON"
    );
}
