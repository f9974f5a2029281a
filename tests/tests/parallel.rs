//! Several GPUs (issue 13): per-GPU model states against DeepSpeed's own
//! published formulas, the rules sharding must follow, and the suggestion of
//! the smallest instance that fits.

use crate::common;

use gpuplan_core::estimate::{job_peak, smallest_layout, usable_bytes};
use gpuplan_core::job::{Mode, Optimizer, Precision};
use gpuplan_core::parallel::{self, Engine, Interconnect, Layout};
use gpuplan_core::pipeline::Host;
use gpuplan_core::{vram, JobSpec};

fn job(model: &str, gpus: u32, engine: Option<Engine>, offload: bool) -> gpuplan_core::Job {
    let zoo = common::zoo();
    let entry = zoo.get(model).expect("zoo");
    JobSpec {
        model: Some(model.into()),
        batch: Some(1.0),
        seq_len: Some(128.0),
        precision: Some(Precision::Bf16Amp),
        optimizer: Some(Optimizer::Adamw),
        mode: Some(Mode::Train),
        gpus: (gpus > 1).then_some(f64::from(gpus)),
        engine,
        offload: offload.then_some(true),
        ..JobSpec::default()
    }
    .resolve(entry)
    .expect("valid job")
}

#[test]
fn zero_model_states_follow_deepspeeds_published_formulas() {
    // DeepSpeed's ZeRO paper (Rajbhandari et al. 2020, Figure 1) and its
    // `estimate_zero*_model_states_mem_needs` helpers: mixed-precision Adam
    // keeps 2 bytes of weights, 2 of gradients and 12 of optimizer state (FP32
    // master weights, momentum, variance) per parameter; ZeRO-1 shards the 12,
    // ZeRO-2 the 2 + 12, ZeRO-3 all 16.
    let psi = 6.7e9;
    for n in [1u32, 2, 4, 8, 64] {
        let nf = f64::from(n);
        // (engine, published formula, stage)
        let cases = [
            (Engine::Zero1, 4.0 * psi + 12.0 * psi / nf, "ZeRO-1"),
            (Engine::Zero2, 2.0 * psi + 14.0 * psi / nf, "ZeRO-2"),
            (Engine::Zero3, 16.0 * psi / nf, "ZeRO-3"),
            (Engine::Ddp, 16.0 * psi, "plain data parallel"),
        ];
        for (engine, want, stage) in cases {
            let got = parallel::model_state_bytes(psi, engine, n);
            assert!(
                (got / want - 1.0).abs() < 1e-9,
                "{stage} on {n} GPUs: {got:e} bytes, the formula gives {want:e}"
            );
        }
    }
    // And the per-GPU estimate lays the states out that way: at the
    // optimizer step, weights + gradients + states are the formula's model
    // states.
    let zoo = common::zoo();
    let entry = zoo.get("llama-2-7b").expect("zoo");
    for (engine, n) in [
        (Engine::Zero1, 4u32),
        (Engine::Zero2, 8),
        (Engine::Zero3, 8),
    ] {
        let j = job("llama-2-7b", n, Some(engine), false);
        let live = vram::live(&entry.model, &j);
        let layout = Layout {
            gpus: n,
            engine,
            offload: false,
            interconnect: Interconnect::Nvlink,
            inter_node_gbps: None,
            gpus_per_node: None,
            pcie_gbps: None,
        };
        let c = parallel::optimizer_step(&j, &live, &layout, 32);
        let states = c.weights + c.gradients + c.optimizer;
        let want = parallel::model_state_bytes(live.params as f64, engine, n);
        assert!(
            (states / want - 1.0).abs() < 0.01,
            "{engine:?} x{n}: the estimate's model states {states:e} match DeepSpeed's {want:e}"
        );
    }
}

#[test]
fn sharding_never_needs_more_memory_per_gpu() {
    let zoo = common::zoo();
    for model in ["gpt2-medium", "llama-2-7b", "bert-large"] {
        let entry = zoo.get(model).expect("zoo");
        // (engines ordered by what they shard)
        for n in [2u32, 4, 8] {
            let peak =
                |e: Engine| job_peak(&entry.model, &job(model, n, Some(e), false)).peak_bytes;
            assert!(
                peak(Engine::Zero2) <= peak(Engine::Zero1),
                "{model} x{n}: ZeRO-2 shards more than ZeRO-1"
            );
            assert!(
                peak(Engine::Zero3) <= peak(Engine::Zero2) * 1.05,
                "{model} x{n}: ZeRO-3 shards the weights too (its gather buffer aside)"
            );
            assert!(
                peak(Engine::FsdpFull) <= peak(Engine::FsdpGradOp),
                "{model} x{n}: a full shard keeps less than shard-grad-op"
            );
            let off = job_peak(&entry.model, &job(model, n, Some(Engine::Zero3), true)).peak_bytes;
            assert!(
                off <= peak(Engine::Zero3),
                "{model} x{n}: offloading the optimizer frees GPU memory"
            );
        }
        let two = job_peak(&entry.model, &job(model, 2, Some(Engine::Zero3), false)).peak_bytes;
        let eight = job_peak(&entry.model, &job(model, 8, Some(Engine::Zero3), false)).peak_bytes;
        assert!(eight < two, "{model}: more GPUs, smaller shards");
    }
}

#[test]
fn communication_is_slower_over_pcie_and_grows_with_what_is_sharded() {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let entry = zoo.get("llama-2-7b").expect("zoo");
    let gpu = catalog.get("a100-80g-sxm").expect("card");
    let j = job("llama-2-7b", 8, Some(Engine::Zero3), false);
    let live = vram::live(&entry.model, &j);
    let single = vram::estimate(&entry.model, &j);
    let step = gpuplan_core::steptime::estimate(&entry.model, &j, &single, gpu);
    let run = |engine: Engine, ic: Interconnect| {
        let l = Layout {
            gpus: 8,
            engine,
            offload: false,
            interconnect: ic,
            inter_node_gbps: None,
            gpus_per_node: None,
            pcie_gbps: None,
        };
        parallel::estimate(&j, &live, &step, gpu, &l, 32).expect("estimates")
    };
    assert!(
        run(Engine::Zero3, Interconnect::Pcie).comm_seconds
            > run(Engine::Zero3, Interconnect::Nvlink).comm_seconds * 5.0,
        "PCIe is an order of magnitude slower than NVLink"
    );
    assert!(
        run(Engine::Zero3, Interconnect::Nvlink).comm_seconds
            > run(Engine::Zero2, Interconnect::Nvlink).comm_seconds,
        "ZeRO-3 gathers the weights twice more per step"
    );
    let ddp = run(Engine::Ddp, Interconnect::Nvlink);
    assert!(
        ddp.speedup <= 8.0 + 1e-9 && ddp.speedup > 4.0,
        "eight NVLinked GPUs speed DDP up, by at most eight"
    );
}

#[test]
fn a_job_too_big_for_one_card_is_told_the_smallest_instance_that_fits() {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let entry = zoo.get("llama-2-7b").expect("zoo");
    let j = job("llama-2-7b", 1, None, false);
    for card in ["rtx4090", "a100-80g-sxm"] {
        let gpu = catalog.get(card).expect("card");
        assert!(
            job_peak(&entry.model, &j).peak_bytes > usable_bytes(gpu),
            "full 7B training does not fit one {card}"
        );
        let s = smallest_layout(&entry.model, &j, gpu, &Host::TYPICAL).expect("some layout fits");
        assert!(
            s.peak_gib * gpuplan_core::GIB <= usable_bytes(gpu),
            "{card}: the suggestion fits"
        );
        assert!(
            s.layout.gpus >= 2 && s.layout.gpus <= 8,
            "{card}: one instance of 2-8 GPUs"
        );
    }
    // A job that cannot fit even eight cards says so rather than suggesting.
    let big = JobSpec {
        model: Some("llama-2-13b".into()),
        batch: Some(64.0),
        seq_len: Some(4096.0),
        precision: Some(Precision::Fp32),
        ..JobSpec::default()
    }
    .resolve(zoo.get("llama-2-13b").expect("zoo"))
    .expect("valid");
    assert!(
        smallest_layout(
            &zoo.get("llama-2-13b").expect("zoo").model,
            &big,
            catalog.get("rtx3060").expect("card"),
            &Host::TYPICAL
        )
        .is_none(),
        "no layout of eight 12 GB cards holds 64 x 4096 tokens of FP32 13B activations"
    );
}

#[test]
fn layouts_that_make_no_sense_are_refused_by_field() {
    let zoo = common::zoo();
    let entry = zoo.get("gpt2").expect("zoo");
    // (spec, field, why)
    let cases: [(JobSpec, &str, &str); 6] = [
        (
            JobSpec {
                model: Some("gpt2".into()),
                engine: Some(Engine::Zero2),
                ..JobSpec::default()
            },
            "engine",
            "an engine needs several GPUs",
        ),
        (
            JobSpec {
                model: Some("gpt2".into()),
                gpus: Some(4.0),
                offload: Some(true),
                ..JobSpec::default()
            },
            "offload",
            "DDP cannot offload",
        ),
        (
            JobSpec {
                model: Some("gpt2".into()),
                gpus: Some(65.0),
                ..JobSpec::default()
            },
            "gpus",
            "more GPUs than a plan may use",
        ),
        (
            JobSpec {
                model: Some("gpt2".into()),
                gpus: Some(2.0),
                mode: Some(Mode::Infer),
                ..JobSpec::default()
            },
            "gpus",
            "inference on one GPU",
        ),
        (
            JobSpec {
                model: Some("gpt2".into()),
                pcie_gbps: Some(7.9),
                ..JobSpec::default()
            },
            "pcie_gbps",
            "a link between GPUs needs several GPUs",
        ),
        (
            JobSpec {
                model: Some("gpt2".into()),
                gpus: Some(2.0),
                pcie_gbps: Some(1000.0),
                ..JobSpec::default()
            },
            "pcie_gbps",
            "no PCIe link carries 1,000 GB/s",
        ),
    ];
    for (spec, field, why) in cases {
        let err = spec.resolve(entry).expect_err(why);
        assert_eq!(err.field, field, "{why}");
        assert!(
            err.said.is_some() || field != "pcie_gbps",
            "{why}: the error is keyed for the student's language"
        );
    }
}

#[test]
fn the_boards_pcie_link_bounds_the_bus_never_above_the_cards_own() {
    use gpuplan_core::calibration::{HOST_BRIDGE_SHARE, PCIE_LINK_SHARE};
    let catalog = common::catalog();
    let nccl = |gbps: f64| gbps * 1e9 * PCIE_LINK_SHARE;
    // (card, interconnect, board's link GB/s, expected bus bytes/s, why)
    let cases = [
        (
            "rtx3090",
            Interconnect::Pcie,
            Some(7.88),
            nccl(7.88) * HOST_BRIDGE_SHARE,
            "two GeForce cards on PCIe 3.0 x8 talk through host memory",
        ),
        (
            "rtx3090",
            Interconnect::Pcie,
            Some(63.0),
            nccl(31.5) * HOST_BRIDGE_SHARE,
            "a PCIe 5.0 board cannot lift a 4.0 card above its own link",
        ),
        (
            "a100-80g-pcie",
            Interconnect::Pcie,
            Some(31.5),
            nccl(31.5),
            "data-center cards reach NCCL's link figure peer to peer",
        ),
        (
            "rtx3090",
            Interconnect::Pcie,
            None,
            gpuplan_core::calibration::BUS_PCIE_CONSUMER,
            "no stated link: a typical consumer host",
        ),
        (
            "a100-80g-pcie",
            Interconnect::Pcie,
            None,
            gpuplan_core::calibration::BUS_PCIE,
            "no stated link: a typical data-center host",
        ),
        (
            "a100-80g-sxm",
            Interconnect::Nvlink,
            Some(7.88),
            gpuplan_core::calibration::BUS_NVLINK_AMPERE,
            "NVLink does not go through the board's PCIe lanes",
        ),
    ];
    for (card, ic, link, want, why) in cases {
        let gpu = catalog.get(card).expect("card");
        let got = ic.bus_bytes_per_s(gpu, link);
        assert!(
            (got / want - 1.0).abs() < 1e-9,
            "{why}: {got:e} B/s, want {want:e}"
        );
    }
    // Every bundled card states its own link, so a board's figure is capped.
    for g in catalog.gpus() {
        assert!(g.pcie_gbs().is_some(), "{} states its PCIe link", g.id);
    }
}

#[test]
fn a_slower_board_exposes_more_of_fsdps_gathers() {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let entry = zoo.get("llama-2-7b").expect("zoo");
    let gpu = catalog.get("rtx3090").expect("card");
    let spec = |pcie: Option<f64>| JobSpec {
        model: Some("llama-2-7b".into()),
        mode: Some(Mode::Lora),
        precision: Some(Precision::Bf16),
        batch: Some(1.0),
        seq_len: Some(512.0),
        grad_checkpointing: Some(true),
        gpus: Some(2.0),
        engine: Some(Engine::FsdpFull),
        pcie_gbps: pcie,
        ..JobSpec::default()
    };
    let run = |pcie: Option<f64>, host: &Host| {
        let j = spec(pcie).resolve(entry).expect("valid job");
        let live = vram::live(&entry.model, &j);
        let single = vram::estimate(&entry.model, &j);
        let step = gpuplan_core::steptime::estimate(&entry.model, &j, &single, gpu);
        let layout = gpuplan_core::estimate::layout(&j, gpu, host);
        parallel::estimate(&j, &live, &step, gpu, &layout, 32).expect("estimates")
    };
    let typical = Host::TYPICAL;
    let x8 = run(Some(7.88), &typical);
    let x16 = run(Some(31.5), &typical);
    assert!(
        (x8.comm_seconds / x16.comm_seconds - 4.0).abs() < 0.05,
        "a quarter of the lanes takes four times as long to gather: {} s vs {} s",
        x8.comm_seconds,
        x16.comm_seconds
    );
    assert!(
        x8.step_seconds > x16.step_seconds,
        "the gathers a 3.0 x8 board cannot hide lengthen the step"
    );
    // The job's own figure wins over the offer's; the offer's fills in.
    let offer = Host {
        pcie_gbps: Some(31.5),
        ..Host::TYPICAL
    };
    assert_eq!(
        run(Some(7.88), &offer).layout.pcie_gbps,
        Some(7.88),
        "the student's board over the platform's"
    );
    assert_eq!(
        run(None, &offer).layout.pcie_gbps,
        Some(31.5),
        "the platform's figure where the job states none"
    );
}

#[test]
fn the_offers_interconnect_reaches_the_quote() {
    use gpuplan_core::plan::Plan;
    use gpuplan_core::platform::PlatformProfile;
    let catalog = common::catalog();
    let zoo = common::zoo();
    let text = gpuplan_data::PLATFORMS
        .iter()
        .find(|(n, _)| n.ends_with("autodl.toml"))
        .expect("AutoDL is bundled")
        .1;
    let bundled = PlatformProfile::from_toml("autodl.toml", text, catalog).expect("loads");
    let pcie = bundled.offer("rtx4090", catalog).expect("offered");
    assert_eq!(
        pcie.interconnect.as_ref().map(|i| i.value),
        Some(Interconnect::Pcie),
        "the RTX 4090 has no NVLink"
    );
    // The same platform with a (hypothetical) NVLink 4090 instance.
    let mut linked = bundled.clone();
    for o in &mut linked.offers {
        if let Some(i) = o.interconnect.as_mut() {
            i.value = Interconnect::Nvlink;
        }
    }
    let plan = Plan::from_toml(
        "two.toml",
        r#"
name = "two 4090s"
platform = "autodl"
gpu = "rtx4090"
[job]
model = "qwen2.5-1.5b"
mode = "train"
precision = "bf16-amp"
batch = 4
seq_len = 512
dataset_samples = 20000
epochs = 1
gpus = 2
engine = "zero2"
"#,
    )
    .expect("plan parses");
    let over = |p: &PlatformProfile| {
        gpuplan_core::quote::quote(&plan, p, catalog, zoo)
            .expect("quotes")
            .run_hours
    };
    let (slow, fast) = (over(&bundled), over(&linked));
    assert!(
        fast < slow,
        "the same 2-GPU ZeRO-2 run is faster over NVLink than over PCIe ({fast} vs {slow} h)"
    );
}

#[test]
fn an_offers_pcie_link_is_sourced_checked_and_reaches_the_layout() {
    use gpuplan_core::platform::PlatformProfile;
    let catalog = common::catalog();
    let text = gpuplan_data::PLATFORMS
        .iter()
        .find(|(n, _)| n.ends_with("campus-slurm.toml"))
        .expect("the campus template is bundled")
        .1;
    let campus = PlatformProfile::from_toml("campus-slurm.toml", text, catalog).expect("loads");
    // The template asks for it like the nodes' network: every offer states
    // a link with its source, for the instructor to replace.
    for o in &campus.offers {
        let link = o
            .pcie_gbps
            .as_ref()
            .expect("the template states a PCIe link");
        assert!(
            !link.source.trim().is_empty(),
            "{}: the template's link says where it comes from",
            o.gpu
        );
        assert_eq!(
            campus.host_for(o).pcie_gbps,
            Some(link.value),
            "{}: the offer's link reaches the host the estimate uses",
            o.gpu
        );
    }
    // (value in the file, why it is refused)
    let cases = [
        ("0.1", "below PCIe 1.0 x1"),
        ("500", "beyond any PCIe link"),
        ("nan", "not a number"),
    ];
    for (value, why) in cases {
        let bad = text.replacen(
            "pcie_gbps = { value = 31.5",
            &format!("pcie_gbps = {{ value = {value}"),
            1,
        );
        let err = PlatformProfile::from_toml("campus-slurm.toml", &bad, catalog).expect_err(why);
        assert!(
            err.to_string().contains("pcie_gbps"),
            "{why}: the error names the field: {err}"
        );
    }
}
