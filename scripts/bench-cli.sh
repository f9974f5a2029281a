#!/usr/bin/env bash
# Median wall time of a `gpuplan estimate` process, end to end (release build).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --locked --release -p gpuplan-cli
for _ in $(seq 1 21); do
  s=$(date +%s%N)
  ./target/release/gpuplan estimate --model llama-2-7b --mode lora --seq-len 1024 --json >/dev/null
  e=$(date +%s%N)
  echo $(((e - s) / 1000))
done | sort -n | sed -n 11p | awk '{printf "median: %.1f ms\n", $1 / 1000}'
