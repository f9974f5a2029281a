//! What the app holds while running: the bundled data (parsed once), imported
//! course packs and overrides applied, and the database.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use gpuplan_core::pack::CoursePack;
use gpuplan_core::platform::PlatformSet;
use gpuplan_core::{GpuCatalog, ModelZoo};
use gpuplan_store::Store;

/// Shared app state.
pub struct AppState {
    /// GPU catalog.
    pub catalog: GpuCatalog,
    /// Model zoo.
    pub zoo: ModelZoo,
    /// Platforms with packs and overrides applied.
    pub platforms: Mutex<PlatformSet>,
    /// Imported course packs.
    pub packs: Mutex<Vec<CoursePack>>,
    /// The database.
    pub store: Mutex<Store>,
    /// Where the database lives.
    pub data_dir: PathBuf,
    /// A problem found at start-up to tell the user (e.g. a database set aside).
    pub startup_notice: Option<String>,
}

impl AppState {
    /// Loads bundled data and opens the database in `dir`. A database that
    /// cannot be opened is never deleted: it is renamed aside and a fresh one
    /// is created, and the user is told.
    pub fn load(dir: &Path) -> Self {
        // Bundled data is tested in CI; failing to parse it is a build defect.
        #[allow(clippy::expect_used)]
        let catalog = GpuCatalog::from_toml("data/gpus.toml", gpuplan_data::GPUS_TOML)
            .expect("bundled catalog is valid");
        #[allow(clippy::expect_used)]
        let zoo = ModelZoo::from_toml(
            ("data/models/vision.toml", gpuplan_data::VISION_MODELS_TOML),
            (
                "data/models/transformers.toml",
                gpuplan_data::TRANSFORMER_MODELS_TOML,
            ),
        )
        .expect("bundled zoo is valid");
        #[allow(clippy::expect_used)]
        let mut platforms =
            PlatformSet::from_files(gpuplan_data::PLATFORMS.iter().copied(), &catalog)
                .expect("bundled platforms are valid");
        let _ = std::fs::create_dir_all(dir);
        let path = dir.join("gpuplan.db");
        let tag = chrono::Local::now().format("%Y%m%d-%H%M%S").to_string();
        let (store, startup_notice) = match Store::open_or_set_aside(&path, &tag) {
            Ok(pair) => pair,
            // The file could not even be set aside (read-only folder): keep
            // working in memory rather than refusing to start.
            Err(e) => match Store::open_in_memory() {
                Ok(s) => (
                    s,
                    Some(format!("{e}. Working without saving this session.")),
                ),
                #[allow(clippy::panic)]
                Err(e) => panic!("no database could be opened, not even in memory: {e}"),
            },
        };
        let mut startup_notice = startup_notice;
        // A course pack opened with the app (`gpuplan-app course.toml`, or a
        // file association) is validated and imported before the UI starts, so
        // the student lands on the course's defaults.
        let mut store = store;
        if let Some(arg) = std::env::args().skip(1).find(|a| a.ends_with(".toml")) {
            let result = std::fs::metadata(&arg)
                .map_err(|e| e.to_string())
                .and_then(|m| {
                    if m.len() as usize > gpuplan_core::pack::MAX_PACK_BYTES {
                        Err("larger than 1 MB".to_owned())
                    } else {
                        Ok(())
                    }
                })
                .and_then(|()| std::fs::read_to_string(&arg).map_err(|e| e.to_string()))
                .and_then(|body| {
                    CoursePack::from_toml(&arg, &body, &catalog)
                        .map(|p| (p, body))
                        .map_err(|e| e.to_string())
                })
                .and_then(|(p, body)| {
                    store
                        .save_pack(
                            &p.pack.name,
                            &body,
                            &chrono::Local::now().format("%Y-%m-%dT%H:%M:%S").to_string(),
                        )
                        .map_err(|e| e.to_string())
                });
            if let Err(e) = result {
                startup_notice = Some(format!("course pack {arg} was not imported: {e}"));
            }
        }
        let mut packs = Vec::new();
        if let Ok(rows) = store.packs() {
            for (name, body) in rows {
                if let Ok(p) = CoursePack::from_toml(&name, &body, &catalog) {
                    p.merge_into(&mut platforms);
                    packs.push(p);
                }
            }
        }
        if let Ok(rows) = store.overrides() {
            let o = gpuplan_core::pack::Overrides {
                prices: rows
                    .into_iter()
                    .map(|(platform, gpu, price_per_hour, note)| {
                        gpuplan_core::pack::PriceOverride {
                            platform,
                            gpu,
                            price_per_hour,
                            note,
                        }
                    })
                    .collect(),
            };
            o.apply(&mut platforms);
        }
        Self {
            catalog,
            zoo,
            platforms: Mutex::new(platforms),
            packs: Mutex::new(packs),
            store: Mutex::new(store),
            data_dir: dir.to_path_buf(),
            startup_notice,
        }
    }
}
