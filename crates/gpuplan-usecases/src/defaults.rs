//! Every default a new situation, plan or kit starts from, in one place. The
//! app receives them with `app_info` (so the UI hard-codes none), and the CLI
//! fills its omitted flags from here.

use gpuplan_core::job::JobSpec;
use gpuplan_core::plan::{default_setup, DataSpec, Disk, Payment, Plan, RunGroup, StorageSpec};
use gpuplan_core::recommend::{Situation, Stage};
use rust_decimal::Decimal;

use crate::views::Defaults;

/// The stage a new situation starts at: most students first rent for a course.
pub const STAGE: Stage = Stage::CourseProject;
/// Budget of a new situation, CNY: the top of seed 000 §6.2's course range.
pub const BUDGET_CNY: u32 = 150;
/// Platform of a new plan: the seeds' most used container cloud.
pub const PLATFORM: &str = "autodl";
/// GPU of a new plan: the seeds' most rented card.
pub const GPU: &str = "rtx3090";
/// Memory the driver keeps on an idle card, MiB, as the estimator counts
/// it (the memory notes of the CLI and the app say it).
pub const IDLE_DEVICE_MIB: u32 = gpuplan_core::calibration::IDLE_DEVICE_MIB as u32;
/// Storage a new plan keeps, GB, and for how many days: a dataset, its
/// checkpoints and an environment for a week of work.
pub const STORAGE_GB: u32 = 20;
/// Days a new plan keeps its storage.
pub const STORAGE_DAYS: u32 = 7;
/// Dataset uploaded by a new plan, GB (CIFAR-10 with room to spare).
pub const DATA_GB: u32 = 1;
/// Upload speed of a home or campus link, Mbit/s, when a plan names none
/// (the core's, which reads plan files with no `upload_mbps`).
pub const UPLOAD_MBPS: u32 = gpuplan_core::plan::DEFAULT_UPLOAD_MBPS;
/// The batch slider's top: the batches students try on one card; larger
/// ones are typed into the field, which takes up to the core's limit.
pub const BATCH_SLIDER_MAX: u32 = 512;
/// Epochs between checkpoints of the resumable template when the plan names
/// no spot interval.
pub const CHECKPOINT_EVERY_EPOCHS: u32 = 5;
/// Epochs the resumable template trains when no plan gives them.
pub const RESUME_EPOCHS: u32 = 50;
/// The setting that turns calibration from measured runs off (`off`).
pub const CALIBRATION_SETTING: &str = "calibration";

/// Prices older than this many days are flagged where a total is shown:
/// rental prices move within weeks (the 2026 price cuts), and an offline
/// app does not notice.
pub const PRICE_STALE_DAYS: i64 = 60;
/// The training command the kit's scripts run when the user names none.
pub const COMMAND: &str = "python train.py";
/// The job name in scripts when the plan's model gives none.
pub const JOB_NAME: &str = "train";
/// The platform a Slurm run report names when no plan says which (the
/// bundled campus cluster profile).
pub const CAMPUS_PLATFORM: &str = "campus-slurm";
/// Slurm partition of the generated sbatch scripts.
pub const SLURM_PARTITION: &str = "gpu";
/// CPU cores a Slurm job asks for per GPU: enough dataloader workers.
pub const SLURM_CPUS: u32 = 8;
/// Host memory a Slurm job asks for, GB.
pub const SLURM_MEM_GB: u32 = 32;
/// The Slurm log's path: in the folder `sbatch` runs from. Slurm opens it
/// before the script runs and creates no folders, so a `logs/` that does
/// not exist loses the log (and may fail the job).
pub const SLURM_OUTPUT: &str = "%x-%j.out";
/// Seconds between the shutdown watchdog's checks.
pub const WATCHDOG_POLL_SECONDS: u64 = 30;
/// Hard runtime of the shutdown wrapper when neither hours nor a plan say.
pub const SHUTDOWN_MAX_HOURS: u64 = 12;
/// Python of the offline wheel bundle.
pub const PYTHON: &str = "3.10";

/// A new student's situation.
pub fn situation() -> Situation {
    Situation {
        stage: STAGE,
        budget: Some(Decimal::from(BUDGET_CNY)),
        deadline_hours: None,
        linux: false,
        slurm: false,
        mainland_china: true,
        needs_persistence: false,
        campus_access: false,
        interruptible: false,
        student: true,
        job: JobSpec::default(),
        runs: 1,
        storage_gb: Decimal::ZERO,
    }
}

/// A new plan for `job` on the default platform and card.
pub fn plan(job: JobSpec) -> Plan {
    Plan {
        platform: PLATFORM.into(),
        gpu: GPU.into(),
        budget: Some(Decimal::from(BUDGET_CNY)),
        student: true,
        payment: Payment::OnDemand,
        setup_hours: default_setup(),
        job,
        runs: vec![RunGroup::of_job(gpuplan_core::quote::DEFAULT_GROUP, 1)],
        data: Some(DataSpec {
            size_gb: Decimal::from(DATA_GB),
            upload_mbps: Decimal::from(UPLOAD_MBPS),
            download_gb: None,
        }),
        storage: Some(StorageSpec {
            gb: Decimal::from(STORAGE_GB),
            days: Some(Decimal::from(STORAGE_DAYS)),
            on: Disk::Instance,
        }),
        ..Plan::default()
    }
}

/// Defaults for the app, starting from `job` (the first preset).
pub fn for_app(job: JobSpec) -> Defaults {
    let mut situation = situation();
    situation.job = job.clone();
    Defaults {
        situation,
        plan: plan(job),
        command: COMMAND.into(),
        upload_mbps: UPLOAD_MBPS,
        batch_slider_max: BATCH_SLIDER_MAX,
        report_max_bytes: u32::try_from(gpuplan_core::report::MAX_REPORT_BYTES).unwrap_or(u32::MAX),
        idle_device_mib: IDLE_DEVICE_MIB,
    }
}
