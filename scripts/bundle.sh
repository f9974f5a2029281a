#!/usr/bin/env bash
# Builds the Linux installer (.deb) with the npm Tauri CLI. The bundle is
# switched on for this build only (tauri.conf.json keeps it off so everyday
# builds stay fast); the UI is built first by the same command. Prints the
# package's path. See docs/installers.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# The workspace target folder, shared with the tests: one place for the
# debug and release builds, no second copy of the dependencies.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
[ -x ui/node_modules/.bin/tauri ] || npm ci --prefix ui --no-audit --no-fund
ui/node_modules/.bin/tauri build --bundles deb --config \
  '{"bundle":{"active":true},"build":{"beforeBuildCommand":{"script":"npm --prefix ui run build","cwd":".."}}}' >&2
ls "$CARGO_TARGET_DIR"/release/bundle/deb/*.deb
