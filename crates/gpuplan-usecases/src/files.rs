//! Reading and writing the files a user names (plans, packs, configs,
//! exports). Reads are bounded before anything is allocated and accept only
//! regular files, so a link to `/dev/zero` or a FIFO is refused instead of
//! read forever; writes go to a fresh temporary file in the target's folder
//! (created exclusively, never following a planted link) and are renamed
//! into place, so a crash never leaves half a file.

use std::io::{Read, Write};
use std::path::Path;

use gpuplan_core::Message;

use crate::AppError;

/// A file that cannot be read, worded by what went wrong (the system's own
/// words only where the catalog has none).
fn unreadable(what: &str, path: &Path, e: &std::io::Error) -> AppError {
    let shown = path.display().to_string();
    let said = match e.kind() {
        std::io::ErrorKind::NotFound => Message::new("error.fileMissing"),
        std::io::ErrorKind::PermissionDenied => Message::new("error.fileDenied"),
        _ => Message::new("error.fileUnreadable").with("reason", crate::error::io_reason_of(e)),
    };
    AppError::input(what, format!("cannot read {shown}: {e}"), "a readable file").said(
        said.with("path", &shown),
        Some(Message::new("allowed.readable")),
    )
}

/// A path that names a folder, device or pipe, not a file.
fn not_regular(what: &str, path: &Path) -> AppError {
    let shown = path.display().to_string();
    AppError::input(
        what,
        format!("{shown} is not a regular file"),
        "a regular file",
    )
    .said(
        Message::new("error.notRegular").with("path", &shown),
        Some(Message::new("allowed.regular")),
    )
}

/// Largest user file read: plans, packs and configs are small text files.
pub const MAX_USER_FILE_BYTES: u64 = 1_048_576;

/// Reads a UTF-8 text file of at most `limit` bytes; `what` names it in errors.
pub fn read_text(path: &Path, what: &str, limit: u64) -> Result<String, AppError> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| unreadable(what, path, &e))?;
    if !meta.is_file() {
        return Err(not_regular(what, path));
    }
    let file = std::fs::File::open(path).map_err(|e| unreadable(what, path, &e))?;
    // Checked again on the open handle: the path may have been swapped
    // between the two calls.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(not_regular(what, path));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(what, path, &e))?;
    if bytes.len() as u64 > limit {
        let said = Message::new("error.fileTooLarge").with("path", &shown);
        return Err(AppError::input(
            what,
            format!("{shown} is larger than {limit} bytes"),
            format!("a file of at most {limit} bytes"),
        )
        .said(
            said,
            Some(Message::new("allowed.fileBytes").with("max", limit)),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        AppError::input(
            what,
            format!("{shown} is not UTF-8 text"),
            "a UTF-8 text file",
        )
        .said(
            Message::new("error.notUtf8").with("path", &shown),
            Some(Message::new("allowed.utf8")),
        )
    })?;
    Ok(as_lines(text))
}

/// Text as the parsers read it: without the byte-order mark an editor on
/// Windows adds (no part of TOML or JSON; it hid a file's first table, so
/// an unknown key was named without it), and with lines ended by `\n` when
/// an old editor ended them by `\r` alone (TOML reads no line breaks there
/// and named a whole file as one field).
fn as_lines(text: String) -> String {
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    };
    if text.contains('\r') && !text.contains('\n') {
        text.replace('\r', "\n")
    } else {
        text
    }
}

/// Writes `bytes` to `path` atomically: a new temporary file in the same
/// folder, then a rename over the target. (The app's save dialog has asked
/// before replacing a file; the CLI uses [`write_new`].)
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    write_file(path, bytes, Existing::Replace)
}

/// Writes `bytes` to `path` atomically unless `path` exists already (unless
/// `replace`): a file a student exported earlier is never overwritten by a
/// command they did not mean to aim at it. The check and the write are one
/// step (the rename refuses an existing target), so a file that appears
/// meanwhile is kept too.
pub fn write_new(path: &Path, bytes: &[u8], replace: bool) -> Result<(), AppError> {
    let mode = if replace {
        Existing::Replace
    } else {
        Existing::Keep
    };
    write_file(path, bytes, mode)
}

/// What to do when the target exists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Existing {
    Replace,
    Keep,
}

fn write_file(path: &Path, bytes: &[u8], existing: Existing) -> Result<(), AppError> {
    let is_link = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    // A link to nothing would read as "exists already" without --force and
    // as "does not exist" with it: one answer, naming what it is.
    if is_link && std::fs::metadata(path).is_err() {
        let shown = path.display().to_string();
        return Err(refuse_out(
            format!("{shown} is a link to a file that does not exist"),
            "a regular file",
            Message::new("error.danglingLink").with("path", &shown),
            "allowed.regular",
        ));
    }
    // A link is written through, as a shell's `>` would: the rename below
    // would replace the link itself, leaving the file it names as it was.
    let through;
    let path = if existing == Existing::Replace && is_link {
        through = std::fs::canonicalize(path).map_err(|e| AppError::io_at(path, &e))?;
        through.as_path()
    } else {
        path
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    usable_target(path, &dir)?;
    // Created with the usual mode for a new file (0666 less the umask, as
    // any program writes one: tempfile's own 0600 would hide an exported
    // pack from the classmates it is for); a file replaced keeps its mode.
    let mut tmp = new_file_beside(&dir, path).map_err(|e| AppError::io_at(path, &e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| AppError::io_at(path, &e))?;
    let exists = |e: &std::io::Error| e.kind() == std::io::ErrorKind::AlreadyExists;
    match existing {
        Existing::Replace => tmp.persist(path).map(drop),
        Existing::Keep => tmp.persist_noclobber(path).map(drop),
    }
    .map_err(|e| {
        if existing == Existing::Keep && exists(&e.error) {
            let shown = path.display().to_string();
            refuse_out(
                format!("{shown} exists already"),
                "a new file name, or --force to replace it",
                Message::new("error.fileExists").with("path", &shown),
                "allowed.forceReplace",
            )
        } else {
            AppError::io_at(path, &e.error)
        }
    })
}

/// Whether `path` in `dir` may be written: the folder is the user's choice,
/// so it must exist (a typo in a path must not create folders elsewhere),
/// and the target must be a file name, not a folder, a device or a pipe.
fn usable_target(path: &Path, dir: &Path) -> Result<(), AppError> {
    let shown = path.display().to_string();
    let folder = dir.display().to_string();
    // `x.toml/` names a folder, however the rename would word it.
    if shown.ends_with('/') || shown.ends_with(std::path::MAIN_SEPARATOR) {
        return Err(refuse_out(
            format!("{shown} ends with a slash"),
            "a file name in the folder",
            Message::new("error.endsWithSlash").with("path", &shown),
            "allowed.fileNotFolder",
        ));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(refuse_out(
            format!("{folder} is a file, not a folder"),
            "a file in an existing folder",
            Message::new("error.fileNotFolder").with("path", &folder),
            "allowed.inExistingFolder",
        ));
    }
    if !dir.is_dir() {
        return Err(refuse_out(
            format!("{folder} is not a folder that exists"),
            "a file in an existing folder",
            Message::new("error.noFolder").with("path", &folder),
            "allowed.inExistingFolder",
        ));
    }
    if path.is_dir() {
        return Err(refuse_out(
            format!("{shown} is a folder"),
            "a file name in the folder",
            Message::new("error.isFolder").with("path", &shown),
            "allowed.fileNotFolder",
        ));
    }
    // A device or pipe is never replaced by a file, --force or not: readers
    // refuse them too, and renaming over `/dev/null` as root would break
    // the system for everyone.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(not_regular("out", path));
    }
    Ok(())
}

/// An output path refused as bad input naming `out`.
fn refuse_out(english: String, allowed: &str, said: Message, allowed_key: &str) -> AppError {
    AppError::input("out", english, allowed).said(said, Some(Message::new(allowed_key)))
}

/// A temporary file in `dir` for `target`: mode 0666 less the umask, or the
/// existing target's permissions.
fn new_file_beside(dir: &Path, target: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    #[cfg(unix)]
    let builder = {
        use std::os::unix::fs::PermissionsExt as _;
        let mut b = tempfile::Builder::new();
        b.permissions(std::fs::Permissions::from_mode(0o666));
        b
    };
    // Elsewhere the platform's default permissions are the new file's.
    #[cfg(not(unix))]
    let builder = tempfile::Builder::new();
    let tmp = builder.tempfile_in(dir)?;
    if let Ok(meta) = std::fs::metadata(target) {
        // Replacing: the file keeps who may read it.
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    Ok(tmp)
}
