# --- gpuplan run report kit (templates/run-report-kit.bash) ---------------
# Shared by the shutdown wrapper and the Slurm scripts. The script defines
# JOB_NAME, PLAN_NAME and PLAN_JOB before this block, runs the job with its output
# through `watch_lines`, and calls `write_report STATUS` once on exit
# (touching "$STATE_DIR/wrapper-done" first to end the sampler).
SAMPLE_SECONDS=@SAMPLE@
NVIDIA_SMI="${GPUPLAN_NVIDIA_SMI:-nvidia-smi}"
# nvidia-smi within 20 s: a GPU fallen off the bus hangs it, and the run's
# end (its report, then the stop) must not wait on it while the instance
# bills.
smi() {
  if command -v timeout >/dev/null 2>&1; then timeout 20 "$NVIDIA_SMI" "$@"; else "$NVIDIA_SMI" "$@"; fi
}
DEFAULT_STEP_PATTERN='([Ee]poch|[Ss]tep)[^0-9A-Za-z]{0,3}[0-9]+'
STEP_PATTERN="${GPUPLAN_STEP_PATTERN:-$DEFAULT_STEP_PATTERN}"
# The process id too: two runs started in one second in one folder would
# otherwise write one file, and one bill would be lost.
RUN_REPORT="${GPUPLAN_RUN_REPORT:-gpuplan-run-${SLURM_JOB_ID:+$SLURM_JOB_ID-}$(date +%Y%m%d-%H%M%S)-$$.json}"
# One run may be made of parts (a Slurm job requeued at its walltime, or a
# job resumed from its checkpoint by hand): every part carries the run's id
# and its own number, and `gpuplan ledger import` joins them. Slurm keeps the
# job id across requeues and counts them; elsewhere set GPUPLAN_RUN_ID (any
# text) and GPUPLAN_RUN_PART (2, 3, ...) when resuming.
RUN_ID="${GPUPLAN_RUN_ID:-${SLURM_JOB_ID:-}}"
RUN_PART="${GPUPLAN_RUN_PART:-$(( ${SLURM_RESTART_COUNT:-0} + 1 ))}"
# What the ledger would refuse is refused here, before the job starts: a
# report it cannot import would leave this run's bill out of the ledger.
kit_refuse() { printf '[gpuplan] not started: %s\n' "$*" >&2; exit 2; }
case "$RUN_PART" in
  '' | *[!0-9]*) kit_refuse "GPUPLAN_RUN_PART=$RUN_PART is not a part number (1 to 10000)" ;;
esac
{ [ "${#RUN_PART}" -le 5 ] && [ "$((10#$RUN_PART))" -ge 1 ] && [ "$((10#$RUN_PART))" -le 10000 ]; } ||
  kit_refuse "GPUPLAN_RUN_PART=$RUN_PART is not a part number (1 to 10000)"
RUN_PART=$((10#$RUN_PART))
[ "${#RUN_ID}" -le 100 ] || kit_refuse "GPUPLAN_RUN_ID is ${#RUN_ID} characters long; a run id has at most 100"
pattern_status=0
printf '' | LC_ALL=C grep -E -- "$STEP_PATTERN" >/dev/null 2>&1 || pattern_status=$?
[ "$pattern_status" -ne 2 ] || kit_refuse "GPUPLAN_STEP_PATTERN is not an extended regular expression (grep -E): $STEP_PATTERN"
REQUEUED=0
# The run's state folder: TMPDIR, else /tmp, /dev/shm or the home folder.
# Without one nothing can be written and, worse, the stop's lock would be a
# path at the root: refused before the job starts.
STATE_DIR=""
for dir in "${TMPDIR:-/tmp}" /tmp /dev/shm "${HOME:-/nonexistent}"; do
  STATE_DIR=$(mktemp -d "$dir/gpuplan-run.XXXXXX" 2>/dev/null) && [ -d "$STATE_DIR" ] && break
  STATE_DIR=""
done
[ -n "$STATE_DIR" ] || kit_refuse "no folder to keep the run's state in (TMPDIR=${TMPDIR:-}, /tmp, /dev/shm and HOME are full or not writable)"
START_EPOCH=$(date +%s)
START_ISO=$(date '+%Y-%m-%dT%H:%M:%S%z')
[ -n "$RUN_ID" ] || RUN_ID="$(date +%Y%m%d%H%M%S)-$$"
# A job that opts in (one line: `import gpuplan_report;
# gpuplan_report.report_torch_peak()`) leaves PyTorch's peak allocated memory
# here, one file per process (rank); it counts where nvidia-smi cannot see
# the job's processes (many containers hide them).
export GPUPLAN_TORCH_PEAK_FILE="$STATE_DIR/torch_peak_mib"
: > "$STATE_DIR/peaks"

log() { printf '%s [gpuplan] %s\n' "$(date '+%F %T')" "$*"; }

# Becomes "$@" (the job) with the environment the script was started with
# (GPUPLAN_JOB_ENV), plus what the kit exports for it: the command's words
# are expanded before, so restoring a variable cannot change them. Call it
# in the background only (`run_job ... &`): it execs, so the job is the
# background process itself ($! its pid, the script its parent).
run_job() {
  eval "${GPUPLAN_JOB_ENV:-}" 2>/dev/null
  exec "$@"
}

# JSON string: backslashes and quotes escaped, control characters dropped.
# A byte cut inside a character (a progress line cut to 40 bytes in the C
# locale) is dropped, so the report stays UTF-8 the ledger reads.
json_str() { printf '"%s"' "$(printf '%s' "$1" | utf8_only | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
utf8_only() {
  if command -v iconv >/dev/null 2>&1; then iconv -c -f UTF-8 -t UTF-8 2>/dev/null; else LC_ALL=C tr -d '\200-\377'; fi
}

cpu_ticks() {
  # busy and total jiffies of the whole machine, from /proc/stat
  if read -r _ u n sy idle io irq sirq st _ < /proc/stat 2>/dev/null; then
    echo "$((u + n + sy + irq + sirq + st)) $((u + n + sy + idle + io + irq + sirq + st))"
  fi
}
CPU_START=$(cpu_ticks)


# Where the job's output goes. When the script's own output is a log file
# (nohup bash run.sh > run.log 2>&1, or Slurm's --output), the job writes
# straight into it, with no pipe in its way, and its progress lines are
# read back from the file at the end. Otherwise (a terminal, a pipe) each
# stream passes through a watcher. Either way nothing runs per line in the
# shell and matching runs byte-wise (LC_ALL=C: a UTF-8 locale makes grep's
# bracket expressions forty times slower), so a chatty job is not slowed.
log_file() {
  local f
  f=$(readlink -f "/proc/$$/fd/$1" 2>/dev/null) && [ -f "$f" ] && printf '%s' "$f"
}
OUT_FILE=$(log_file 1 || true)
ERR_FILE=$(log_file 2 || true)
[ "$ERR_FILE" != "$OUT_FILE" ] || ERR_FILE=""
OUT_FROM=0
ERR_FROM=0
[ -z "$OUT_FILE" ] || OUT_FROM=$(stat -c %s "$OUT_FILE" 2>/dev/null || echo 0)
[ -z "$ERR_FILE" ] || ERR_FROM=$(stat -c %s "$ERR_FILE" 2>/dev/null || echo 0)

# The job's progress lines in a log file from byte FROM on (the script's
# own [gpuplan] lines left out).
progress_in() {
  tail -c +"$(( $2 + 1 ))" "$1" 2>/dev/null | LC_ALL=C grep -vF ' [gpuplan] ' |
    LC_ALL=C grep -E -- "$STEP_PATTERN"
}

# The sampler's other job, for log files: note when the first progress
# line appeared (to the sampling interval).
# Each sample reads only what was written since the last (less a 64 KB
# overlap for a line written across two samples), never before the run's
# own start: a 2 GB log with no progress line yet is not read again every
# few seconds.
OUT_SCANNED=0
ERR_SCANNED=0
note_first_in_files() {
  local stream file from size scanned
  for stream in out err; do
    if [ "$stream" = out ]; then file=$OUT_FILE from=$OUT_FROM scanned=$OUT_SCANNED; else file=$ERR_FILE from=$ERR_FROM scanned=$ERR_SCANNED; fi
    if [ -z "$file" ] || [ -e "$STATE_DIR/first.$stream" ]; then continue; fi
    size=$(stat -c %s "$file" 2>/dev/null || echo 0)
    [ "$((scanned - 65536))" -le "$from" ] || from=$((scanned - 65536))
    if [ "$stream" = out ]; then OUT_SCANNED=$size; else ERR_SCANNED=$size; fi
    if progress_in "$file" "$from" | head -n 1 | grep -q .; then
      date +%s > "$STATE_DIR/first.$stream"
    fi
  done
}

# Counts progress lines read on stdin into "$STATE_DIR/progress.STREAM":
# how many, the last and the first (a run resumed mid-way starts past the
# first epoch). Usage: count_progress out|err.
count_progress() {
  LC_ALL=C awk -v out="$STATE_DIR/progress.$1" '
    NR == 1 { first = $0 }
    { last = $0 }
    END { print NR > out; print last > out; print first > out; close(out); print "" > (out ".done") }'
}

# A watcher for a stream that is not a log file: passes it through (tee),
# counts its progress lines on the side (grep matches them, count_progress
# counts them), and notes when the first came. Usage: watch_lines out|err.
watch_lines() {
  # A signal is for the job: its watcher passes on its last lines (a
  # checkpoint handler's) until the job closes its output.
  trap '' INT TERM HUP
  tee >({ LC_ALL=C grep -qm1 -E -- "$STEP_PATTERN" && date +%s > "$STATE_DIR/first.$1"; cat > /dev/null; }) \
    >(LC_ALL=C grep -E -- "$STEP_PATTERN" | count_progress "$1")
}

# Opens fd 3 and fd 4, where the job's stdout and stderr go: the log file
# itself, or a watcher. Call right before starting the job (nothing started
# earlier may hold a watcher open), and close_streams once it has ended.
# The watchers' process ids ($! names a process substitution's), so the
# wait at the end stops when they are gone: a signal to the whole group
# (a closed terminal, a stop) kills them before they mark their counts.
WATCHERS=""
open_streams() {
  if [ -n "$OUT_FILE" ]; then exec 3>&1; else exec 3> >(watch_lines out); WATCHERS="$WATCHERS $!"; fi
  if [ -n "$ERR_FILE" ] || { [ -n "$OUT_FILE" ] && [ "$(readlink -f /proc/$$/fd/2)" = "$OUT_FILE" ]; }; then
    exec 4>&2
  else
    exec 4> >(watch_lines err >&2)
    WATCHERS="$WATCHERS $!"
  fi
}
watchers_alive() {
  local p
  for p in $WATCHERS; do kill -0 "$p" 2>/dev/null && return 0; done
  return 1
}
close_streams() { { exec 3>&- 4>&-; } 2>/dev/null || true; }

# The counts of a stream read back from its log file, in the watchers' form.
count_file() {
  progress_in "$2" "$3" | count_progress "$1"
}

# Waits (up to 10 s) until every stream has been counted: a log file is
# read back now, a watcher finishes its last lines.
wait_for_watchers() {
  local i=0
  # Nothing to wait for once the report is written (its folder removed).
  [ -d "$STATE_DIR" ] || return 0
  close_streams
  [ -z "$OUT_FILE" ] || [ -e "$STATE_DIR/progress.out.done" ] || count_file out "$OUT_FILE" "$OUT_FROM"
  [ -z "$ERR_FILE" ] || [ -e "$STATE_DIR/progress.err.done" ] || count_file err "$ERR_FILE" "$ERR_FROM"
  # A stream that shares the other's log file has nothing of its own.
  [ -z "$OUT_FILE" ] || [ -n "$ERR_FILE" ] || [ -e "$STATE_DIR/progress.err.done" ] ||
    { [ "$(readlink -f /proc/$$/fd/2)" = "$OUT_FILE" ] && : > "$STATE_DIR/progress.err.done"; }
  while [ "$i" -lt 100 ]; do
    [ -e "$STATE_DIR/progress.out.done" ] && [ -e "$STATE_DIR/progress.err.done" ] && return 0
    # Killed watchers mark nothing more: their counts are what they are.
    watchers_alive || return 0
    sleep 0.1
    i=$((i + 1))
  done
}

# Per-GPU peaks as a JSON array, in nvidia-smi's GPU order (the GPUs the
# job's processes used): the job's own processes' where nvidia-smi ever
# named one of them, else every process's (see job_tree).
gpu_peaks_json() {
  local column=2
  [ ! -e "$STATE_DIR/seen" ] || column=3
  # At most one figure per GPU billed ($1): a Slurm job given one GPU of a
  # shared node, whose processes srun hides from this script, must not
  # report more GPUs than it is billed (the ledger would refuse the report,
  # and the bill with it).
  smi --query-gpu=index,pci.bus_id --format=csv,noheader 2>/dev/null |
    awk -F', *' -v old="$STATE_DIR/peaks" -v c="$column" -v most="${1:-0}" '
      BEGIN { while ((getline line < old) > 0) { split(line, f, /, */); if (f[c] + 0 > 0) peak[f[1]] = f[c] + 0 } }
      ($2 in peak) && (most == 0 || n < most) { printf "%s%d", (n++ ? ", " : ""), peak[$2] }' |
    { read -r l || true; printf '[%s]' "$l"; }
}

# PyTorch's peaks, one per process that reported, as a JSON array.
torch_peaks_json() {
  local f v list=""
  for f in "$GPUPLAN_TORCH_PEAK_FILE".*; do
    [ -e "$f" ] || continue
    v=$(tr -dc '0-9' < "$f" | head -c 9)
    [ -n "$v" ] && list="${list:+$list, }$v"
  done
  printf '[%s]' "$list"
}

write_report() {
  status=$1
  wait_for_watchers
  end=$(date +%s)
  # Only rows nvidia-smi answers with count (a driver/library mismatch
  # prints its error on stdout: not a card, and not a second GPU to bill).
  gpu=$(smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
    LC_ALL=C grep -E ', *[0-9][0-9.]*$' | head -n 1 || true)
  gpus=$(smi --query-gpu=index,pci.bus_id --format=csv,noheader 2>/dev/null |
    LC_ALL=C grep -cE '^[0-9]+, *[0-9A-Fa-f]+:' || true)
  # A Slurm job is billed the GPUs it was given, which a node that does not
  # fence devices shows among all of its own.
  given=${SLURM_GPUS_ON_NODE:-}
  if [ -n "${SLURM_JOB_ID:-}" ] && [ -z "$given" ] && [ -n "${SLURM_JOB_GPUS:-}" ]; then
    given=$(printf '%s\n' "$SLURM_JOB_GPUS" | tr ',' '\n' | grep -c .)
  fi
  case "$given" in
    '' | *[!0-9]*) ;;
    *) if [ -n "${SLURM_JOB_ID:-}" ] && [ "$given" -ge 1 ] && [ "$given" -lt "${gpus:-0}" ]; then gpus=$given; fi ;;
  esac
  lines=0
  first=null
  last=""
  opening=""
  most=0
  for stream in out err; do
    f="$STATE_DIR/progress.$stream"
    [ -e "$f" ] || continue
    o=""
    { read -r n; IFS= read -r l; IFS= read -r o || true; } < "$f"
    case "$n" in '' | *[!0-9]*) continue ;; esac
    [ "$n" -gt 0 ] || continue
    lines=$((lines + n))
    t=$(cat "$STATE_DIR/first.$stream" 2>/dev/null || echo "")
    # A log file read back after a run shorter than the sampling interval:
    # the lines are counted, their time is not known.
    case "$t" in '' | *[!0-9]*) t="" ;; esac
    if [ -n "$t" ] && { [ "$first" = null ] || [ "$((t - START_EPOCH))" -lt "$first" ]; }; then
      first=$((t - START_EPOCH))
      [ "$first" -ge 0 ] || first=0
    fi
    # The last progress line of the stream the job reports progress on (the
    # one with more of them; stdout on a tie).
    if [ "$n" -gt "$most" ]; then last=$l; opening=$o; most=$n; fi
  done
  if [[ $last =~ $STEP_PATTERN ]]; then last=${BASH_REMATCH[0]}; fi
  if [[ $opening =~ $STEP_PATTERN ]]; then opening=${BASH_REMATCH[0]}; fi
  cpu=null
  cpu_end=$(cpu_ticks)
  if [ -n "$CPU_START" ] && [ -n "$cpu_end" ]; then
    # shellcheck disable=SC2086 # four numbers, split on purpose
    set -- $CPU_START $cpu_end
    [ "$(( $4 - $2 ))" -gt 0 ] && cpu=$(( 100 * ($3 - $1) / ($4 - $2) ))
  fi
  requeued=false
  [ "$REQUEUED" = 1 ] && requeued=true
  tmp="$RUN_REPORT.tmp.$$"
  {
    printf '{\n  "schema": "@SCHEMA@",\n'
    printf '  "plan": %s,\n  "job": %s,\n  "platform": @PLATFORM@,\n' "$(json_str "$PLAN_NAME")" "$(json_str "$JOB_NAME")"
    if [ -n "${PLAN_JOB:-}" ]; then printf '  "plan_job": %s,\n' "$(json_str "$PLAN_JOB")"; fi
    printf '  "run_id": %s,\n  "part": %d,\n  "requeued": %s,\n' "$(json_str "$RUN_ID")" "$RUN_PART" "$requeued"
    printf '  "gpu_name": %s,\n  "driver": %s,\n  "gpu_count": %d,\n' "$(json_str "${gpu%%,*}")" "$(json_str "$(printf '%s' "${gpu#*,}" | tr -d ' ')")" "$gpus"
    printf '  "gpu_peaks_mib": %s,\n  "torch_allocated_mib": %s,\n' "$(gpu_peaks_json "$gpus")" "$(torch_peaks_json)"
    printf '  "started_at": "%s",\n  "ended_at": "%s",\n' "$START_ISO" "$(date '+%Y-%m-%dT%H:%M:%S%z')"
    printf '  "wall_seconds": %d,\n  "first_progress_seconds": %s,\n' "$(( end - START_EPOCH ))" "$first"
    printf '  "first_progress": %s,\n' "$(json_str "${opening:0:40}")"
    printf '  "progress_lines": %d,\n  "last_progress": %s,\n' "$lines" "$(json_str "${last:0:40}")"
    printf '  "cpu_percent": %s,\n  "exit_status": %d\n}\n' "$cpu" "$status"
  } > "$tmp" && mv -f "$tmp" "$RUN_REPORT" && log "run report written to $RUN_REPORT"
}
# The job's processes are this script's descendants. Where nvidia-smi ever
# names one of them, only theirs count: another run or a notebook kernel on
# the same GPU is not this job's memory. Where it names none in the whole
# run (a container shows the host's process ids, or none), every process on
# the GPU counts. Both peaks are kept, per bus: "bus, every, the job's".
job_tree() {
  ps -e -o pid=,ppid= 2>/dev/null | awk -v root=$$ '
    { up[$1] = $2 }
    END { for (p in up) { q = p; n = 0
            while ((q in up) && n < 64) { if (q == root) { print p; break }; q = up[q]; n++ } } }' |
    tr '\n' ' '
}
# The sampler, started last (it runs the functions above): peak GPU memory
# of the job's processes on each GPU (by PCI bus id), and the first progress
# line in a log file, polled until the run ends or the wrapper is gone (its
# state folder with it).
(
  while kill -0 $$ 2>/dev/null && [ -d "$STATE_DIR" ] && [ ! -e "$STATE_DIR/wrapper-done" ]; do
    smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader,nounits 2>/dev/null |
      awk -F', *' -v old="$STATE_DIR/peaks" -v tree="$(job_tree)" -v seen="$STATE_DIR/seen" '
        BEGIN { while ((getline line < old) > 0) { split(line, f, /, */); all[f[1]] = f[2] + 0; ours[f[1]] = f[3] + 0 }
                n = split(tree, t, " "); for (i = 1; i <= n; i++) mine[t[i]] = 1 }
        NF == 3 && $3 ~ /^[0-9]+$/ { a[$2] += $3; if ($1 in mine) { o[$2] += $3; named = 1 } }
        END { for (b in a) { if (a[b] > all[b]) all[b] = a[b]; if (o[b] > ours[b]) ours[b] = o[b] }
              for (b in all) print b ", " all[b] ", " ours[b] + 0
              if (named) print "" > seen }' > "$STATE_DIR/peaks.new" &&
      mv -f "$STATE_DIR/peaks.new" "$STATE_DIR/peaks"
    note_first_in_files
    sleep "$SAMPLE_SECONDS"
  done
) </dev/null >/dev/null 2>&1 &
# --- end of the run report kit ---------------------------------------------
