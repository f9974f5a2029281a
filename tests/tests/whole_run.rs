//! The whole run a student is billed for: steps with the input pipeline,
//! evaluation, checkpoints, warm-up (issue 11), checked on the seeds' job and
//! on the rules the pipeline model must follow.

use crate::common;

use gpuplan_core::job::DatasetKind;
use gpuplan_core::pipeline::{Bound, DiskKind, Host, RunParts};
use gpuplan_core::{estimate, JobSpec, Optimizer, Precision};

/// The whole run of `spec` on `gpu` with `host`.
fn run(spec: &JobSpec, gpu: &str, host: &Host) -> RunParts {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let entry = zoo
        .get(spec.model.as_deref().expect("a model"))
        .expect("in the zoo");
    let job = spec.resolve(entry).expect("a valid job");
    let card = catalog.get(gpu).expect("a card");
    estimate(entry, &job, catalog, Some(card), host)
        .target_run
        .expect("the dataset size is known")
}

/// Seed 000 §3.1's test job as the seed describes it: the CIFAR ResNet-18,
/// CIFAR-10's 50,000 training images, batch 128, FP32, SGD, 50 epochs, the
/// tutorials' DataLoader with 4 workers.
fn seed_job() -> JobSpec {
    JobSpec {
        model: Some("resnet18-cifar".into()),
        batch: Some(128.0),
        precision: Some(Precision::Fp32),
        optimizer: Some(Optimizer::Sgd),
        dataset_samples: Some(50_000.0),
        epochs: Some(50.0),
        ..JobSpec::default()
    }
}

#[test]
fn seed_job_on_a_mid_range_card_takes_tens_of_minutes() {
    // Seed 000 §3.1 reports "30 to 60 minutes of training" for this job on its
    // mid-range setup, and commonly reported CIFAR ResNet-18 epochs on RTX
    // 2080 Ti / 3060-class cards take 10-20 s each plus evaluation.
    //
    // The arithmetic: the CIFAR ResNet-18 costs 1.11 GFLOPs per 32 px image
    // forward (traced, data/models/vision.toml), about 3.3 GFLOPs with
    // backward, so an epoch is 50,000 x 3.3 = 167 TFLOPs. An RTX 3060 has
    // 12.7 TFLOPS of TF32 (data/gpus.toml), 17.5 s of convolutions at 75% of
    // it; the 2080 Ti's 13.4 FP32 TFLOPS run them as cuDNN's Winograd
    // transforms, faster than the direct FLOP count (issue 25's refit), plus
    // the memory traffic of 391 steps: 10-35 s an epoch, 50 epochs plus a
    // 10,000-image evaluation each: ten minutes or more, never the ~2
    // minutes the ImageNet-stem ResNet-18 gave. (The lower bound was 15
    // minutes before issue 25; epochs of 10-20 s, the reports above, make
    // 10-20 minutes, so 10 is the bound those reports support.)
    for gpu in ["rtx3060", "rtx2080ti"] {
        let r = run(&seed_job(), gpu, &Host::TYPICAL);
        let minutes = r.total_s / 60.0;
        assert!(
            (10.0..=60.0).contains(&minutes),
            "{gpu}: the seed's job takes tens of minutes (seed: 30-60), estimated {minutes:.1} min"
        );
        assert!(
            (10.0..=35.0).contains(&r.epoch_s),
            "{gpu}: an epoch takes 10-35 s on a mid-range card, estimated {:.1} s",
            r.epoch_s
        );
        assert!(
            r.eval_s > 0.0 && r.checkpoint_s > 0.0,
            "{gpu}: evaluation and checkpoints are part of the run"
        );
        assert_eq!(
            r.bound,
            Bound::Gpu,
            "{gpu}: 4 workers keep up with CIFAR on a mid-range card"
        );
    }
}

#[test]
fn the_parts_add_up_and_each_knob_moves_its_part() {
    let base = run(&seed_job(), "rtx3090", &Host::TYPICAL);
    let sum = base.compute_s
        + base.input_wait_s
        + base.eval_s
        + base.checkpoint_s
        + base.warmup_s
        + base.cold_cache_s;
    assert!(
        (sum - base.total_s).abs() < 1e-9 * base.total_s,
        "the parts are the whole run"
    );

    // (change to the job, what must happen, why)
    type Check = fn(&RunParts, &RunParts) -> bool;
    let cases: [(JobSpec, Check, &str); 5] = [
        (
            JobSpec {
                eval_every_epochs: Some(0.0),
                ..seed_job()
            },
            |b, r| r.eval_s == 0.0 && r.total_s < b.total_s,
            "no evaluation: no evaluation time",
        ),
        (
            JobSpec {
                save_every_epochs: Some(10.0),
                ..seed_job()
            },
            |b, r| (r.checkpoint_s - b.checkpoint_s / 10.0).abs() < 1e-9,
            "a checkpoint every 10 epochs: a tenth of the saves",
        ),
        (
            JobSpec {
                optimizer: Some(Optimizer::Adam),
                ..seed_job()
            },
            |b, r| r.checkpoint_s > b.checkpoint_s,
            "Adam keeps two states per weight: bigger checkpoints",
        ),
        (
            JobSpec {
                compile: Some(true),
                ..seed_job()
            },
            |b, r| r.warmup_s > b.warmup_s && r.compute_s < b.compute_s,
            "torch.compile: minutes of compilation, faster steps after",
        ),
        (
            JobSpec {
                num_workers: Some(0.0),
                ..seed_job()
            },
            |b, r| r.input_wait_s > b.input_wait_s,
            "no workers: loading and computing add up",
        ),
    ];
    for (spec, check, why) in cases {
        let r = run(&spec, "rtx3090", &Host::TYPICAL);
        assert!(check(&base, &r), "{why}: base {base:?}, changed {r:?}");
    }
}

#[test]
fn a_jpeg_folder_on_few_cores_is_data_loading_bound() {
    // ImageNet-style JPEGs decode at about 200 images per core per second; an
    // RTX 4090 trains ResNet-50 with AMP at over a thousand a second, so two
    // workers cannot keep up and the run says so, while sixteen do better.
    let job = |workers: f64| JobSpec {
        model: Some("resnet50".into()),
        batch: Some(256.0),
        precision: Some(Precision::Fp16Amp),
        dataset: Some(DatasetKind::JpegFolder),
        num_workers: Some(workers),
        dataset_samples: Some(128_116.0),
        epochs: Some(1.0),
        ..JobSpec::default()
    };
    let host = Host {
        vcpus: 32,
        ram_gb: 128.0,
        disk: DiskKind::LocalNvme,
        interconnect: None,
        inter_node_gbps: None,
        gpus_per_node: None,
        pcie_gbps: None,
    };
    let few = run(&job(2.0), "rtx4090", &host);
    let many = run(&job(16.0), "rtx4090", &host);
    assert_eq!(few.bound, Bound::Input, "two workers starve the card");
    assert!(
        few.input_share > 0.5,
        "most of the run waits for data: {:.2}",
        few.input_share
    );
    // Two workers feed 400 images a second, the card takes about 1,100.
    assert!(
        many.total_s < few.total_s / 2.0,
        "eight times the workers more than halve the run"
    );
    let packed = run(
        &JobSpec {
            dataset: Some(DatasetKind::Packed),
            ..job(2.0)
        },
        "rtx4090",
        &host,
    );
    assert!(
        packed.total_s < few.total_s,
        "a pre-decoded format helps the same two workers"
    );
    // Workers beyond the host's cores do not help: the host caps them.
    let small = Host { vcpus: 4, ..host };
    let capped = run(&job(16.0), "rtx4090", &small);
    let three = run(&job(3.0), "rtx4090", &small);
    assert!(
        (capped.total_s - three.total_s).abs() < 1e-9,
        "16 workers on 4 vCPUs run as 3 (one core trains)"
    );
}

#[test]
fn a_slow_disk_costs_the_first_epoch_and_the_rest_when_data_outgrows_memory() {
    let job = JobSpec {
        model: Some("resnet50".into()),
        batch: Some(256.0),
        precision: Some(Precision::Fp16Amp),
        dataset: Some(DatasetKind::JpegFolder),
        num_workers: Some(16.0),
        dataset_samples: Some(128_116.0),
        epochs: Some(5.0),
        ..JobSpec::default()
    };
    let fast = Host {
        vcpus: 32,
        ram_gb: 128.0,
        disk: DiskKind::LocalNvme,
        interconnect: None,
        inter_node_gbps: None,
        gpus_per_node: None,
        pcie_gbps: None,
    };
    let network = Host {
        disk: DiskKind::Network,
        ..fast
    };
    let a = run(&job, "a100-80g-sxm", &fast);
    let b = run(&job, "a100-80g-sxm", &network);
    assert!(
        b.cold_cache_s > a.cold_cache_s,
        "a network disk reads the first epoch slower"
    );
    assert!(
        (b.compute_s - a.compute_s).abs() < 1e-9,
        "the GPU's own work does not depend on the disk"
    );
    // 14 GB of JPEGs fit in 128 GB of page cache but not in 16 GB.
    let tight = Host {
        ram_gb: 16.0,
        ..network
    };
    let c = run(&job, "a100-80g-sxm", &tight);
    assert!(
        c.total_s > b.total_s,
        "data that does not fit in memory is read from disk every epoch"
    );
}

#[test]
fn a_runs_shares_add_up_to_a_hundred_percent() {
    // Shares rounded one by one print 101% (76 + 10 + 11 + 1 + 3 + 0): the
    // whole-percent shares of every part add up to exactly 100, and each is
    // its exact share rounded down or up, never further.
    let host = Host::TYPICAL;
    for (epochs, samples, gpu) in [
        (10.0, 50_000.0, "rtx3090"),
        (1.0, 1_000.0, "t4"),
        (50.0, 50_000.0, "h100-sxm"),
        (3.0, 7_777.0, "rtx4090"),
    ] {
        let spec = JobSpec {
            epochs: Some(epochs),
            dataset_samples: Some(samples),
            ..seed_job()
        };
        let r = run(&spec, gpu, &host);
        let p = r.percents();
        assert_eq!(
            p.iter().sum::<u32>(),
            100,
            "{gpu} {epochs} epochs: the shares are the whole run: {p:?}"
        );
        for ((key, s), pct) in r.parts().iter().zip(p) {
            let exact = s / r.total_s * 100.0;
            assert!(
                (f64::from(pct) - exact).abs() < 1.0,
                "{gpu}: {key} is {pct}% of the run, its exact share {exact:.2}% rounded"
            );
        }
    }
}
