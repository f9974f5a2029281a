#!/usr/bin/env bash
# Sets up the machine, builds the desktop app (release) and starts it.
# Without a display it runs under Xvfb and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
npm ci --prefix ui --no-audit --no-fund
npm --prefix ui run build
cargo build --locked --release -p gpuplan-app -p gpuplan-cli --features tauri/custom-protocol
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec ./target/release/gpuplan-app
fi
echo "No display found: starting the app under Xvfb (screenshot with: import -display :99 -window root shot.png)."
Xvfb :99 -screen 0 1280x800x24 -nolisten tcp &
sleep 1
DISPLAY=:99 exec ./target/release/gpuplan-app
