//! Issue 25's setups, each with its memory and time effect: channels_last,
//! RMSprop, QLoRA's dequantisation, FSDP's gathers under checkpointing,
//! HSDP, plans over many nodes and the nodes' network bandwidth, the new
//! cards and Llama 3.1's context.

use crate::common;

use gpuplan_core::estimate::{self, job_peak};
use gpuplan_core::job::{Mode, Optimizer, Precision};
use gpuplan_core::parallel::{Engine, MAX_GPUS};
use gpuplan_core::pipeline::{DiskKind, Host};
use gpuplan_core::{steptime, vram, JobSpec};

fn resolve(spec: JobSpec) -> (gpuplan_core::zoo::ZooEntry, gpuplan_core::Job) {
    let entry = common::zoo()
        .get(spec.model.as_deref().unwrap_or_default())
        .expect("zoo model")
        .clone();
    let job = spec.resolve(&entry).expect("valid job");
    (entry, job)
}

fn step(spec: JobSpec, gpu: &str, host: &Host) -> f64 {
    let (entry, job) = resolve(spec);
    let single = vram::estimate(&entry.model, &job);
    let card = common::catalog().get(gpu).expect("card");
    estimate::step_on(&entry.model, &job, &single, card, host).seconds
}

fn host(inter_node_gbps: Option<f64>) -> Host {
    Host {
        vcpus: 16,
        ram_gb: 128.0,
        disk: DiskKind::LocalNvme,
        interconnect: None,
        inter_node_gbps,
        gpus_per_node: None,
        pcie_gbps: None,
    }
}

fn resnet(channels_last: bool, precision: Precision) -> JobSpec {
    JobSpec {
        model: Some("resnet50".into()),
        batch: Some(256.0),
        precision: Some(precision),
        optimizer: Some(Optimizer::Sgd),
        channels_last: Some(channels_last),
        ..JobSpec::default()
    }
}

#[test]
fn steptime_channels_last_saves_layout_traffic_on_tensor_cores_only() {
    let h = host(None);
    for gpu in ["rtx3090", "a100-80g-sxm", "v100-16g"] {
        let nchw = step(resnet(false, Precision::Fp16Amp), gpu, &h);
        let nhwc = step(resnet(true, Precision::Fp16Amp), gpu, &h);
        assert!(
            nhwc < nchw * 0.95,
            "{gpu}: channels_last skips the transposes ({nhwc} vs {nchw})"
        );
    }
    // FP32 convolutions on a V100 run on CUDA cores: no transposes to skip.
    let nchw = step(resnet(false, Precision::Fp32), "v100-16g", &h);
    let nhwc = step(resnet(true, Precision::Fp32), "v100-16g", &h);
    assert!(
        (nhwc / nchw - 1.0).abs() < 1e-9,
        "no layout effect on CUDA cores"
    );
    // Memory: the same bytes in another order.
    let (e1, j1) = resolve(resnet(false, Precision::Fp16Amp));
    let (_, j2) = resolve(resnet(true, Precision::Fp16Amp));
    assert_eq!(
        job_peak(&e1.model, &j1).peak_bytes,
        job_peak(&e1.model, &j2).peak_bytes
    );
}

#[test]
fn steptime_rmsprop_keeps_one_state_like_momentum_sgd() {
    let with = |o| {
        let (e, j) = resolve(JobSpec {
            optimizer: Some(o),
            ..resnet(false, Precision::Fp32)
        });
        job_peak(&e.model, &j).peak_bytes
    };
    assert_eq!(with(Optimizer::Rmsprop), with(Optimizer::Sgd));
    assert!(with(Optimizer::Rmsprop) < with(Optimizer::Adamw));
    assert_eq!(Optimizer::parse("rmsprop").ok(), Some(Optimizer::Rmsprop));
}

fn lora(mode: Mode, batch: f64, seq: f64) -> JobSpec {
    JobSpec {
        model: Some("llama-2-7b".into()),
        batch: Some(batch),
        seq_len: Some(seq),
        precision: Some(Precision::Bf16),
        mode: Some(mode),
        grad_checkpointing: Some(true),
        optimizer: Some(Optimizer::Adamw),
        ..JobSpec::default()
    }
}

#[test]
fn steptime_qlora_dequantisation_hides_behind_many_tokens() {
    let h = host(None);
    // Many tokens per step: QLoRA within 5% of LoRA per sample (the published
    // 3090/4090 pairs show them equal).
    let big_lora = step(lora(Mode::Lora, 8.0, 2048.0), "rtx4090", &h);
    let big_qlora = step(lora(Mode::Qlora, 8.0, 2048.0), "rtx4090", &h);
    assert!(
        (big_qlora / big_lora - 1.0).abs() < 0.05,
        "16k tokens: QLoRA {big_qlora} vs LoRA {big_lora}"
    );
    // Few tokens: the dequantisation traffic shows.
    let small_lora = step(lora(Mode::Lora, 1.0, 128.0), "rtx4090", &h);
    let small_qlora = step(lora(Mode::Qlora, 1.0, 128.0), "rtx4090", &h);
    assert!(
        small_qlora / small_lora > big_qlora / big_lora,
        "128 tokens: QLoRA pays relatively more for dequantising"
    );
}

fn fsdp(gpus: f64, engine: Engine, ckpt: bool) -> JobSpec {
    JobSpec {
        model: Some("llama-2-7b".into()),
        batch: Some(2.0),
        seq_len: Some(4096.0),
        precision: Some(Precision::Bf16Amp),
        optimizer: Some(Optimizer::Adamw),
        grad_checkpointing: Some(ckpt),
        gpus: Some(gpus),
        engine: Some(engine),
        ..JobSpec::default()
    }
}

#[test]
fn steptime_fsdp_gathers_again_for_the_recomputed_forward() {
    let (entry, with) = resolve(fsdp(2.0, Engine::FsdpFull, true));
    let (_, without) = resolve(fsdp(2.0, Engine::FsdpFull, false));
    let card = common::catalog().get("rtx4090").expect("card");
    let layout = |j: &gpuplan_core::Job| estimate::layout(j, card, &host(None));
    let run = |j: &gpuplan_core::Job| {
        let single = vram::estimate(&entry.model, j);
        let s = steptime::estimate(&entry.model, j, &single, card);
        gpuplan_core::parallel::estimate(j, &vram::live(&entry.model, j), &s, card, &layout(j), 32)
            .expect("layout")
    };
    let a = run(&with);
    let b = run(&without);
    // Gradients (the size of the FP32 parameters) plus three gathers instead
    // of two: (1 + 3) / (1 + 2).
    assert!(
        (a.comm_seconds / b.comm_seconds - 4.0 / 3.0).abs() < 0.02,
        "three gathers instead of two: {} vs {}",
        a.comm_seconds,
        b.comm_seconds
    );
}

#[test]
fn steptime_hsdp_shards_per_node_and_sends_gradient_shards_across() {
    // Memory: HSDP over 16 GPUs holds what FSDP over 8 does.
    let (entry, hsdp16) = resolve(fsdp(16.0, Engine::Hsdp, false));
    let (_, fsdp8) = resolve(fsdp(8.0, Engine::FsdpFull, false));
    let (_, fsdp16) = resolve(fsdp(16.0, Engine::FsdpFull, false));
    let m = |j| job_peak(&entry.model, j).peak_bytes;
    assert!((m(&hsdp16) / m(&fsdp8) - 1.0).abs() < 1e-9);
    assert!(m(&fsdp16) < m(&hsdp16), "full sharding over 16 holds less");
    // Time: over a slow network HSDP is faster than FSDP across nodes.
    let slow = host(Some(25.0));
    let h = step(fsdp(16.0, Engine::Hsdp, false), "a100-80g-sxm", &slow);
    let f = step(fsdp(16.0, Engine::FsdpFull, false), "a100-80g-sxm", &slow);
    assert!(h < f, "HSDP {h} vs FSDP {f} over 25 Gb/s");
    assert_eq!(Engine::parse("hsdp").ok(), Some(Engine::Hsdp));
}

#[test]
fn steptime_plans_scale_to_1024_gpus_and_read_the_nodes_bandwidth() {
    assert_eq!(MAX_GPUS, 1024);
    let (_, j) = resolve(fsdp(1024.0, Engine::FsdpFull, false));
    assert_eq!(j.gpus, 1024);
    assert!(fsdp(1032.0, Engine::FsdpFull, false)
        .resolve(common::zoo().get("llama-2-7b").expect("zoo"))
        .is_err());
    // A faster network never makes a multi-node step slower, and the
    // default is a campus cluster's HDR port (200 Gb/s).
    let slow = step(
        fsdp(64.0, Engine::FsdpFull, false),
        "a100-80g-sxm",
        &host(Some(100.0)),
    );
    let hdr = step(
        fsdp(64.0, Engine::FsdpFull, false),
        "a100-80g-sxm",
        &host(Some(200.0)),
    );
    let default = step(
        fsdp(64.0, Engine::FsdpFull, false),
        "a100-80g-sxm",
        &host(None),
    );
    let fast = step(
        fsdp(64.0, Engine::FsdpFull, false),
        "a100-80g-sxm",
        &host(Some(3200.0)),
    );
    assert!(slow > hdr && hdr >= fast, "{slow} > {hdr} >= {fast}");
    assert!(
        (hdr / default - 1.0).abs() < 1e-9,
        "200 Gb/s is the default"
    );
}

#[test]
fn steptime_new_cards_and_llama_3_1_context() {
    let catalog = common::catalog();
    for id in ["rtx6000-ada", "h100-nvl", "a10g"] {
        let g = catalog
            .get(id)
            .expect("issue 25's cards are in the catalog");
        assert!(g.spec.l2_mib.is_some());
    }
    let llama = |model: &str, seq: f64| JobSpec {
        model: Some(model.into()),
        seq_len: Some(seq),
        batch: Some(1.0),
        precision: Some(Precision::Bf16Amp),
        ..JobSpec::default()
    };
    let zoo = common::zoo();
    assert!(llama("llama-3.1-8b", 131_072.0)
        .resolve(zoo.get("llama-3.1-8b").expect("zoo"))
        .is_ok());
    assert!(llama("llama-3-8b", 16_384.0)
        .resolve(zoo.get("llama-3-8b").expect("zoo"))
        .is_err());
}

#[test]
fn steptime_selective_checkpointing_sits_between_none_and_full() {
    let spec = |full: bool, selective: bool| JobSpec {
        model: Some("llama-3.1-8b".into()),
        batch: Some(1.0),
        seq_len: Some(8192.0),
        precision: Some(Precision::Bf16Amp),
        optimizer: Some(Optimizer::Adamw),
        grad_checkpointing: Some(full),
        selective_checkpointing: Some(selective),
        ..JobSpec::default()
    };
    // The activations kept for backward (the peak may be the optimizer step).
    let mem = |s: JobSpec| {
        let (e, j) = resolve(s);
        vram::live(&e.model, &j).fb.activations
    };
    let h = host(None);
    let (none, sel, full) = (spec(false, false), spec(false, true), spec(true, false));
    assert!(mem(full.clone()) < mem(sel.clone()) && mem(sel.clone()) < mem(none.clone()));
    let t = |s: JobSpec| step(s, "h100-sxm", &h);
    assert!(t(none) < t(sel.clone()) && t(sel) < t(full.clone()));
    // Full checkpointing already recomputes everything: selective adds nothing.
    let both = spec(true, true);
    assert!((t(both) / t(full) - 1.0).abs() < 1e-12);
    // A CNN has no transformer blocks to checkpoint selectively.
    assert!(JobSpec {
        selective_checkpointing: Some(true),
        ..resnet(false, Precision::Fp16Amp)
    }
    .resolve(common::zoo().get("resnet50").expect("zoo"))
    .is_err());
}

#[test]
fn steptime_fsdp_offload_moves_parameters_to_the_host() {
    let spec = |offload: bool| JobSpec {
        offload: Some(offload),
        ..fsdp(2.0, Engine::FsdpFull, true)
    };
    let (entry, on) = resolve(spec(true));
    let (_, off) = resolve(spec(false));
    let peak = |j: &gpuplan_core::Job| job_peak(&entry.model, j).peak_bytes;
    assert!(
        peak(&on) < peak(&off) * 0.7,
        "parameter, gradient and optimizer shards leave the GPU"
    );
    let h = host(None);
    assert!(step(spec(true), "rtx4090", &h) >= step(spec(false), "rtx4090", &h));
}

fn llama_train(extra: impl FnOnce(JobSpec) -> JobSpec) -> JobSpec {
    extra(JobSpec {
        model: Some("qwen2.5-1.5b".into()),
        batch: Some(4.0),
        seq_len: Some(2048.0),
        precision: Some(Precision::Bf16Amp),
        optimizer: Some(Optimizer::Adamw),
        ..JobSpec::default()
    })
}

fn peak_of(spec: JobSpec) -> f64 {
    let (e, j) = resolve(spec);
    job_peak(&e.model, &j).peak_bytes
}

#[test]
fn steptime_optimizer_in_backward_never_holds_every_gradient() {
    let plain = llama_train(|s| s);
    let inbwd = llama_train(|s| JobSpec {
        optimizer_in_backward: Some(true),
        ..s
    });
    let (e, j) = resolve(inbwd.clone());
    let live = vram::live(&e.model, &j);
    let opt = live.opt.expect("training has an optimizer step");
    assert!(
        opt.gradients <= live.fb.gradients,
        "no step holds every gradient"
    );
    assert!(peak_of(inbwd.clone()) <= peak_of(plain.clone()));
    let h = host(None);
    assert!((step(inbwd, "rtx4090", &h) / step(plain, "rtx4090", &h) - 1.0).abs() < 1e-9);
    assert!(llama_train(|s| JobSpec {
        optimizer_in_backward: Some(true),
        mode: Some(Mode::Lora),
        ..s
    })
    .resolve(common::zoo().get("qwen2.5-1.5b").expect("zoo"))
    .is_err());
}

#[test]
fn steptime_activation_offload_trades_memory_for_copies() {
    let plain = llama_train(|s| s);
    let off = llama_train(|s| JobSpec {
        activation_offload: Some(true),
        ..s
    });
    let (e, j) = resolve(off.clone());
    let (_, p) = resolve(plain.clone());
    assert!(
        vram::live(&e.model, &j).fb.activations < 0.5 * vram::live(&e.model, &p).fb.activations
    );
    let h = host(None);
    assert!(step(off, "rtx4090", &h) > step(plain, "rtx4090", &h) * 1.05);
}

#[test]
fn steptime_qlora_upcast_and_an_fp32_base() {
    let qlora = |upcast: bool| JobSpec {
        model: Some("llama-2-7b".into()),
        mode: Some(Mode::Qlora),
        precision: Some(Precision::Bf16),
        batch: Some(1.0),
        seq_len: Some(512.0),
        qlora_upcast: Some(upcast),
        ..JobSpec::default()
    };
    // Embeddings and head (2 x 131M parameters) in 2 bytes instead of 4.
    let saved = peak_of(qlora(true)) - peak_of(qlora(false));
    assert!(
        saved > 0.4e9 && saved < 1.2e9,
        "upcast costs {saved:e} bytes"
    );
    let lora = |fp32: bool| JobSpec {
        model: Some("llama-2-7b".into()),
        mode: Some(Mode::Lora),
        precision: Some(Precision::Bf16Amp),
        batch: Some(1.0),
        seq_len: Some(512.0),
        base_fp32: Some(fp32),
        ..JobSpec::default()
    };
    assert!(
        peak_of(lora(true)) > peak_of(lora(false)) + 12.0e9,
        "6.7B more bytes x 2"
    );
    let h = host(None);
    assert!(step(lora(true), "a100-80g-sxm", &h) > step(lora(false), "a100-80g-sxm", &h));
    // Paged 32-bit AdamW: AdamW's two FP32 states without the foreach temporary.
    let opt = |o| {
        peak_of(llama_train(|s| JobSpec {
            optimizer: Some(o),
            ..s
        }))
    };
    assert!(opt(Optimizer::PagedAdamw32bit) <= opt(Optimizer::Adamw));
    assert!(opt(Optimizer::PagedAdamw32bit) > opt(Optimizer::PagedAdamw8bit));
}

#[test]
fn steptime_hsdp_launches_as_hybrid_shard_over_many_nodes() {
    let spec = gpuplan_core::scripts::LaunchSpec {
        job_name: "hsdp".into(),
        command: "python train.py".into(),
        gpus: 128,
        engine: Engine::Hsdp,
        offload: false,
        batch: 2,
        precision: Precision::Bf16Amp,
    };
    let yaml = gpuplan_core::scripts::accelerate_config(&spec)
        .expect("a config")
        .text;
    assert!(
        yaml.contains("fsdp_sharding_strategy: HYBRID_SHARD"),
        "{yaml}"
    );
    assert!(yaml.contains("num_machines: 16"), "{yaml}");
    assert!(yaml.contains("num_processes: 128"), "{yaml}");
}

/// The same job's device seconds with the model's Winograd share as traced
/// and with none.
fn with_and_without_winograd(model: &str, precision: Precision, gpu: &str) -> (f64, f64) {
    let (entry, job) = resolve(JobSpec {
        model: Some(model.into()),
        batch: Some(64.0),
        precision: Some(precision),
        optimizer: Some(Optimizer::Sgd),
        ..JobSpec::default()
    });
    let card = common::catalog().get(gpu).expect("card");
    let mut direct = entry.model.clone();
    if let gpuplan_core::zoo::Model::Vision(v) = &mut direct {
        v.winograd_flop_fraction = 0.0;
    }
    let device = |m: &gpuplan_core::zoo::Model| {
        let single = vram::estimate(m, &job);
        steptime::estimate(m, &job, &single, card).device_s
    };
    (device(&entry.model), device(&direct))
}

#[test]
fn steptime_winograd_counts_on_cuda_cores_only() {
    // (model, precision, card, faster with Winograd, why)
    let cases = [
        (
            "vgg16",
            Precision::Fp32,
            "v100-16g",
            true,
            "FP32 on Volta's CUDA cores: cuDNN's Winograd",
        ),
        (
            "vgg16",
            Precision::Fp32,
            "p100",
            true,
            "FP32 on Pascal: CUDA cores",
        ),
        (
            "resnet18-cifar",
            Precision::Fp32,
            "rtx2080ti",
            true,
            "FP32 on Turing: CUDA cores",
        ),
        (
            "vgg16",
            Precision::Fp16Amp,
            "v100-16g",
            false,
            "16-bit runs on tensor cores (implicit GEMM)",
        ),
        (
            "vgg16",
            Precision::Fp16Amp,
            "p100",
            true,
            "Pascal has no tensor cores: its 16-bit convolutions run on CUDA cores",
        ),
        (
            "vgg16",
            Precision::Fp32,
            "a100-80g-sxm",
            false,
            "FP32 convolutions on Ampere are TF32 tensor-core work",
        ),
        (
            "efficientnet-b0",
            Precision::Fp32,
            "v100-16g",
            false,
            "no dense 3x3 stride-1 convolutions to transform",
        ),
    ];
    for (model, precision, gpu, faster, why) in cases {
        let (traced, direct) = with_and_without_winograd(model, precision, gpu);
        if faster {
            assert!(
                traced < direct * 0.8,
                "{model} {precision:?} on {gpu}: {traced} vs {direct} s ({why})"
            );
        } else {
            assert!(
                (traced - direct).abs() <= direct * 1e-12,
                "{model} {precision:?} on {gpu}: {traced} vs {direct} s ({why})"
            );
        }
    }
    // VGG-16's convolutions are all 3x3 stride 1: their compute takes
    // 1 / WINOGRAD_SPEEDUP of the direct FLOPs' time, the memory traffic the same.
    let (traced, direct) = with_and_without_winograd("vgg16", Precision::Fp32, "v100-16g");
    let saved = direct - traced;
    assert!(
        saved > 0.0 && saved < direct * (1.0 - 1.0 / gpuplan_core::calibration::WINOGRAD_SPEEDUP),
        "the saving is at most the compute's share of 1 - 1/{}: {saved} of {direct} s",
        gpuplan_core::calibration::WINOGRAD_SPEEDUP
    );
}
