//! Use case: the student's own prices (price overrides), kept apart from
//! the bundled data and applied over it.

use crate::userdata::{parse_amount, MAX_NOTE_CHARS, MAX_PRICE_PER_HOUR};
use crate::views::OverrideRow;
use crate::{Planner, Result};

impl Planner {
    /// Sets the user's price for a GPU on a platform; returns the stored row.
    pub fn set_override(
        &mut self,
        platform: &str,
        gpu: &str,
        price: &str,
        note: &str,
    ) -> Result<OverrideRow> {
        // A longer note is refused, never cut short under "saved".
        if note.chars().count() > MAX_NOTE_CHARS {
            return Err(crate::AppError::input(
                "note",
                format!("too long: at most {MAX_NOTE_CHARS} characters"),
                format!("a note of up to {MAX_NOTE_CHARS} characters"),
            )
            .said(
                gpuplan_core::Message::new("error.tooLong").with("max", MAX_NOTE_CHARS),
                Some(gpuplan_core::Message::new("allowed.upToChars").with("max", MAX_NOTE_CHARS)),
            ));
        }
        let price = parse_amount(
            "price",
            price,
            MAX_PRICE_PER_HOUR,
            crate::userdata::PRICE_PLACES,
        )?;
        let gpu_id = {
            let set = self.platforms()?;
            set.get(platform)?
                .offer(gpu, &self.bundled.catalog)?
                .gpu
                .clone()
        };
        let row = OverrideRow {
            platform: platform.trim().to_ascii_lowercase(),
            gpu: gpu_id,
            price_per_hour: price,
            note: note.to_owned(),
            set_on: Some(self.today().format("%Y-%m-%d").to_string()),
        };
        self.store()?.set_override(&gpuplan_store::StoredOverride {
            platform: row.platform.clone(),
            gpu: row.gpu.clone(),
            price: row.price_per_hour,
            note: row.note.clone(),
            set_on: row.set_on.clone(),
        })?;
        self.invalidate();
        Ok(row)
    }

    /// The user's overrides.
    pub fn overrides(&mut self) -> Result<Vec<OverrideRow>> {
        Ok(self
            .store()?
            .overrides()?
            .into_iter()
            .map(|o| OverrideRow {
                platform: o.platform,
                gpu: o.gpu,
                price_per_hour: o.price,
                note: o.note,
                set_on: o.set_on,
            })
            .collect())
    }

    /// Overrides that name an offer that no longer exists (kept, not
    /// applied); none when the database was not needed and is not open.
    pub fn unmatched_overrides(&mut self) -> Result<Vec<OverrideRow>> {
        if self.store.is_none() {
            return Ok(Vec::new());
        }
        Ok(self
            .layer()?
            .unmatched_overrides
            .iter()
            .map(|o| OverrideRow {
                platform: o.platform.clone(),
                gpu: o.gpu.clone(),
                price_per_hour: o.price_per_hour,
                note: o.note.clone(),
                set_on: o.observed.clone(),
            })
            .collect())
    }

    /// Removes every override.
    pub fn clear_overrides(&mut self) -> Result<()> {
        self.store()?.clear_overrides()?;
        self.invalidate();
        Ok(())
    }
}
