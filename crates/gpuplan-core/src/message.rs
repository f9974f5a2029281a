//! What the core says to a student, as a key into the message catalog and
//! named parameters. The core never words anything itself: the CLI and the UI
//! translate keys from one catalog per language (`data/locales/`), so a
//! sentence exists once per language and both shells show the same one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A catalog key with its parameters (`{{name}}` placeholders in the text).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Message {
    /// Catalog key, e.g. `reason.course-container`.
    pub key: String,
    /// Values for the text's placeholders, already formatted.
    pub params: BTreeMap<String, String>,
}

impl Message {
    /// A message without parameters.
    pub fn new(key: &str) -> Self {
        Self {
            key: key.to_owned(),
            params: BTreeMap::new(),
        }
    }

    /// Adds a parameter.
    #[must_use]
    pub fn with(mut self, name: &str, value: impl std::fmt::Display) -> Self {
        self.params.insert(name.to_owned(), value.to_string());
        self
    }

    /// Adds a parameter that has a text in each language (a platform's
    /// name): `name.zh` and `name.en`, which the shells fill in as `name`
    /// in the language they show.
    #[must_use]
    pub fn with_both(self, name: &str, zh: &str, en: &str) -> Self {
        self.with(&format!("{name}.zh"), zh)
            .with(&format!("{name}.en"), en)
    }
}
