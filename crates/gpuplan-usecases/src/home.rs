//! Where user data lives, for both shells: one folder holding one SQLite
//! database (`gpuplan.db`).
//!
//! The folder is `$GPUPLAN_HOME` when set, else the OS's per-user data folder
//! with the app's identifier (`~/.local/share/app.gpuplan.desktop` on Linux,
//! `~/Library/Application Support/app.gpuplan.desktop` on macOS,
//! `%APPDATA%\app.gpuplan.desktop` on Windows) — where the desktop app has
//! always kept its database, so the CLI and the app share one.
//!
//! Earlier CLI releases kept `overrides.toml` and `packs/*.toml` in
//! `$GPUPLAN_HOME`, `$XDG_CONFIG_HOME/gpuplan` or `~/.config/gpuplan`; they are
//! imported once into the database and the files are left where they are.

use std::path::{Path, PathBuf};

/// The app's identifier (`src-tauri/tauri.conf.json`), naming its data folder.
pub const APP_IDENTIFIER: &str = "app.gpuplan.desktop";

/// The database's file name inside the data folder.
pub const DATABASE_FILE: &str = "gpuplan.db";

/// The data folder for this user (see the module docs).
pub fn data_home() -> PathBuf {
    if let Some(h) = std::env::var_os("GPUPLAN_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    dirs::data_dir()
        .unwrap_or_else(|| std::env::temp_dir().join("gpuplan-data"))
        .join(APP_IDENTIFIER)
}

/// The folder where earlier CLI releases kept their files.
pub fn legacy_cli_home() -> PathBuf {
    if let Some(h) = std::env::var_os("GPUPLAN_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(x).join("gpuplan");
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
        .join(".config/gpuplan")
}

/// The legacy files found in `dir`: the override file and the packs.
pub fn legacy_files(dir: &Path) -> (Option<PathBuf>, Vec<PathBuf>) {
    let overrides = Some(dir.join("overrides.toml")).filter(|p| p.is_file());
    let mut packs: Vec<PathBuf> = std::fs::read_dir(dir.join("packs"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    packs.sort();
    (overrides, packs)
}
