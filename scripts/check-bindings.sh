#!/usr/bin/env bash
# The TypeScript bindings in ui/src/bindings must be exactly what ts-rs
# generates from the Rust types that cross IPC: every type marked
# `#[ts(export)]` (and every type they use) in every crate, nothing stale,
# nothing missing.
#
#   check-bindings.sh                   exports them (cargo test) and compares
#   check-bindings.sh --exported DIR    compares a folder the test run already
#                                       exported (scripts/test.sh: no second
#                                       cargo invocation)
#   check-bindings.sh --update          rewrites ui/src/bindings
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-check}"
if [ "$mode" = "--exported" ]; then
  out="${2:?--exported needs the folder}"
  [ -d "$out" ] || { echo "no exported bindings in $out (did the tests run?)" >&2; exit 1; }
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
  TS_RS_EXPORT_DIR="$out" TS_RS_LARGE_INT=number \
    cargo test --locked --workspace --features tauri/custom-protocol --lib -q export_bindings_ >/dev/null
fi
if [ "$mode" = "--update" ]; then
  rm -rf ui/src/bindings
  mkdir -p ui/src/bindings
  cp "$out"/*.ts ui/src/bindings/
  echo "ui/src/bindings updated ($(ls "$out" | wc -l) files)"
  exit 0
fi
if ! diff -r "$out" ui/src/bindings; then
  echo "ui/src/bindings is stale: run scripts/check-bindings.sh --update and commit it" >&2
  exit 1
fi
echo "bindings: $(ls "$out" | wc -l) files, all fresh"
