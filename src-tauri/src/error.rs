//! The one error type that crosses IPC: a tagged enum (`kind` + `detail`) the
//! UI branches on. No command returns a plain string as its error.

use serde::Serialize;
use ts_rs::TS;

/// Every way a command can fail.
#[derive(Debug, Clone, PartialEq, Serialize, TS, thiserror::Error)]
#[serde(tag = "kind", content = "detail", rename_all = "kebab-case")]
#[ts(export_to = "bindings/")]
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
    },
    /// A data file (plan, profile, course pack) is invalid.
    #[error("{file}:{line}: {field}: {message}")]
    Data {
        /// File.
        file: String,
        /// Line.
        line: u32,
        /// Field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The local database failed.
    #[error("storage: {message}")]
    Store {
        /// What happened.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("file: {message}")]
    Io {
        /// What happened.
        message: String,
    },
}

impl From<gpuplan_core::InputError> for AppError {
    fn from(e: gpuplan_core::InputError) -> Self {
        AppError::Input {
            field: e.field,
            message: e.message,
            allowed: e.allowed,
        }
    }
}

impl From<gpuplan_core::DataError> for AppError {
    fn from(e: gpuplan_core::DataError) -> Self {
        AppError::Data {
            file: e.file,
            line: u32::try_from(e.line).unwrap_or(u32::MAX),
            field: e.field,
            message: e.message,
        }
    }
}

impl From<gpuplan_store::StoreError> for AppError {
    fn from(e: gpuplan_store::StoreError) -> Self {
        AppError::Store {
            message: e.to_string(),
        }
    }
}

impl From<gpuplan_charts::ChartError> for AppError {
    fn from(e: gpuplan_charts::ChartError) -> Self {
        AppError::Io {
            message: e.to_string(),
        }
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::Io {
            message: e.to_string(),
        }
    }
}
