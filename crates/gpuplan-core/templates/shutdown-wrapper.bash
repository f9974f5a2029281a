#!/usr/bin/env bash
# gpuplan 自动关机脚本（@PLATFORM_ID@）：运行训练命令，无论成功还是出错都会关机
# （trap EXIT）；脚本被杀掉（例如终端关了）时，后台看门狗也会关机，并限制最长运行
# 时间。用 nohup bash 本脚本 > run.log 2>&1 & 在后台启动。另请在平台控制台同时
# 打开定时关机、余额预警和欠费停机，作为第二道保险。
#
# gpuplan auto-shutdown wrapper for @PLATFORM_ID@.
# Runs the training command, then stops the instance whether training succeeded
# or failed (trap on EXIT). A detached watchdog stops the instance if this
# wrapper is killed (for example its terminal closed) and enforces a hard
# maximum runtime. Start it detached, e.g.:  nohup bash this.sh > run.log 2>&1 &
# Also turn on in the platform console, as a second line of defence: timed
# shutdown (定时关机), a balance alert (余额预警) and stop on arrears (欠费停机).
#
# Run report / 运行报告: when the run ends (success, failure or a killed
# job) the wrapper writes a small JSON file next to the job, atomically:
# the GPU and driver, peak GPU memory of the job's processes on each GPU
# (nvidia-smi polled every @SAMPLE@ s), wall time, time to the first progress
# line, progress lines seen (lines matching GPUPLAN_STEP_PATTERN, by default
# "Epoch N" or "Step N"), CPU use, exit status and the billing window.
# Resuming a run from its checkpoint? Start the next part with
# GPUPLAN_RUN_ID=<the first part's run_id> GPUPLAN_RUN_PART=2 (3, ...), so the
# parts are joined into one run. Nothing leaves the machine.
# Import it with: gpuplan ledger import FILE
@WARNING@set -u

@JOB_ENV@JOB_NAME=@JOB_NAME@
PLAN_NAME=@PLAN_NAME@
PLAN_JOB=@PLAN_JOB@
TRAIN_COMMAND=@COMMAND@
MAX_RUNTIME_SECONDS=@MAX_RUNTIME@
POLL_SECONDS=@POLL@
@STOP_BIN@
@REPORT_KIT@
WRAPPER_PID=$$
# How long a stopped job (at its deadline, on a signal, or after its
# wrapper was killed) may take to save its checkpoint before it is killed
# and the instance stops.
STOP_GRACE_SECONDS=${GPUPLAN_STOP_GRACE_SECONDS:-120}
case "$STOP_GRACE_SECONDS" in '' | *[!0-9]* | ??????*) STOP_GRACE_SECONDS=120 ;; esac
# setsid (util-linux) puts the job in a process group of its own without a
# fork: $! is the job and its group.
SETSID=""
command -v setsid >/dev/null 2>&1 && SETSID=setsid

# A process's start time (clock ticks since boot, /proc/PID/stat field 22):
# with its id it names one process, not whichever later took the id.
proc_start() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }
  # shellcheck disable=SC2086 # the fields, split on purpose
  set -- $s
  printf '%s' "${20:-}"
}
# Every wrapper running on this machine has a file here (its process id,
# holding its start time): the last one to end stops the instance (a second
# job started beside the first is not stopped under it when the first
# ends). Beside the state folders (never a folder made where TMPDIR points).
WRAPPERS_DIR="${STATE_DIR%/*}/gpuplan-wrappers"
mkdir "$WRAPPERS_DIR" 2>/dev/null || [ -d "$WRAPPERS_DIR" ] || WRAPPERS_DIR="$STATE_DIR"
proc_start "$$" > "$WRAPPERS_DIR/$$" 2>/dev/null || true
# Another wrapper still running here, if any: its process alive and the
# same process (an id left by a wrapper that never ended, now another
# program's, does not keep the instance billing).
other_wrapper() {
  local f p
  for f in "$WRAPPERS_DIR"/*; do
    p=${f##*/}
    case "$p" in '' | *[!0-9]*) continue ;; esac
    [ "$p" != "$WRAPPER_PID" ] || continue
    if kill -0 "$p" 2>/dev/null && [ "$(proc_start "$p")" = "$(cat "$f" 2>/dev/null)" ]; then
      printf '%s' "$p"
      return 0
    fi
    rm -f "$f" 2>/dev/null
  done
  return 1
}
stop_instance() {
  # Exactly once, whoever gets here first (the trap or the watchdog). A
  # lock that cannot be made (a full disk) is no reason not to stop: only
  # one that exists is.
  mkdir "$STATE_DIR/stopped" 2>/dev/null || { [ -d "$STATE_DIR/stopped" ] && return 0; }
  rm -f "$WRAPPERS_DIR/$WRAPPER_PID" 2>/dev/null
  local other
  if other=$(other_wrapper); then
    log "not stopping the instance ($1): another gpuplan wrapper (process $other) is still running here; the last one to end stops it"
    return 0
  fi
  log "stopping the instance ($1)"
@STOP_COMMAND@
}

on_exit() {
  status=$?
  # Nothing stops the way to the stop: a signal now (a second Ctrl-C, a
  # TERM) or a reader gone (a closed terminal's pipe) would end the shell
  # before it.
  trap '' TERM INT HUP PIPE
  [ ! -e "$STATE_DIR/deadline" ] || [ "$status" -ne 0 ] || status=143
  # The job's last lines first: the log below must not land inside them.
  wait_for_watchers
  touch "$STATE_DIR/wrapper-done" 2>/dev/null
  log "training finished with status $status"
  write_report "$status" || log "the run report could not be written"
  stop_instance "wrapper exit, status $status"
  exit "$status"
}
trap on_exit EXIT
# The job runs in a process group of its own (setsid, below): a signal for
# it reaches every process of it (a pipeline, a `;` list), as Slurm and
# systemd signal a job, and not the watchers passing its output on.
signal_job() {
  [ -n "${train_pid:-}" ] || return 0
  kill -"$1" -- "-$train_pid" 2>/dev/null || kill -"$1" "$train_pid" 2>/dev/null
}
# Waits up to the grace for process $1 to end, then kills its group.
wait_or_kill() {
  local waited=0
  while kill -0 "$1" 2>/dev/null && [ "$waited" -lt "$STOP_GRACE_SECONDS" ]; do
    sleep 1
    waited=$((waited + 1))
  done
  if kill -0 "$1" 2>/dev/null; then
    log "the job did not end within $STOP_GRACE_SECONDS s of its stop: killing it"
    kill -KILL -- "-$1" 2>/dev/null || kill -KILL "$1" 2>/dev/null
  fi
}
# A stop (TERM), Ctrl-C (INT) or a closed terminal (HUP, started without
# nohup) goes to the job, which gets the grace to save a checkpoint; then
# the wrapper exits with the signal's status (143, 130, 129: a report that
# says so, not a clean 0 a short run would be learnt from) and its exit
# trap reports and stops. Once only. Without setsid the job shares the
# terminal's signals already: only TERM is passed on. Under nohup HUP is
# ignored from the start and its trap does nothing.
on_signal() {
  trap '' TERM INT HUP
  if [ -n "${train_pid:-}" ]; then
    [ -z "$SETSID" ] && [ "$1" != TERM ] || signal_job "$1"
    wait_or_kill "$train_pid"
    wait "$train_pid" 2>/dev/null
  fi
  exit "$2"
}
trap 'on_signal TERM 143' TERM
trap 'on_signal INT 130' INT
trap 'on_signal HUP 129' HUP

# Ends the job (the watchdog's): TERM to its process group, the grace to
# end, then KILL; never a signal to an id once the job has ended.
end_job() {
  local job
  job=$(cat "$STATE_DIR/job_pid" 2>/dev/null || true)
  case "$job" in '' | *[!0-9]*) return 0 ;; esac
  kill -0 "$job" 2>/dev/null || return 0
  kill -TERM -- "-$job" 2>/dev/null || kill -TERM "$job" 2>/dev/null
  wait_or_kill "$job"
}
watchdog() {
  # Only the wrapper's end or the deadline ends it: a TERM to the
  # wrapper's process group (kill %1, or a kill by the script's name) must
  # leave it to stop the instance.
  trap '' HUP INT TERM
  deadline=$(( $(date +%s) + MAX_RUNTIME_SECONDS ))
  while kill -0 "$WRAPPER_PID" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "maximum runtime of $MAX_RUNTIME_SECONDS s reached: stopping training (up to $STOP_GRACE_SECONDS s to save a checkpoint)"
      # A job that saves and exits 0 was still stopped: the report says 143.
      : > "$STATE_DIR/deadline" 2>/dev/null
      # The job's process group, not the watchers passing its output on
      # (a handler's last lines must still reach the log); then its
      # wrapper reports and stops. The watchdog stops the instance too if
      # the wrapper has not within two minutes (its report takes at most
      # about 70 s: the watchers, then nvidia-smi's three 20 s bounds).
      end_job
      local i=0
      while kill -0 "$WRAPPER_PID" 2>/dev/null && [ "$i" -lt 120 ]; do sleep 1; i=$((i + 1)); done
      stop_instance "maximum runtime reached"
      while kill -0 "$WRAPPER_PID" 2>/dev/null; do sleep 1; done
      rm -rf "$STATE_DIR"
      exit 0
    fi
    sleep "$POLL_SECONDS"
  done
  # The wrapper is gone. If its trap did not finish (it was killed), its
  # job lives on in its own process group: stopped first (with the grace
  # to save a checkpoint), then the run reported as killed (137: its bill,
  # nothing to learn) unless a report is there already. Either way the
  # instance is stopped (a no-op where the wrapper did).
  if [ ! -e "$STATE_DIR/wrapper-done" ]; then
    end_job
    [ -e "$RUN_REPORT" ] || write_report 137 || log "the run report could not be written"
  fi
  stop_instance "wrapper ended"
  # The watchdog is the last of the wrapper's processes: it leaves nothing.
  rm -rf "$STATE_DIR"
}
# Its messages ("maximum runtime reached") go to the wrapper's log when that
# is a file (sharing its offset, so the lines interleave); a terminal or a
# pipe it must not hold open (nohup and ssh would wait on it).
if [ -n "$OUT_FILE" ]; then
  (watchdog) </dev/null 2>&1 &
else
  (watchdog) </dev/null >/dev/null 2>&1 &
fi
disown 2>/dev/null || true

log "starting $JOB_NAME (hard stop after $MAX_RUNTIME_SECONDS s)"
# The job's stdout and stderr stay separate (open_streams: straight into the
# log file, or through a watcher).
open_streams
run_job $SETSID bash -o pipefail -c "$TRAIN_COMMAND" >&3 2>&4 3>&- 4>&- &
train_pid=$!
printf '%s\n' "$train_pid" > "$STATE_DIR/job_pid"
wait "$train_pid"
status=$?
exit "$status"
