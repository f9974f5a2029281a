//! The ranking holds together (issue 23): one documented function of cost,
//! time to result, risk and hassle (crates/gpuplan-core/src/recommend/rank.rs).
//! An option no dearer, no slower, no riskier and no harder than another
//! never ranks below it; each badge goes to one option, the best at it;
//! spot warnings only on spot options; every platform is ranked or ruled out
//! with a reason; a job that needs a fix to fit is ranked with the fix.

use crate::common;

use gpuplan_core::job::JobSpec;
use gpuplan_core::plan::Payment;
use gpuplan_core::recommend::{recommend, Badge, RankedOption, Recommendation, Situation, Stage};
use proptest::prelude::*;
use rust_decimal::Decimal;

fn run(s: &Situation) -> Recommendation {
    recommend(s, common::platforms(), common::catalog(), common::zoo()).expect("recommendation")
}

/// `a` is at least as good as `b` at everything and better at something.
fn dominates(a: &RankedOption, b: &RankedOption) -> bool {
    let le = a.cost <= b.cost
        && a.time_to_result_hours <= b.time_to_result_hours
        && a.risk <= b.risk
        && a.hassle <= b.hassle;
    let lt = a.cost < b.cost
        || a.time_to_result_hours < b.time_to_result_hours
        || a.risk < b.risk
        || a.hassle < b.hassle;
    le && lt
}

fn stage() -> impl Strategy<Value = Stage> {
    prop_oneof![
        Just(Stage::FirstDemo),
        Just(Stage::CourseProject),
        Just(Stage::ThesisResearch),
        Just(Stage::CompetitionSprint),
    ]
}

proptest! {
    #![proptest_config(common::proptest_config(16))]

    #[test]
    fn a_dominated_option_never_ranks_above_the_one_that_dominates_it(
        stage in stage(),
        hours in 1i64..60,
        runs in 1u32..40,
        budget in prop::option::of(10i64..2000),
        flags in any::<[bool; 5]>(),
    ) {
        let s = Situation {
            stage,
            budget: budget.map(Decimal::from),
            job: JobSpec { hours: Some(Decimal::from(hours)), ..Default::default() },
            runs,
            linux: flags[0],
            slurm: flags[1],
            campus_access: flags[2],
            interruptible: flags[3],
            needs_persistence: flags[4],
            ..gpuplan_usecases::defaults::situation()
        };
        let r = run(&s);
        for (i, a) in r.options.iter().enumerate() {
            for b in &r.options[..i] {
                prop_assert!(
                    !dominates(a, b),
                    "{} {} (#{}) dominates {} {} above it: cost {} vs {}, time {} vs {}, risk {} vs {}, hassle {} vs {}",
                    a.platform, a.gpu, i + 1, b.platform, b.gpu, a.cost, b.cost,
                    a.time_to_result_hours, b.time_to_result_hours, a.risk, b.risk, a.hassle, b.hassle
                );
            }
        }
        for o in &r.options {
            // The shells print each part and the total to 0.01: the total
            // must be the sum of the printed parts.
            let shown = |x: f64| format!("{x:.2}").parse::<Decimal>().unwrap_or_default();
            let parts = shown(o.cost_points) + shown(o.time_points) + shown(o.risk) + shown(o.hassle);
            prop_assert_eq!(shown(-o.score), parts, "rank points add up as printed");
        }
        for badge in Badge::ALL {
            let n = r.options.iter().filter(|o| o.badges.contains(&badge)).count();
            prop_assert!(n <= 1, "{badge:?} on {n} options: a badge is for the one best at it");
        }
        let shown = &r.options[..r.options.len().min(gpuplan_core::recommend::SHORTLIST)];
        prop_assert!(
            r.options.iter().skip(shown.len()).all(|o| o.badges.is_empty()),
            "badges are for the options shown first"
        );
        if let Some(c) = shown.iter().position(|o| o.badges.contains(&Badge::Cheapest)) {
            let min = shown.iter().map(|o| o.cost).min();
            prop_assert_eq!(Some(shown[c].cost), min, "the cheapest badge is on the cheapest");
        }
        if let Some(f) = shown.iter().position(|o| o.badges.contains(&Badge::Fastest)) {
            let min = shown.iter().map(|o| o.time_to_result_hours).min();
            prop_assert_eq!(Some(shown[f].time_to_result_hours), min, "the fastest badge is on the fastest");
        }
    }
}

#[test]
fn spot_warnings_stay_on_spot_options() {
    // A sweep that tolerates interruption gets spot and on-demand options
    // of the same offers; the preemption pitfall belongs to the spot ones.
    let s = Situation {
        stage: Stage::ThesisResearch,
        interruptible: true,
        job: JobSpec {
            hours: Some(Decimal::from(2)),
            ..Default::default()
        },
        runs: 20,
        ..gpuplan_usecases::defaults::situation()
    };
    let r = run(&s);
    let spot_words = ["抢占", "竞价", "preempt", "Interruptible", "spot price"];
    let on_demand: Vec<&RankedOption> = r
        .options
        .iter()
        .filter(|o| o.payment == Payment::OnDemand)
        .collect();
    assert!(
        r.options.iter().any(|o| o.payment == Payment::Spot),
        "spot options exist for this sweep"
    );
    for o in on_demand {
        for p in &o.pitfalls {
            assert!(
                !spot_words
                    .iter()
                    .any(|w| p.zh.contains(w) || p.en.contains(w)),
                "{} {} on demand carries a spot pitfall: {}",
                o.platform,
                o.gpu,
                p.en
            );
        }
    }
}

#[test]
fn every_platform_is_ranked_or_ruled_out_with_a_reason() {
    let s = Situation {
        stage: Stage::ThesisResearch,
        job: JobSpec {
            hours: Some(Decimal::from(30)),
            ..Default::default()
        },
        runs: 10,
        ..gpuplan_usecases::defaults::situation()
    };
    let r = run(&s);
    for p in &common::platforms().platforms {
        for offer in &p.offers {
            let ranked = r
                .options
                .iter()
                .any(|o| o.platform == p.id && o.gpu == offer.gpu);
            let out = r
                .ruled_out
                .iter()
                .any(|o| o.platform == p.id && o.gpu == offer.gpu);
            assert!(
                ranked || out,
                "{} {} is neither ranked nor ruled out",
                p.id,
                offer.gpu
            );
        }
    }
}

#[test]
fn a_job_that_needs_a_fix_is_ranked_with_it_applied() {
    // A 7B LoRA in bf16 does not fit a 24 GB card as given; QLoRA or
    // checkpointing does. The 24 GB offers are ranked with the fix, the plan
    // carries it, and the option says which.
    let s = Situation {
        stage: Stage::CourseProject,
        job: JobSpec {
            model: Some("llama-2-7b".into()),
            mode: Some(gpuplan_core::job::Mode::Lora),
            seq_len: Some(2048.0),
            batch: Some(8.0),
            epochs: Some(1.0),
            dataset_samples: Some(2000.0),
            ..Default::default()
        },
        runs: 1,
        ..gpuplan_usecases::defaults::situation()
    };
    let r = run(&s);
    let fixed: Vec<&RankedOption> = r.options.iter().filter(|o| o.fix.is_some()).collect();
    assert!(
        !fixed.is_empty(),
        "some card is ranked with a fix: ruled out {:?}",
        r.ruled_out
            .iter()
            .map(|x| (&x.gpu, &x.reason.key))
            .collect::<Vec<_>>()
    );
    for o in fixed {
        let fix = o.fix.as_ref().expect("fix");
        let plan = o.plan.as_ref().expect("plan");
        assert_eq!(
            plan.job,
            fix.apply(&s.job),
            "{} {}: the plan runs the fixed job",
            o.platform,
            o.gpu
        );
        assert!(
            o.reasons.iter().any(|m| m.key == "reason.fits-with-fix"),
            "{} {}: the option says which fix",
            o.platform,
            o.gpu
        );
        assert!(o.fit.is_some(), "the fit with the fix is on the option");
    }
}

#[test]
fn a_defaulted_precision_runs_as_fp16_where_a_card_has_no_bf16() {
    // A 7B QLoRA with the precision left to the model's bf16 default: a
    // Turing card runs it in fp16 mixed precision, as `estimate` does, so
    // the 2080 Ti is an option, not ruled out for bf16. Asked for bf16 in
    // so many words, it is ranked only with a fix that says so.
    let job = |precision| JobSpec {
        model: Some("llama-2-7b".into()),
        mode: Some(gpuplan_core::Mode::Qlora),
        seq_len: Some(512.0),
        batch: Some(4.0),
        dataset_samples: Some(2000.0),
        epochs: Some(1.0),
        precision,
        ..Default::default()
    };
    let situation = |precision| Situation {
        stage: Stage::ThesisResearch,
        job: job(precision),
        ..gpuplan_usecases::defaults::situation()
    };
    let r = run(&situation(None));
    assert!(
        r.options.iter().any(|o| o.gpu == "rtx2080ti"),
        "the 2080 Ti is ranked with fp16"
    );
    assert!(
        !r.ruled_out.iter().any(|o| o.gpu == "rtx2080ti"),
        "and not ruled out"
    );
    assert!(
        r.options
            .iter()
            .filter(|o| o.gpu == "rtx2080ti")
            .all(|o| o.fix.is_none()),
        "defaulted: fp16 is the job as given, no fix to apply"
    );
    let r = run(&situation(Some(gpuplan_core::job::Precision::Bf16Amp)));
    assert!(
        r.options
            .iter()
            .filter(|o| o.gpu == "rtx2080ti")
            .all(|o| o.fix.is_some()),
        "bf16 asked for: the 2080 Ti only with a fix that changes it"
    );
}
