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
use crate::error::{DataError, InputError, Refusal};
use crate::message::Message;
use crate::sourced::{Confidence, Fact, Grade, Provenance};

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
    /// About spot (interruptible) instances only: never shown beside an
    /// on-demand option.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spot: bool,
}

/// Most pitfalls one platform may list (the bundled list at most seven).
pub const MAX_PITFALLS: usize = 32;

impl Pitfall {
    /// Whether it concerns an offer of `gpu` rented on spot (`spot`) or on
    /// demand.
    pub fn applies_to(&self, gpu: &str, spot: bool) -> bool {
        (self.gpus.is_empty() || self.gpus.iter().any(|g| g == gpu)) && (spot || !self.spot)
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
    pub startup_speed: Fact<u8>,
    /// Ready images versus installing drivers yourself.
    pub environment: Fact<u8>,
    /// Clear bills, billing that stops when stopped, balance alerts.
    pub billing_transparency: Fact<u8>,
    /// Uploading datasets, public datasets, object storage.
    pub data_transfer: Fact<u8>,
}

/// What running and stopped instances bill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Billing {
    /// Unit of GPU billing.
    pub granularity: Fact<Granularity>,
    /// Minimum billed minutes per start (0 = none).
    pub minimum_charge_minutes: Fact<u32>,
    /// Whether stopping an instance ends GPU billing (false where a stop keeps
    /// the card and bills it until released).
    pub stop_ends_gpu_billing: Fact<bool>,
    /// CNY per hour a stopped (not released) instance still costs: disks, occupancy.
    pub stopped_fee_per_hour: Fact<Decimal>,
    /// CNY per hour in a CPU-only mode for uploads and setup, if offered.
    #[serde(default)]
    pub no_gpu_mode_per_hour: Option<Fact<Decimal>>,
    /// Time-of-day prices (marketplaces whose hosts charge more at peak).
    #[serde(default)]
    pub peak: Option<PeakPricing>,
    /// The currency the platform really charges in, where it is not CNY:
    /// every CNY figure of the profile is converted at this rate, and a bill
    /// says so.
    #[serde(default)]
    pub charged_in: Option<Fact<ForeignCurrency>>,
}

/// A currency a platform charges in and the rate its figures were converted
/// to CNY at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForeignCurrency {
    /// ISO 4217 code (`USD`).
    pub currency: String,
    /// CNY per unit of that currency.
    pub cny_per_unit: Decimal,
}

/// A price multiplier during peak hours: seed 000 §3.4 saw an RTX 3090 on a
/// marketplace double on weekend evenings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakPricing {
    /// Price multiplier in the window (2 = double).
    pub multiplier: Fact<Decimal>,
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
    pub free_gb: Fact<Decimal>,
    /// CNY per GB-day of the instance disk above the free amount.
    pub price_per_gb_day: Fact<Decimal>,
    /// Whether the instance disk keeps billing while the instance is stopped
    /// (false: it bills only while running).
    pub bills_while_stopped: Fact<bool>,
    /// The smallest data disk sold, billed however little the plan keeps
    /// on it (揽睿星舟's 200 GB spec); a plan keeping nothing on the
    /// instance (no `[storage]`, `gb = 0`, or its data on persistent
    /// storage) rents no data disk, which such a platform makes optional.
    #[serde(default)]
    pub minimum_gb: Option<Fact<Decimal>>,
    /// The sizes the data disk is sold in, each at its own price (揽睿星舟:
    /// 200 GB at 0.1/h, 500 GB at 0.2/h): a plan's disk is the smallest size
    /// that holds it, billed at that size's price instead of per GB.
    #[serde(default)]
    pub sizes: Option<Fact<Vec<DiskSize>>>,
    /// The disk's price on a prepaid package, where it differs from the
    /// pay-as-you-go one (优云智算: 0.012 per GB-day by the hour, 0.011 on a
    /// day package, 0.3 per GB-month on a month package).
    #[serde(default)]
    pub package_prices: Vec<PackageDiskPrice>,
    /// CNY per GB transferred in.
    pub traffic_per_gb: Fact<Decimal>,
    /// CNY per GB transferred out (downloading results), where billed.
    #[serde(default)]
    pub egress_per_gb: Option<Fact<Decimal>>,
    /// Network or file storage that outlives instances, where offered.
    #[serde(default)]
    pub persistent: Option<PersistentStorage>,
}

/// One size a data disk is sold in, and its price.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSize {
    /// GB.
    pub gb: Decimal,
    /// CNY per hour the disk exists (billed like the per-GB price: while
    /// running, and while stopped where the disk bills then).
    pub per_hour: Decimal,
}

/// The instance disk's price on one package period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageDiskPrice {
    /// The package period it applies to.
    pub period: PackagePeriod,
    /// CNY per GB-day above the free amount (a month's price over 30 days).
    pub price_per_gb_day: Fact<Decimal>,
}

impl Storage {
    /// The disk's price per GB-day on `period`'s package, where the
    /// platform states one.
    pub fn package_price(&self, period: PackagePeriod) -> Option<&Fact<Decimal>> {
        self.package_prices
            .iter()
            .find(|p| p.period == period)
            .map(|p| &p.price_per_gb_day)
    }

    /// The size a disk of `gb` is billed as: the smallest sold size that
    /// holds it (`Err` with the largest when none does); `None` where the
    /// platform prices per GB.
    pub fn size_for(&self, gb: Decimal) -> Option<Result<DiskSize, DiskSize>> {
        let sizes = &self.sizes.as_ref()?.value;
        let largest = *sizes.last()?;
        Some(sizes.iter().copied().find(|s| s.gb >= gb).ok_or(largest))
    }
}

/// Storage that outlives instances (a netdisk, file storage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersistentStorage {
    /// GB included free.
    pub free_gb: Fact<Decimal>,
    /// CNY per GB-day above the free amount.
    pub price_per_gb_day: Fact<Decimal>,
}

/// Deadlines after which data disappears.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lifecycle {
    /// A stopped instance is released (with its disks) after this many days.
    #[serde(default)]
    pub release_after_stopped_days: Option<Fact<u32>>,
    /// A scratch directory is wiped this many hours after a stop.
    #[serde(default)]
    pub scratch_wipe_after_stopped_hours: Option<Fact<u32>>,
    /// Which directory that is.
    #[serde(default)]
    pub scratch_path: Option<String>,
    /// The deadline releases the instance and its system disk but detaches
    /// and keeps its data disk, still billed (优云智算): a fresh instance is
    /// set up again, and the data is still there.
    #[serde(default)]
    pub deadline_keeps_data_disk: Option<Fact<bool>>,
    /// A spot instance cannot be stopped, only released (优云智算).
    #[serde(default)]
    pub spot_cannot_stop: Option<Fact<bool>>,
    /// The stopped-days deadline is for pay-as-you-go instances only: one
    /// paid for by the day, week or month stays while its package lasts,
    /// and the deadline runs from its end (优云智算: "按量付费实例关机 …
    /// 第7天自动回收").
    #[serde(default)]
    pub deadline_spares_packages: Option<Fact<bool>>,
}

impl Lifecycle {
    /// Whether an instance paid for by a package is kept while the package
    /// lasts, the stopped-days deadline running only after it.
    pub fn spares_packages(&self) -> bool {
        self.deadline_spares_packages
            .as_ref()
            .is_some_and(|f| f.value)
    }

    /// Whether the deadline leaves the data disk (and its bill) in place.
    pub fn keeps_data_disk(&self) -> bool {
        self.deadline_keeps_data_disk
            .as_ref()
            .is_some_and(|f| f.value)
    }

    /// Whether a spot instance here cannot be stopped, only released.
    pub fn spot_only_released(&self) -> bool {
        self.spot_cannot_stop.as_ref().is_some_and(|f| f.value)
    }
}

/// Usage limits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quota {
    /// GPU hours per week (Kaggle ~30).
    #[serde(default)]
    pub weekly_gpu_hours: Option<Fact<Decimal>>,
    /// Longest session before it is cut (Colab ~12 h).
    #[serde(default)]
    pub session_max_hours: Option<Fact<Decimal>>,
    /// Idle minutes before disconnect.
    #[serde(default)]
    pub idle_timeout_minutes: Option<Fact<u32>>,
    /// Longest Slurm job (walltime cap).
    #[serde(default)]
    pub walltime_max_hours: Option<Fact<Decimal>>,
}

/// The machine around each GPU on a platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostProfile {
    /// vCPUs per GPU.
    pub vcpus_per_gpu: Fact<u32>,
    /// Host memory per GPU, GB.
    pub ram_gb_per_gpu: Fact<u32>,
    /// Where the data disk is.
    pub disk: Fact<crate::pipeline::DiskKind>,
}

/// Typical waiting before work starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Minutes from "create" to a shell.
    pub startup_minutes: Fact<Decimal>,
    /// Typical minutes queued for a card or a Slurm slot.
    pub queue_minutes: Fact<Decimal>,
}

/// Student certification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Student {
    /// Price multiplier after certification (0.95 = 5% off).
    pub discount: Fact<Decimal>,
    /// Free credit in CNY after certification.
    pub free_credit: Fact<Decimal>,
    /// A coupon for new accounts (any user, not only students), CNY: applied
    /// to a plan that says it is the student's first time here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newcomer_credit: Option<Fact<Decimal>>,
    /// What the newcomer coupon may be spent on, when it is restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newcomer_terms: Option<Localized>,
    /// Whether the newcomer coupon pays for spot (absent: it does). 共绩's
    /// pays only for cloud hosts, and its spot is a batch product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newcomer_pays_spot: Option<Fact<bool>>,
}

impl Student {
    /// The newcomer coupon a plan on `spot` (or not) may spend, if any.
    pub fn newcomer_for(&self, spot: bool) -> Option<&Fact<Decimal>> {
        let pays = !spot || self.newcomer_pays_spot.as_ref().is_none_or(|f| f.value);
        self.newcomer_credit.as_ref().filter(|_| pays)
    }
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
    /// Where they come from.
    pub grade: Grade,
    /// Where exactly, or the reasoning.
    pub source: String,
    /// The page, for a platform page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The date the source shows, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
    /// How far to trust them.
    pub confidence: Confidence,
}

impl PriceRange {
    /// Its provenance.
    pub fn provenance(&self) -> Provenance<'_> {
        Provenance {
            grade: self.grade,
            source: &self.source,
            url: self.url.as_deref(),
            observed: self.observed.as_deref(),
            confidence: self.confidence,
        }
    }
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
    /// Where it comes from.
    pub grade: Grade,
    /// Where exactly, or the reasoning.
    pub source: String,
    /// The page, for a platform page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The date the source shows, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
    /// How far to trust it.
    pub confidence: Confidence,
}

impl Package {
    /// Its provenance.
    pub fn provenance(&self) -> Provenance<'_> {
        Provenance {
            grade: self.grade,
            source: &self.source,
            url: self.url.as_deref(),
            observed: self.observed.as_deref(),
            confidence: self.confidence,
        }
    }
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
    pub spot_per_hour: Option<Fact<Decimal>>,
    /// Prepaid packages.
    #[serde(default)]
    pub packages: Vec<Package>,
    /// Most GPUs of this card one instance (or one job, on a cluster) can
    /// have; default 8 (1 on hosted notebooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gpus: Option<Fact<u32>>,
    /// How the GPUs of one instance of this offer talk (`pcie` or
    /// `nvlink`); when absent, the card's usual form factor decides
    /// ([`crate::estimate::interconnect`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect: Option<Fact<crate::parallel::Interconnect>>,
    /// Network bandwidth of each node to the others, Gb/s (its NICs' line
    /// rate: 200 for one InfiniBand HDR port), for plans over several nodes;
    /// when absent, [`crate::calibration::BUS_INTER_NODE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inter_node_gbps: Option<Fact<f64>>,
    /// GPUs in one node of this offer when more than 8 share a node (a
    /// DGX-2's 16 V100s on NVSwitch); when absent, 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_per_node: Option<Fact<u32>>,
    /// The PCIe link the board gives each GPU of an instance, GB/s each way
    /// (generation x lanes: 7.9 for PCIe 3.0 x8, 31.5 for 4.0 x16): over
    /// PCIe it bounds the GPUs' collectives and their host copies; when
    /// absent, a typical host's bus bandwidth
    /// ([`crate::calibration::BUS_PCIE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_gbps: Option<Fact<f64>>,
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
                inter_node_gbps: None,
                gpus_per_node: None,
                pcie_gbps: None,
            },
            None => crate::pipeline::Host::TYPICAL,
        }
    }

    /// The machine an instance of `offer` is: the platform's host with the
    /// offer's interconnect between its GPUs.
    pub fn host_for(&self, offer: &Offer) -> crate::pipeline::Host {
        crate::pipeline::Host {
            interconnect: offer.interconnect.as_ref().map(|i| i.value),
            inter_node_gbps: offer.inter_node_gbps.as_ref().map(|g| g.value),
            gpus_per_node: offer.gpus_per_node.as_ref().map(|g| g.value),
            pcie_gbps: offer.pcie_gbps.as_ref().map(|g| g.value),
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
            .said(
                Message::new("error.notOffered")
                    .with_both("platform", &self.name.zh, &self.name.en)
                    .with("gpu", crate::error::short(gpu)),
                Some(Message::new("error.oneOf").with("list", ids.join(", "))),
            )
        })
    }

    fn validate(&self, file: &str, text: &str, catalog: &GpuCatalog) -> Result<(), DataError> {
        let bad = |r: Refusal| Err(DataError::refused(file, text, r));
        if let Err(p) = self.check_texts() {
            return bad(p);
        }
        if let Err(p) = self.check_ranges() {
            return bad(p);
        }
        if let Err(p) = self.check_offers(catalog) {
            return bad(p);
        }
        for f in self.facts() {
            if let Some((english, said)) = f.problem {
                return bad(Refusal::new(&f.table, &f.key, english, said));
            }
        }
        Ok(())
    }

    /// Ids and the texts every profile shows, in both languages.
    fn check_texts(&self) -> Result<(), Refusal> {
        if self.id.is_empty()
            || !self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(Refusal::new(
                "",
                "id",
                "ids are lowercase letters, digits and '-'",
                Message::new("error.idCharacters"),
            ));
        }
        for (key, l) in [
            ("name", &self.name),
            ("persistence", &self.persistence),
            ("shutdown", &self.shutdown),
            ("network", &self.network),
        ] {
            if l.zh.trim().is_empty() || l.en.trim().is_empty() {
                return Err(Refusal::new(
                    "",
                    key,
                    "both zh and en text are required",
                    Message::new("error.bothLanguages"),
                ));
            }
        }
        // Every option of the platform lists them: a pack with 20,000 made
        // each recommendation megabytes long.
        if self.pitfalls.len() > MAX_PITFALLS {
            return Err(Refusal::new(
                "",
                "pitfalls",
                format!("{} pitfalls; at most {MAX_PITFALLS}", self.pitfalls.len()),
                Message::new("error.tooManyPitfalls")
                    .with("count", self.pitfalls.len())
                    .with("max", MAX_PITFALLS),
            ));
        }
        Ok(())
    }

    /// Every number within what the platform could plausibly charge or
    /// allow.
    fn check_ranges(&self) -> Result<(), Refusal> {
        let m = &self.metrics;
        for (key, v) in [
            ("startup_speed", &m.startup_speed),
            ("environment", &m.environment),
            ("billing_transparency", &m.billing_transparency),
            ("data_transfer", &m.data_transfer),
        ] {
            if !(1..=5).contains(&v.value) {
                return Err(Refusal::range("metrics", key, v.value, 1, 5, false));
            }
        }
        let b = &self.billing;
        if b.minimum_charge_minutes.value > 24 * 60 {
            return Err(Refusal::range(
                "billing",
                "minimum_charge_minutes",
                b.minimum_charge_minutes.value,
                0,
                24 * 60,
                false,
            ));
        }
        self.check_amounts()?;
        self.check_disk_sizes()?;
        self.check_peak()?;
        self.check_currency()?;
        self.check_host()?;
        self.check_student_and_quota()
    }

    /// Every amount (prices, free allowances, credits, waits) within what
    /// any platform charges or gives.
    fn check_amounts(&self) -> Result<(), Refusal> {
        let b = &self.billing;
        let mut money: Vec<(&str, &'static str, &Fact<Decimal>, u32)> = vec![
            (
                "billing",
                "stopped_fee_per_hour",
                &b.stopped_fee_per_hour,
                1000,
            ),
            ("storage", "free_gb", &self.storage.free_gb, 1_000_000),
            (
                "storage",
                "price_per_gb_day",
                &self.storage.price_per_gb_day,
                100,
            ),
            (
                "storage",
                "traffic_per_gb",
                &self.storage.traffic_per_gb,
                100,
            ),
            (
                "timing",
                "startup_minutes",
                &self.timing.startup_minutes,
                100_000,
            ),
            (
                "timing",
                "queue_minutes",
                &self.timing.queue_minutes,
                100_000,
            ),
            ("student", "free_credit", &self.student.free_credit, 100_000),
        ];
        if let Some(c) = &self.student.newcomer_credit {
            money.push(("student", "newcomer_credit", c, 100_000));
        }
        let optional = [
            (
                "billing",
                "no_gpu_mode_per_hour",
                b.no_gpu_mode_per_hour.as_ref(),
                1000,
            ),
            (
                "storage",
                "minimum_gb",
                self.storage.minimum_gb.as_ref(),
                1_000_000,
            ),
            (
                "storage",
                "egress_per_gb",
                self.storage.egress_per_gb.as_ref(),
                100,
            ),
            (
                "storage.persistent",
                "free_gb",
                self.storage.persistent.as_ref().map(|p| &p.free_gb),
                1_000_000,
            ),
            (
                "storage.persistent",
                "price_per_gb_day",
                self.storage
                    .persistent
                    .as_ref()
                    .map(|p| &p.price_per_gb_day),
                100,
            ),
        ];
        money.extend(
            optional
                .into_iter()
                .filter_map(|(t, k, v, max)| v.map(|v| (t, k, v, max))),
        );
        money.extend(self.storage.package_prices.iter().map(|p| {
            (
                "storage.package_prices",
                "price_per_gb_day",
                &p.price_per_gb_day,
                100,
            )
        }));
        for (table, key, v, max) in money {
            if v.value < Decimal::ZERO || v.value > Decimal::from(max) {
                return Err(Refusal::range(table, key, v.value, 0, max, false));
            }
        }
        for (key, v) in [
            ("stopped_fee_per_hour", Some(&b.stopped_fee_per_hour)),
            ("no_gpu_mode_per_hour", b.no_gpu_mode_per_hour.as_ref()),
        ] {
            if let Some(v) = v {
                crate::limits::at_most_places(
                    "billing",
                    key,
                    v.value,
                    crate::limits::PRICE_PLACES,
                )?;
            }
        }
        Ok(())
    }

    /// Disk sizes are listed smallest first, each larger than the last and
    /// priced within what any disk costs.
    fn check_disk_sizes(&self) -> Result<(), Refusal> {
        let Some(sizes) = &self.storage.sizes else {
            return Ok(());
        };
        if sizes.value.is_empty() {
            return Err(Refusal::new(
                "storage",
                "sizes",
                "the list of disk sizes is empty",
                Message::new("error.diskSizes"),
            ));
        }
        let mut last = Decimal::ZERO;
        for size in &sizes.value {
            if size.gb <= last || size.gb > Decimal::from(1_000_000) {
                return Err(Refusal::new(
                    "storage",
                    "sizes",
                    format!(
                        "{} GB: sizes go up from smallest, each at most 1000000 GB",
                        size.gb
                    ),
                    Message::new("error.diskSizes"),
                ));
            }
            if size.per_hour < Decimal::ZERO || size.per_hour > Decimal::from(100) {
                return Err(Refusal::range(
                    "storage.sizes",
                    "per_hour",
                    size.per_hour,
                    0,
                    100,
                    false,
                ));
            }
            last = size.gb;
        }
        Ok(())
    }

    /// A peak window is a window of hours, and a peak never costs less.
    fn check_peak(&self) -> Result<(), Refusal> {
        let Some(pk) = &self.billing.peak else {
            return Ok(());
        };
        let m = pk.multiplier.value;
        if m < Decimal::ONE || m > Decimal::from(10) {
            return Err(Refusal::range(
                "billing.peak",
                "multiplier",
                m,
                1,
                10,
                false,
            ));
        }
        if pk.from_hour > 23 || pk.to_hour > 24 || pk.from_hour >= pk.to_hour {
            return Err(Refusal::new(
                "billing.peak",
                "from_hour",
                format!(
                    "{} to {} is not a window of hours in a day",
                    pk.from_hour, pk.to_hour
                ),
                Message::new("error.peakWindow")
                    .with("from", pk.from_hour)
                    .with("to", pk.to_hour),
            ));
        }
        Ok(())
    }

    /// A foreign currency is a three-letter code at a rate any currency
    /// could have against the yuan.
    fn check_currency(&self) -> Result<(), Refusal> {
        let Some(c) = &self.billing.charged_in else {
            return Ok(());
        };
        let code = &c.value.currency;
        if code.len() != 3 || !code.chars().all(|ch| ch.is_ascii_uppercase()) || code == "CNY" {
            return Err(Refusal::new(
                "billing",
                "charged_in",
                format!("currency {code:?} is not a three-letter currency code other than CNY"),
                Message::new("error.currencyCode").with("code", crate::error::short(code)),
            ));
        }
        let rate = c.value.cny_per_unit;
        if rate <= Decimal::ZERO || rate > Decimal::from(1000) {
            return Err(Refusal::range("billing", "charged_in", rate, 0, 1000, true));
        }
        Ok(())
    }

    fn check_host(&self) -> Result<(), Refusal> {
        let Some(h) = &self.host else {
            return Ok(());
        };
        if !(1..=256).contains(&h.vcpus_per_gpu.value) {
            return Err(Refusal::range(
                "host",
                "vcpus_per_gpu",
                h.vcpus_per_gpu.value,
                1,
                256,
                false,
            ));
        }
        if !(1..=4096).contains(&h.ram_gb_per_gpu.value) {
            return Err(Refusal::range(
                "host",
                "ram_gb_per_gpu",
                h.ram_gb_per_gpu.value,
                1,
                4096,
                false,
            ));
        }
        Ok(())
    }

    fn check_student_and_quota(&self) -> Result<(), Refusal> {
        let d = self.student.discount.value;
        if d <= Decimal::ZERO || d > Decimal::ONE {
            return Err(Refusal::range("student", "discount", d, 0, 1, true));
        }
        let q = &self.quota;
        for (key, v) in [
            ("weekly_gpu_hours", &q.weekly_gpu_hours),
            ("session_max_hours", &q.session_max_hours),
            ("walltime_max_hours", &q.walltime_max_hours),
        ] {
            if let Some(v) = v {
                if v.value <= Decimal::ZERO || v.value > Decimal::from(100_000) {
                    return Err(Refusal::range("quota", key, v.value, 0, 100_000, true));
                }
            }
        }
        Ok(())
    }

    /// Offers name catalog cards, with a price range in order, packages
    /// and spot prices within reason.
    fn check_offers(&self, catalog: &GpuCatalog) -> Result<(), Refusal> {
        if self.offers.is_empty() && !self.template {
            return Err(Refusal::new(
                "",
                "offer",
                "a platform must offer at least one GPU",
                Message::new("error.noOffer"),
            ));
        }
        for (i, o) in self.offers.iter().enumerate() {
            let table = format!("offer[{i}]");
            let what = format!("offer {} ({})", i.saturating_add(1), o.gpu);
            if catalog.get(&o.gpu).map(|g| g.id != o.gpu).unwrap_or(true) {
                return Err(Refusal::new(
                    &table,
                    "gpu",
                    format!("{what}: {} is not a catalog id", o.gpu),
                    Message::new("error.notCatalogCard")
                        .with("offer", i.saturating_add(1))
                        .with("gpu", &o.gpu),
                ));
            }
            // One offer per card: a quote, an override and a course
            // price find an offer by its card, so a second one would be
            // priced by whichever came first and listed twice.
            if let Some(first) = self.offers[..i].iter().position(|p| p.gpu == o.gpu) {
                return Err(Refusal::new(
                    &table,
                    "gpu",
                    format!(
                        "{what}: {} is offered already (offer {}); one offer per card",
                        o.gpu,
                        first.saturating_add(1)
                    ),
                    Message::new("error.offerTwice")
                        .with("gpu", &o.gpu)
                        .with("first", first.saturating_add(1))
                        .with("offer", i.saturating_add(1)),
                ));
            }
            check_offer_prices(o, &table, i)?;
            check_offer_cluster(o, &table)?;
        }
        Ok(())
    }

    /// Every graded figure of the profile, in file order, with where it
    /// sits and what is wrong with its provenance, if anything. Read off
    /// the profile's serialized form, so a figure added to the format can
    /// never be missed.
    pub fn facts(&self) -> Vec<FactRow> {
        let mut rows = Vec::new();
        if let Ok(v) = serde_json::to_value(self) {
            walk_facts(&v, "", "", &mut rows);
        }
        rows
    }
}

/// One graded figure of a profile, for checking and for the platforms page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FactRow {
    /// The table it sits in (`billing`, `offer[2]`).
    pub table: String,
    /// Its key (`price_per_hour`).
    pub key: String,
    /// The figure, as written (a range as `low..typical..high`, a package
    /// as `period price`).
    pub value: String,
    /// Where it comes from.
    pub grade: Grade,
    /// How far to trust it.
    pub confidence: Confidence,
    /// Where exactly, or the reasoning.
    pub source: String,
    /// The page, for a platform page.
    pub url: Option<String>,
    /// The date the source shows, if any.
    pub observed: Option<String>,
    /// What is wrong with its provenance (only ever set on a profile being
    /// validated; a loaded profile has none).
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub problem: Option<(String, Message)>,
}

fn walk_facts(v: &serde_json::Value, table: &str, key: &str, rows: &mut Vec<FactRow>) {
    match v {
        serde_json::Value::Object(map)
            if map.contains_key("grade") && map.contains_key("source") =>
        {
            rows.push(fact_row(map, table, key));
        }
        serde_json::Value::Object(map) => {
            for (k, child) in map {
                let sub = match (table.is_empty(), key.is_empty()) {
                    (_, true) => table.to_owned(),
                    (true, false) => key.to_owned(),
                    (false, false) => format!("{table}.{key}"),
                };
                walk_facts(child, &sub, k, rows);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                // An array of tables (`[[offer]]`) is named by position; an
                // array of figures (`packages = [...]`) keeps its key.
                if child.get("grade").is_some() {
                    walk_facts(child, table, key, rows);
                } else {
                    walk_facts(child, &format!("{key}[{i}]"), "", rows);
                }
            }
        }
        _ => {}
    }
}

/// A JSON scalar as written (a string without its quotes).
fn plain(v: &serde_json::Value) -> String {
    v.as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| v.to_string())
}

fn fact_row(map: &serde_json::Map<String, serde_json::Value>, table: &str, key: &str) -> FactRow {
    let text = |k: &str| -> Option<String> {
        map.get(k).map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let value = match (text("value"), text("typical"), text("price")) {
        // A list of disk sizes reads "200 GB 0.1/h, 500 GB 0.2/h".
        (Some(_), _, _) if map.get("value").is_some_and(|v| v.is_array()) => map
            .get("value")
            .and_then(|v| v.as_array())
            .map(|items| {
                items
                    .iter()
                    .map(|i| match (i.get("gb"), i.get("per_hour")) {
                        (Some(gb), Some(h)) => format!("{} GB {}/h", plain(gb), plain(h)),
                        _ => i.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default(),
        (Some(v), _, _) => v,
        (None, Some(t), _) => format!(
            "{}..{}..{}",
            text("low").unwrap_or_default(),
            t,
            text("high").unwrap_or_default()
        ),
        (None, None, Some(p)) => format!("{} {p}", text("period").unwrap_or_default()),
        _ => String::new(),
    };
    let parsed: Option<(Grade, Confidence)> =
        serde_json::from_value(map.get("grade").cloned().unwrap_or_default())
            .ok()
            .zip(serde_json::from_value(map.get("confidence").cloned().unwrap_or_default()).ok());
    let (grade, confidence) = parsed.unwrap_or((Grade::Estimate, Confidence::Low));
    let row = FactRow {
        table: table.to_owned(),
        key: key.to_owned(),
        value,
        grade,
        confidence,
        source: text("source").unwrap_or_default(),
        url: text("url"),
        observed: text("observed"),
        problem: None,
    };
    let problem = Provenance {
        grade,
        source: &row.source,
        url: row.url.as_deref(),
        observed: row.observed.as_deref(),
        confidence,
    }
    .problem();
    FactRow { problem, ..row }
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

/// An offer's prices: hourly low <= typical <= high within the plan limit,
/// spot no dearer than the high price, packages priced within what a plan
/// may cost. `Err((field, message))`.
fn check_offer_prices(o: &Offer, table: &str, i: usize) -> Result<(), Refusal> {
    let pr = &o.price_per_hour;
    if pr.low < Decimal::ZERO
        || pr.low > pr.typical
        || pr.typical > pr.high
        || pr.high > Decimal::from(10_000)
    {
        return Err(Refusal::new(
            table,
            "price_per_hour",
            format!(
                "offer {} ({}): need 0 <= low <= typical <= high <= 10000",
                i.saturating_add(1),
                o.gpu
            ),
            Message::new("error.priceOrder")
                .with("low", pr.low)
                .with("typical", pr.typical)
                .with("high", pr.high)
                .with("max", 10_000),
        ));
    }
    // Billed as written, so no more places than a bill's rate prints.
    let places = crate::limits::PRICE_PLACES;
    for v in [pr.low, pr.typical, pr.high] {
        crate::limits::at_most_places(table, "price_per_hour", v, places)?;
    }
    if let Some(sp) = &o.spot_per_hour {
        crate::limits::at_most_places(table, "spot_per_hour", sp.value, places)?;
        if sp.value < Decimal::ZERO || sp.value > pr.high {
            return Err(Refusal::range(
                table,
                "spot_per_hour",
                sp.value,
                0,
                pr.high,
                false,
            ));
        }
    }
    // A package costs no more than the most any plan may cost.
    if let Some(p) = o
        .packages
        .iter()
        .find(|p| p.price <= Decimal::ZERO || p.price > Decimal::from(crate::limits::MAX_CNY))
    {
        return Err(Refusal::range(
            table,
            "packages",
            p.price,
            0,
            crate::limits::MAX_CNY,
            true,
        ));
    }
    for p in &o.packages {
        crate::limits::at_most_places(table, "packages", p.price, crate::limits::MONEY_PLACES)?;
    }
    Ok(())
}

/// An offer's cluster facts: GPUs per job and per node, the network
/// between nodes and the PCIe link to each GPU, each within its range.
fn check_offer_cluster(o: &Offer, table: &str) -> Result<(), Refusal> {
    if let Some(m) = o
        .max_gpus
        .as_ref()
        .filter(|m| m.value == 0 || m.value > crate::parallel::MAX_GPUS)
    {
        return Err(Refusal::range(
            table,
            "max_gpus",
            m.value,
            1,
            crate::parallel::MAX_GPUS,
            false,
        ));
    }
    if let Some(g) = o
        .gpus_per_node
        .as_ref()
        .filter(|g| g.value == 0 || g.value > 64)
    {
        return Err(Refusal::range(
            table,
            "gpus_per_node",
            g.value,
            1,
            64,
            false,
        ));
    }
    if let Some(g) = o
        .inter_node_gbps
        .as_ref()
        .filter(|g| !(g.value.is_finite() && g.value > 0.0 && g.value <= 100_000.0))
    {
        return Err(Refusal::range(
            table,
            "inter_node_gbps",
            g.value,
            0,
            100_000,
            true,
        ));
    }
    let pcie = crate::limits::PCIE_GBPS;
    if let Some(g) = o.pcie_gbps.as_ref().filter(|g| !pcie.allows(g.value)) {
        return Err(Refusal::range(
            table,
            "pcie_gbps",
            g.value,
            pcie.min,
            pcie.max,
            pcie.min_exclusive,
        ));
    }
    Ok(())
}
