//! Use case: saved plans, stored as plan files (TOML), listed and deleted.

use gpuplan_core::plan::Plan;
use gpuplan_core::recommend::Situation;
use gpuplan_store::PLAN_FORMAT_TOML;

use crate::userdata::{plan_error, plan_toml, MAX_NAME_CHARS};
use crate::views::SavedPlanRow;
use crate::{legacy, AppError, Planner, Result};

impl Planner {
    /// Saves a plan (new when `id` is `None`) as plan TOML; returns its id.
    pub fn save_plan(
        &mut self,
        id: Option<i64>,
        plan: &Plan,
        situation: Option<&Situation>,
    ) -> Result<i64> {
        let body = plan_toml(plan)?;
        // What is stored must read back as the same plan, validated.
        let back = Plan::from_toml("plan", &body)?;
        if &back != plan {
            return Err(AppError::io(
                "the plan does not survive a round trip through TOML",
            ));
        }
        let situation = situation
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| AppError::io(format!("situation: {e}")))?;
        let name: String = if plan.name.trim().is_empty() {
            "plan".to_owned()
        } else {
            plan.name.chars().take(MAX_NAME_CHARS).collect()
        };
        let now = self.now();
        let store = self.store()?;
        match id {
            Some(id) => {
                store.update_plan(id, &name, &body, situation.as_deref(), &now)?;
                Ok(id)
            }
            None => Ok(store.save_plan(&name, &body, situation.as_deref(), &now)?),
        }
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
    pub fn delete_plan(&mut self, id: i64) -> Result<()> {
        Ok(self.store()?.delete_plan(id)?)
    }
}
