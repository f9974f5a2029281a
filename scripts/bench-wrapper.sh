#!/usr/bin/env bash
# What the shutdown wrapper costs a chatty job: the median wall time of a
# job that prints a million progress lines (a Python loop doing a little
# work per line), run as a student runs it (output to a log file, as with
# nohup) plain and under the generated wrapper (stand-ins for nvidia-smi
# and shutdown), 7 runs each, interleaved. Prints both medians and the
# overhead. Wall times here are noisy: compare the ratio of one run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --locked -p gpuplan-cli
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\nexit 0\n' > "$work/shutdown"
cat > "$work/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
  *gpu_bus_id,used_memory*) echo '00000000:01:00.0, 9000' ;;
  *index,pci.bus_id*) echo '0, 00000000:01:00.0' ;;
  *name,driver_version*) echo 'NVIDIA GeForce RTX 3090, 550' ;;
  *query-gpu=name*) echo 'NVIDIA GeForce RTX 3090' ;;
esac
SMI
chmod +x "$work/shutdown" "$work/nvidia-smi"
cat > "$work/job.py" <<JOB
for i in range(1000000):
    x = sum(range(${GPUPLAN_BENCH_WORK:-600}))
    print(f"step {i} loss {x}")
JOB
job="python3 $work/job.py"
./target/debug/gpuplan script shutdown --platform autodl --command "$job" > "$work/run.sh"
plain=() wrapped=()
for _ in 1 2 3 4 5 6 7; do
  s=$(date +%s%N); bash -c "$job" > "$work/plain.log"; e=$(date +%s%N)
  plain+=($(((e - s) / 1000000)))
  s=$(date +%s%N)
  (cd "$work" && GPUPLAN_SHUTDOWN_BIN="$work/shutdown" GPUPLAN_NVIDIA_SMI="$work/nvidia-smi" \
    GPUPLAN_RUN_REPORT="$work/report.json" TMPDIR="$work" bash run.sh > wrapped.log 2>&1 < /dev/null)
  e=$(date +%s%N)
  wrapped+=($(((e - s) / 1000000)))
done
median() { printf '%s\n' "$@" | sort -n | sed -n 4p; }
p=$(median "${plain[@]}") w=$(median "${wrapped[@]}")
lines=$(grep -o '"progress_lines": [0-9]*' "$work/report.json")
echo "plain median ${p} ms, wrapped median ${w} ms, overhead $(( (w - p) * 1000 / p / 10 )).$(( (w - p) * 1000 / p % 10 ))% ($lines)"
