//! gpuplan's cross-crate and CLI tests, built as one test binary (one link
//! instead of one per file; see docs/testing.md). Each module is one area;
//! `common` holds the bundled data (parsed once per process), the CLI under
//! test and shared stand-ins.
//!
//! The binary belongs to the `gpuplan-cli` package so that Cargo builds the
//! `gpuplan` executable first and names it in `CARGO_BIN_EXE_gpuplan`: no
//! test ever runs cargo itself.

// Tests fail by panicking: unwrap, expect and assert are how they say so, and
// their arithmetic is on values they chose. Every other workspace lint applies.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod common;

mod accuracy;
mod architectures;
mod billing_properties;
mod billing_rules;
mod billing_timeline;
mod calibration;
mod cli;
mod cli_plans;
mod cross_card;
mod data_files;
mod error_language;
mod fuzz;
mod habits;
mod hostile;
mod hostile_cases;
mod imports;
mod ipc;
mod labels;
mod learning_loop;
mod limits;
mod one_place;
mod parallel;
mod parsers;
mod properties;
mod published_throughput;
mod qlora_presets;
mod quote_seeds;
mod ranking;
mod readme;
mod recommend_seeds;
mod run_reports;
mod scripts;
mod slurm;
mod steptime_setups;
mod unverified;
mod vision_attention;
mod whole_run;
