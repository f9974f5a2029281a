//! Load: with 100,000 ledger entries and 1,000 saved plans, opening the
//! database and listing them stays under 200 ms (issue 6).

#![allow(
    clippy::expect_used,
    clippy::arithmetic_side_effects,
    reason = "a benchmark on fixed bundled data: a failure should stop it loudly"
)]

use criterion::{criterion_group, criterion_main, Criterion};
use gpuplan_store::Store;
use std::hint::black_box;

fn populate(path: &std::path::Path) {
    let _ = Store::open(path).expect("create");
    let mut conn = rusqlite::Connection::open(path).expect("open");
    let tx = conn.transaction().expect("tx");
    for i in 0..1_000 {
        tx.execute(
            "INSERT INTO plans (name, body, created_at, updated_at) VALUES (?1, ?2, 't', ?3)",
            rusqlite::params![
                format!("plan {i}"),
                "{\"name\":\"x\"}",
                format!("2026-{:02}-01", 1 + i % 12)
            ],
        )
        .expect("plan");
    }
    for i in 0..100_000 {
        tx.execute(
            "INSERT INTO ledger (date, platform, gpu, hours, cost, problems, created_at) VALUES (?1, 'autodl', 'rtx3090', ?2, ?3, '', 't')",
            rusqlite::params![format!("20{:02}-{:02}-{:02}", 20 + i % 7, 1 + i % 12, 1 + i % 28), format!("{}.5", i % 10), format!("{}.25", i % 100)],
        )
        .expect("ledger");
    }
    tx.commit().expect("commit");
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("load.db");
    populate(&path);
    c.bench_function("open_and_list_100k_ledger_1k_plans", |b| {
        b.iter(|| {
            let s = Store::open(&path).expect("open");
            black_box(s.list_plans().expect("plans").len());
            black_box(s.ledger_page(200).expect("ledger").len());
            black_box(s.spend_by_month().expect("months").len());
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
