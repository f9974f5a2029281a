//! Use case: course packs, imported, listed and removed; a course's
//! platforms.

use std::path::Path;

use gpuplan_core::pack::CoursePack;

use crate::userdata::{excerpt, listed, MAX_PACKS};
use crate::views::PackRow;
use crate::{files, AppError, Planner, Result};

impl Planner {
    /// Validates and imports a course pack's text (`file` names it in errors).
    pub fn import_pack(&mut self, file: &str, text: &str) -> Result<CoursePack> {
        let pack = match CoursePack::from_toml(file, text, &self.bundled.catalog, &self.bundled.zoo)
        {
            Ok(p) => p,
            // A plan file opened as a pack is the common mistake: say what
            // the file is and where it belongs rather than which field a
            // pack does not have.
            Err(_) if gpuplan_core::plan::Plan::from_toml(file, text).is_ok() => {
                return Err(AppError::input(
                    "pack",
                    "this is a plan file, not a course pack",
                    "open plans with `gpuplan quote FILE` or save them in the app; a course pack starts with [pack]",
                )
                .said(
                    gpuplan_core::Message::new("error.planNotPack"),
                    Some(gpuplan_core::Message::new("allowed.planNotPack")),
                ))
            }
            Err(e) => return Err(e.into()),
        };
        // A price seen in the future would never look stale: refused. A day
        // of slack covers a teacher a time zone ahead.
        let now = (self.clock)();
        let latest = now
            .checked_add_signed(chrono::Duration::days(1))
            .unwrap_or(now)
            .format("%Y-%m-%d")
            .to_string();
        if let Some((field, date)) = pack.dated_after(&latest) {
            // Located at the line that writes it, as every other refusal
            // of a pack file is (the date quoted finds the line).
            let e = gpuplan_core::InputError::new(
                &field,
                format!("`{date}` is after today"),
                "a date on or before today",
            )
            .said(
                gpuplan_core::Message::new("error.dateInFuture").with("value", &date),
                Some(gpuplan_core::Message::new("allowed.dateNotAfterToday")),
            );
            return Err(match gpuplan_core::DataError::at_value(file, text, e) {
                Ok(located) => located.into(),
                Err(e) => e.into(),
            });
        }
        // Every command loads every pack, so their number is capped; a pack
        // with the name of an imported one replaces it and does not count.
        let replaces = self
            .store()?
            .packs()?
            .iter()
            .any(|p| p.name == pack.pack.name);
        let before = offer_prices(&*self.platforms()?);
        let choosing_before = self.course_choosing_platforms()?;
        let replaced = self
            .loaded_packs()?
            .into_iter()
            .find(|p| p.pack.name == pack.pack.name);
        let cap_before = replaced.as_ref().map(|p| p.pack.budget_cap);
        // A preset the earlier import had and this one drops leaves the
        // app's list without a word: said with the replacement.
        let dropped: Vec<String> = replaced
            .iter()
            .flat_map(|p| p.presets.iter())
            .map(|p| p.name.localized())
            .filter(|name| !pack.presets.iter().any(|q| q.name.localized() == *name))
            .map(|name| match name.zh == name.en {
                true => excerpt(&name.en),
                false => excerpt(&format!("{} / {}", name.zh, name.en)),
            })
            .collect();
        let now = self.now();
        let saved = self
            .store()?
            .save_pack(&pack.pack.name, text, &now, MAX_PACKS)?;
        self.invalidate();
        if saved.is_none() {
            return Err(AppError::input(
                "pack",
                format!("{MAX_PACKS} packs are imported already"),
                format!("at most {MAX_PACKS}; remove one with `gpuplan pack remove`"),
            )
            .said(
                gpuplan_core::Message::new("error.tooManyPacks").with("max", MAX_PACKS),
                Some(gpuplan_core::Message::new("allowed.removeAPack").with("max", MAX_PACKS)),
            ));
        }
        if replaces {
            // Same course, newer file: say so, since the old one is gone.
            self.add_notice(
                gpuplan_core::Message::new("notice.packReplaced")
                    .with("name", excerpt(&pack.pack.name)),
            );
        }
        if !dropped.is_empty() {
            self.add_notice(
                gpuplan_core::Message::new("notice.packDroppedPresets")
                    .with("name", excerpt(&pack.pack.name))
                    .with("list", listed(&dropped)),
            );
        }
        self.tell_what_the_pack_changed(&pack, &before, choosing_before, cap_before)?;
        Ok(pack)
    }

    /// A pack changes the prices a student sees without their asking: each
    /// price it moved, each of the student's own prices that stays in use
    /// over the course's, a course's new budget cap (`cap_before`: the
    /// replaced import's), and a course that no longer chooses the
    /// platforms, are said at import.
    fn tell_what_the_pack_changed(
        &mut self,
        pack: &CoursePack,
        before: &OfferPrices,
        choosing_before: Option<String>,
        cap_before: Option<Option<rust_decimal::Decimal>>,
    ) -> Result<()> {
        if let Some(was) = cap_before.filter(|was| *was != pack.pack.budget_cap) {
            let shown = |c: Option<rust_decimal::Decimal>| {
                c.map_or_else(|| "—".to_owned(), |c| c.normalize().to_string())
            };
            self.add_notice(
                gpuplan_core::Message::new("notice.packCapChanged")
                    .with("before", shown(was))
                    .with("after", shown(pack.pack.budget_cap)),
            );
        }
        let after = offer_prices(&*self.platforms()?);
        self.tell_moved_prices(before, &after, "notice.packMovedPrices");
        let mut own = Vec::new();
        for p in &pack.platforms {
            for o in &p.offers {
                let key = (p.id.clone(), o.gpu.clone());
                let Some(now) = after.get(&key) else { continue };
                // Only the student's own price stands between the pack's
                // offer and what quotes use.
                let course = o.price_per_hour.typical;
                if *now != course {
                    own.push(format!("{} {} {now} ({course})", p.id, o.gpu));
                }
            }
        }
        if !own.is_empty() {
            self.add_notice(
                gpuplan_core::Message::new("notice.packOwnPrices").with("list", listed(&own)),
            );
        }
        if let Some(earlier) = choosing_before.filter(|c| *c != pack.pack.name) {
            self.add_notice(
                gpuplan_core::Message::new("notice.packChoosesNow")
                    .with("name", excerpt(&pack.pack.name))
                    .with("earlier", excerpt(&earlier)),
            );
        }
        Ok(())
    }

    /// Each offer's price that differs between `before` and `after`, said
    /// under `key` (a pack imported or removed moves them unasked).
    fn tell_moved_prices(&mut self, before: &OfferPrices, after: &OfferPrices, key: &str) {
        let moved: Vec<String> = after
            .iter()
            .filter_map(|((platform, gpu), now)| {
                let was = before.get(&(platform.clone(), gpu.clone()))?;
                (was != now).then(|| format!("{platform} {gpu} {was} → {now}"))
            })
            .collect();
        if !moved.is_empty() {
            self.add_notice(gpuplan_core::Message::new(key).with("list", listed(&moved)));
        }
    }

    /// Imports the course pack in a file.
    pub fn import_pack_file(&mut self, path: &Path) -> Result<CoursePack> {
        let text = files::read_text(path, "pack", files::MAX_USER_FILE_BYTES)?;
        self.import_pack(&path.display().to_string(), &text)
    }

    /// Removes an imported pack by course name.
    pub fn remove_pack(&mut self, name: &str) -> Result<()> {
        let before = offer_prices(&*self.platforms()?);
        let choosing_before = self.course_choosing_platforms()?;
        if self.store()?.delete_pack(name)? {
            self.invalidate();
            // The prices and the platforms a recommendation chooses among
            // go back without the pack: said, as its import said them.
            let after = offer_prices(&*self.platforms()?);
            self.tell_moved_prices(&before, &after, "notice.packRemovedPrices");
            if choosing_before.as_deref() == Some(name) {
                let said = match self.course_choosing_platforms()? {
                    Some(now) => gpuplan_core::Message::new("notice.packChoosesNow")
                        .with("name", excerpt(&now))
                        .with("earlier", excerpt(name)),
                    None => gpuplan_core::Message::new("notice.noPackChooses")
                        .with("earlier", excerpt(name)),
                };
                self.add_notice(said);
            }
            Ok(())
        } else {
            let names: Vec<String> = self.packs()?.into_iter().map(|p| p.name).collect();
            Err(AppError::input(
                "pack",
                format!("no imported pack is named `{}`", excerpt(name)),
                if names.is_empty() {
                    "no packs are imported".to_owned()
                } else {
                    names.join(", ")
                },
            )
            .said(
                gpuplan_core::Message::new("error.noSuchPack").with("name", excerpt(name)),
                Some(if names.is_empty() {
                    gpuplan_core::Message::new("allowed.noPacks")
                } else {
                    gpuplan_core::Message::new("error.oneOf").with("list", names.join(", "))
                }),
            ))
        }
    }

    /// Imported packs, each with its error if it no longer loads.
    pub fn packs(&mut self) -> Result<Vec<PackRow>> {
        Ok(self
            .layer()?
            .packs
            .iter()
            .map(|p| match &p.pack {
                Ok(pack) => PackRow {
                    name: p.name.clone(),
                    platforms: pack.platforms.len(),
                    presets: pack.presets.len(),
                    imported_at: p.imported_at.clone(),
                    error: None,
                },
                Err(e) => PackRow {
                    name: p.name.clone(),
                    platforms: 0,
                    presets: 0,
                    imported_at: p.imported_at.clone(),
                    error: Some(e.to_string()),
                },
            })
            .collect())
    }

    /// The imported packs that load, oldest first.
    /// The platforms a student chooses among: all of them, or only the
    /// course's when the newest course pack names its platforms (the
    /// instructor chose them for the class). Quotes of a saved plan still
    /// use every platform.
    pub fn course_platforms(
        &mut self,
    ) -> Result<std::sync::Arc<gpuplan_core::platform::PlatformSet>> {
        let all = self.platforms()?;
        let ids: Vec<String> = self
            .loaded_packs()?
            .last()
            .map(|p| p.platforms.iter().map(|x| x.id.clone()).collect())
            .unwrap_or_default();
        if ids.is_empty() {
            return Ok(all);
        }
        Ok(std::sync::Arc::new(gpuplan_core::platform::PlatformSet {
            platforms: all
                .platforms
                .iter()
                .filter(|p| ids.contains(&p.id))
                .cloned()
                .collect(),
        }))
    }

    /// The course whose pack chose the platforms a student chooses among
    /// (see [`Planner::course_platforms`]), when one did.
    pub(crate) fn course_choosing_platforms(&mut self) -> Result<Option<String>> {
        Ok(self
            .loaded_packs()?
            .last()
            .filter(|p| !p.platforms.is_empty())
            .map(|p| p.pack.name.clone()))
    }

    /// Which course pack each replaced platform's figures came from (the
    /// newest import of a platform wins, as it does for the figures).
    pub(crate) fn pack_of_platforms(&mut self) -> Result<PackOfPlatform> {
        let mut of = std::collections::BTreeMap::new();
        for p in self.loaded_packs()? {
            for profile in &p.platforms {
                of.insert(profile.id.clone(), p.pack.name.clone());
            }
        }
        Ok(of)
    }

    pub(crate) fn loaded_packs(&mut self) -> Result<Vec<CoursePack>> {
        Ok(self
            .layer()?
            .packs
            .iter()
            .filter_map(|p| p.pack.as_ref().ok().cloned())
            .collect())
    }
}

/// Platform id -> the name of the course pack whose figures it shows.
pub(crate) type PackOfPlatform = std::collections::BTreeMap<String, String>;

/// The price per hour quotes take for each (platform, card) offer.
type OfferPrices = std::collections::BTreeMap<(String, String), rust_decimal::Decimal>;

fn offer_prices(set: &gpuplan_core::platform::PlatformSet) -> OfferPrices {
    set.platforms
        .iter()
        .flat_map(|p| {
            p.offers.iter().map(move |o| {
                (
                    (p.id.clone(), o.gpu.clone()),
                    o.price_per_hour.typical.normalize(),
                )
            })
        })
        .collect()
}
