//! Platform profiles: where a student can rent a GPU and how it bills.
//!
//! One TOML file per platform (`platforms/*.toml`), parsed from text handed in.
//! The billing rules are what the cost engine needs to price a plan with its
//! traps: granularity and minimum charges, what a stopped instance still bills,
//! storage and traffic, deadlines after which data is wiped, quotas and
//! walltime caps, student discounts and free credit, spot prices and packages.
//! Unknown fields are rejected and every number is sourced and range-checked.

use serde::{Deserialize, Serialize};

use rust_decimal::Decimal;

use crate::catalog::GpuCatalog;
use crate::error::{DataError, InputError};
use crate::sourced::{valid_observed, Confidence, Sourced};

/// Text in both UI languages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Localized {
    /// Simplified Chinese.
    pub zh: String,
    /// English.
    pub en: String,
}

/// A known trap of a platform, in both languages; `gpus` limits it to the
/// offers of those cards (a stock shortage of one card, say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Pitfall {
    /// Simplified Chinese.
    pub zh: String,
    /// English.
    pub en: String,
    /// Catalog ids of the cards it is about; empty: every offer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<String>,
}

impl Pitfall {
    /// Whether it concerns an offer of `gpu`.
    pub fn applies_to(&self, gpu: &str) -> bool {
        self.gpus.is_empty() || self.gpus.iter().any(|g| g == gpu)
    }

    /// The text alone.
    pub fn text(&self) -> Localized {
        Localized {
            zh: self.zh.clone(),
            en: self.en.clone(),
        }
    }
}

/// The four kinds of platform of seed 000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum PlatformKind {
    /// Domestic container cloud (AutoDL, 恒源云, 矩池云, 揽睿星舟): pay per use, web terminal.
    ContainerCloud,
    /// Hosted notebook (Colab, Kaggle): free quota, sessions that end.
    HostedNotebook,
    /// Shared-GPU marketplace (Vast.ai): hosts set prices, spot bids, SSH.
    Marketplace,
    /// Campus HPC with Slurm: card-hours, queues, walltime caps.
    CampusHpc,
}

impl PlatformKind {
    /// Every kind.
    pub const ALL: [Self; 4] = [
        Self::ContainerCloud,
        Self::HostedNotebook,
        Self::Marketplace,
        Self::CampusHpc,
    ];
}

/// How a student works on the platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkMode {
    /// Browser terminal.
    WebTerminal,
    /// JupyterLab.
    Jupyter,
    /// Notebook UI (Colab/Kaggle).
    Notebook,
    /// SSH into the machine.
    Ssh,
    /// Batch jobs through Slurm.
    Slurm,
}

/// Billing granularity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Granularity {
    /// Per second.
    Second,
    /// Per started minute.
    Minute,
    /// Per started hour.
    Hour,
}

impl Granularity {
    /// Every unit, finest first.
    pub const ALL: [Self; 3] = [Self::Second, Self::Minute, Self::Hour];

    /// As spelled in profiles and catalog keys (`enum.granularity.*`).
    pub fn key(self) -> &'static str {
        match self {
            Self::Second => "second",
            Self::Minute => "minute",
            Self::Hour => "hour",
        }
    }

    /// The billing unit in minutes.
    pub fn minutes(self) -> u32 {
        match self {
            Self::Second => 0,
            Self::Minute => 1,
            Self::Hour => 60,
        }
    }
}

/// Seed 000's four selection metrics, 1 (poor) to 5 (good).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// From zero to a training shell within minutes.
    pub startup_speed: Sourced<u8>,
    /// Ready images versus installing drivers yourself.
    pub environment: Sourced<u8>,
    /// Clear bills, billing that stops when stopped, balance alerts.
    pub billing_transparency: Sourced<u8>,
    /// Uploading datasets, public datasets, object storage.
    pub data_transfer: Sourced<u8>,
}

/// What running and stopped instances bill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Billing {
    /// Unit of GPU billing.
    pub granularity: Sourced<Granularity>,
    /// Minimum billed minutes per start (0 = none).
    pub minimum_charge_minutes: Sourced<u32>,
    /// Whether stopping an instance ends GPU billing (矩池云 bills until released).
    pub stop_ends_gpu_billing: Sourced<bool>,
    /// CNY per hour a stopped (not released) instance still costs: disks, occupancy.
    pub stopped_fee_per_hour: Sourced<Decimal>,
    /// CNY per hour in a CPU-only mode for uploads and setup, if offered.
    #[serde(default)]
    pub no_gpu_mode_per_hour: Option<Sourced<Decimal>>,
    /// Time-of-day prices (marketplaces whose hosts charge more at peak).
    #[serde(default)]
    pub peak: Option<PeakPricing>,
}

/// A price multiplier during peak hours: seed 000 §3.4 saw an RTX 3090 on a
/// marketplace double on weekend evenings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakPricing {
    /// Price multiplier in the window (2 = double).
    pub multiplier: Sourced<Decimal>,
    /// Only Saturdays and Sundays (else every day).
    #[serde(default)]
    pub weekends_only: bool,
    /// First hour of the window, 0-23 (local time).
    pub from_hour: u32,
    /// Hour the window ends, 1-24.
    pub to_hour: u32,
}

/// Storage and traffic. The fields at the top describe the instance's own
/// disk: it exists from the first start until the instance is released (by
/// the student, or by the platform's deadline, which deletes it), and bills
/// per GB-day above its free amount. `persistent` is network or file storage
/// that outlives instances, billed on its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    /// GB of the instance disk included free.
    pub free_gb: Sourced<Decimal>,
    /// CNY per GB-day of the instance disk above the free amount.
    pub price_per_gb_day: Sourced<Decimal>,
    /// Whether the instance disk keeps billing while the instance is stopped
    /// (false: it bills only while running).
    pub bills_while_stopped: Sourced<bool>,
    /// A disk size always billed, however little the plan keeps (a fixed
    /// data-disk spec, such as 揽睿星舟's 200 GB).
    #[serde(default)]
    pub minimum_gb: Option<Sourced<Decimal>>,
    /// CNY per GB transferred in.
    pub traffic_per_gb: Sourced<Decimal>,
    /// CNY per GB transferred out (downloading results), where billed.
    #[serde(default)]
    pub egress_per_gb: Option<Sourced<Decimal>>,
    /// Network or file storage that outlives instances, where offered.
    #[serde(default)]
    pub persistent: Option<PersistentStorage>,
}

/// Storage that outlives instances (a netdisk, file storage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersistentStorage {
    /// GB included free.
    pub free_gb: Sourced<Decimal>,
    /// CNY per GB-day above the free amount.
    pub price_per_gb_day: Sourced<Decimal>,
}

/// Deadlines after which data disappears.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lifecycle {
    /// A stopped instance is released (with its disks) after this many days.
    #[serde(default)]
    pub release_after_stopped_days: Option<Sourced<u32>>,
    /// A scratch directory is wiped this many hours after a stop.
    #[serde(default)]
    pub scratch_wipe_after_stopped_hours: Option<Sourced<u32>>,
    /// Which directory that is.
    #[serde(default)]
    pub scratch_path: Option<String>,
}

/// Usage limits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quota {
    /// GPU hours per week (Kaggle ~30).
    #[serde(default)]
    pub weekly_gpu_hours: Option<Sourced<Decimal>>,
    /// Longest session before it is cut (Colab ~12 h).
    #[serde(default)]
    pub session_max_hours: Option<Sourced<Decimal>>,
    /// Idle minutes before disconnect.
    #[serde(default)]
    pub idle_timeout_minutes: Option<Sourced<u32>>,
    /// Longest Slurm job (walltime cap).
    #[serde(default)]
    pub walltime_max_hours: Option<Sourced<Decimal>>,
}

/// The machine around each GPU on a platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostProfile {
    /// vCPUs per GPU.
    pub vcpus_per_gpu: Sourced<u32>,
    /// Host memory per GPU, GB.
    pub ram_gb_per_gpu: Sourced<u32>,
    /// Where the data disk is.
    pub disk: Sourced<crate::pipeline::DiskKind>,
}

/// Typical waiting before work starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Minutes from "create" to a shell.
    pub startup_minutes: Sourced<Decimal>,
    /// Typical minutes queued for a card or a Slurm slot.
    pub queue_minutes: Sourced<Decimal>,
}

/// Student certification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Student {
    /// Price multiplier after certification (0.95 = 5% off).
    pub discount: Sourced<Decimal>,
    /// Free credit in CNY after certification.
    pub free_credit: Sourced<Decimal>,
}

/// A price range with provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceRange {
    /// Cheapest seen.
    pub low: Decimal,
    /// What to plan with.
    pub typical: Decimal,
    /// Dearest seen.
    pub high: Decimal,
    /// Where the figures come from.
    pub source: String,
    /// When.
    pub observed: String,
    /// How far to trust them.
    pub confidence: Confidence,
}

/// Length of a prepaid package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum PackagePeriod {
    /// 包日.
    Day,
    /// 包周.
    Week,
    /// 包月.
    Month,
}

impl PackagePeriod {
    /// Every period.
    pub const ALL: [Self; 3] = [Self::Day, Self::Week, Self::Month];

    /// The spelling in files and catalog keys (`day`, `week`, `month`).
    pub fn key(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Week => "week",
            Self::Month => "month",
        }
    }

    /// Hours the package covers.
    pub fn hours(self) -> Decimal {
        Decimal::from(match self {
            Self::Day => 24,
            Self::Week => 24 * 7,
            Self::Month => 24 * 30,
        })
    }
}

/// A prepaid package.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Package {
    /// Day, week or month.
    pub period: PackagePeriod,
    /// CNY for the period.
    pub price: Decimal,
    /// Source.
    pub source: String,
    /// When.
    pub observed: String,
    /// Confidence.
    pub confidence: Confidence,
}

/// A GPU the platform rents out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Offer {
    /// Catalog id.
    pub gpu: String,
    /// CNY per GPU-hour, pay as you go.
    pub price_per_hour: PriceRange,
    /// CNY per GPU-hour for spot / interruptible instances.
    #[serde(default)]
    pub spot_per_hour: Option<Sourced<Decimal>>,
    /// Prepaid packages.
    #[serde(default)]
    pub packages: Vec<Package>,
    /// Most GPUs of this card one instance (or one job, on a cluster) can
    /// have; default 8 (1 on hosted notebooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gpus: Option<Sourced<u32>>,
    /// How the GPUs of one instance of this offer talk (`pcie` or
    /// `nvlink`); when absent, the card's usual form factor decides
    /// ([`crate::estimate::interconnect`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect: Option<Sourced<crate::parallel::Interconnect>>,
}

impl Offer {
    /// Most GPUs one instance of this offer has.
    pub fn max_gpus(&self, kind: PlatformKind) -> u32 {
        self.max_gpus.as_ref().map_or(
            if kind == PlatformKind::HostedNotebook {
                1
            } else {
                crate::parallel::MAX_GPUS_PER_NODE
            },
            |m| m.value,
        )
    }
}

/// One platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformProfile {
    /// Lowercase id, equal to the file name.
    pub id: String,
    /// Names.
    pub name: Localized,
    /// Which of the four kinds.
    pub kind: PlatformKind,
    /// Home page.
    #[serde(default)]
    pub website: Option<String>,
    /// A template an instructor fills in (the campus cluster).
    #[serde(default)]
    pub template: bool,
    /// How you work there.
    pub work_modes: Vec<WorkMode>,
    /// What survives a stop or a disconnect.
    pub persistence: Localized,
    /// How to shut down so billing stops.
    pub shutdown: Localized,
    /// Network notes from mainland China.
    pub network: Localized,
    /// Known traps.
    #[serde(default)]
    pub pitfalls: Vec<Pitfall>,
    /// Selection metrics.
    pub metrics: Metrics,
    /// Billing rules.
    pub billing: Billing,
    /// Storage and traffic.
    pub storage: Storage,
    /// Data deadlines.
    #[serde(default)]
    pub lifecycle: Lifecycle,
    /// Limits.
    #[serde(default)]
    pub quota: Quota,
    /// Waiting.
    pub timing: Timing,
    /// The machine around each GPU (CPU cores, memory, disk), where known:
    /// it decides how fast the input pipeline runs.
    #[serde(default)]
    pub host: Option<HostProfile>,
    /// Student terms.
    pub student: Student,
    /// GPUs offered.
    #[serde(rename = "offer")]
    pub offers: Vec<Offer>,
}

impl PlatformProfile {
    /// Parses and validates one profile. GPU ids are checked against `catalog`.
    pub fn from_toml(file: &str, text: &str, catalog: &GpuCatalog) -> Result<Self, DataError> {
        let p: PlatformProfile =
            toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
        p.validate(file, text, catalog)?;
        Ok(p)
    }

    /// The machine a job runs on here (a typical one where the profile does
    /// not say).
    pub fn host(&self) -> crate::pipeline::Host {
        match &self.host {
            Some(h) => crate::pipeline::Host {
                vcpus: h.vcpus_per_gpu.value,
                ram_gb: f64::from(h.ram_gb_per_gpu.value),
                disk: h.disk.value,
                interconnect: None,
            },
            None => crate::pipeline::Host::TYPICAL,
        }
    }

    /// The machine an instance of `offer` is: the platform's host with the
    /// offer's interconnect between its GPUs.
    pub fn host_for(&self, offer: &Offer) -> crate::pipeline::Host {
        crate::pipeline::Host {
            interconnect: offer.interconnect.as_ref().map(|i| i.value),
            ..self.host()
        }
    }

    /// The offer of `gpu` (id or alias), or an error listing what is offered.
    pub fn offer(&self, gpu: &str, catalog: &GpuCatalog) -> Result<&Offer, InputError> {
        let id = catalog.get(gpu)?.id.clone();
        self.offers.iter().find(|o| o.gpu == id).ok_or_else(|| {
            let ids: Vec<&str> = self.offers.iter().map(|o| o.gpu.as_str()).collect();
            InputError::new(
                "gpu",
                format!("{} does not offer `{gpu}`", self.id),
                ids.join(", "),
            )
        })
    }

    fn validate(&self, file: &str, text: &str, catalog: &GpuCatalog) -> Result<(), DataError> {
        let top = "";
        let bad = |table: &str, key: &str, msg: String| {
            Err(DataError::invalid(file, text, table, key, msg))
        };
        if self.id.is_empty()
            || !self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return bad(
                top,
                "id",
                "ids are lowercase letters, digits and '-'".into(),
            );
        }
        for (key, l) in [
            ("name", &self.name),
            ("persistence", &self.persistence),
            ("shutdown", &self.shutdown),
            ("network", &self.network),
        ] {
            if l.zh.trim().is_empty() || l.en.trim().is_empty() {
                return bad(top, key, "both zh and en text are required".into());
            }
        }
        let m = &self.metrics;
        for (key, v) in [
            ("startup_speed", &m.startup_speed),
            ("environment", &m.environment),
            ("billing_transparency", &m.billing_transparency),
            ("data_transfer", &m.data_transfer),
        ] {
            if !(1..=5).contains(&v.value) {
                return bad("metrics", key, format!("{} is outside 1..=5", v.value));
            }
            check_source(file, text, "metrics", key, &v.source, &v.observed)?;
        }
        let money =
            |table: &str, key: &str, v: &Sourced<Decimal>, max: Decimal| -> Result<(), DataError> {
                if v.value < Decimal::ZERO || v.value > max {
                    return Err(DataError::invalid(
                        file,
                        text,
                        table,
                        key,
                        format!("{} is outside 0..={max}", v.value),
                    ));
                }
                check_source(file, text, table, key, &v.source, &v.observed)
            };
        let b = &self.billing;
        check_source(
            file,
            text,
            "billing",
            "granularity",
            &b.granularity.source,
            &b.granularity.observed,
        )?;
        if b.minimum_charge_minutes.value > 24 * 60 {
            return bad(
                "billing",
                "minimum_charge_minutes",
                format!("{} is outside 0..=1440", b.minimum_charge_minutes.value),
            );
        }
        check_source(
            file,
            text,
            "billing",
            "minimum_charge_minutes",
            &b.minimum_charge_minutes.source,
            &b.minimum_charge_minutes.observed,
        )?;
        check_source(
            file,
            text,
            "billing",
            "stop_ends_gpu_billing",
            &b.stop_ends_gpu_billing.source,
            &b.stop_ends_gpu_billing.observed,
        )?;
        money(
            "billing",
            "stopped_fee_per_hour",
            &b.stopped_fee_per_hour,
            Decimal::from(1000),
        )?;
        if let Some(v) = &b.no_gpu_mode_per_hour {
            money("billing", "no_gpu_mode_per_hour", v, Decimal::from(1000))?;
        }
        let s = &self.storage;
        money("storage", "free_gb", &s.free_gb, Decimal::from(1_000_000))?;
        money(
            "storage",
            "price_per_gb_day",
            &s.price_per_gb_day,
            Decimal::from(100),
        )?;
        money(
            "storage",
            "traffic_per_gb",
            &s.traffic_per_gb,
            Decimal::from(100),
        )?;
        check_source(
            file,
            text,
            "storage",
            "bills_while_stopped",
            &s.bills_while_stopped.source,
            &s.bills_while_stopped.observed,
        )?;
        if let Some(v) = &s.minimum_gb {
            money("storage", "minimum_gb", v, Decimal::from(1_000_000))?;
        }
        if let Some(v) = &s.egress_per_gb {
            money("storage", "egress_per_gb", v, Decimal::from(100))?;
        }
        if let Some(ps) = &s.persistent {
            money(
                "storage.persistent",
                "free_gb",
                &ps.free_gb,
                Decimal::from(1_000_000),
            )?;
            money(
                "storage.persistent",
                "price_per_gb_day",
                &ps.price_per_gb_day,
                Decimal::from(100),
            )?;
        }
        if let Some(pk) = &b.peak {
            money(
                "billing.peak",
                "multiplier",
                &pk.multiplier,
                Decimal::from(10),
            )?;
            if pk.multiplier.value < Decimal::ONE {
                return bad(
                    "billing.peak",
                    "multiplier",
                    format!(
                        "{} is below 1 (a peak never costs less)",
                        pk.multiplier.value
                    ),
                );
            }
            if pk.from_hour > 23 || pk.to_hour > 24 || pk.from_hour >= pk.to_hour {
                return bad(
                    "billing.peak",
                    "from_hour",
                    format!(
                        "{}..{} is not a window of hours in a day",
                        pk.from_hour, pk.to_hour
                    ),
                );
            }
        }
        if let Some(h) = &self.host {
            if !(1..=256).contains(&h.vcpus_per_gpu.value) {
                return bad(
                    "host",
                    "vcpus_per_gpu",
                    format!("{} is outside 1..=256", h.vcpus_per_gpu.value),
                );
            }
            if !(1..=4096).contains(&h.ram_gb_per_gpu.value) {
                return bad(
                    "host",
                    "ram_gb_per_gpu",
                    format!("{} is outside 1..=4096", h.ram_gb_per_gpu.value),
                );
            }
            check_source(
                file,
                text,
                "host",
                "vcpus_per_gpu",
                &h.vcpus_per_gpu.source,
                &h.vcpus_per_gpu.observed,
            )?;
            check_source(
                file,
                text,
                "host",
                "ram_gb_per_gpu",
                &h.ram_gb_per_gpu.source,
                &h.ram_gb_per_gpu.observed,
            )?;
            check_source(file, text, "host", "disk", &h.disk.source, &h.disk.observed)?;
        }
        money(
            "timing",
            "startup_minutes",
            &self.timing.startup_minutes,
            Decimal::from(100_000),
        )?;
        money(
            "timing",
            "queue_minutes",
            &self.timing.queue_minutes,
            Decimal::from(100_000),
        )?;
        let st = &self.student;
        if st.discount.value <= Decimal::ZERO || st.discount.value > Decimal::ONE {
            return bad(
                "student",
                "discount",
                format!(
                    "{} is outside (0, 1] (a price multiplier)",
                    st.discount.value
                ),
            );
        }
        check_source(
            file,
            text,
            "student",
            "discount",
            &st.discount.source,
            &st.discount.observed,
        )?;
        money(
            "student",
            "free_credit",
            &st.free_credit,
            Decimal::from(100_000),
        )?;
        let q = &self.quota;
        for (key, v) in [
            ("weekly_gpu_hours", &q.weekly_gpu_hours),
            ("session_max_hours", &q.session_max_hours),
            ("walltime_max_hours", &q.walltime_max_hours),
        ] {
            if let Some(v) = v {
                if v.value <= Decimal::ZERO {
                    return bad("quota", key, "must be positive".into());
                }
                money("quota", key, v, Decimal::from(100_000))?;
            }
        }
        if self.offers.is_empty() && !self.template {
            return bad(
                top,
                "offer",
                "a platform must offer at least one GPU".into(),
            );
        }
        for (i, o) in self.offers.iter().enumerate() {
            let table = "offer";
            if catalog.get(&o.gpu).map(|g| g.id != o.gpu).unwrap_or(true) {
                return bad(
                    table,
                    "gpu",
                    format!(
                        "offer {}: `{}` is not a catalog id",
                        i.saturating_add(1),
                        o.gpu
                    ),
                );
            }
            let pr = &o.price_per_hour;
            if pr.low < Decimal::ZERO
                || pr.low > pr.typical
                || pr.typical > pr.high
                || pr.high > Decimal::from(10_000)
            {
                return bad(
                    table,
                    "price_per_hour",
                    format!(
                        "offer {} ({}): need 0 <= low <= typical <= high <= 10000",
                        i.saturating_add(1),
                        o.gpu
                    ),
                );
            }
            check_source(
                file,
                text,
                table,
                "price_per_hour",
                &pr.source,
                &pr.observed,
            )?;
            if let Some(sp) = &o.spot_per_hour {
                money(table, "spot_per_hour", sp, pr.high)?;
            }
            for p in &o.packages {
                // A package costs no more than running the card on demand for
                // its whole period at the highest price any profile may carry.
                if p.price <= Decimal::ZERO || p.price > Decimal::from(crate::plan::MAX_CNY) {
                    return bad(
                        table,
                        "packages",
                        format!(
                            "offer {} ({}): package price {} is outside (0, {}]",
                            i.saturating_add(1),
                            o.gpu,
                            p.price,
                            crate::plan::MAX_CNY
                        ),
                    );
                }
                check_source(file, text, table, "packages", &p.source, &p.observed)?;
            }
            if let Some(m) = &o.max_gpus {
                if m.value == 0 || m.value > crate::parallel::MAX_GPUS {
                    return bad(
                        table,
                        "max_gpus",
                        format!("{} is outside 1..={}", m.value, crate::parallel::MAX_GPUS),
                    );
                }
                check_source(file, text, table, "max_gpus", &m.source, &m.observed)?;
            }
            if let Some(i) = &o.interconnect {
                check_source(file, text, table, "interconnect", &i.source, &i.observed)?;
            }
        }
        Ok(())
    }
}

fn check_source(
    file: &str,
    text: &str,
    table: &str,
    key: &str,
    source: &str,
    observed: &str,
) -> Result<(), DataError> {
    if source.trim().is_empty() {
        return Err(DataError::invalid(
            file,
            text,
            table,
            key,
            "source must not be empty",
        ));
    }
    if !valid_observed(observed) {
        return Err(DataError::invalid(
            file,
            text,
            table,
            key,
            format!("observed `{observed}` is not YYYY-MM or YYYY-MM-DD"),
        ));
    }
    Ok(())
}

/// All profiles, sorted by id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformSet {
    /// The profiles.
    pub platforms: Vec<PlatformProfile>,
}

impl PlatformSet {
    /// Parses `(file name, text)` pairs; a file's id must equal its name.
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
        catalog: &GpuCatalog,
    ) -> Result<Self, DataError> {
        let mut platforms: Vec<PlatformProfile> = Vec::new();
        for (file, text) in files {
            let p = PlatformProfile::from_toml(file, text, catalog)?;
            let stem = file
                .rsplit('/')
                .next()
                .unwrap_or(file)
                .trim_end_matches(".toml");
            if p.id != stem {
                return Err(DataError::invalid(
                    file,
                    text,
                    "",
                    "id",
                    format!("id `{}` must equal the file name `{stem}`", p.id),
                ));
            }
            if platforms.iter().any(|q| q.id == p.id) {
                return Err(DataError::invalid(
                    file,
                    text,
                    "",
                    "id",
                    format!("platform `{}` is defined twice", p.id),
                ));
            }
            platforms.push(p);
        }
        platforms.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Self { platforms })
    }

    /// Finds a platform by id.
    pub fn get(&self, id: &str) -> Result<&PlatformProfile, InputError> {
        let want = id.trim().to_ascii_lowercase();
        self.platforms.iter().find(|p| p.id == want).ok_or_else(|| {
            InputError::unknown(
                "platform",
                "platform",
                id,
                self.platforms.iter().map(|p| p.id.as_str()),
                "gpuplan platforms",
            )
        })
    }
}
