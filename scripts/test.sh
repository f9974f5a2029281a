#!/usr/bin/env bash
# Sets up the machine and runs the whole test suite: unit, property, CLI,
# snapshot and accuracy tests (the latter needs ../shared/calibration beside
# the repository, as on CI), plus a compile check of the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --locked --workspace --all-targets -- -D warnings
cargo test --locked --workspace
cargo bench --locked -p gpuplan-core --no-run
