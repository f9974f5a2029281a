//! Crash safety: SIGKILL the writer in the middle of writing plans and ledger
//! entries, reopen, and find an intact database holding every committed row.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigkill_mid_write_loses_no_committed_row() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("crash.db");
    let mut committed_plans = Vec::new();
    let mut committed_ledger = Vec::new();
    for round in 0..5 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_store-crash-writer"))
            .arg(&db)
            .stdout(Stdio::piped())
            .spawn()
            .expect("writer starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let start = Instant::now();
        // Let it write for a varying while, then kill it without warning.
        let budget = Duration::from_millis(150 + 70 * round);
        while start.elapsed() < budget {
            match lines.next() {
                Some(Ok(l)) => {
                    let (kind, id) = l.split_once(' ').expect("kind id");
                    let id: i64 = id.parse().expect("id");
                    if kind == "plan" {
                        committed_plans.push(id)
                    } else {
                        committed_ledger.push(id)
                    }
                }
                _ => break,
            }
        }
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        // Lines already in the pipe were committed too.
        for l in lines.map_while(Result::ok) {
            if let Some((kind, id)) = l.split_once(' ') {
                let id: i64 = id.parse().expect("id");
                if kind == "plan" {
                    committed_plans.push(id)
                } else {
                    committed_ledger.push(id)
                }
            }
        }
        let store = gpuplan_store::Store::open(&db).expect("reopens after a kill");
        assert!(
            store.integrity_ok().expect("check"),
            "round {round}: PRAGMA integrity_check is ok"
        );
        let plans: std::collections::HashSet<i64> = store
            .list_plans()
            .expect("plans")
            .into_iter()
            .map(|p| p.id)
            .collect();
        let ledger: std::collections::HashSet<i64> = store
            .list_ledger()
            .expect("ledger")
            .into_iter()
            .map(|e| e.id)
            .collect();
        for id in &committed_plans {
            assert!(
                plans.contains(id),
                "round {round}: committed plan {id} survived the kill"
            );
        }
        for id in &committed_ledger {
            assert!(
                ledger.contains(id),
                "round {round}: committed ledger entry {id} survived the kill"
            );
        }
    }
    assert!(
        committed_plans.len() + committed_ledger.len() > 50,
        "the writer got far enough to make the test meaningful"
    );
}
