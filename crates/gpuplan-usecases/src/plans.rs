//! Use case: saved plans, stored as plan files (TOML), listed and deleted.

use gpuplan_core::plan::Plan;
use gpuplan_core::recommend::Situation;
use gpuplan_store::PLAN_FORMAT_TOML;

use crate::userdata::{plan_error, plan_toml, MAX_NAME_CHARS};
use crate::views::{DeletedPlan, ImportedPlan, SavedPlanRow};
use crate::{legacy, AppError, Planner, Result};

impl Planner {
    /// Saves a plan (new when `id` is `None`) as plan TOML; returns its id.
    pub fn save_plan(
        &mut self,
        id: Option<i64>,
        plan: &Plan,
        situation: Option<&Situation>,
    ) -> Result<i64> {
        let stored = StoredPlan::of(plan, situation)?;
        let now = self.now();
        let store = self.store()?;
        match id {
            Some(id) => match store.update_plan(
                id,
                &stored.name,
                &stored.body,
                stored.situation.as_deref(),
                &now,
            ) {
                Ok(()) => Ok(id),
                // Deleted meanwhile (by the CLI, or another window): say so
                // by field, so the app offers to save it as a new plan.
                Err(gpuplan_store::StoreError::NotFound { .. }) => Err(no_such_plan(id)),
                Err(e) => Err(e.into()),
            },
            None => Ok(store.save_plan(
                &stored.name,
                &stored.body,
                stored.situation.as_deref(),
                &now,
            )?),
        }
    }

    /// A plan file saved as a new saved plan, once: a file whose plan is
    /// already saved (imported twice, or exported and brought back) names
    /// the saved plan instead of adding a second copy. Only a plan that
    /// prices is kept, as the app keeps what it priced: one the quote
    /// refuses would be a saved plan nobody can open. The look for a copy
    /// and the save are one transaction, so two imports of one file at once
    /// still save it once.
    pub fn import_plan(&mut self, path: &std::path::Path) -> Result<ImportedPlan> {
        let plan = self.read_plan(path)?;
        let stored = StoredPlan::of(&plan, None)?;
        let now = self.now();
        let (id, already_saved) =
            self.store()?
                .save_plan_once(&stored.name, &stored.body, &now, |row| {
                    saved_as(row).is_some_and(|saved| saved == plan)
                })?;
        Ok(ImportedPlan {
            id,
            name: plan.name,
            already_saved,
        })
    }

    /// Saved plans, newest first; one that no longer validates carries its
    /// error. Plans saved by the first app release are converted to plan TOML
    /// on the way (the old text is replaced only when the conversion succeeds).
    pub fn plans(&mut self) -> Result<Vec<SavedPlanRow>> {
        let rows = self.store()?.list_plans()?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let file = format!("saved plan {}", r.id);
            let (toml_text, parsed) = if r.format == PLAN_FORMAT_TOML {
                let parsed = Plan::from_toml(&file, &r.body).map_err(AppError::from);
                (r.body.clone(), parsed)
            } else {
                match legacy::plan_from_app_json(&r.body) {
                    Ok(plan) => {
                        let text = plan_toml(&plan)?;
                        self.store()?.convert_plan(r.id, &text)?;
                        (text, Ok(plan))
                    }
                    Err(e) => (r.body.clone(), Err(e)),
                }
            };
            let situation = r
                .situation
                .as_deref()
                .and_then(|s| serde_json::from_str::<Situation>(s).ok());
            out.push(SavedPlanRow {
                id: r.id,
                name: r.name,
                updated_at: r.updated_at,
                error: parsed.as_ref().err().map(plan_error),
                plan: parsed.ok(),
                situation,
                toml: toml_text,
            });
        }
        Ok(out)
    }

    /// Deletes a saved plan (ledger entries keep their data, unlinked).
    pub fn delete_plan(&mut self, id: i64) -> Result<DeletedPlan> {
        let (row, ledger_ids) = self
            .store()?
            .delete_plan(id)?
            .ok_or_else(|| no_such_plan(id))?;
        Ok(DeletedPlan {
            id: row.id,
            name: row.name,
            body: row.body,
            format: row.format,
            situation: row.situation,
            created_at: row.created_at,
            updated_at: row.updated_at,
            ledger_ids,
        })
    }

    /// Puts a deleted plan back as it was (undo): its own id when free, its
    /// dates, and the ledger entries that named it linked again.
    pub fn restore_plan(&mut self, plan: &DeletedPlan) -> Result<i64> {
        let row = gpuplan_store::SavedPlan {
            id: plan.id,
            name: plan.name.chars().take(MAX_NAME_CHARS).collect(),
            body: plan.body.clone(),
            format: plan.format.clone(),
            situation: plan.situation.clone(),
            created_at: plan.created_at.clone(),
            updated_at: plan.updated_at.clone(),
        };
        Ok(self.store()?.restore_plan(&row, &plan.ledger_ids)?)
    }
}

/// A saved plan that is not there (deleted meanwhile), by field.
fn no_such_plan(id: i64) -> AppError {
    AppError::input(
        "id",
        format!("no saved plan {id}"),
        "an id from the saved plans (gpuplan plans list)",
    )
    .said(
        gpuplan_core::Message::new("error.noSuchPlan").with("id", id),
        Some(gpuplan_core::Message::new("allowed.planId")),
    )
}

/// A plan as the store keeps it: its shown name, its TOML body (checked to
/// read back as the same plan) and the situation it was recommended for.
struct StoredPlan {
    name: String,
    body: String,
    situation: Option<String>,
}

impl StoredPlan {
    fn of(plan: &Plan, situation: Option<&Situation>) -> Result<Self> {
        let body = plan_toml(plan)?;
        // What is stored must read back as the same plan, validated.
        let back = Plan::from_toml("plan", &body).map_err(AppError::of_own_plan)?;
        if &back != plan {
            return Err(AppError::io(
                "the plan does not survive a round trip through TOML",
            ));
        }
        let situation = situation
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| AppError::io(format!("situation: {e}")))?;
        // An unnamed plan is listed by its platform and card ids, which
        // read the same in every language (not an English "plan").
        let name: String = if plan.name.trim().is_empty() {
            format!("{}-{}", plan.platform, plan.gpu)
        } else {
            plan.name.chars().take(MAX_NAME_CHARS).collect()
        };
        Ok(Self {
            name,
            body,
            situation,
        })
    }
}

/// The plan a saved row holds, in either stored format; `None` when it no
/// longer reads (such a row is never the copy of a valid plan).
fn saved_as(row: &gpuplan_store::SavedPlan) -> Option<Plan> {
    if row.format == PLAN_FORMAT_TOML {
        Plan::from_toml("saved plan", &row.body).ok()
    } else {
        legacy::plan_from_app_json(&row.body).ok()
    }
}
