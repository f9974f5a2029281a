#!/usr/bin/env bash
# Sets up the machine and runs the whole test suite: UI type checks and Vitest,
# Rust formatting, lints, unit/property/CLI/snapshot/accuracy tests, the
# benchmarks' compilation, the TypeScript bindings' freshness, and the
# end-to-end tests of the built app under Xvfb. Everything it needs is in the
# repository or installed by setup.sh; nothing beside the clone is read.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

echo "== tauri-driver"
command -v tauri-driver >/dev/null 2>&1 || cargo install tauri-driver --locked --version '^2'

echo "== UI: install, type-check, build, unit tests"
npm ci --prefix ui --no-audit --no-fund
npm ci --prefix e2e --no-audit --no-fund
npm --prefix ui run build
npm --prefix ui test

echo "== Rust: format, lints, build, tests (one feature set, see docs/ARCHITECTURE.md)"
cargo fmt --all -- --check
cargo clippy --locked --workspace --all-targets --features tauri/custom-protocol -- -D warnings
cargo build --locked -p gpuplan-app -p gpuplan-cli --features tauri/custom-protocol
# The real-Slurm test (tests/tests/slurm.rs) never skips here: setup.sh
# installed slurm-wlm and munge, and CI runs as root.
GPUPLAN_REQUIRE_SLURM=1 cargo test --locked --workspace --features tauri/custom-protocol
cargo build --locked -p gpuplan-core -p gpuplan-store --benches

echo "== TypeScript bindings are what the Rust types generate"
bash scripts/check-bindings.sh

echo "== end-to-end tests of the built app (screenshots in e2e/screenshots/)"
TAURI_APP="$PWD/target/debug/gpuplan-app" GPUPLAN_CLI="$PWD/target/debug/gpuplan" TAURI_DRIVER="$(command -v tauri-driver)" \
  timeout 1200 xvfb-run -a -s "-screen 0 1280x800x24" npm --prefix e2e test

echo "== installer: build the .deb, install it with dpkg and run the installed app (docs/installers.md)"
bash scripts/bundle.sh
bash scripts/test-deb.sh
