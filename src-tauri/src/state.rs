//! What the app holds while running: one [`Planner`] (bundled data parsed
//! once, the user's database) behind a mutex, and the [`Snapshot`]s the
//! read-only commands compute on without it.

use std::sync::{Mutex, MutexGuard};

use gpuplan_usecases::{AppError, Bundled, Home, Planner, Snapshot};

/// Shared app state.
pub struct AppState {
    planner: Mutex<Planner>,
}

fn clock() -> chrono::NaiveDateTime {
    chrono::Local::now().naive_local()
}

impl AppState {
    /// Loads the bundled data and opens the user's database in `home`; a
    /// course pack named on the command line (`gpuplan-app course.toml`, or a
    /// file association) is imported before the UI starts, so the student
    /// lands on the course's defaults.
    pub fn load(home: Home) -> Result<Self, AppError> {
        // When the database cannot be opened the app still shows the bundled
        // data, with a banner saying nothing will be saved (AppInfo.notice);
        // every save then fails with that reason.
        let mut planner = Planner::new(Bundled::load()?, home, clock).browse_if_unwritable();
        planner.open()?;
        if let Some(arg) = std::env::args().skip(1).find(|a| a.ends_with(".toml")) {
            if let Err(e) = planner.import_pack_file(std::path::Path::new(&arg)) {
                // Worded now in both languages; the app shows its own.
                let (zh, en) = (
                    planner
                        .labels()
                        .error(gpuplan_usecases::labels::Lang::Zh, &e),
                    planner
                        .labels()
                        .error(gpuplan_usecases::labels::Lang::En, &e),
                );
                planner.add_notice(
                    gpuplan_core::Message::new("notice.packNotImported")
                        .with("file", &arg)
                        .with_both("reason", &zh, &en),
                );
            }
        }
        Ok(Self {
            planner: Mutex::new(planner),
        })
    }

    /// The planner. A panic in another command must not brick the app: the
    /// data is taken as it is.
    pub fn planner(&self) -> MutexGuard<'_, Planner> {
        self.planner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the read-only use cases read, taken under the lock and released
    /// at once: an estimate, a quote or a recommendation is computed without
    /// holding it, so it neither waits for a save nor makes one wait.
    pub fn snapshot(&self) -> Result<Snapshot, AppError> {
        self.planner().snapshot()
    }
}
