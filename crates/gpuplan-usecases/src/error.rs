//! The one error type of the use cases. It crosses the app's IPC as a tagged
//! enum (`kind` + `detail`) the UI branches on, and the CLI maps its kinds to
//! exit codes (2 for bad input or a bad file, 1 for anything else).

use gpuplan_core::error::short;
use serde::Serialize;

/// Every way a use case can fail.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", content = "detail", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum AppError {
    /// A value the user entered is out of range or unknown.
    #[error("{field}: {message} (allowed: {allowed})")]
    Input {
        /// The field.
        field: String,
        /// What is wrong.
        message: String,
        /// The allowed range.
        allowed: String,
        /// The same as catalog keys, which the shells word in the user's
        /// language (absent where an error is not keyed yet).
        said: Option<Box<gpuplan_core::error::Said>>,
    },
    /// A data file (plan, profile, course pack) is invalid.
    #[error("{file}:{line}: {field}: {message}")]
    Data {
        /// File.
        file: String,
        /// Line (0 when unknown).
        line: u32,
        /// Field.
        field: String,
        /// What is wrong (English, for logs).
        message: String,
        /// The same as a catalog key, which the shells word in the user's
        /// language (absent where an error is not keyed yet).
        said: Option<Box<gpuplan_core::Message>>,
        /// What is allowed instead, as a catalog key, where the refusal was
        /// of a value's range.
        allowed: Option<Box<gpuplan_core::Message>>,
    },
    /// The local database failed.
    #[error("storage: {message}")]
    Store {
        /// What happened (English, for logs).
        message: String,
        /// The same in the catalog's words, where the failure is one a
        /// student can act on (busy, unwritable, too new, read-only).
        said: Option<Box<gpuplan_core::Message>>,
    },
    /// Reading or writing a file failed.
    #[error("file: {message}")]
    Io {
        /// What happened (English, for logs).
        message: String,
        /// The same in the catalog's words: which file, and the operating
        /// system's reason (`enum.io.*`), where it is known.
        said: Option<Box<gpuplan_core::Message>>,
    },
}

impl AppError {
    /// An input error naming `field`.
    pub fn input(field: &str, message: impl Into<String>, allowed: impl Into<String>) -> Self {
        Self::Input {
            field: short(field),
            message: short(&message.into()),
            allowed: short(&allowed.into()),
            said: None,
        }
    }

    /// The same error with its catalog keys (only input errors carry them).
    #[must_use]
    pub fn said(
        self,
        message: gpuplan_core::Message,
        allowed: Option<gpuplan_core::Message>,
    ) -> Self {
        match self {
            Self::Input {
                field,
                message: english,
                allowed: allowed_english,
                ..
            } => Self::Input {
                field,
                message: english,
                allowed: allowed_english,
                said: Some(Box::new(gpuplan_core::error::Said { message, allowed })),
            },
            other => other,
        }
    }

    /// `text` is not a number (`allowed` in words and as a key).
    pub fn not_a_number(field: &str, text: &str, allowed: (String, gpuplan_core::Message)) -> Self {
        gpuplan_core::InputError::not_a_number(field, &crate::userdata::excerpt(text), allowed)
            .into()
    }

    /// `value` is out of range.
    pub fn out_of_range(
        field: &str,
        value: impl std::fmt::Display,
        allowed: (String, gpuplan_core::Message),
    ) -> Self {
        gpuplan_core::InputError::out_of_range(field, value, allowed).into()
    }

    /// A state the use cases never reach (a database not open after
    /// opening it): said as such, so a student reports it.
    pub fn internal(what: &str) -> Self {
        Self::Store {
            message: what.to_owned(),
            said: Some(Box::new(
                gpuplan_core::Message::new("error.internal").with("what", what),
            )),
        }
    }

    /// An IO error with a message (kept short and inert like every error).
    pub fn io(message: impl Into<String>) -> Self {
        Self::Io {
            message: short(&message.into()),
            said: None,
        }
    }

    /// `path` could not be read or written, for the reason the operating
    /// system gave: the file the student named, never a temporary one
    /// beside it, and the reason in the catalog's words.
    pub fn io_at(path: &std::path::Path, e: &std::io::Error) -> Self {
        let shown = path.display().to_string();
        Self::Io {
            message: short(&format!("{shown}: {e}")),
            said: Some(Box::new(
                gpuplan_core::Message::new("error.fileAt")
                    .with("path", &shown)
                    .with("reason", io_reason_of(e)),
            )),
        }
    }

    /// Whether the user can fix it by changing what they typed or gave (the
    /// CLI's exit code 2).
    pub fn is_user_error(&self) -> bool {
        matches!(self, Self::Input { .. } | Self::Data { .. })
    }
}

impl From<gpuplan_core::InputError> for AppError {
    fn from(e: gpuplan_core::InputError) -> Self {
        Self::Input {
            field: e.field,
            message: e.message,
            allowed: e.allowed,
            said: e.said,
        }
    }
}

impl AppError {
    /// A refusal of a plan the app itself wrote out (its TOML is no file
    /// the student has, so no file and line to point at): the field's
    /// input error, as the form would have said it.
    pub fn of_own_plan(e: gpuplan_core::DataError) -> Self {
        Self::Input {
            field: e.field,
            message: e.message,
            allowed: String::new(),
            said: e.said.map(|m| {
                Box::new(gpuplan_core::error::Said {
                    message: *m,
                    allowed: e.allowed.map(|a| *a),
                })
            }),
        }
    }
}

impl From<gpuplan_core::DataError> for AppError {
    fn from(e: gpuplan_core::DataError) -> Self {
        Self::Data {
            file: e.file,
            line: u32::try_from(e.line).unwrap_or(u32::MAX),
            field: e.field,
            message: e.message,
            said: e.said,
            allowed: e.allowed,
        }
    }
}

impl From<gpuplan_store::StoreError> for AppError {
    fn from(e: gpuplan_store::StoreError) -> Self {
        use gpuplan_core::Message;
        use gpuplan_store::StoreError as E;
        let said = match &e {
            E::Busy { waited_s } => Some(Message::new("error.storeBusy").with("seconds", waited_s)),
            E::Unwritable { path, reason } => Some(
                Message::new("error.storeUnwritable")
                    .with("path", short(path))
                    .with("reason", io_reason(reason)),
            ),
            E::TooNew { found, known } => Some(
                Message::new("error.storeTooNew")
                    .with("found", found)
                    .with("known", known),
            ),
            E::ReadOnly { reason } => {
                Some(Message::new("error.storeReadOnly").with("reason", io_reason(reason)))
            }
            // A write that fails for the disk's sake (full, failing) is
            // said in the reader's words, not SQLite's.
            E::Sqlite(_) | E::Migration(_) => {
                let reason = io_reason(&e.to_string());
                reason
                    .starts_with("enum.io.")
                    .then(|| Message::new(&reason))
            }
            E::BadValue { what, value } => Some(
                Message::new("error.storeBadValue")
                    .with("what", short(what))
                    .with("value", short(value)),
            ),
            _ => None,
        };
        Self::Store {
            message: short(&e.to_string()),
            said: said.map(Box::new),
        }
    }
}

impl From<gpuplan_charts::ChartError> for AppError {
    fn from(e: gpuplan_charts::ChartError) -> Self {
        Self::io(e.to_string())
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        Self::io(e.to_string())
    }
}

impl AppError {
    /// The same error, its message saying which file it came from (a
    /// multi-file import or a hand-in names the file it refused).
    pub(crate) fn in_file(self, file: &str) -> Self {
        match self {
            AppError::Input {
                field,
                message,
                allowed,
                said,
            } if !message.contains(file) => AppError::Input {
                field,
                message: format!("{file}: {message}"),
                allowed,
                // The renderer puts a message's `file` before it.
                said: said.map(|s| {
                    Box::new(gpuplan_core::error::Said {
                        message: s.message.with("file", file),
                        ..*s
                    })
                }),
            },
            other => other,
        }
    }
}

/// The catalog's words for why a folder or file could not be used, from the
/// operating system's English text (its `os error N` code) or the store's;
/// the text itself, cut short, when neither is known.
/// An I/O error's reason in the catalog's words: by its kind first, which
/// every system reports alike (Windows' codes are not Linux's), then as
/// [`io_reason`] reads its text.
pub(crate) fn io_reason_of(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    let key = match e.kind() {
        K::NotFound => "enum.io.not-found",
        K::PermissionDenied => "enum.io.denied",
        K::AlreadyExists => "enum.io.exists",
        K::NotADirectory => "enum.io.not-folder",
        K::IsADirectory => "enum.io.is-folder",
        K::StorageFull => "enum.io.full",
        K::ReadOnlyFilesystem => "enum.io.read-only",
        _ => return io_reason(&e.to_string()),
    };
    key.to_owned()
}

fn io_reason(reason: &str) -> String {
    let code = reason
        .rsplit_once("os error ")
        .and_then(|(_, n)| n.trim_end_matches(')').parse::<i32>().ok());
    let key = match code {
        Some(2) => Some("enum.io.not-found"),
        Some(13 | 1) => Some("enum.io.denied"),
        Some(17) => Some("enum.io.exists"),
        Some(20) => Some("enum.io.not-folder"),
        Some(21) => Some("enum.io.is-folder"),
        Some(28) => Some("enum.io.full"),
        Some(30) => Some("enum.io.read-only"),
        _ if reason.contains("a folder is where the database file should be") => {
            Some("enum.io.folder-at-database")
        }
        _ if reason.contains("unable to open database file") => Some("enum.io.cannot-open"),
        _ if reason.contains("readonly database") => Some("enum.io.read-only-file"),
        _ if reason.contains("database or disk is full") => Some("enum.io.full"),
        _ if reason.contains("disk I/O error") => Some("enum.io.disk-failed"),
        _ => None,
    };
    key.map_or_else(|| short(reason), str::to_owned)
}
