#!/usr/bin/env bash
# The Windows build, tested under Wine (full tier only; docs/installers.md):
# builds the installer and the portable zip (scripts/bundle-windows.sh), then
# scripts/test_windows.py installs silently into a fresh Wine prefix whose
# user has a Chinese name, checks every file and key the installer's script
# names, runs the installed gpuplan.exe through the README's examples and
# the cases that differ on Windows (backslash paths with spaces, %APPDATA%,
# CRLF plan files, UTF-8 and GBK consoles, LF scripts, the SQLite store
# killed mid-write), starts gpuplan-app.exe without WebView2, times the CLI,
# and uninstalls.
#
# Debian 12's Wine 8 lacks bcryptprimitives.dll!ProcessPrng, which Rust's
# standard library imports since 1.78; a stand-in built here from
# packaging/windows/wine-shim/ goes into the test prefix's system32 only.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

mapfile -t built < <(bash scripts/bundle-windows.sh)
[ "${#built[@]}" = 2 ] || { echo "bundle-windows.sh did not print the installer and the zip" >&2; exit 1; }

# The Linux CLI the Windows one is compared with: the same release profile
# and the same packages and features as the Windows build, so the two are
# built from the same dependency graph.
cargo build --locked --release -p gpuplan-app -p gpuplan-cli --features tauri/custom-protocol >&2

work="$(mktemp -d /tmp/gpuplan-wine.XXXXXX)"
export GPUPLAN_WINE_WORK="$work"
cleanup() {
  WINEPREFIX="$work/prefix" wineserver -k >/dev/null 2>&1 || true
  if [ -z "${KEEP_WINE_PREFIX:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

x86_64-w64-mingw32-gcc -O2 -shared -s -o "$work/bcryptprimitives.dll" \
  packaging/windows/wine-shim/bcryptprimitives.c packaging/windows/wine-shim/bcryptprimitives.def -ladvapi32

xvfb-run -a -s "-screen 0 1280x800x24" python3 scripts/test_windows.py \
  --setup "${built[0]}" --zip "${built[1]}" --stage "$CARGO_TARGET_DIR/windows/stage" \
  --linux-cli "$CARGO_TARGET_DIR/release/gpuplan" --shim "$work/bcryptprimitives.dll"
