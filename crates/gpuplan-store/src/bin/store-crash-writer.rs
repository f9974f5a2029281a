//! Test helper for the crash-safety test: writes plans and ledger entries to
//! the database named on the command line as fast as it can, printing each
//! committed row's id after its transaction commits, until it is killed.

use std::io::Write;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: store-crash-writer DB");
        std::process::exit(2);
    };
    let mut store = match gpuplan_store::Store::open(std::path::Path::new(&path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let mut out = std::io::stdout().lock();
    for i in 0u64.. {
        let result = if i % 2 == 0 {
            store
                .save_plan(&format!("plan {i}"), &format!("{{\"i\":{i}}}"), None, "t")
                .map(|id| format!("plan {id}"))
        } else {
            let e = gpuplan_store::LedgerEntry {
                id: 0,
                date: "2026-11-30".into(),
                platform: "autodl".into(),
                gpu: "rtx3090".into(),
                hours: rust_decimal::Decimal::from(i),
                cost: rust_decimal::Decimal::new(i64::try_from(i).unwrap_or(0), 2),
                problems: String::new(),
                plan_id: None,
                planned_cost: None,
            };
            store.add_ledger(&e, "t").map(|id| format!("ledger {id}"))
        };
        match result {
            Ok(line) => {
                // Printed only after the commit returned: everything printed must survive.
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }
}
