//! Eager attention for vision transformers (issue 25, item 4): a
//! hand-written ViT or timm before its fused attention keeps the `B·H·N²`
//! attention probabilities for the backward; SDPA (the default) keeps none.
//! Memory and time effects hand-computed from each model's own config,
//! the kernels each model accepts, and the CLI and the app's model list.

use crate::common;

use gpuplan_core::calibration as cal;
use gpuplan_core::job::{Mode, Precision};
use gpuplan_core::zoo::{AttentionImpl, Model, VisionModel};
use gpuplan_core::{steptime, vram, JobSpec};
use proptest::prelude::*;

fn vision(id: &str) -> &'static VisionModel {
    match &common::zoo().get(id).expect("zoo model").model {
        Model::Vision(v) => v,
        Model::Transformer(_) => panic!("{id} is a vision model"),
    }
}

fn spec(id: &str, attention: AttentionImpl, precision: Precision, batch: f64) -> JobSpec {
    JobSpec {
        model: Some(id.into()),
        batch: Some(batch),
        precision: Some(precision),
        attention: Some(attention),
        ..JobSpec::default()
    }
}

fn resolve(s: &JobSpec) -> (Model, gpuplan_core::Job) {
    let entry = common::zoo()
        .get(s.model.as_deref().unwrap_or_default())
        .expect("zoo model");
    (entry.model.clone(), s.resolve(entry).expect("valid job"))
}

fn activations(s: &JobSpec) -> f64 {
    let (m, j) = resolve(s);
    vram::live(&m, &j).fb.activations
}

/// Score elements per sample, summed over layers, as each model's config
/// gives them (case, resolution, elements, why).
#[test]
fn attention_score_elements_follow_each_models_config() {
    let cases: [(&str, u32, f64, &str); 5] = [
        // ViT-B/16 at 224: a 14 x 14 patch grid plus the class token is
        // N = 197 tokens; 12 heads x 197² = 465,708 per layer, 12 layers.
        (
            "vit-b-16",
            224,
            12.0 * 12.0 * 197.0 * 197.0,
            "ViT-B/16, N = 197",
        ),
        // At 384: 24 x 24 + 1 = 577 tokens.
        (
            "vit-b-16",
            384,
            12.0 * 12.0 * 577.0 * 577.0,
            "ViT-B/16, N = 577",
        ),
        // ViT-L/16: 24 layers of 16 heads over the same 197 tokens.
        ("vit-l-16", 224, 24.0 * 16.0 * 197.0 * 197.0, "ViT-L/16"),
        // Swin-T at 224: windows of 7 x 7 = 49 tokens (49² = 2,401 scores
        // per head and window); stage grids 56, 28, 14, 7 give 64, 16, 4
        // and 1 windows; heads 3, 6, 12, 24; depths 2, 2, 6, 2:
        // 2401 x (2·64·3 + 2·16·6 + 6·4·12 + 2·1·24) = 2401 x 912.
        ("swin-t", 224, 2401.0 * 912.0, "Swin-T, 7 x 7 windows"),
        // At 256 the grids 64, 32, 16, 8 are padded to whole windows:
        // 10², 5², 3², 2² windows: 2401 x (600 + 300 + 648 + 192).
        ("swin-t", 256, 2401.0 * 1740.0, "Swin-T, padded windows"),
    ];
    for (id, res, want, why) in cases {
        let a = vision(id).attention.as_ref().expect("a vision transformer");
        let (got, _) = a.score_elements(res, res);
        assert_eq!(got, want, "{why}");
    }
    assert!(
        vision("resnet50").attention.is_none(),
        "a CNN has no attention description"
    );
}

/// ViT-B/16 at 224, batch 64, fp16 autocast (the calibration set's job):
/// eager keeps, per score element, the softmax output in FP32 (autocast
/// runs softmax in FP32: 4 bytes) and the 16-bit copy the P·V matmul saves
/// (2 bytes); no attention dropout in torchvision's or timm's default.
/// 5,588,496 elements x 6 bytes = 33,530,976 bytes per sample; x 64 =
/// 2,145,982,464 bytes (2.00 GiB) more saved activations than SDPA.
#[test]
fn attention_eager_vit_b16_memory_by_hand() {
    let per_sample = 12.0 * 12.0 * 197.0 * 197.0 * (4.0 + 2.0);
    assert_eq!(per_sample, 33_530_976.0, "the arithmetic in the comment");
    let amp = |a| spec("vit-b-16", a, Precision::Fp16Amp, 64.0);
    let delta = activations(&amp(AttentionImpl::Eager)) - activations(&amp(AttentionImpl::Sdpa));
    assert!(
        (delta - 64.0 * per_sample).abs() < 1.0,
        "eager adds 2,145,982,464 bytes at batch 64 under autocast, got {delta}"
    );
    // FP32: the softmax output is the P·V matmul's input, 4 bytes once.
    let fp32 = |a| spec("vit-b-16", a, Precision::Fp32, 64.0);
    let delta32 =
        activations(&fp32(AttentionImpl::Eager)) - activations(&fp32(AttentionImpl::Sdpa));
    assert!(
        (delta32 - 64.0 * 12.0 * 12.0 * 197.0 * 197.0 * 4.0).abs() < 1.0,
        "eager in FP32 adds 4 bytes per score, got {delta32}"
    );
    // The peak grows by the same bytes plus the allocator's slack on them.
    let peak = |s: &JobSpec| {
        let (m, j) = resolve(s);
        vram::estimate(&m, &j).peak_bytes
    };
    let grown = peak(&amp(AttentionImpl::Eager)) - peak(&amp(AttentionImpl::Sdpa));
    assert!(
        (grown - delta * (1.0 + cal::ALLOCATOR_SLACK_VISION)).abs() < 1e3,
        "peak grows by the activations and 8% slack: {grown}"
    );
}

/// The time effect is eager attention's memory traffic, costed as the
/// estimator costs every saved byte (text transformers' eager scores
/// included): each crosses the bus `ACTIVATION_TRAFFIC` (6) times.
/// On the H200 (4.8 TB/s, the reference card: activation traffic at
/// `EFFICIENCY_MEMORY` 0.236 of it) a typical activation tensor of this
/// step fits the 50 MiB L2 with or without eager (4.25e9 or 6.40e9 bytes
/// over 531 operators: 8.0 or 12.1 MB), so a third of the crossings stay
/// in L2, and ViT's patch convolution (0.66% of its FLOPs) adds its NCHW
/// transposes: 2,145,982,464 x 6 x (1 + 0.0066 x 0.484) x (2/3) /
/// (4.8e12 x 0.236) = 7.6 ms more device time per step.
#[test]
fn attention_eager_vit_b16_time_by_hand() {
    let amp = |a| spec("vit-b-16", a, Precision::Fp16Amp, 64.0);
    let card = common::catalog().get("h200").expect("card");
    let (m, sdpa) = resolve(&amp(AttentionImpl::Sdpa));
    let (_, eager) = resolve(&amp(AttentionImpl::Eager));
    let step = |j: &gpuplan_core::Job| {
        let v = vram::estimate(&m, j);
        (
            steptime::work(&m, j, &v),
            steptime::estimate(&m, j, &v, card),
        )
    };
    let ((ws, ts), (we, te)) = (step(&sdpa), step(&eager));
    let saved = 64.0 * 12.0 * 12.0 * 197.0 * 197.0 * 6.0;
    let traffic = saved * cal::ACTIVATION_TRAFFIC;
    assert!(
        (we.activation_bytes - ws.activation_bytes - traffic).abs() < 1e3,
        "six crossings of every eager byte: {}",
        we.activation_bytes - ws.activation_bytes
    );
    assert_eq!(we.matmul_flops, ws.matmul_flops, "the same FLOPs");
    let v = vision("vit-b-16");
    let layout = 1.0 + v.conv_flop_fraction * cal::NCHW_TRANSPOSE_SHARE;
    let fits = |w: &steptime::StepWork| card.l2_bytes() >= w.tensor_bytes;
    assert!(fits(&ws) && fits(&we), "both steps' tensors fit the L2");
    let want = traffic * layout * (1.0 - cal::L2_REREAD_SHARE)
        / (card.spec.bandwidth_gbs.value * 1e9 * cal::EFFICIENCY_MEMORY);
    let got = te.device_s - ts.device_s;
    assert!(
        (got / want - 1.0).abs() < 1e-9 && (want - 0.0076).abs() < 0.0002,
        "eager costs {want:.5} s of device time, got {got:.5}"
    );
    assert!(te.seconds > ts.seconds, "and the step takes longer");
}

/// torchvision's Swin-T computes `softmax(q @ k^T)` itself, so its traced
/// bytes already hold eager attention: eager is the trace, and SDPA (the
/// default, as timm's fused window attention) keeps 2,189,712 x 6 =
/// 13,138,272 bytes less per sample under autocast.
#[test]
fn attention_swin_t_is_traced_eager_and_sdpa_removes_its_windows_scores() {
    let v = vision("swin-t");
    let traced = v.saved_bytes_per_sample * v.amp_saved_ratio * 32.0;
    let amp = |a| spec("swin-t", a, Precision::Fp16Amp, 32.0);
    let eager = activations(&amp(AttentionImpl::Eager));
    let sdpa = activations(&amp(AttentionImpl::Sdpa));
    assert!(
        (eager - traced).abs() < 1.0,
        "eager is what torchvision's Swin-T saved when traced"
    );
    assert!(
        (eager - sdpa - 32.0 * 2_189_712.0 * 6.0).abs() < 1.0,
        "SDPA keeps no 7 x 7-window scores: {}",
        eager - sdpa
    );
    let default = JobSpec {
        attention: None,
        ..amp(AttentionImpl::Sdpa)
    };
    assert_eq!(
        resolve(&default).1.attention,
        AttentionImpl::Sdpa,
        "SDPA is the vision default"
    );
}

/// Which kernels a model takes, and the keyed errors naming the field
/// otherwise (model, kernel, precision, error key or none, why).
#[test]
fn attention_kernels_each_model_accepts() {
    let cases: [(&str, AttentionImpl, Precision, Option<&str>, &str); 6] = [
        (
            "vit-b-16",
            AttentionImpl::Eager,
            Precision::Fp32,
            None,
            "a ViT takes eager",
        ),
        (
            "swin-t",
            AttentionImpl::Sdpa,
            Precision::Fp32,
            None,
            "Swin takes SDPA",
        ),
        (
            "vit-s-16",
            AttentionImpl::Flash,
            Precision::Bf16Amp,
            Some("error.visionAttention"),
            "FlashAttention-2 is a Transformers kernel, not a ViT's",
        ),
        (
            "resnet50",
            AttentionImpl::Eager,
            Precision::Fp32,
            Some("error.attentionNoLayers"),
            "a CNN has no attention",
        ),
        (
            "llama-2-7b",
            AttentionImpl::Flash,
            Precision::Fp32,
            Some("error.flashNeedsHalf"),
            "flash in FP32 is refused for transformers, as before",
        ),
        (
            "gpt2",
            AttentionImpl::Flash,
            Precision::Bf16,
            None,
            "transformers keep flash",
        ),
    ];
    for (id, a, p, key, why) in cases {
        let s = spec(id, a, p, 8.0);
        let entry = common::zoo().get(id).expect("zoo model");
        match (s.resolve(entry), key) {
            (Ok(j), None) => assert_eq!(j.attention, a, "{why}"),
            (Err(e), Some(k)) => {
                assert_eq!(e.field, "attention", "{why}: the error names the field");
                let said = e.said.expect("keyed");
                assert_eq!(said.message.key, k, "{why}");
            }
            (r, k) => panic!("{why}: got {r:?}, wanted {k:?}"),
        }
    }
    let kernels = |id: &str| common::zoo().get(id).expect("id").model.attention_kernels();
    assert_eq!(
        kernels("vit-l-16"),
        [AttentionImpl::Eager, AttentionImpl::Sdpa],
        "ViT"
    );
    assert!(kernels("convnext-tiny").is_empty(), "a CNN offers none");
    assert_eq!(
        kernels("bert-base"),
        AttentionImpl::VALUES,
        "transformers all three"
    );
}

/// Eager inference holds one layer's score matrix at a time (ViT-B/16:
/// 12 x 197² x batch 8 x 2 bytes in 16-bit = 7,451,328 bytes).
#[test]
fn attention_eager_inference_holds_one_layers_scores() {
    let infer = |a| JobSpec {
        mode: Some(Mode::Infer),
        ..spec("vit-b-16", a, Precision::Bf16, 8.0)
    };
    let delta =
        activations(&infer(AttentionImpl::Eager)) - activations(&infer(AttentionImpl::Sdpa));
    assert_eq!(delta, 12.0 * 197.0 * 197.0 * 8.0 * 2.0, "one layer, 16-bit");
}

const TRANSFORMERS: [&str; 4] = ["vit-s-16", "vit-b-16", "vit-l-16", "swin-t"];

fn precision() -> impl Strategy<Value = Precision> {
    prop_oneof![
        Just(Precision::Fp32),
        Just(Precision::Fp16Amp),
        Just(Precision::Bf16Amp),
        Just(Precision::Bf16)
    ]
}

proptest! {
    #![proptest_config(common::proptest_config(200))]

    #[test]
    fn attention_eager_never_needs_less_memory_nor_time_than_sdpa(
        m in 0..TRANSFORMERS.len(), b in 1u32..512, r in 32u32..640, h in 32u32..640,
        p in precision(), ck in any::<bool>(), infer in any::<bool>(),
    ) {
        let mode = if infer { Mode::Infer } else { Mode::Train };
        let job = |a| JobSpec {
            resolution: Some(f64::from(r)),
            image_height: Some(f64::from(h)),
            mode: Some(mode),
            grad_checkpointing: (!infer).then_some(ck),
            ..spec(TRANSFORMERS[m], a, p, f64::from(b))
        };
        let (model, eager) = resolve(&job(AttentionImpl::Eager));
        let (_, sdpa) = resolve(&job(AttentionImpl::Sdpa));
        let (ve, vs) = (vram::estimate(&model, &eager), vram::estimate(&model, &sdpa));
        prop_assert!(ve.peak_bytes >= vs.peak_bytes, "eager keeps the scores SDPA recomputes");
        let card = common::catalog().get("rtx4090").expect("card");
        prop_assert!(
            steptime::estimate(&model, &eager, &ve, card).seconds
                >= steptime::estimate(&model, &sdpa, &vs, card).seconds,
            "and moves them through memory"
        );
    }
}

/// The CLI takes `--attention eager --model vit-b-16` and shows the larger
/// peak; for a CNN it refuses the flag in the student's language, naming it.
#[test]
fn attention_eager_from_the_cli() {
    let run = |args: &[&str]| {
        let home = tempfile::tempdir().expect("tmp home");
        std::process::Command::new(common::gpuplan_binary())
            .args(args)
            .env("LANG", "C")
            .env("GPUPLAN_HOME", home.path())
            .output()
            .expect("gpuplan runs")
    };
    let peak = |attention: &str| {
        let out = run(&[
            "estimate",
            "--model",
            "vit-b-16",
            "--batch",
            "64",
            "--precision",
            "fp16-amp",
            "--attention",
            attention,
            "--gpu",
            "rtx4090",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["peak_gib"].as_f64().expect("peak")
    };
    let (eager, sdpa) = (peak("eager"), peak("sdpa"));
    assert!(
        eager > sdpa + 2.0,
        "eager's 2.0 GiB of scores and their slack show: {eager} vs {sdpa}"
    );
    for (lang, words) in [("en", "has no attention layers"), ("zh", "没有注意力层")] {
        let out = run(&[
            "--lang",
            lang,
            "estimate",
            "--model",
            "resnet50",
            "--attention",
            "eager",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "an input error: {err}");
        assert!(
            err.contains(words),
            "{lang}: worded from the catalog: {err}"
        );
    }
}
