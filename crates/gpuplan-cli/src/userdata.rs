//! The user's own files: price overrides and imported course packs. This is
//! the CLI's only writable state; the core never touches files.

use std::path::{Path, PathBuf};

use gpuplan_core::pack::{CoursePack, Overrides};
use gpuplan_core::platform::PlatformSet;
use gpuplan_core::GpuCatalog;

use crate::Failure;

fn io(message: String) -> Failure {
    Failure { code: 1, message }
}

/// `$GPUPLAN_HOME`, else `$XDG_CONFIG_HOME/gpuplan`, else `~/.config/gpuplan`.
pub fn home() -> PathBuf {
    if let Some(h) = std::env::var_os("GPUPLAN_HOME") {
        return PathBuf::from(h);
    }
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME") {
        return PathBuf::from(x).join("gpuplan");
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
        .join(".config/gpuplan")
}

/// The override file path.
pub fn overrides_path() -> PathBuf {
    home().join("overrides.toml")
}

/// The folder of imported packs.
pub fn packs_dir() -> PathBuf {
    home().join("packs")
}

/// Reads the override file (empty when absent).
pub fn read_overrides() -> Result<Overrides, Failure> {
    let path = overrides_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Overrides::from_toml(&path.display().to_string(), &text)?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Overrides::default()),
        Err(e) => Err(io(format!("{}: {e}", path.display()))),
    }
}

/// Writes a file atomically: a temporary file in the same folder, then a
/// rename, so a crash never leaves half a file.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), Failure> {
    let dir = path
        .parent()
        .ok_or_else(|| io(format!("{}: no parent folder", path.display())))?;
    std::fs::create_dir_all(dir).map_err(|e| io(format!("{}: {e}", dir.display())))?;
    let tmp = dir.join(format!(
        ".{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file")
    ));
    std::fs::write(&tmp, text).map_err(|e| io(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| io(format!("{}: {e}", path.display())))
}

/// Imported packs, each validated again on load.
pub fn read_packs(catalog: &GpuCatalog) -> Result<Vec<CoursePack>, Failure> {
    let dir = packs_dir();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(p).map_err(|e| io(format!("{}: {e}", p.display())))?;
            Ok(CoursePack::from_toml(
                &p.display().to_string(),
                &text,
                catalog,
            )?)
        })
        .collect()
}

/// Bundled profiles, then imported packs, then the user's price overrides.
pub fn platforms(catalog: &GpuCatalog) -> Result<(PlatformSet, Vec<CoursePack>), Failure> {
    let mut set = PlatformSet::from_files(gpuplan_data::PLATFORMS.iter().copied(), catalog)
        .map_err(|e| io(format!("bundled data is invalid: {e}")))?;
    let packs = read_packs(catalog)?;
    for p in &packs {
        p.merge_into(&mut set);
    }
    let overrides = read_overrides()?;
    for o in overrides.apply(&mut set) {
        eprintln!(
            "gpuplan: note: override for {} / {} matches no offer and is ignored",
            o.platform, o.gpu
        );
    }
    Ok((set, packs))
}
