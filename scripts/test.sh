#!/usr/bin/env bash
# gpuplan's test command, in two tiers (docs/testing.md):
#
#   bash scripts/test.sh --fast   every change: formatting, lints, every unit,
#                                 property (few cases), CLI and use-case test,
#                                 the UI's type check and unit tests, the
#                                 TypeScript bindings' freshness.
#   bash scripts/test.sh          CI (.ci/run): the fast tier's checks plus the
#                                 real Slurm, long property runs, a fuzz smoke
#                                 run, the end-to-end tests of the built app
#                                 under Xvfb (shuffled, with accessibility and
#                                 screenshot checks), the benchmarks' build,
#                                 and the .deb built, installed and started.
#
# Everything it needs is in the repository or installed by setup.sh; nothing
# beside the clone is read. One target directory and one feature set serve
# every cargo command (clippy, the tests, the app, the release bundle), so
# nothing is compiled twice for the same profile.
set -euo pipefail
cd "$(dirname "$0")/.."

tier=full
case "${1:-}" in
  --fast) tier=fast ;;
  --full | "") tier=full ;;
  *) echo "usage: bash scripts/test.sh [--fast]" >&2; exit 2 ;;
esac

started=$SECONDS
phase_start=$SECONDS
phase() {
  local now=$SECONDS
  if [ -n "${phase_name:-}" ]; then
    printf '   (%s: %ds)\n' "$phase_name" "$((now - phase_start))"
  fi
  phase_name="$1"
  phase_start=$now
  echo "== $1"
}

source scripts/setup.sh
# One feature set for every cargo command (see docs/ARCHITECTURE.md).
FEATURES=(--features tauri/custom-protocol)

phase "UI: install, type-check, unit tests"
# npm ci wipes node_modules; the fast tier reuses it while the lock file is
# unchanged (npm writes its own copy of the lock into node_modules).
ui_deps_fresh() { cmp -s "$1/package-lock.json" "$1/node_modules/.package-lock.json" 2>/dev/null || [ "$1/node_modules/.package-lock.json" -nt "$1/package-lock.json" ]; }
if [ "$tier" = full ] || ! ui_deps_fresh ui; then npm ci --prefix ui --no-audit --no-fund; fi
npm --prefix ui run check
npm --prefix ui test
# The app embeds ui/dist when it is compiled: it must exist first.
if [ "$tier" = full ] || [ ! -f ui/dist/index.html ]; then npm --prefix ui run build; fi

phase "Rust: format and lints"
cargo fmt --all -- --check
if [ "$tier" = full ]; then
  # All targets: the benchmarks are compiled (checked) here, and only here.
  cargo clippy --locked --workspace --all-targets "${FEATURES[@]}" -- -D warnings
else
  cargo clippy --locked --workspace --lib --bins --tests "${FEATURES[@]}" -- -D warnings
fi

phase "Rust: build and run the tests (nextest, profile $tier)"
# ts-rs writes the IPC types' declarations while the tests run: start from
# an empty folder so the comparison below sees nothing stale.
rm -rf target/ts-bindings
if [ "$tier" = full ]; then
  # The real-Slurm test never skips here: setup.sh installed slurm-wlm and
  # munge, and CI runs as root.
  GPUPLAN_REQUIRE_SLURM=1 PROPTEST_CASES="${PROPTEST_CASES:-1000}" \
    cargo nextest run --locked --workspace "${FEATURES[@]}" --profile full
else
  PROPTEST_CASES="${PROPTEST_CASES:-24}" \
    cargo nextest run --locked --workspace "${FEATURES[@]}" --profile fast
fi

phase "TypeScript bindings are what the Rust types generate"
bash scripts/check-bindings.sh --exported target/ts-bindings

if [ "$tier" = fast ]; then
  phase "done"
  echo "fast tier passed in $((SECONDS - started)) s"
  exit 0
fi

phase "fuzz smoke run: every long-running fuzz target for a few seconds"
GPUPLAN_FUZZ_SECONDS="${GPUPLAN_FUZZ_SECONDS:-5}" \
  cargo nextest run --locked --workspace "${FEATURES[@]}" --profile full --run-ignored only -E 'binary(integration) & test(/^fuzz::/)'

phase "end-to-end tests of the built app, in a shuffled order (screenshots in e2e/screenshots/)"
# The test run built the CLI (the integration tests run it) but not the app.
cargo build --locked --workspace --bins "${FEATURES[@]}"
command -v tauri-driver >/dev/null 2>&1 || cargo install tauri-driver --locked --version '^2'
npm ci --prefix e2e --no-audit --no-fund
TAURI_APP="$PWD/target/debug/gpuplan-app" GPUPLAN_CLI="$PWD/target/debug/gpuplan" TAURI_DRIVER="$(command -v tauri-driver)" \
  GPUPLAN_E2E_SHUFFLE="${GPUPLAN_E2E_SHUFFLE:-$RANDOM}" \
  timeout 1200 xvfb-run -a -s "-screen 0 1280x800x24" npm --prefix e2e test

phase "installer: build the .deb (release, same target folder), install it with dpkg and start it"
bash scripts/bundle.sh
bash scripts/test-deb.sh

phase "Windows: cross-build the installer and portable zip, install and test them under Wine (docs/installers.md)"
bash scripts/test-windows.sh

phase "done"
echo "full tier passed in $((SECONDS - started)) s"
