#!/usr/bin/env bash
# Measures the built desktop app for docs/performance.md: release binary size
# and time to first paint (the header's colour appearing on screen under Xvfb,
# polled with ImageMagick). Resident memory after walking the flow and the
# slider-to-screen time are printed by the e2e tests (run them against the
# release binary: TAURI_APP=target/release/gpuplan-app).
set -euo pipefail
cd "$(dirname "$0")/.."
APP=target/release/gpuplan-app
[ -x "$APP" ] || cargo build --locked --release -p gpuplan-app --features tauri/custom-protocol
echo "release binary: $(stat -c %s "$APP") bytes ($(du -h "$APP" | cut -f1))"
Xvfb :97 -screen 0 1280x800x24 -nolisten tcp &
XVFB=$!
trap 'kill $XVFB 2>/dev/null' EXIT
sleep 1
data=$(mktemp -d)
times=()
for _ in 1 2 3 4 5; do
  start=$(date +%s%N)
  XDG_DATA_HOME="$data" DISPLAY=:97 "$APP" &
  pid=$!
  while :; do
    px=$(/usr/bin/import -display :97 -window root -crop 1x1+640+4 txt:- 2>/dev/null | tail -1 || true)
    if echo "$px" | grep -q 'srgb(11,79,138)'; then break; fi
    if [ $(( ($(date +%s%N) - start) / 1000000 )) -gt 20000 ]; then echo "no paint in 20 s"; break; fi
  done
  end=$(date +%s%N)
  times+=($(( (end - start) / 1000000 )))
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  sleep 1
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "first paint (ms), 5 launches: $(echo "$sorted" | tr '\n' ' ')"
echo "median: $(echo "$sorted" | sed -n 3p) ms"
