//! Plans saved by the first app release, whose body was the plan screen's
//! form as JSON rather than the plan file format. They are converted with the
//! rules that release priced them by, so a saved plan quotes as it did.

use std::str::FromStr;

use gpuplan_core::job::{JobSpec, Mode, Optimizer, Precision};
use gpuplan_core::plan::{
    default_setup, DataSpec, Payment, Plan, RunGroup, SpotSpec, Stops, StorageSpec,
};
use rust_decimal::Decimal;
use serde::Deserialize;

use crate::AppError;

#[derive(Deserialize)]
struct OldJob {
    model: String,
    batch: Option<f64>,
    resolution: Option<f64>,
    seq_len: Option<f64>,
    classes: Option<f64>,
    precision: Option<String>,
    optimizer: Option<String>,
    mode: Option<String>,
    lora_rank: Option<f64>,
    grad_checkpointing: bool,
    dataset_samples: Option<f64>,
    epochs: Option<f64>,
}

#[derive(Deserialize)]
struct OldPlan {
    name: String,
    platform: String,
    gpu: String,
    budget: Option<f64>,
    start_date: Option<String>,
    student: bool,
    payment: String,
    runs: u32,
    hours: Option<f64>,
    job: OldJob,
    storage_gb: f64,
    storage_days: f64,
    stops: u32,
    stop_hours: f64,
    data_gb: f64,
    forgotten_shutdown_hours: f64,
    checkpoint_every_epochs: u32,
}

fn dec(field: &str, v: f64) -> Result<Decimal, AppError> {
    if !v.is_finite() {
        return Err(
            AppError::input(field, format!("{v} is not a number"), "a finite number").said(
                gpuplan_core::Message::new("error.notNumber").with("value", v),
                Some(gpuplan_core::Message::new("allowed.finite")),
            ),
        );
    }
    Decimal::try_from(v).map(|d| d.round_dp(6)).map_err(|_| {
        AppError::input(field, format!("{v} cannot be used"), "a normal number").said(
            gpuplan_core::Message::new("error.outOfRange").with("value", v),
            Some(gpuplan_core::Message::new("allowed.finite")),
        )
    })
}

fn parse<T>(
    v: Option<&str>,
    f: impl Fn(&str) -> Result<T, gpuplan_core::InputError>,
) -> Result<Option<T>, AppError> {
    Ok(v.filter(|s| !s.is_empty()).map(f).transpose()?)
}

/// The plan an old app-JSON body describes.
pub(crate) fn plan_from_app_json(body: &str) -> Result<Plan, AppError> {
    let p: OldPlan = serde_json::from_str(body).map_err(|e| {
        let mut e = gpuplan_core::DataError::from_json("saved plan", "", &e);
        e.message = gpuplan_core::error::short(&format!(
            "saved by an older gpuplan and unreadable: {}",
            e.message
        ));
        AppError::from(e)
    })?;
    let j = &p.job;
    let mode = parse(j.mode.as_deref(), Mode::parse)?;
    let lora = matches!(mode, Some(Mode::Lora | Mode::Qlora));
    let estimated = p.hours.is_none();
    let spot = p.payment == "spot";
    let plan = Plan {
        name: p.name.chars().take(200).collect(),
        platform: p.platform,
        gpu: p.gpu,
        budget: p.budget.map(|b| dec("budget", b)).transpose()?,
        start_date: p
            .start_date
            .filter(|d| !d.is_empty())
            .map(|d| chrono::NaiveDate::from_str(&d))
            .transpose()
            .map_err(|_| {
                AppError::input("start_date", "is not a date", "YYYY-MM-DD").said(
                    gpuplan_core::Message::new("error.notADate").with("value", "start_date"),
                    Some(gpuplan_core::Message::new("allowed.dateFormat")),
                )
            })?,
        student: p.student,
        payment: if spot {
            Payment::Spot
        } else {
            Payment::OnDemand
        },
        own_time_per_hour: Decimal::ZERO,
        forgotten_shutdown_hours: dec("forgotten_shutdown_hours", p.forgotten_shutdown_hours)?,
        setup_hours: default_setup(),
        job: JobSpec {
            model: estimated.then(|| j.model.clone()),
            hours: p.hours.map(|h| dec("hours", h)).transpose()?,
            batch: j.batch,
            resolution: j.resolution,
            seq_len: j.seq_len,
            classes: j.classes,
            precision: parse(j.precision.as_deref(), Precision::parse)?,
            optimizer: parse(j.optimizer.as_deref(), Optimizer::parse)?,
            mode,
            lora_rank: if lora { j.lora_rank } else { None },
            lora_targets: None,
            grad_checkpointing: Some(j.grad_checkpointing),
            // The first release priced written hours and ignored the
            // model's timing; a plan now refuses both.
            dataset_samples: j.dataset_samples.filter(|_| p.hours.is_none()),
            epochs: j.epochs,
            ..JobSpec::default()
        },
        runs: vec![RunGroup::of_job(
            gpuplan_core::quote::DEFAULT_GROUP,
            p.runs.max(1),
        )],
        data: (p.data_gb > 0.0)
            .then(|| {
                Ok::<_, AppError>(DataSpec {
                    size_gb: dec("data_gb", p.data_gb)?,
                    upload_mbps: Decimal::from(20),
                    download_gb: None,
                })
            })
            .transpose()?,
        storage: (p.storage_gb > 0.0)
            .then(|| {
                Ok::<_, AppError>(StorageSpec {
                    gb: dec("storage_gb", p.storage_gb)?,
                    days: Some(dec("storage_days", p.storage_days)?),
                    on: Default::default(),
                })
            })
            .transpose()?,
        stops: (p.stops > 0)
            .then(|| {
                Ok::<_, AppError>(Stops {
                    count: p.stops,
                    hours_each: dec("stop_hours", p.stop_hours)?,
                })
            })
            .transpose()?,
        spot: spot.then(|| SpotSpec {
            checkpoint_every_epochs: Some(Decimal::from(p.checkpoint_every_epochs.max(1))),
            ..SpotSpec::default()
        }),
        ..Plan::default()
    };
    plan.check()?;
    Ok(plan)
}
