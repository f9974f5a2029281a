#!/usr/bin/env bash
# Installs what gpuplan needs on a fresh Debian/Ubuntu machine. Idempotent:
# it only installs what is missing. Sourced by run.sh and test.sh.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
export PATH="$HOME/.cargo/bin:$PATH"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Build tools, the Tauri/WebKitGTK stack, Xvfb and the WebDriver for the
# end-to-end tests, and CJK fonts so Chinese renders.
APT_PKGS="build-essential pkg-config ca-certificates curl wget file libssl-dev \
libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev \
xvfb xauth webkit2gtk-driver imagemagick fonts-noto-cjk shellcheck python3"
command -v node >/dev/null 2>&1 || APT_PKGS="$APT_PKGS nodejs npm"
missing=""
for p in $APT_PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing system packages:$missing"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "gpuplan needs Node.js 20.19 or newer for Vite 8 (found $(node --version))" >&2
  exit 1
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "== installing the Rust toolchain (rustup)"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --default-toolchain none
fi
# rust-toolchain.toml pins the version; rustup fetches it on first use if absent.
cargo --version >/dev/null
