//! The few IPC shapes that belong to the desktop shell alone; everything else
//! crossing IPC is a core or use-case type, exported to TypeScript where it is
//! defined.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a file export writes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ExportKind {
    /// An SVG chart.
    Svg,
    /// A printable HTML report.
    Html,
    /// CSV.
    Csv,
    /// A script (.sh, .sbatch or .py).
    Script,
    /// A plan file (.toml).
    Plan,
    /// A chart rendered to PNG.
    Png,
    /// The student's measured runs for the instructor (JSON).
    Runs,
}

impl ExportKind {
    /// The file extensions an export of this kind may have.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Self::Svg => &["svg"],
            Self::Html => &["html"],
            Self::Csv => &["csv"],
            Self::Script => &["sh", "sbatch", "py"],
            Self::Plan => &["toml"],
            Self::Png => &["png"],
            Self::Runs => &["json"],
        }
    }

    /// The filter's name in the save dialog.
    pub fn label(self) -> &'static str {
        match self {
            Self::Svg => "SVG",
            Self::Html => "HTML",
            Self::Csv => "CSV",
            Self::Script => "Script",
            Self::Plan => "Plan (TOML)",
            Self::Png => "PNG",
            Self::Runs => "Measured runs (JSON)",
        }
    }
}
