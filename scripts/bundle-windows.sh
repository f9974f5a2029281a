#!/usr/bin/env bash
# Builds gpuplan for 64-bit Windows on this Linux machine: cross-compiles
# gpuplan-app.exe and gpuplan.exe (release profile, x86_64-pc-windows-gnu,
# linked by Debian's mingw-w64), then packages
#
#   target/windows/gpuplan_<version>_x64-setup.exe   NSIS installer (per user)
#   target/windows/gpuplan_<version>_x64-portable.zip the two .exe + WebView2Loader.dll
#
# Everything it needs comes from scripts/setup.sh (the Rust target, mingw-w64,
# nsis, zip); nothing is downloaded at build time beyond the crates Cargo.lock
# names. Prints the two artefacts' paths. See docs/installers.md; tested by
# scripts/test-windows.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
triple=x86_64-pc-windows-gnu
rel="$CARGO_TARGET_DIR/$triple/release"
out="$CARGO_TARGET_DIR/windows"

# The app embeds ui/dist when it is compiled.
if [ ! -f ui/dist/index.html ]; then
  [ -x ui/node_modules/.bin/vite ] || npm ci --prefix ui --no-audit --no-fund
  npm --prefix ui run build >&2
fi

# The same release profile as the .deb (Cargo.toml [profile.release]); the
# build scripts and proc macros run on the host and are shared with the
# Linux release build in target/release. The linker, the C compiler (SQLite)
# and the resource compiler (icon, version information, manifest) are
# mingw-w64's x86_64-w64-mingw32-*, the defaults of rustc and cc for this
# target.
cargo build --locked --release --target "$triple" -p gpuplan-app -p gpuplan-cli \
  --features tauri/custom-protocol >&2

version="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' src-tauri/tauri.conf.json | head -n 1)"
# The loader the app was linked against: webview2-com-sys's build script
# copies Microsoft's redistributable WebView2Loader.dll into its output folder.
loader="$(find "$rel"/build/webview2-com-sys-*/out/x64 -name WebView2Loader.dll -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)"

stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage"
cp "$rel/gpuplan-app.exe" "$rel/gpuplan.exe" "$loader" "$stage/"

# The GUI must not open a console window; the CLI must be a console program.
subsystem() { x86_64-w64-mingw32-objdump -p "$1" | sed -n 's/^Subsystem[[:space:]]*[0-9a-f]*[[:space:]]*//p'; }
[ "$(subsystem "$stage/gpuplan-app.exe")" = "(Windows GUI)" ] || { echo "gpuplan-app.exe is not a GUI program" >&2; exit 1; }
[ "$(subsystem "$stage/gpuplan.exe")" = "(Windows CUI)" ] || { echo "gpuplan.exe is not a console program" >&2; exit 1; }

setup="$out/gpuplan_${version}_x64-setup.exe"
zip="$out/gpuplan_${version}_x64-portable.zip"
rm -f "$setup" "$zip"
makensis -V2 -INPUTCHARSET UTF8 -DVERSION="$version" -DSRCDIR="$stage" -DOUTFILE="$setup" \
  -DICON="$PWD/src-tauri/icons/icon.ico" \
  packaging/windows/installer.nsi >&2
(cd "$stage" && zip -q -9 -X "$zip" gpuplan-app.exe gpuplan.exe WebView2Loader.dll)
printf '%s\n' "$setup" "$zip"
