//! Generators of whole hostile inputs: plans, situations and course packs
//! whose every field is drawn at once, with the boundaries weighted heavily
//! (zero, the smallest step, each documented maximum and just past it, the
//! largest value the type holds, NaN and infinities). Single-field checks
//! missed the combinations issue 12 found; these draw all fields together.

use chrono::NaiveDate;
use gpuplan_core::job::{DatasetKind, LoraTarget, Mode, Optimizer, Precision};
use gpuplan_core::plan::{
    Between, DataSpec, DebugPhase, Disk, Payment, Plan, PriceOverrides, RunGroup, Schedule,
    SpotSpec, Stops, StorageSpec,
};
use gpuplan_core::platform::{Granularity, PackagePeriod};
use gpuplan_core::recommend::{Situation, Stage};
use gpuplan_core::JobSpec;
use proptest::prelude::*;
use rust_decimal::Decimal;

/// A decimal from the edges of every range the plan format documents.
pub fn decimal() -> impl Strategy<Value = Decimal> {
    prop_oneof![
        Just(Decimal::ZERO),
        Just(Decimal::new(1, 9)),
        Just(Decimal::new(1, 2)),
        Just(Decimal::ONE),
        Just(Decimal::from(24)),
        Just(Decimal::from(3650)),
        Just(Decimal::from(10_000)),
        Just(Decimal::from(87_600)),
        Just(Decimal::new(876_001, 1)),
        Just(Decimal::from(1_000_000)),
        Just(Decimal::from(10_000_000)),
        Just(Decimal::from(i64::MAX)),
        Just(Decimal::MAX),
        Just(Decimal::from(-1)),
        Just(Decimal::MIN),
        (0i64..10_000_000, 0u32..10).prop_map(|(m, s)| Decimal::new(m, s)),
    ]
}

/// An optional decimal.
pub fn opt_decimal() -> impl Strategy<Value = Option<Decimal>> {
    prop_oneof![1 => Just(None), 3 => decimal().prop_map(Some)]
}

/// A float from the edges of the job's ranges.
pub fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(1e-9),
        Just(0.5),
        Just(1.0),
        Just(2.5),
        Just(32.0),
        Just(128.0),
        Just(4096.0),
        Just(100_000.0),
        Just(4_294_967_297.0),
        Just(1e300),
        Just(f64::MAX),
        Just(-1.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        (0.0f64..1e6),
    ]
}

fn opt_float() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![1 => Just(None), 3 => float().prop_map(Some)]
}

/// A count from the edges of the plan's ranges.
pub fn count() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(1),
        Just(2),
        Just(64),
        Just(65),
        Just(87_600),
        Just(87_601),
        Just(100_000),
        Just(u32::MAX),
        0u32..1000,
    ]
}

/// Ids that exist, differ in case, or do not exist.
fn id(known: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(known).prop_map(str::to_owned),
        1 => Just("NOPE".to_owned()),
        1 => "[a-z0-9\\-]{0,8}",
    ]
}

/// Platform ids of the bundled profiles (and a few that are not).
pub const PLATFORMS: &[&str] = &[
    "autodl",
    "campus-slurm",
    "colab",
    "gongji",
    "gpushare",
    "kaggle",
    "lanrui",
    "matpool",
    "vast",
    "youyun",
];

/// Cards and models a plan may name.
pub const GPUS: &[&str] = &[
    "rtx3090",
    "rtx4090",
    "a100-80g-sxm",
    "h800",
    "t4",
    "rtx3060",
    "v100-32g",
];
/// Models of all families.
pub const MODELS: &[&str] = &[
    "resnet18-cifar",
    "resnet50",
    "vit-b-16",
    "bert-base",
    "gpt2",
    "llama-2-7b",
    "qwen2-7b",
];

/// Every job field at once.
pub fn job() -> BoxedStrategy<JobSpec> {
    let shape = (
        prop_oneof![1 => Just(None), 4 => id(MODELS).prop_map(Some)],
        opt_decimal(),
        opt_float(),
        opt_float(),
        opt_float(),
        opt_float(),
        proptest::option::of(proptest::sample::select(Precision::VALUES.to_vec())),
        proptest::option::of(proptest::sample::select(Optimizer::VALUES.to_vec())),
        proptest::option::of(proptest::sample::select(Mode::VALUES.to_vec())),
    );
    let run = (
        opt_float(),
        proptest::option::of(Just(vec![LoraTarget::Q, LoraTarget::V])),
        proptest::option::of(any::<bool>()),
        opt_float(),
        opt_float(),
        opt_float(),
        proptest::option::of(proptest::sample::select(DatasetKind::VALUES.to_vec())),
        opt_float(),
        (opt_float(), opt_float(), opt_float()),
        (
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<bool>()),
            proptest::option::of(proptest::sample::select(
                gpuplan_core::zoo::AttentionImpl::VALUES.to_vec(),
            )),
        ),
    );
    (shape, run)
        .prop_map(
            |(
                (model, hours, batch, resolution, seq_len, classes, precision, optimizer, mode),
                (
                    lora_rank,
                    lora_targets,
                    ckpt,
                    samples,
                    epochs,
                    height,
                    dataset,
                    workers,
                    (eval, val, save),
                    (compile, tf32, attention),
                ),
            )| JobSpec {
                model,
                hours,
                batch,
                resolution,
                seq_len,
                classes,
                precision,
                optimizer,
                mode,
                lora_rank,
                lora_targets,
                grad_checkpointing: ckpt,
                dataset_samples: samples,
                epochs,
                image_height: height,
                dataset,
                num_workers: workers,
                eval_every_epochs: eval,
                val_samples: val,
                save_every_epochs: save,
                compile,
                channels_last: None,
                selective_checkpointing: None,
                optimizer_in_backward: None,
                activation_offload: None,
                qlora_upcast: None,
                base_fp32: None,
                tf32,
                attention,
                keep_grads: None,
                ema: None,
                chunked_loss: None,
                gpus: None,
                engine: None,
                offload: None,
                pcie_gbps: None,
                load_in_8bit: None,
                double_quant: None,
            },
        )
        .boxed()
}

fn payment() -> BoxedStrategy<Payment> {
    prop_oneof![
        Just(Payment::OnDemand),
        Just(Payment::Spot),
        proptest::sample::select(PackagePeriod::ALL.to_vec()).prop_map(Payment::Package),
    ]
    .boxed()
}

fn runs() -> BoxedStrategy<Vec<RunGroup>> {
    proptest::collection::vec(
        (count(), opt_decimal(), opt_decimal(), opt_decimal()).prop_map(
            |(count, hours, minutes, epochs)| RunGroup {
                name: "r".into(),
                count,
                hours,
                minutes,
                epochs,
            },
        ),
        0..4,
    )
    .boxed()
}

fn prices() -> BoxedStrategy<PriceOverrides> {
    (
        (
            opt_decimal(),
            opt_decimal(),
            opt_decimal(),
            opt_decimal(),
            opt_decimal(),
            opt_decimal(),
        ),
        (
            opt_decimal(),
            opt_decimal(),
            opt_decimal(),
            proptest::option::of(count()),
        ),
        proptest::option::of(proptest::sample::select(vec![
            Granularity::Second,
            Granularity::Minute,
            Granularity::Hour,
        ])),
        opt_decimal(),
    )
        .prop_map(
            |((g, d, s, st, gbd, gbm), (free, pers, egress, min), gran, pkg)| PriceOverrides {
                gpu_per_hour: g,
                debug_gpu_per_hour: d,
                spot_per_hour: s,
                stopped_fee_per_hour: st,
                storage_per_gb_day: gbd,
                storage_per_gb_month: gbm,
                free_storage_gb: free,
                persistent_per_gb_day: pers,
                egress_per_gb: egress,
                minimum_charge_minutes: min,
                granularity: gran,
                package_price: pkg,
            },
        )
        .boxed()
}

/// A whole plan, every field drawn at once.
pub fn plan() -> BoxedStrategy<Plan> {
    let head = (
        id(PLATFORMS),
        id(GPUS),
        opt_decimal(),
        proptest::option::of(prop_oneof![
            Just(NaiveDate::MIN),
            Just(NaiveDate::MAX),
            Just(NaiveDate::from_ymd_opt(2026, 12, 1).unwrap_or_default())
        ]),
        proptest::option::of(prop_oneof![Just(0u32), Just(23), Just(24), Just(u32::MAX)]),
        count(),
        (opt_decimal(), opt_decimal()),
        any::<bool>(),
        payment(),
        (decimal(), decimal(), decimal()),
    );
    let body = (
        job(),
        runs(),
        proptest::option::of(
            (id(GPUS), decimal()).prop_map(|(gpu, hours)| DebugPhase { gpu, hours }),
        ),
        proptest::option::of((decimal(), decimal(), opt_decimal()).prop_map(
            |(size_gb, upload_mbps, download_gb)| DataSpec {
                size_gb,
                upload_mbps,
                download_gb,
            },
        )),
        proptest::option::of((decimal(), opt_decimal(), any::<bool>()).prop_map(
            |(gb, days, p)| StorageSpec {
                gb,
                days,
                on: if p { Disk::Persistent } else { Disk::Instance },
            },
        )),
        proptest::option::of(
            (count(), decimal()).prop_map(|(count, hours_each)| Stops { count, hours_each }),
        ),
        proptest::option::of((decimal(), 0u8..3).prop_map(|(days, b)| Schedule {
            days,
            between_runs: [Between::Stop, Between::Release, Between::KeepRunning][usize::from(b)],
        })),
        proptest::option::of(
            (opt_decimal(), opt_decimal(), decimal(), decimal()).prop_map(|(h, e, p, r)| {
                SpotSpec {
                    checkpoint_every_hours: h,
                    checkpoint_every_epochs: e,
                    preemptions_per_day: p,
                    restart_minutes: r,
                }
            }),
        ),
        prices(),
    );
    (head, body)
        .prop_map(
            |(
                (
                    platform,
                    gpu,
                    budget,
                    start_date,
                    start_hour,
                    parallel,
                    (credit, balance),
                    student,
                    payment,
                    (own, forgotten, setup),
                ),
                (job, runs, debug, data, storage, stops, schedule, spot, prices),
            )| Plan {
                name: "hostile".into(),
                platform,
                gpu,
                budget,
                start_date,
                start_hour,
                parallel,
                credit,
                balance,
                student,
                payment,
                own_time_per_hour: own,
                forgotten_shutdown_hours: forgotten,
                setup_hours: setup,
                job,
                runs,
                debug,
                data,
                storage,
                stops,
                schedule,
                spot,
                prices,
                ..Plan::default()
            },
        )
        .boxed()
}

/// A whole situation for `recommend`.
pub fn situation() -> BoxedStrategy<Situation> {
    (
        proptest::sample::select(Stage::VALUES.to_vec()),
        (opt_decimal(), opt_decimal()),
        proptest::collection::vec(any::<bool>(), 7),
        job(),
        count(),
        decimal(),
    )
        .prop_map(
            |(stage, (budget, deadline), flags, job, runs, storage_gb)| Situation {
                stage,
                budget,
                deadline_hours: deadline,
                linux: flags[0],
                slurm: flags[1],
                mainland_china: flags[2],
                needs_persistence: flags[3],
                campus_access: flags[4],
                interruptible: flags[5],
                student: flags[6],
                job,
                runs,
                storage_gb,
            },
        )
        .boxed()
}

/// A number for a pack's profile or preset: in range, at the edges, past
/// them, or one TOML can hold but no price should be.
fn toml_number() -> impl Strategy<Value = toml::Value> {
    use toml::Value;
    prop_oneof![
        Just(Value::Integer(0)),
        Just(Value::Integer(-1)),
        Just(Value::Float(1e-9)),
        Just(Value::Float(7.9e28)),
        Just(Value::Float(1e300)),
        Just(Value::Float(f64::NAN)),
        Just(Value::Float(f64::INFINITY)),
        Just(Value::Integer(100_001)),
        Just(Value::Integer(10_000)),
        Just(Value::Integer(87_600)),
        Just(Value::Integer(4_294_967_297)),
        Just(Value::Integer(i64::MAX)),
        (0i64..100_000).prop_map(Value::Integer),
    ]
}

/// Paths to every number in `v`, in document order.
fn number_paths(v: &toml::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        toml::Value::Integer(_) | toml::Value::Float(_) => out.push(path.clone()),
        toml::Value::Table(t) => {
            for (k, x) in t {
                path.push(k.clone());
                number_paths(x, path, out);
                path.pop();
            }
        }
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(i.to_string());
                number_paths(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn set_path(v: &mut toml::Value, path: &[String], to: toml::Value) {
    let Some((first, rest)) = path.split_first() else {
        *v = to;
        return;
    };
    let next = match v {
        toml::Value::Table(t) => t.get_mut(first),
        toml::Value::Array(a) => first.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
        _ => None,
    };
    if let Some(n) = next {
        set_path(n, rest, to);
    }
}

/// A course pack: a bundled profile (renamed) with some of its numbers
/// replaced, a preset whose job numbers are drawn, and a drawn name.
pub fn pack_text(profile: &'static str) -> BoxedStrategy<String> {
    let base: toml::Value =
        toml::from_str(profile).unwrap_or(toml::Value::Table(toml::Table::new()));
    let mut paths = Vec::new();
    number_paths(&base, &mut Vec::new(), &mut paths);
    let n = paths.len().max(1);
    (
        prop_oneof![
            Just("深度学习".to_owned()),
            Just("CV 101".to_owned()),
            Just("cv-101".to_owned()),
            "[ -~中文]{0,20}"
        ],
        proptest::collection::vec((0..n, toml_number()), 0..6),
        (toml_number(), toml_number()),
    )
        .prop_map(move |(name, edits, (batch, epochs))| {
            let mut p = base.clone();
            for (i, to) in edits {
                if let Some(path) = paths.get(i) {
                    set_path(&mut p, path, to);
                }
            }
            if let toml::Value::Table(t) = &mut p {
                t.insert("id".into(), toml::Value::String("class-platform".into()));
            }
            let mut job = toml::Table::new();
            job.insert("model".into(), toml::Value::String("resnet18-cifar".into()));
            job.insert("batch".into(), batch);
            job.insert("epochs".into(), epochs);
            job.insert("dataset_samples".into(), toml::Value::Integer(50_000));
            let mut preset = toml::Table::new();
            preset.insert("id".into(), toml::Value::String("p".into()));
            let mut pname = toml::Table::new();
            pname.insert("zh".into(), toml::Value::String("p".into()));
            pname.insert("en".into(), toml::Value::String("p".into()));
            preset.insert("name".into(), toml::Value::Table(pname));
            preset.insert("runs".into(), toml::Value::Integer(1));
            preset.insert("job".into(), toml::Value::Table(job));
            let mut head = toml::Table::new();
            head.insert("name".into(), toml::Value::String(name));
            let mut pack = toml::Table::new();
            pack.insert("pack".into(), toml::Value::Table(head));
            pack.insert(
                "preset".into(),
                toml::Value::Array(vec![toml::Value::Table(preset)]),
            );
            pack.insert("platform".into(), toml::Value::Array(vec![p]));
            toml::to_string(&toml::Value::Table(pack)).unwrap_or_default()
        })
        .boxed()
}

/// A decimal inside `[0, max]`, weighted to its edges: what single-field
/// checks all accept and only combinations can break.
pub fn edge(max: i64) -> BoxedStrategy<Decimal> {
    prop_oneof![
        Just(Decimal::ZERO),
        Just(Decimal::new(1, 6)),
        Just(Decimal::ONE),
        Just(Decimal::from(max)),
        Just(Decimal::from(max) / Decimal::from(3)),
        (0..=max.saturating_mul(100)).prop_map(|x| Decimal::new(x, 2)),
    ]
    .boxed()
}

fn opt_edge(max: i64) -> BoxedStrategy<Option<Decimal>> {
    prop_oneof![1 => Just(None), 3 => edge(max).prop_map(Some)].boxed()
}

/// A job every field of which is in range.
pub fn job_in_range() -> BoxedStrategy<JobSpec> {
    (
        proptest::sample::select(MODELS),
        prop_oneof![
            Just(None),
            Just(Some(Decimal::new(1, 6))),
            Just(Some(Decimal::from(87_600)))
        ],
        proptest::sample::select(vec![1.0, 8.0, 128.0, 4096.0]),
        proptest::sample::select(vec![1.0, 50_000.0, 4_000_000_000.0]),
        proptest::sample::select(vec![0.001, 1.0, 100.0, 100_000.0]),
        proptest::option::of(proptest::sample::select(Precision::VALUES.to_vec())),
        proptest::option::of(proptest::sample::select(Mode::VALUES.to_vec())),
        proptest::option::of(proptest::sample::select(vec![0.0, 256.0])),
        any::<bool>(),
    )
        .prop_map(
            |(model, hours, batch, samples, epochs, precision, mode, workers, compile)| JobSpec {
                model: Some(model.to_owned()),
                hours,
                batch: Some(batch),
                dataset_samples: Some(samples),
                epochs: Some(epochs),
                precision,
                mode,
                num_workers: workers,
                compile: Some(compile),
                ..JobSpec::default()
            },
        )
        .boxed()
}

/// A decimal inside `(0, max]`, weighted to its edges.
pub fn edge_pos(max: i64) -> BoxedStrategy<Decimal> {
    // Mapped rather than filtered: a filter's rejections add up over the
    // millions of cases a long run draws.
    edge(max)
        .prop_map(|d| {
            if d > Decimal::ZERO {
                d
            } else {
                Decimal::new(1, 6)
            }
        })
        .boxed()
}

/// Every (platform, GPU) pair the bundled profiles offer.
pub fn offered() -> Vec<(String, String)> {
    super::platforms()
        .platforms
        .iter()
        .flat_map(|p| p.offers.iter().map(move |o| (p.id.clone(), o.gpu.clone())))
        .collect()
}

/// A plan whose every field is inside the range the plan format allows,
/// drawn at the edges, with the choices that exclude each other made once
/// (hours or minutes or epochs per run; stops or a schedule; checkpoints
/// by hours or by epochs) and a GPU the platform offers: the class of input
/// the single-field checks let through (issue 12's spot overflow was one).
pub fn plan_in_range() -> BoxedStrategy<Plan> {
    use gpuplan_core::plan::{MAX_CNY, MAX_DAYS, MAX_GB, MAX_HOURS, MAX_PRICE_PER_HOUR};
    let length = prop_oneof![
        Just((None, None, None)),
        edge_pos(MAX_HOURS).prop_map(|h| (Some(h), None, None)),
        edge_pos(1440).prop_map(|m| (None, Some(m), None)),
        edge_pos(100_000).prop_map(|e| (None, None, Some(e))),
    ];
    let runs = proptest::collection::vec(
        (prop_oneof![Just(1u32), Just(29_200), 1u32..100], length).prop_map(
            |(count, (hours, minutes, epochs))| RunGroup {
                name: "r".into(),
                count,
                hours,
                minutes,
                epochs,
            },
        ),
        1..4,
    );
    let when = prop_oneof![
        Just((None, None)),
        (
            prop_oneof![Just(0u32), Just(87_600), 0u32..10],
            edge(MAX_HOURS)
        )
            .prop_map(|(count, hours_each)| (Some(Stops { count, hours_each }), None)),
        (edge_pos(MAX_DAYS), 0u8..3).prop_map(|(days, b)| (
            None,
            Some(Schedule {
                days,
                between_runs: [Between::Stop, Between::Release, Between::KeepRunning]
                    [usize::from(b)]
            })
        )),
    ];
    let checkpoints = prop_oneof![
        Just((None, None)),
        edge_pos(MAX_HOURS).prop_map(|h| (Some(h), None)),
        edge_pos(100_000).prop_map(|e| (None, Some(e))),
    ];
    let spot = proptest::option::of((checkpoints, edge(1000), edge(1440)).prop_map(
        |((h, e), p, r)| SpotSpec {
            checkpoint_every_hours: h,
            checkpoint_every_epochs: e,
            preemptions_per_day: p,
            restart_minutes: r,
        },
    ));
    let head = (
        proptest::sample::select(offered()),
        opt_edge(MAX_CNY),
        (opt_edge(MAX_CNY), opt_edge(MAX_CNY)),
        prop_oneof![Just(1u32), Just(64), 1u32..8],
        any::<bool>(),
        payment(),
        (edge(MAX_PRICE_PER_HOUR), edge(MAX_HOURS), edge(MAX_HOURS)),
    );
    let body = (
        job_in_range(),
        runs,
        proptest::option::of(edge_pos(MAX_HOURS)),
        proptest::option::of((edge(MAX_GB), edge_pos(10_000), opt_edge(MAX_GB)).prop_map(
            |(size_gb, upload_mbps, download_gb)| DataSpec {
                size_gb,
                upload_mbps,
                download_gb,
            },
        )),
        proptest::option::of((edge(MAX_GB), opt_edge(MAX_DAYS), any::<bool>()).prop_map(
            |(gb, days, p)| StorageSpec {
                gb,
                days,
                on: if p { Disk::Persistent } else { Disk::Instance },
            },
        )),
        when,
        spot,
        (
            opt_edge(MAX_PRICE_PER_HOUR),
            opt_edge(MAX_PRICE_PER_HOUR),
            opt_edge(100),
            opt_edge(MAX_CNY),
        ),
    );
    (head, body)
        .prop_map(
            |(
                (
                    (platform, gpu),
                    budget,
                    (credit, balance),
                    parallel,
                    student,
                    payment,
                    (own, forgotten, setup),
                ),
                (
                    job,
                    runs,
                    debug,
                    data,
                    storage,
                    (stops, schedule),
                    spot,
                    (gpu_price, spot_price, storage_price, package),
                ),
            )| Plan {
                name: "edges".into(),
                debug: debug.map(|hours| DebugPhase {
                    gpu: gpu.clone(),
                    hours,
                }),
                platform,
                gpu,
                budget,
                credit,
                balance,
                parallel,
                student,
                payment,
                own_time_per_hour: own,
                forgotten_shutdown_hours: forgotten,
                setup_hours: setup,
                job,
                runs,
                data,
                storage,
                stops,
                schedule,
                spot,
                prices: PriceOverrides {
                    gpu_per_hour: gpu_price,
                    spot_per_hour: spot_price,
                    storage_per_gb_day: storage_price,
                    package_price: package,
                    ..PriceOverrides::default()
                },
                ..Plan::default()
            },
        )
        .boxed()
}

/// The limits a figure shown to a student stays within; past them the
/// answer must be an error instead.
pub fn sane_quote(q: &gpuplan_core::quote::Quote) -> Result<(), String> {
    let cny = Decimal::from(gpuplan_core::plan::MAX_CNY);
    let hours = Decimal::from(gpuplan_core::plan::MAX_HOURS);
    if q.cash_total.abs() > cny || q.total.abs() > cny {
        return Err(format!(
            "a bill of {} CNY ({} with own time) was printed",
            q.cash_total, q.total
        ));
    }
    if let Some(l) = q.lines.iter().find(|l| l.amount.abs() > cny) {
        return Err(format!("a bill line of {} CNY was printed", l.amount));
    }
    if q.longest_run_hours > hours {
        return Err(format!("a run of {} h was printed", q.longest_run_hours));
    }
    if q.time_to_result_hours > hours {
        return Err(format!(
            "a time to result of {} h was printed",
            q.time_to_result_hours
        ));
    }
    let sum: Decimal = q
        .lines
        .iter()
        .filter(|l| l.category != gpuplan_core::quote::Category::OwnTime)
        .map(|l| l.amount)
        .sum();
    if sum != q.cash_total {
        return Err(format!(
            "lines add to {sum}, the total says {}",
            q.cash_total
        ));
    }
    Ok(())
}

/// An error a user can act on: bad input or a bad file, naming something.
pub fn named(e: &gpuplan_usecases::AppError) -> Result<(), String> {
    match e {
        gpuplan_usecases::AppError::Input { field, .. } if !field.is_empty() => Ok(()),
        gpuplan_usecases::AppError::Data { .. } => Ok(()),
        other => Err(format!("refused without naming a field: {other}")),
    }
}
