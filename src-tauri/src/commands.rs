//! Tauri commands: short adapters from IPC shapes ([`crate::dto`]) to the
//! core, the store and the charts, and back.

use std::collections::BTreeMap;
use std::str::FromStr;

use gpuplan_core::job::{Mode, Optimizer, Precision};
use gpuplan_core::pack::CoursePack;
use gpuplan_core::plan::{Payment, Plan, PlanJob, RunGroup, SpotSpec, Stops, StorageSpec};
use gpuplan_core::quote::{quote as price, Warning};
use gpuplan_core::recommend::{recommend as rank, Situation, Stage};
use gpuplan_core::zoo::Model;
use gpuplan_core::{estimate as estimate_all, InputError, JobRequest};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use tauri::State;

use crate::dto::*;
use crate::error::AppError;
use crate::state::AppState;

type Res<T> = Result<T, AppError>;

fn now() -> String {
    chrono::Local::now().format("%Y-%m-%dT%H:%M:%S").to_string()
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic in another command must not brick the app: take the data as it is.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn text(l: &gpuplan_core::platform::Localized) -> Text {
    Text {
        zh: l.zh.clone(),
        en: l.en.clone(),
    }
}

fn kebab<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn seed_presets() -> Vec<Preset> {
    let job = |model: &str, f: &dyn Fn(&mut JobInput)| {
        let mut j = JobInput {
            model: model.into(),
            ..Default::default()
        };
        f(&mut j);
        j
    };
    vec![
        Preset {
            key: "resnet18-cifar".into(),
            name: Text {
                zh: "ResNet-18 训练 CIFAR-10（50 轮，batch 128）".into(),
                en: "ResNet-18 on CIFAR-10 (50 epochs, batch 128)".into(),
            },
            job: job("resnet18", &|j| {
                j.resolution = Some(32.0);
                j.classes = Some(10.0);
                j.batch = Some(128.0);
                j.dataset_samples = Some(50_000.0);
                j.epochs = Some(50.0);
                j.precision = Some("fp32".into());
                j.optimizer = Some("sgd".into());
            }),
        },
        Preset {
            key: "resnet50-imagenet10".into(),
            name: Text {
                zh: "ResNet-50 微调 10% ImageNet（30 轮，batch 256）".into(),
                en: "ResNet-50 on 10% of ImageNet (30 epochs, batch 256)".into(),
            },
            job: job("resnet50", &|j| {
                j.batch = Some(256.0);
                j.dataset_samples = Some(128_116.0);
                j.epochs = Some(30.0);
                j.precision = Some("fp16-amp".into());
                j.optimizer = Some("sgd".into());
            }),
        },
        Preset {
            key: "bert-base-finetune".into(),
            name: Text {
                zh: "BERT-base 微调（序列 128，batch 32，3 轮）".into(),
                en: "BERT-base fine-tuning (seq 128, batch 32, 3 epochs)".into(),
            },
            job: job("bert-base", &|j| {
                j.seq_len = Some(128.0);
                j.batch = Some(32.0);
                j.dataset_samples = Some(67_349.0);
                j.epochs = Some(3.0);
                j.precision = Some("fp16-amp".into());
                j.optimizer = Some("adamw".into());
            }),
        },
        Preset {
            key: "llama7b-lora".into(),
            name: Text {
                zh: "7B 大模型 LoRA 微调（Llama-2-7B，序列 1024）".into(),
                en: "7B LoRA fine-tuning (Llama-2-7B, seq 1024)".into(),
            },
            job: job("llama-2-7b", &|j| {
                j.mode = Some("lora".into());
                j.seq_len = Some(1024.0);
                j.batch = Some(4.0);
                j.lora_rank = Some(16.0);
                j.dataset_samples = Some(20_000.0);
                j.epochs = Some(1.0);
                j.precision = Some("bf16".into());
                j.optimizer = Some("adamw".into());
            }),
        },
    ]
}

/// Start-up data.
#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> Res<AppInfo> {
    let models = state
        .zoo
        .entries()
        .iter()
        .map(|e| ModelInfo {
            id: e.id.clone(),
            name: e.model.name().to_owned(),
            family: e.model.family().to_owned(),
            params_m: match &e.model {
                Model::Vision(v) => v.params(v.default_classes) as f64 / 1e6,
                Model::Transformer(t) => t.params() as f64 / 1e6,
            },
        })
        .collect();
    let gpus = state
        .catalog
        .gpus()
        .iter()
        .map(|g| GpuInfo {
            id: g.id.clone(),
            name: g.spec.name.clone(),
            vram_gib: g.vram_gib(),
            bf16: g.supports_bf16(),
        })
        .collect();
    let platforms = lock(&state.platforms)
        .platforms
        .iter()
        .map(|p| PlatformInfo {
            id: p.id.clone(),
            name: text(&p.name),
            kind: kebab(&p.kind),
            gpus: p.offers.iter().map(|o| o.gpu.clone()).collect(),
        })
        .collect();
    let packs = lock(&state.packs);
    let mut presets = seed_presets();
    let course = packs.last().map(|p| {
        for (i, pr) in p.presets.iter().enumerate() {
            let j = &pr.job;
            presets.push(Preset {
                key: format!("course-{i}"),
                name: Text {
                    zh: pr.name.clone(),
                    en: pr.name.clone(),
                },
                job: JobInput {
                    model: j.model.clone().unwrap_or_default(),
                    batch: j.batch,
                    resolution: j.resolution,
                    seq_len: j.seq_len,
                    classes: j.classes,
                    precision: j.precision.map(|p| p.to_string()),
                    optimizer: j.optimizer.map(|o| o.to_string()),
                    mode: j.mode.map(|m| m.to_string()),
                    lora_rank: j.lora_rank,
                    grad_checkpointing: j.grad_checkpointing.unwrap_or(false),
                    dataset_samples: j.dataset_samples,
                    epochs: j.epochs,
                },
            });
        }
        CourseInfo {
            name: p.pack.name.clone(),
            instructor: p.pack.instructor.clone(),
            budget_cap: p.pack.budget_cap.and_then(|b| b.to_f64()),
            default_platform: p.pack.default_platform.clone(),
        }
    });
    Ok(AppInfo {
        models,
        gpus,
        platforms,
        presets,
        course,
        notice: state.startup_notice.clone(),
    })
}

fn job_request(j: &JobInput) -> Res<JobRequest> {
    Ok(JobRequest {
        batch: j.batch,
        resolution: j.resolution,
        seq_len: j.seq_len,
        classes: j.classes,
        precision: j
            .precision
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(Precision::parse)
            .transpose()?,
        optimizer: j
            .optimizer
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(Optimizer::parse)
            .transpose()?,
        mode: j
            .mode
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(Mode::parse)
            .transpose()?,
        lora_rank: if matches!(j.mode.as_deref(), Some("lora" | "qlora")) {
            j.lora_rank
        } else {
            None
        },
        lora_targets: None,
        grad_checkpointing: Some(j.grad_checkpointing),
        dataset_samples: j.dataset_samples,
        epochs: j.epochs,
    })
}

/// Memory and time of a job on every card (step 3).
#[tauri::command]
pub async fn estimate(
    state: State<'_, AppState>,
    job: JobInput,
    gpu: Option<String>,
    lang: String,
) -> Res<EstimateView> {
    let entry = state.zoo.get(&job.model)?;
    let j = job_request(&job)?.resolve(entry)?;
    let target = gpu
        .as_deref()
        .filter(|g| !g.is_empty())
        .map(|g| state.catalog.get(g))
        .transpose()?;
    let est = estimate_all(entry, &j, &state.catalog, target);
    let report = est.report(entry.model.name(), target.map(|g| g.id.as_str()));
    let zh = lang == "zh";
    let label = |k: &str| -> String {
        let (z, e) = match k {
            "weights" => ("权重", "weights"),
            "gradients" => ("梯度", "gradients"),
            "optimizer" => ("优化器状态", "optimizer"),
            "activations" => ("激活", "activations"),
            "logits" => ("logits", "logits"),
            "kv_cache" => ("KV缓存", "KV cache"),
            "workspace" => ("工作区", "workspace"),
            "allocator" => ("分配器冗余", "allocator"),
            _ => ("CUDA上下文", "context"),
        };
        (if zh { z } else { e }).to_owned()
    };
    let components: Vec<Component> = est
        .vram
        .components
        .gib_entries()
        .iter()
        .map(|(k, v)| Component {
            key: (*k).to_owned(),
            gib: *v,
        })
        .collect();
    let parts: Vec<(String, f64)> = components
        .iter()
        .filter(|c| c.gib > 0.0005)
        .map(|c| (label(&c.key), c.gib))
        .collect();
    let cards: Vec<(String, f64)> = ["rtx3060", "rtx4090", "a100-40g-sxm", "a100-80g-sxm"]
        .iter()
        .filter_map(|id| state.catalog.get(id).ok())
        .map(|g| (g.id.clone(), g.vram_gib()))
        .collect();
    let title = if zh {
        format!("{} 峰值显存 {:.2} GiB", report.model_name, report.peak_gib)
    } else {
        format!(
            "{} peak memory {:.2} GiB",
            report.model_name, report.peak_gib
        )
    };
    let chart_svg = gpuplan_charts::vram_breakdown(&title, &parts, &cards)?;
    Ok(EstimateView {
        model: report.model.clone(),
        model_name: report.model_name.clone(),
        params: report.params as f64,
        peak_gib: report.peak_gib,
        components,
        gpus: report
            .gpus
            .iter()
            .map(|g| GpuRow {
                id: g.id.clone(),
                name: g.name.clone(),
                vram_gib: g.vram_gib,
                verdict: kebab(&g.verdict),
                max_batch: g.max_batch,
                step_seconds: g.step_seconds,
                run_seconds: g.run_seconds,
            })
            .collect(),
        target_gpu: report.target_gpu.clone(),
        fixes: report
            .fixes
            .iter()
            .map(|f| FixView {
                kind: f.kind.clone(),
                peak_gib: f.peak_gib,
                step_seconds: f.step_seconds,
                batch: f.job.batch,
                accumulation_steps: f.accumulation_steps,
            })
            .collect(),
        chart_svg,
    })
}

fn dec(field: &str, x: Option<f64>) -> Res<Option<Decimal>> {
    match x {
        None => Ok(None),
        Some(v) if v.is_finite() => Ok(Some(
            Decimal::try_from(v)
                .map_err(|_| {
                    InputError::new(field, format!("{v} cannot be used"), "a normal number")
                })?
                .round_dp(6),
        )),
        Some(v) => {
            Err(InputError::new(field, format!("{v} is not a number"), "a finite number").into())
        }
    }
}

fn plan_job(j: &JobInput, hours: Option<f64>) -> Res<PlanJob> {
    let r = job_request(j)?;
    Ok(PlanJob {
        hours: dec("hours", hours)?,
        model: if hours.is_some() {
            None
        } else {
            Some(j.model.clone())
        },
        batch: r.batch,
        resolution: r.resolution,
        seq_len: r.seq_len,
        classes: r.classes,
        precision: r.precision,
        optimizer: r.optimizer,
        mode: r.mode,
        lora_rank: r.lora_rank,
        grad_checkpointing: r.grad_checkpointing,
        dataset_samples: r.dataset_samples,
        epochs: r.epochs,
    })
}

/// A bill category's name for chart legends (the UI translates its own text).
fn category_label(c: gpuplan_core::quote::Category, zh: bool) -> &'static str {
    use gpuplan_core::quote::Category::*;
    match (c, zh) {
        (GpuCompute, true) => "GPU 计算",
        (GpuCompute, false) => "GPU compute",
        (Storage, true) => "存储",
        (Storage, false) => "storage",
        (StoppedIdle, true) => "关机/闲置",
        (StoppedIdle, false) => "stopped and idle",
        (Traffic, true) => "流量",
        (Traffic, false) => "traffic",
        (SetupNoGpu, true) => "配置与上传",
        (SetupNoGpu, false) => "setup and uploads",
        (PreemptionReruns, true) => "抢占重跑",
        (PreemptionReruns, false) => "reruns",
        (MinimumChargeWaste, true) => "最低消费浪费",
        (MinimumChargeWaste, false) => "minimum-charge waste",
        (Credit, true) => "免费额度",
        (Credit, false) => "credit",
        (OwnTime, true) => "你的时间",
        (OwnTime, false) => "your time",
    }
}

fn breakdown(q: &gpuplan_core::quote::Quote) -> Vec<Money> {
    q.by_category
        .iter()
        .map(|(c, a)| Money {
            category: kebab(c),
            amount: a.to_string(),
        })
        .collect()
}

/// Ranked platform x GPU options (step 4).
#[tauri::command]
pub async fn recommend(
    state: State<'_, AppState>,
    situation: SituationInput,
    job: JobInput,
    lang: String,
) -> Res<RecommendationView> {
    let s = Situation {
        stage: Stage::parse(&situation.stage)?,
        budget: dec("budget", situation.budget)?,
        deadline_hours: dec("deadline_hours", situation.deadline_hours)?,
        linux: situation.linux,
        slurm: situation.slurm,
        mainland_china: !situation.abroad,
        needs_persistence: situation.persistence,
        campus_access: situation.campus,
        interruptible: situation.interruptible,
        student: true,
        job: plan_job(&job, None)?,
        runs: situation.runs.max(1),
        storage_gb: Decimal::ZERO,
    };
    let platforms = lock(&state.platforms).clone();
    let mut r = rank(&s, &platforms, &state.catalog, &state.zoo)?;
    r.options.truncate(10);
    let categories: Vec<gpuplan_core::quote::Category> = {
        let mut c: Vec<_> = r
            .options
            .iter()
            .take(5)
            .flat_map(|o| o.quote.by_category.keys().copied())
            .collect();
        c.sort();
        c.dedup();
        c
    };
    let zh = lang == "zh";
    let cat_names: Vec<String> = categories
        .iter()
        .map(|c| category_label(*c, zh).to_owned())
        .collect();
    let bars: Vec<(String, Vec<f64>)> = r
        .options
        .iter()
        .take(5)
        .map(|o| {
            (
                format!(
                    "{} {}",
                    if zh {
                        &o.platform_name.zh
                    } else {
                        &o.platform_name.en
                    },
                    o.gpu
                ),
                categories
                    .iter()
                    .map(|c| {
                        o.quote
                            .by_category
                            .get(c)
                            .and_then(|d| d.to_f64())
                            .unwrap_or(0.0)
                    })
                    .collect(),
            )
        })
        .collect();
    let chart_svg = gpuplan_charts::cost_breakdown(
        if zh {
            "各方案费用构成（元）"
        } else {
            "Cost by option (CNY)"
        },
        &cat_names,
        &bars,
    )?;
    Ok(RecommendationView {
        options: r
            .options
            .iter()
            .map(|o| OptionView {
                platform: o.platform.clone(),
                platform_name: text(&o.platform_name),
                kind: kebab(&o.kind),
                gpu: o.gpu.clone(),
                payment: kebab(&o.payment),
                cost: o.cost.to_string(),
                time_to_result_hours: o.time_to_result_hours.to_f64().unwrap_or(0.0),
                reasons: o.reasons.iter().map(text).collect(),
                watch_out: o.watch_out.iter().map(text).collect(),
                breakdown: breakdown(&o.quote),
            })
            .collect(),
        ruled_out: r
            .ruled_out
            .iter()
            .map(|x| RuledOutView {
                platform: x.platform.clone(),
                gpu: x.gpu.clone(),
                reason: text(&x.reason),
            })
            .collect(),
        chart_svg,
    })
}

/// Builds the core plan from the plan screen's input.
pub fn core_plan(p: &PlanInput) -> Res<Plan> {
    let start_date = match p.start_date.as_deref().filter(|d| !d.is_empty()) {
        Some(d) => Some(chrono::NaiveDate::from_str(d).map_err(|_| {
            InputError::new("start_date", format!("`{d}` is not a date"), "YYYY-MM-DD")
        })?),
        None => None,
    };
    Ok(Plan {
        name: p.name.chars().take(200).collect(),
        platform: p.platform.clone(),
        gpu: p.gpu.clone(),
        budget: dec("budget", p.budget)?,
        start_date,
        student: p.student,
        payment: if p.payment == "spot" {
            Payment::Spot
        } else {
            Payment::OnDemand
        },
        own_time_per_hour: Decimal::ZERO,
        forgotten_shutdown_hours: dec(
            "forgotten_shutdown_hours",
            Some(p.forgotten_shutdown_hours),
        )?
        .unwrap_or_default(),
        setup_hours: Decimal::new(25, 2),
        job: plan_job(&p.job, p.hours)?,
        runs: vec![RunGroup {
            name: "run".into(),
            count: p.runs.max(1),
            hours: None,
            epochs: None,
        }],
        debug: None,
        data: (p.data_gb > 0.0)
            .then(|| dec("data_gb", Some(p.data_gb)))
            .transpose()?
            .flatten()
            .map(|size_gb| gpuplan_core::plan::DataSpec {
                size_gb,
                upload_mbps: Decimal::from(20),
            }),
        storage: (p.storage_gb > 0.0)
            .then(|| -> Res<StorageSpec> {
                Ok(StorageSpec {
                    gb: dec("storage_gb", Some(p.storage_gb))?.unwrap_or_default(),
                    days: dec("storage_days", Some(p.storage_days))?.unwrap_or_default(),
                })
            })
            .transpose()?,
        stops: (p.stops > 0)
            .then(|| -> Res<Stops> {
                Ok(Stops {
                    count: p.stops,
                    hours_each: dec("stop_hours", Some(p.stop_hours))?.unwrap_or_default(),
                })
            })
            .transpose()?,
        spot: (p.payment == "spot").then(|| SpotSpec {
            checkpoint_every_hours: None,
            checkpoint_every_epochs: Some(Decimal::from(p.checkpoint_every_epochs.max(1))),
            preemptions_per_day: Decimal::from(2),
            restart_minutes: Decimal::from(5),
        }),
        prices: Default::default(),
    })
}

fn warning_view(w: &Warning) -> WarningView {
    let v = serde_json::to_value(w).unwrap_or_default();
    let mut params = BTreeMap::new();
    let mut kind = String::new();
    if let Some(o) = v.as_object() {
        for (k, x) in o {
            if k == "kind" {
                kind = x.as_str().unwrap_or_default().to_owned();
            } else {
                params.insert(
                    k.clone(),
                    x.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| x.to_string()),
                );
            }
        }
    }
    WarningView { kind, params }
}

/// Prices a plan (step 5).
#[tauri::command]
pub async fn quote(state: State<'_, AppState>, plan: PlanInput, lang: String) -> Res<QuoteView> {
    let p = core_plan(&plan)?;
    let platforms = lock(&state.platforms).clone();
    let profile = platforms.get(&p.platform)?;
    let q = price(&p, profile, &state.catalog, &state.zoo)?;
    let zh = lang == "zh";
    let days: Vec<(u32, f64)> = q
        .timeline
        .iter()
        .map(|d| (d.day, d.cumulative.to_f64().unwrap_or(0.0)))
        .collect();
    let chart_svg = gpuplan_charts::cumulative_spend(
        if zh {
            "累计花费（元）"
        } else {
            "Cumulative spend (CNY)"
        },
        &days,
        p.budget.and_then(|b| b.to_f64()),
        if zh { "预算" } else { "budget" },
        if zh { "天" } else { "day" },
    )?;
    Ok(QuoteView {
        platform: q.platform.clone(),
        gpu: q.gpu.clone(),
        lines: q
            .lines
            .iter()
            .map(|l| LineView {
                category: kebab(&l.category),
                key: l.key.clone(),
                label: l.label.clone(),
                hours: l.hours.and_then(|h| h.to_f64()),
                amount: l.amount.to_string(),
            })
            .collect(),
        cash_total: q.cash_total.to_string(),
        total: q.total.to_string(),
        time_to_result_hours: q.time_to_result_hours.to_f64().unwrap_or(0.0),
        warnings: q.warnings.iter().map(warning_view).collect(),
        timeline: q
            .timeline
            .iter()
            .map(|d| DayView {
                day: d.day,
                date: d.date.map(|x| x.to_string()),
                cumulative: d.cumulative.to_f64().unwrap_or(0.0),
            })
            .collect(),
        chart_svg,
    })
}

/// Ledger spend by month as SVG (also used for exports).
#[tauri::command]
pub fn chart(state: State<'_, AppState>, lang: String) -> Res<String> {
    let months = lock(&state.store).spend_by_month()?;
    let data: Vec<(String, f64)> = months
        .iter()
        .map(|m| (m.month.clone(), m.cost.to_f64().unwrap_or(0.0)))
        .collect();
    Ok(gpuplan_charts::spend_by_month(
        if lang == "zh" {
            "每月花费（元）"
        } else {
            "Spend by month (CNY)"
        },
        &data,
    )?)
}

/// Saves a plan (new when `id` is empty); returns its id.
#[tauri::command]
pub fn save_plan(state: State<'_, AppState>, id: Option<i32>, plan: PlanInput) -> Res<i32> {
    core_plan(&plan)?
        .validate()
        .map_err(|(t, k, m)| InputError::new(&format!("{t}.{k}"), m, "see the plan screen"))?;
    let body = serde_json::to_string(&plan).map_err(|e| AppError::Io {
        message: e.to_string(),
    })?;
    let mut store = lock(&state.store);
    let name = if plan.name.trim().is_empty() {
        "plan".to_owned()
    } else {
        plan.name.chars().take(200).collect()
    };
    match id {
        Some(id) => {
            store.update_plan(i64::from(id), &name, &body, &now())?;
            Ok(id)
        }
        None => Ok(i32::try_from(store.save_plan(&name, &body, &now())?).unwrap_or(i32::MAX)),
    }
}

/// Saved plans, newest first. Rows that no longer parse are skipped, not deleted.
#[tauri::command]
pub fn list_plans(state: State<'_, AppState>) -> Res<Vec<SavedPlanView>> {
    let rows = lock(&state.store).list_plans()?;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            serde_json::from_str::<PlanInput>(&r.body)
                .ok()
                .map(|plan| SavedPlanView {
                    id: i32::try_from(r.id).unwrap_or(i32::MAX),
                    name: r.name,
                    updated_at: r.updated_at,
                    plan,
                })
        })
        .collect())
}

/// Deletes a saved plan.
#[tauri::command]
pub fn delete_plan(state: State<'_, AppState>, id: i32) -> Res<()> {
    Ok(lock(&state.store).delete_plan(i64::from(id))?)
}

fn decimal_text(field: &str, s: &str) -> Res<Decimal> {
    let d = Decimal::from_str(s.trim()).map_err(|_| {
        InputError::new(
            field,
            format!("`{s}` is not a number"),
            "a number such as 12.5",
        )
    })?;
    if d < Decimal::ZERO || d > Decimal::from(10_000_000) {
        return Err(InputError::new(field, format!("{d} is out of range"), "0..=10000000").into());
    }
    Ok(d)
}

/// Adds a real bill to the ledger.
#[tauri::command]
pub fn add_ledger(state: State<'_, AppState>, entry: LedgerInput) -> Res<i32> {
    let date = chrono::NaiveDate::from_str(entry.date.trim()).map_err(|_| {
        InputError::new(
            "date",
            format!("`{}` is not a date", entry.date),
            "YYYY-MM-DD",
        )
    })?;
    if entry.platform.trim().is_empty() || entry.platform.len() > 100 {
        return Err(
            InputError::new("platform", "is empty or too long", "1 to 100 characters").into(),
        );
    }
    let planned = match entry.plan_id {
        Some(id) => {
            let store = lock(&state.store);
            let saved = store.get_plan(i64::from(id))?;
            let plan: PlanInput =
                serde_json::from_str(&saved.body).map_err(|e| AppError::Store {
                    message: e.to_string(),
                })?;
            drop(store);
            let p = core_plan(&plan)?;
            let platforms = lock(&state.platforms).clone();
            platforms
                .get(&p.platform)
                .ok()
                .and_then(|profile| price(&p, profile, &state.catalog, &state.zoo).ok())
                .map(|q| q.cash_total)
        }
        None => None,
    };
    let e = gpuplan_store::LedgerEntry {
        id: 0,
        date: date.to_string(),
        platform: entry.platform.trim().chars().take(100).collect(),
        gpu: entry.gpu.trim().chars().take(100).collect(),
        hours: decimal_text("hours", &entry.hours)?,
        cost: decimal_text("cost", &entry.cost)?,
        problems: entry.problems.chars().take(2000).collect(),
        plan_id: entry.plan_id.map(i64::from),
        planned_cost: planned,
    };
    Ok(i32::try_from(lock(&state.store).add_ledger(&e, &now())?).unwrap_or(i32::MAX))
}

/// The ledger with its month chart.
#[tauri::command]
pub fn list_ledger(state: State<'_, AppState>, lang: String) -> Res<LedgerPage> {
    // The screen shows the newest 500 entries; the total covers all of them.
    let (entries, months) = {
        let store = lock(&state.store);
        (store.ledger_page(500)?, store.spend_by_month()?)
    };
    let total: Decimal = months.iter().map(|m| m.cost).sum();
    let chart_svg = chart(state, lang)?;
    Ok(LedgerPage {
        entries: entries
            .into_iter()
            .map(|e| LedgerView {
                id: i32::try_from(e.id).unwrap_or(i32::MAX),
                date: e.date,
                platform: e.platform,
                gpu: e.gpu,
                hours: e.hours.to_string(),
                cost: e.cost.to_string(),
                problems: e.problems,
                planned_cost: e.planned_cost.map(|d| d.to_string()),
            })
            .collect(),
        chart_svg,
        total: total.to_string(),
    })
}

/// Reads a setting.
#[tauri::command]
pub fn get_setting(state: State<'_, AppState>, key: String) -> Res<Option<String>> {
    Ok(lock(&state.store).setting(&key)?)
}

/// Writes a setting (language, last step).
#[tauri::command]
pub fn set_setting(state: State<'_, AppState>, key: String, value: String) -> Res<()> {
    if key.len() > 64 || value.len() > 10_000 {
        return Err(InputError::new(
            "setting",
            "too long",
            "keys up to 64 and values up to 10000 characters",
        )
        .into());
    }
    Ok(lock(&state.store).set_setting(&key, &value)?)
}

/// Writes an export to the path the user chose in the save dialog.
#[tauri::command]
pub fn export_file(path: String, kind: ExportKind, content: String) -> Res<()> {
    let p = std::path::PathBuf::from(&path);
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let allowed: &[&str] = match kind {
        ExportKind::Svg => &["svg"],
        ExportKind::Html => &["html"],
        ExportKind::Csv => &["csv"],
        ExportKind::Script => &["sh", "sbatch", "py"],
    };
    let want = allowed.join(" or .");
    if !allowed.contains(&ext.as_str()) {
        return Err(InputError::new(
            "path",
            format!("`{path}` does not end in .{want}"),
            format!("a .{want} file"),
        )
        .into());
    }
    let tmp = p.with_extension(format!("{ext}.tmp"));
    std::fs::write(&tmp, content)?;
    std::fs::rename(&tmp, &p)?;
    Ok(())
}

/// Imports a course pack from a file the user opened; validated like bundled data.
#[tauri::command]
pub fn import_pack(state: State<'_, AppState>, path: String) -> Res<CourseInfo> {
    let meta = std::fs::metadata(&path)?;
    if meta.len() > gpuplan_core::pack::MAX_PACK_BYTES as u64 {
        return Err(InputError::new(
            "pack",
            "the file is larger than 1 MB",
            "a course pack under 1 MB",
        )
        .into());
    }
    let body = std::fs::read_to_string(&path)?;
    let pack = CoursePack::from_toml(&path, &body, &state.catalog)?;
    lock(&state.store).save_pack(&pack.pack.name, &body, &now())?;
    pack.merge_into(&mut lock(&state.platforms));
    let info = CourseInfo {
        name: pack.pack.name.clone(),
        instructor: pack.pack.instructor.clone(),
        budget_cap: pack.pack.budget_cap.and_then(|b| b.to_f64()),
        default_platform: pack.pack.default_platform.clone(),
    };
    lock(&state.packs).push(pack);
    Ok(info)
}

/// The before-you-rent kit for a plan (step 6): tailored checklist and scripts.
#[tauri::command]
pub async fn kit(state: State<'_, AppState>, plan: PlanInput, command: String) -> Res<KitView> {
    use gpuplan_core::scripts::{self, ShutdownSpec, SlurmSpec, StopMechanism};
    let p = core_plan(&plan)?;
    let platforms = lock(&state.platforms).clone();
    let profile = platforms.get(&p.platform)?;
    let q = price(&p, profile, &state.catalog, &state.zoo).ok();
    let longest = q
        .as_ref()
        .and_then(|q| q.longest_run_hours.to_f64())
        .unwrap_or(1.0);
    let job_name: String = plan
        .job
        .model
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(40)
        .collect();
    let job_name = if job_name.is_empty() {
        "train".to_owned()
    } else {
        job_name
    };
    let command = if command.trim().is_empty() {
        "python train.py".to_owned()
    } else {
        command
    };
    let mut out = Vec::new();
    let view = |key: &str, s: scripts::Script| ScriptView {
        key: key.into(),
        file_name: s.file_name,
        text: s.text,
        notes: s.notes.iter().map(text).collect(),
    };
    if let Some(mechanism) = StopMechanism::for_platform(profile) {
        let wrapper = scripts::shutdown_wrapper(&ShutdownSpec {
            platform: profile.id.clone(),
            mechanism,
            job_name: job_name.clone(),
            command: command.clone(),
            max_runtime_seconds: scripts::with_margin(longest),
            destroy: false,
            poll_seconds: 30,
        })?;
        out.push(ScriptView {
            key: "shutdown".into(),
            file_name: "gpuplan-run.sh".into(),
            text: wrapper,
            notes: Vec::new(),
        });
    }
    if profile.kind == gpuplan_core::platform::PlatformKind::CampusHpc {
        let cap = profile
            .quota
            .walltime_max_hours
            .as_ref()
            .and_then(|c| c.value.to_f64());
        for requeue in [false, true] {
            let s = scripts::slurm(&SlurmSpec {
                job_name: job_name.clone(),
                partition: "gpu".into(),
                gpus: 1,
                cpus: 8,
                mem_gb: 32,
                hours: longest,
                cap_hours: cap,
                output: "logs/%x-%j.out".into(),
                activate: vec![],
                command: command.clone(),
                requeue,
            })?;
            out.push(view(if requeue { "slurm-requeue" } else { "slurm" }, s));
        }
    }
    out.push(view("probe", scripts::env_probe()));
    out.push(view("offline", scripts::offline_install("3.10")?));
    out.push(view(
        "resume",
        scripts::resume_template(plan.checkpoint_every_epochs.clamp(1, 1000))?,
    ));
    Ok(KitView {
        checklist: scripts::checklist(profile, q.as_ref())
            .iter()
            .map(text)
            .collect(),
        scripts: out,
    })
}

/// Renders a chart's SVG to PNG at twice its size, with the system's fonts
/// (Noto CJK renders the Chinese labels).
pub fn svg_to_png(svg: &str) -> Res<Vec<u8>> {
    use resvg::{tiny_skia, usvg};
    let io = |m: String| AppError::Io { message: m };
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    // Plotters asks for `sans-serif`; fontdb maps that to Arial, which Linux
    // rarely has. Prefer a CJK-capable face so Chinese labels render.
    let family = [
        "Noto Sans CJK SC",
        "Noto Sans SC",
        "Source Han Sans SC",
        "WenQuanYi Micro Hei",
        "DejaVu Sans",
    ]
    .into_iter()
    .find(|f| {
        db.faces()
            .any(|face| face.families.iter().any(|(name, _)| name == f))
    });
    if let Some(f) = family {
        db.set_sans_serif_family(f);
    }
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| io(format!("chart SVG: {e}")))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width() * 2, size.height() * 2)
        .ok_or_else(|| io("chart is empty".into()))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| io(format!("PNG: {e}")))
}

/// Exports a chart as PNG to the path the user chose.
#[tauri::command]
pub async fn export_png(path: String, svg: String) -> Res<()> {
    let p = std::path::PathBuf::from(&path);
    if !p
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        return Err(InputError::new(
            "path",
            format!("`{path}` does not end in .png"),
            "a .png file",
        )
        .into());
    }
    let png = svg_to_png(&svg)?;
    let tmp = p.with_extension("png.tmp");
    std::fs::write(&tmp, png)?;
    std::fs::rename(&tmp, &p)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn charts_render_to_png_with_chinese_labels() {
        let svg = gpuplan_charts::cumulative_spend(
            "累计花费（元）",
            &[(1, 10.0), (2, 25.0)],
            Some(40.0),
            "预算",
            "天",
        )
        .expect("svg");
        let png = super::svg_to_png(&svg).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG file");
        let w = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        assert_eq!(
            w,
            gpuplan_charts::SIZE.0 * 2,
            "rendered at twice the chart's width"
        );
        if let Some(out) = std::env::var_os("GPUPLAN_PNG_OUT") {
            std::fs::write(out, &png).expect("write sample");
        }
    }
}

/// Keeps the user's own price for a GPU on a platform (an override layered over
/// the bundled profiles, never written into them) and applies it at once.
#[tauri::command]
pub fn set_override(
    state: State<'_, AppState>,
    platform: String,
    gpu: String,
    price: String,
    note: String,
) -> Res<()> {
    let price = decimal_text("price", &price)?;
    if price > Decimal::from(10_000) {
        return Err(InputError::new(
            "price",
            format!("{price} is out of range"),
            "0..=10000 CNY per GPU-hour",
        )
        .into());
    }
    let gpu_id = {
        let platforms = lock(&state.platforms);
        platforms
            .get(&platform)?
            .offer(&gpu, &state.catalog)?
            .gpu
            .clone()
    };
    let note: String = note.chars().take(200).collect();
    lock(&state.store).set_override(&platform, &gpu_id, price, &note)?;
    let o = gpuplan_core::pack::Overrides {
        prices: vec![gpuplan_core::pack::PriceOverride {
            platform,
            gpu: gpu_id,
            price_per_hour: price,
            note,
        }],
    };
    o.apply(&mut lock(&state.platforms));
    Ok(())
}
