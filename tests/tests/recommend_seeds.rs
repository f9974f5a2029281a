//! Seed 000 §6: stage advice (§6.1-6.4) and the needs-to-platform table (§6.5)
//! as tests of the recommender.

use crate::common;

use gpuplan_core::job::JobSpec;
use gpuplan_core::plan::Payment;
use gpuplan_core::platform::PlatformKind;
use gpuplan_core::recommend::{recommend, Recommendation, Situation, Stage};
use rust_decimal::Decimal;

fn situation(stage: Stage, hours: i64, runs: u32) -> Situation {
    Situation {
        stage,
        budget: None,
        job: JobSpec {
            hours: Some(Decimal::from(hours)),
            ..Default::default()
        },
        runs,
        ..gpuplan_usecases::defaults::situation()
    }
}

fn run(s: &Situation) -> Recommendation {
    recommend(s, common::platforms(), common::catalog(), common::zoo()).expect("recommendation")
}

#[test]
fn table_6_5_needs_to_platform() {
    // 体验深度学习的训练流程 → 平台B免费额度 (hosted notebook), 备选平台A低配实例.
    let mut demo = situation(Stage::FirstDemo, 1, 1);
    demo.mainland_china = false;
    demo.budget = Some(Decimal::from(30));
    let r = run(&demo);
    assert_eq!(
        r.options[0].kind,
        PlatformKind::HostedNotebook,
        "a first demo starts on free notebook quota"
    );
    assert!(
        r.options
            .iter()
            .take(6)
            .any(|o| o.kind == PlatformKind::ContainerCloud),
        "with a container cloud among the alternatives"
    );

    // 一周内完成课程大作业 → 平台A按需实例, 备选平台D校园超算.
    let mut course = situation(Stage::CourseProject, 2, 8);
    course.budget = Some(Decimal::from(150));
    course.campus_access = true;
    let r = run(&course);
    assert_eq!(
        r.options[0].kind,
        PlatformKind::ContainerCloud,
        "a week's course project goes to an on-demand container cloud"
    );
    assert_eq!(r.options[0].payment, Payment::OnDemand, "on demand");
    assert!(
        r.options[0].cost <= Decimal::from(150),
        "within the 50-150 budget: {}",
        r.options[0].cost
    );

    // 大量超参数对比实验 → 平台C竞价实例, 备选平台A按需.
    let mut sweep = situation(Stage::ThesisResearch, 2, 40);
    sweep.interruptible = true;
    sweep.linux = true;
    let r = run(&sweep);
    assert_eq!(
        r.options[0].payment,
        Payment::Spot,
        "a sweep that tolerates interruption runs on spot"
    );
    let first_on_demand = r
        .options
        .iter()
        .find(|o| o.payment == Payment::OnDemand)
        .expect("an on-demand option");
    assert_eq!(
        first_on_demand.kind,
        PlatformKind::ContainerCloud,
        "the best on-demand alternative is a container cloud"
    );

    // 论文正式实验要求稳定 → 平台D校园超算, 备选平台A.
    let mut thesis = situation(Stage::ThesisResearch, 10, 6);
    thesis.campus_access = true;
    thesis.slurm = true;
    thesis.linux = true;
    let r = run(&thesis);
    assert_eq!(
        r.options[0].kind,
        PlatformKind::CampusHpc,
        "formal thesis experiments go to the campus cluster"
    );
    assert!(
        r.options
            .iter()
            .skip(1)
            .take(3)
            .any(|o| o.kind == PlatformKind::ContainerCloud),
        "with a container cloud next"
    );

    // 竞赛冲刺跑大模型 → 平台A高端卡, 备选平台C旗舰卡.
    let mut sprint = situation(Stage::CompetitionSprint, 0, 1);
    sprint.job = JobSpec {
        model: Some("llama-2-7b".into()),
        mode: Some(gpuplan_core::Mode::Lora),
        seq_len: Some(1024.0),
        batch: Some(8.0),
        dataset_samples: Some(20000.0),
        epochs: Some(1.0),
        ..Default::default()
    };
    sprint.linux = true;
    sprint.deadline_hours = Some(Decimal::from(24));
    let r = run(&sprint);
    let top = &r.options[0];
    assert_eq!(
        top.kind,
        PlatformKind::ContainerCloud,
        "a sprint rents a high-end card on a container cloud"
    );
    let card = common::catalog().get(&top.gpu).expect("card").clone();
    assert!(
        card.vram_gib() >= 75.0,
        "a high-end 80 GB-class card for a 7B LoRA at batch 8: got {}",
        top.gpu
    );
    assert!(
        r.ruled_out.iter().any(|o| o.gpu == "rtx3090")
            || r.options.iter().filter(|o| o.gpu == "rtx3090").all(|o| o.fix.is_some()),
        "24 GB cards are ruled out, or ranked only with a fix, because the job does not fit as given"
    );
}

#[test]
fn stage_advice_6_1_to_6_4() {
    // §6.2 vs §6.3: the same job ranks the campus cluster first only for thesis research.
    let mut s = situation(Stage::CourseProject, 3, 4);
    s.campus_access = true;
    s.slurm = true;
    s.linux = true;
    assert_ne!(
        run(&s).options[0].kind,
        PlatformKind::CampusHpc,
        "§6.2: course projects start on on-demand instances"
    );
    s.stage = Stage::ThesisResearch;
    assert_eq!(
        run(&s).options[0].kind,
        PlatformKind::CampusHpc,
        "§6.3: thesis research uses the campus cluster as the main queue"
    );
    // §6.1: no campus account rules the cluster out, with the reason given.
    s.campus_access = false;
    let r = run(&s);
    assert!(
        r.options.iter().all(|o| o.kind != PlatformKind::CampusHpc),
        "no account, no cluster"
    );
    assert!(
        r.ruled_out
            .iter()
            .any(|o| o.reason.key == "ruled.no-campus"),
        "and the reason says so"
    );
    // §6.4: a deadline rules out the slow queue.
    let mut sprint = situation(Stage::CompetitionSprint, 3, 1);
    sprint.campus_access = true;
    sprint.slurm = true;
    sprint.deadline_hours = Some(Decimal::from(4));
    let r = run(&sprint);
    assert!(
        r.options
            .iter()
            .all(|o| o.time_to_result_hours <= Decimal::from(4)),
        "every option meets the deadline"
    );
    assert!(
        r.ruled_out.iter().any(|o| o.platform == "campus-slurm"),
        "the 4-hour campus queue misses a 4-hour deadline"
    );
    // Every option has reasons and a priced quote.
    assert!(
        r.options
            .iter()
            .all(|o| !o.reasons.is_empty() && o.quote.cash_total == o.cost),
        "options carry reasons and their quote"
    );
}

fn with_model(stage: Stage, toml_job: &str) -> Situation {
    let job: JobSpec = toml::from_str(toml_job).expect("job");
    Situation {
        stage,
        budget: Some(Decimal::from(150)),
        job,
        runs: 1,
        ..gpuplan_usecases::defaults::situation()
    }
}

#[test]
fn reasons_only_where_they_apply() {
    // A first demo: "a low-end instance as a complement" must not be said of
    // an A800; on-demand advice must not be said of a spot option.
    let mut demo = situation(Stage::FirstDemo, 1, 1);
    demo.interruptible = true;
    let r = run(&demo);
    let catalog = common::catalog();
    for o in &r.options {
        let vram = catalog.get(&o.gpu).expect("card").vram_gib();
        if o.reasons
            .iter()
            .any(|m| m.key == "reason.first-demo-low-end")
        {
            assert!(
                vram <= 16.5,
                "{} {} is not a low-end card",
                o.platform,
                o.gpu
            );
        }
    }
    let mut course = situation(Stage::CourseProject, 2, 8);
    course.interruptible = true;
    for o in run(&course)
        .options
        .iter()
        .filter(|o| o.payment == Payment::Spot)
    {
        assert!(
            !o.reasons.iter().any(|m| m.key == "reason.course-container"),
            "{} {}: on-demand advice on a spot option",
            o.platform,
            o.gpu
        );
    }
}

#[test]
fn memory_is_checked_whenever_the_model_is_known_even_with_hours() {
    // Full training of a 7B model does not fit a 24 GB card; with the hours
    // given, the cards it does not fit are still ruled out.
    let s = with_model(
        Stage::CompetitionSprint,
        "model = \"llama-2-7b\"\nhours = \"2\"\nmode = \"lora\"\nseq_len = 1024\nbatch = 4",
    );
    let r = run(&s);
    // Issue 23: a card the job fits only with a fix is ranked with the fix
    // applied (and says which), never with the job as given.
    for gpu in ["rtx4090", "rtx3090"] {
        let out = r
            .ruled_out
            .iter()
            .any(|x| x.gpu == gpu && x.reason.key == "ruled.does-not-fit");
        let fixed = r
            .options
            .iter()
            .filter(|o| o.gpu == gpu)
            .all(|o| o.fix.is_some());
        assert!(
            out || fixed,
            "{gpu}: ruled out by memory, or ranked with a fix"
        );
        assert!(fixed, "{gpu}: never offered with the job as given");
    }
}

#[test]
fn a_job_too_big_for_any_one_card_is_offered_on_several() {
    let s = with_model(
        Stage::CourseProject,
        "model = \"llama-3-8b\"\nseq_len = 512\nbatch = 1\ndataset_samples = 1000\nepochs = 1\nprecision = \"fp32\"",
    );
    let r = run(&s);
    assert!(
        !r.options.is_empty(),
        "full fp32 training of an 8B model (about 130 GB of states) fits an instance of several cards"
    );
    assert!(
        r.options.iter().any(|o| o.fix.is_none() && o.layout.is_some()),
        "full training as asked is offered on several GPUs, beside LoRA on one card (a different task)"
    );
    for o in r.options.iter().filter(|o| o.fix.is_none()) {
        let l = o
            .layout
            .expect("no rentable card holds it alone as given: several GPUs, or one with a fix");
        assert!(l.gpus >= 2, "{} {}: at least two GPUs", o.platform, o.gpu);
        assert!(
            o.quote.lines.iter().any(|line| line
                .params
                .0
                .iter()
                .any(|(k, v)| *k == "gpu" && v.starts_with(&format!("{} × ", l.gpus)))),
            "{} {}: the bill prices the whole instance",
            o.platform,
            o.gpu
        );
    }
}

#[test]
fn when_nothing_fits_even_eight_cards_the_fixes_are_offered() {
    let s = with_model(
        Stage::CourseProject,
        "model = \"llama-2-13b\"\nseq_len = 4096\nbatch = 64\ndataset_samples = 1000\nepochs = 1\nprecision = \"fp32\"",
    );
    let r = run(&s);
    assert!(
        r.options.is_empty(),
        "64 x 4096 tokens of FP32 13B activations fit no instance of eight cards"
    );
    assert!(
        r.fixes_for.is_some(),
        "the fixes name the card they are for"
    );
    // No single change fits so extreme a job on the largest card either, and
    // the answer says so rather than inventing one.
    let card = r.fixes_for.as_deref().unwrap_or_default();
    for f in &r.fixes {
        assert!(f.peak_gib > 0.0, "{card}: each fix states its peak");
    }
}

#[test]
fn money_warnings_lead_and_the_ranking_says_what_each_option_is_best_at() {
    let mut s = situation(Stage::CourseProject, 20, 8);
    s.budget = Some(Decimal::from(50));
    let r = run(&s);
    for o in &r.options {
        if o.quote.warnings.iter().any(|w| w.is_about_budget()) {
            assert!(
                o.watch_out
                    .first()
                    .is_some_and(|m| m.key == "warning.budget-exceeded"
                        || m.key == "warning.balance-runs-out"),
                "{} {}: the budget warning comes first: {:?}",
                o.platform,
                o.gpu,
                o.watch_out
            );
        }
    }
    // The badge goes to one option, the cheapest of those shown first.
    let shown = &r.options[..r.options.len().min(gpuplan_core::recommend::SHORTLIST)];
    let cheapest = shown.iter().map(|o| o.cost).min().expect("options");
    let marked: Vec<_> = shown
        .iter()
        .filter(|o| o.badges.contains(&gpuplan_core::recommend::Badge::Cheapest))
        .collect();
    assert_eq!(marked.len(), 1, "one option wears the cheapest badge");
    assert_eq!(marked[0].cost, cheapest, "and it is the cheapest shown");
}

#[test]
fn a_campus_account_surfaces_the_cluster_for_a_course_project() {
    // §6.2: a course project starts on an on-demand container cloud, with
    // the campus cluster as the alternative (备选) for non-urgent runs. With
    // an account the cluster is ranked, by the same function as every
    // option (it used to be moved into the first three by hand, which let a
    // dearer, slower, harder option jump cheaper ones).
    let mut s = situation(Stage::CourseProject, 2, 8);
    s.campus_access = true;
    let r = run(&s);
    assert!(
        r.options.iter().any(|o| o.kind == PlatformKind::CampusHpc),
        "the campus cluster is ranked for a student with an account"
    );
    assert!(
        !r.ruled_out
            .iter()
            .any(|o| o.reason.key == "ruled.no-campus"),
        "and not ruled out"
    );
    assert_eq!(
        r.options[0].kind,
        PlatformKind::ContainerCloud,
        "the first choice stays the container cloud"
    );
}

#[test]
fn the_deadline_uses_the_whole_time_to_result() {
    // Two 20 h runs: Kaggle's weekly quota pushes the second into week two.
    let mut s = situation(Stage::FirstDemo, 20, 2);
    s.mainland_china = false;
    s.deadline_hours = Some(Decimal::from(100));
    let r = run(&s);
    assert!(
        r.ruled_out
            .iter()
            .any(|x| x.platform == "kaggle" && x.reason.key == "ruled.after-deadline"),
        "Kaggle misses a 100 h deadline once its quota resets are counted"
    );
    assert!(
        r.options
            .iter()
            .all(|o| o.time_to_result_hours <= Decimal::from(100)),
        "no option past the deadline"
    );
}

#[test]
fn a_pitfall_about_one_card_is_shown_only_with_that_card() {
    let r = run(&situation(Stage::CourseProject, 2, 4));
    let stock = |o: &gpuplan_core::recommend::RankedOption| {
        o.pitfalls.iter().any(|p| p.en.contains("sold out"))
    };
    let autodl: Vec<_> = r
        .options
        .iter()
        .filter(|o| o.platform == "autodl")
        .collect();
    assert!(
        autodl.iter().any(|o| o.gpu == "rtx4090"),
        "AutoDL's RTX 4090 is among the options"
    );
    for o in autodl {
        assert_eq!(
            stock(o),
            o.gpu == "rtx4090",
            "the RTX 4090 stock warning belongs to the 4090 only, not to {}",
            o.gpu
        );
    }
}
