//! gpuplan-usecases: the application layer under both shells.
//!
//! The CLI (`crates/gpuplan-cli`) and the desktop app (`src-tauri`) parse what
//! the user gave, call one method of [`Planner`], and render the answer. Every
//! use case lives here once: estimate, recommend, quote, the before-you-rent
//! kit, price overrides, course packs, saved plans, the ledger and settings.
//! This layer owns defaulting and validation beyond the core's own checks,
//! reads and writes user data through `gpuplan-store` (one SQLite database in
//! the folder [`home::data_home`] names, shared by both shells), renders the
//! charts, and holds the one message catalog ([`labels::Catalog`]).
//!
//! Time comes from a clock the shell hands in, so tests run on a fixed one.
//!
//! Modules:
//! - [`error`]: [`AppError`], the one error both shells show.
//! - [`labels`]: the message catalog (`data/locales/*.json`) and [`labels::Lang`].
//! - [`home`]: where user data lives; the earlier CLI files imported once.
//! - [`files`]: bounded reads and atomic writes of user-named files.
//! - [`defaults`]: every default of a new situation, plan and kit.
//! - [`views`]: the shapes the app's screens receive.
//! - [`charts`]: charts rendered in both languages.
//! - [`userdata`]: overrides, packs, saved plans, the ledger and settings.
//! - [`planning`]: estimate, recommend, quote and the kit.

mod accuracy;
pub mod calibration;
pub mod charts;
pub mod defaults;
pub mod error;
mod estimating;
pub mod files;
pub mod home;
mod info;
mod kit;
pub mod labels;
mod ledger;
mod legacy;
mod overrides;
mod pack_export;
mod packs;
pub mod planning;
mod plans;
mod quoting;
mod recommending;
pub mod reports;
pub mod userdata;
pub mod views;

use std::path::PathBuf;

use chrono::NaiveDateTime;
use gpuplan_core::pack::CoursePack;
use gpuplan_core::platform::PlatformSet;
use gpuplan_core::{GpuCatalog, ModelZoo};
use gpuplan_store::Store;

pub use error::AppError;
pub use labels::{Catalog, Lang};

/// A result of a use case.
pub type Result<T> = std::result::Result<T, AppError>;

/// The clock a shell hands in (local time, which is what a student's bills show).
pub type Clock = fn() -> NaiveDateTime;

/// The data bundled with the binary, parsed once.
#[derive(Clone)]
pub struct Bundled {
    /// GPU catalog.
    pub catalog: GpuCatalog,
    /// Model zoo.
    pub zoo: ModelZoo,
    /// Platform profiles as shipped.
    pub platforms: PlatformSet,
    /// The bundled presets (a course pack).
    pub presets: CoursePack,
    /// The message catalog.
    pub labels: Catalog,
    /// Step time against the held-out published runs, computed when first
    /// asked for ([`Bundled::held_out`]).
    held_out: std::sync::OnceLock<gpuplan_core::heldout::HeldOutAccuracy>,
}

impl Bundled {
    /// Parses the bundled files. They are tested in CI, so an error here is
    /// a build defect; it is still reported, never a panic.
    pub fn load() -> Result<Self> {
        let catalog = GpuCatalog::from_toml("data/gpus.toml", gpuplan_data::GPUS_TOML)?;
        let zoo = ModelZoo::from_toml(
            ("data/models/vision.toml", gpuplan_data::VISION_MODELS_TOML),
            (
                "data/models/transformers.toml",
                gpuplan_data::TRANSFORMER_MODELS_TOML,
            ),
        )?;
        let platforms = PlatformSet::from_files(gpuplan_data::PLATFORMS.iter().copied(), &catalog)?;
        let presets = CoursePack::from_toml(
            "data/packs/presets.toml",
            gpuplan_data::PRESETS_PACK_TOML,
            &catalog,
            &zoo,
        )?;
        let labels = Catalog::bundled()?;
        Ok(Self {
            catalog,
            zoo,
            platforms,
            presets,
            labels,
            held_out: std::sync::OnceLock::new(),
        })
    }
}

/// Where the database is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Home {
    /// A folder holding `gpuplan.db`.
    Folder(PathBuf),
    /// An in-memory database (tests, or a folder that cannot be used).
    Memory,
}

/// The user's data merged over the bundled data, re-read when another
/// process (the CLI beside the app) commits to the database.
struct UserLayer {
    data_version: i64,
    /// Shared, so a use case reads it without copying every profile.
    platforms: std::sync::Arc<PlatformSet>,
    packs: Vec<userdata::ImportedPack>,
    unmatched_overrides: Vec<gpuplan_core::pack::PriceOverride>,
    /// What the measured runs (own and the course pack's) teach.
    corrections: gpuplan_core::correction::Corrections,
}

/// The read-only use cases' view of the data (see [`Planner::snapshot`]):
/// estimate, recommend and quote read it and nothing else.
pub struct Snapshot {
    bundled: std::sync::Arc<Bundled>,
    platforms: std::sync::Arc<PlatformSet>,
    course_platforms: std::sync::Arc<PlatformSet>,
    /// The course whose pack chose `course_platforms`, when one did.
    course: Option<String>,
    /// For each platform a course pack replaced, the pack's course (the
    /// newest import wins, as for the figures).
    pack_of: std::collections::BTreeMap<String, String>,
    corrections: gpuplan_core::correction::Corrections,
    today: chrono::NaiveDate,
}

/// The use cases over the bundled data and one user's database.
pub struct Planner {
    /// Shared with the snapshots the read-only use cases work on.
    bundled: std::sync::Arc<Bundled>,
    home: Home,
    store: Option<Store>,
    layer: Option<UserLayer>,
    clock: Clock,
    /// Things to tell the user once (a database set aside, a course pack
    /// replaced), in the catalog's words.
    notices: Vec<gpuplan_core::Message>,
    /// When the database cannot be opened: browse without saving (the app,
    /// which shows a banner) instead of failing (the CLI).
    browse_if_unwritable: bool,
}

impl Planner {
    /// A planner over `home`; the database opens on first use.
    pub fn new(bundled: Bundled, home: Home, clock: Clock) -> Self {
        Self {
            bundled: std::sync::Arc::new(bundled),
            home,
            store: None,
            layer: None,
            clock,
            notices: Vec::new(),
            browse_if_unwritable: false,
        }
    }

    /// When the user's database cannot be opened, browse the bundled data
    /// without saving instead of failing; every save then fails with the
    /// reason, and [`Planner::read_only`] says so for a banner. The app asks
    /// for this; the CLI does not (a command that cannot save exits non-zero).
    pub fn browse_if_unwritable(mut self) -> Self {
        self.browse_if_unwritable = true;
        self
    }

    /// Why nothing can be saved this session, when the database could not
    /// be opened and the planner browses without saving.
    pub fn read_only(&self) -> Option<&str> {
        self.store.as_ref().and_then(Store::read_only_reason)
    }

    /// The bundled data.
    pub fn bundled(&self) -> &Bundled {
        &self.bundled
    }

    /// The message catalog.
    pub fn labels(&self) -> &Catalog {
        &self.bundled.labels
    }

    /// Something to tell the user about the database (set aside, legacy
    /// files imported), once it has been opened.
    pub fn notices(&self) -> &[gpuplan_core::Message] {
        &self.notices
    }

    /// Adds a sentence to what the user is told.
    pub fn add_notice(&mut self, said: gpuplan_core::Message) {
        self.notices.push(said);
    }

    /// Today, by the shell's clock.
    fn today(&self) -> chrono::NaiveDate {
        (self.clock)().date()
    }

    fn now(&self) -> String {
        (self.clock)().format("%Y-%m-%dT%H:%M:%S").to_string()
    }

    /// Opens the database now (the app does, to show a notice at start).
    pub fn open(&mut self) -> Result<()> {
        self.store().map(|_| ())
    }

    /// The database, opened (and a corrupt one set aside; a newer one refused) on first use.
    fn store(&mut self) -> Result<&mut Store> {
        if self.store.is_none() {
            let (store, notice) = match &self.home {
                Home::Memory => (Store::open_in_memory()?, None),
                Home::Folder(dir) => {
                    let tag = (self.clock)().format("%Y%m%d-%H%M%S").to_string();
                    let opened = std::fs::create_dir_all(dir)
                        .map_err(|e| gpuplan_store::StoreError::Unwritable {
                            path: dir.display().to_string(),
                            reason: e.to_string(),
                        })
                        .and_then(|()| {
                            Store::open_or_set_aside(&dir.join(home::DATABASE_FILE), &tag)
                        });
                    match opened {
                        Ok((store, aside)) => (
                            store,
                            aside.map(|path| {
                                gpuplan_core::Message::new("notice.setAside").with("path", path)
                            }),
                        ),
                        // Another gpuplan holds it: say so and change
                        // nothing; the next command finds it free.
                        Err(e @ gpuplan_store::StoreError::Busy { .. }) => return Err(e.into()),
                        // The app browses without saving, and says so in a
                        // banner; every save says it was not saved.
                        Err(e) if self.browse_if_unwritable => {
                            (Store::browse_without_saving(&e.to_string())?, None)
                        }
                        // Anything else is the command's error: nothing it
                        // was asked to keep may be reported as kept.
                        Err(e) => return Err(e.into()),
                    }
                }
            };
            self.notices.extend(notice);
            self.store = Some(store);
            if self.read_only().is_none() {
                self.fill_report_identities()?;
            }
            if matches!(self.home, Home::Folder(_)) && self.read_only().is_none() {
                let legacy = home::legacy_cli_home();
                let said = self.import_legacy(&legacy)?;
                self.notices.extend(said);
            }
        }
        match self.store.as_mut() {
            Some(s) => Ok(s),
            None => Err(AppError::internal("the database is not open")),
        }
    }

    /// Gives every stored report its identity by today's rule (reports
    /// imported before identities were kept, or before the rule named the
    /// run rather than the bytes: store v6 and v8). A second report of one
    /// run keeps none; its bill stays as it is.
    fn fill_report_identities(&mut self) -> Result<()> {
        let Some(store) = self.store.as_mut() else {
            return Ok(());
        };
        for (id, body) in store.reports_without_identity()? {
            if let Ok(r) = gpuplan_core::report::RunReport::from_json("stored report", &body) {
                store.set_report_identity(id, &r.identity())?;
            }
        }
        Ok(())
    }

    /// What the read-only use cases read, taken now: the bundled data, the
    /// platforms with the user's packs and overrides, the course's
    /// platforms, the corrections in force and today. The app takes it
    /// under its lock and computes without it, so an estimate, a quote or a
    /// recommendation never waits for a write, nor a write for them.
    pub fn snapshot(&mut self) -> Result<Snapshot> {
        Ok(Snapshot {
            bundled: std::sync::Arc::clone(&self.bundled),
            platforms: self.platforms()?,
            course_platforms: self.course_platforms()?,
            course: self.course_choosing_platforms()?,
            pack_of: self.pack_of_platforms()?,
            corrections: self.corrections()?,
            today: self.today(),
        })
    }

    /// Platforms with the user's packs and overrides applied, re-read when the
    /// database changed under us.
    fn layer(&mut self) -> Result<&UserLayer> {
        let version = self.store()?.data_version()?;
        let stale = self
            .layer
            .as_ref()
            .is_none_or(|l| l.data_version != version);
        if stale {
            let layer = self.build_layer(version)?;
            self.layer = Some(layer);
        }
        match self.layer.as_ref() {
            Some(l) => Ok(l),
            None => Err(AppError::internal("user data could not be loaded")),
        }
    }

    /// Forgets the merged user data so the next use re-reads it (after this
    /// process wrote to the database).
    fn invalidate(&mut self) {
        self.layer = None;
    }

    /// Bundled profiles, then imported packs, then the user's price overrides.
    pub fn platforms(&mut self) -> Result<std::sync::Arc<PlatformSet>> {
        Ok(std::sync::Arc::clone(&self.layer()?.platforms))
    }
}

#[cfg(test)]
mod tests;
