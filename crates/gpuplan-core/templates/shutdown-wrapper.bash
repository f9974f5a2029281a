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
# Every wrapper running on this machine has a file here: the last one to
# end stops the instance (a second job started beside the first is not
# stopped under it when the first ends).
# Beside the state folders (never a folder made where TMPDIR points).
WRAPPERS_DIR="${STATE_DIR%/*}/gpuplan-wrappers"
mkdir "$WRAPPERS_DIR" 2>/dev/null || [ -d "$WRAPPERS_DIR" ] || WRAPPERS_DIR="$STATE_DIR"
: > "$WRAPPERS_DIR/$$" 2>/dev/null || true
# Another wrapper still running here (its process alive), if any.
other_wrapper() {
  local f p
  for f in "$WRAPPERS_DIR"/*; do
    p=${f##*/}
    case "$p" in '' | *[!0-9]*) continue ;; esac
    [ "$p" != "$WRAPPER_PID" ] || continue
    if kill -0 "$p" 2>/dev/null; then printf '%s' "$p"; return 0; fi
    rm -f "$f" 2>/dev/null
  done
  return 1
}
stop_instance() {
  # Exactly once, whoever gets here first (the trap or the watchdog).
  mkdir "$STATE_DIR/stopped" 2>/dev/null || return 0
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
  [ ! -e "$STATE_DIR/deadline" ] || [ "$status" -ne 0 ] || status=143
  # The job's last lines first: the log below must not land inside them.
  wait_for_watchers
  touch "$STATE_DIR/wrapper-done"
  log "training finished with status $status"
  write_report "$status" || log "the run report could not be written"
  stop_instance "wrapper exit, status $status"
}
trap on_exit EXIT
# The job runs in a process group of its own (setsid, below): a signal for
# it reaches every process of it (a pipeline, a `;` list), as Slurm and
# systemd signal a job, and not the watchers passing its output on.
signal_job() {
  [ -n "${train_pid:-}" ] || return 0
  kill -"$1" -- "-$train_pid" 2>/dev/null || kill -"$1" "$train_pid" 2>/dev/null
}
# A stop (TERM), Ctrl-C (INT) or a closed terminal (HUP, started without
# nohup) goes to the job, which is waited for, so its handler can save a
# checkpoint (the watchdog bounds the wait at a deadline); then the wrapper
# exits with the signal's status (143, 130, 129: a report that says so, not
# a clean 0 a short run would be learnt from) and its exit trap reports and
# stops. Once only: a second signal while the report is written would end
# the shell before it. Under nohup HUP is ignored from the start and its
# trap does nothing.
on_signal() {
  trap '' TERM INT HUP
  signal_job "$1"
  [ -z "${train_pid:-}" ] || wait "$train_pid" 2>/dev/null
  exit "$2"
}
trap 'on_signal TERM 143' TERM
trap 'on_signal INT 130' INT
trap 'on_signal HUP 129' HUP

WRAPPER_PID=$$
# How long a job stopped at its deadline (or whose wrapper was killed) may
# take to save its checkpoint before it is killed and the instance stops.
STOP_GRACE_SECONDS=${GPUPLAN_STOP_GRACE_SECONDS:-120}
case "$STOP_GRACE_SECONDS" in '' | *[!0-9]* | ??????*) STOP_GRACE_SECONDS=120 ;; esac
# Ends the job: TERM to its process group, up to the grace for it (and the
# wrapper, while `wrapper` is 1) to end, then KILL.
end_job() {
  local job waited=0
  job=$(cat "$STATE_DIR/job_pid" 2>/dev/null || true)
  case "$job" in '' | *[!0-9]*) return 0 ;; esac
  kill -TERM -- "-$job" 2>/dev/null || kill -TERM "$job" 2>/dev/null
  while [ "$waited" -lt "$STOP_GRACE_SECONDS" ]; do
    kill -0 "$job" 2>/dev/null || { [ "$1" = 1 ] && kill -0 "$WRAPPER_PID" 2>/dev/null; } || return 0
    sleep 1
    waited=$((waited + 1))
  done
  log "the job did not end within $STOP_GRACE_SECONDS s of its stop: killing it"
  kill -KILL -- "-$job" 2>/dev/null || kill -KILL "$job" 2>/dev/null
}
watchdog() {
  trap '' HUP INT
  deadline=$(( $(date +%s) + MAX_RUNTIME_SECONDS ))
  while kill -0 "$WRAPPER_PID" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "maximum runtime of $MAX_RUNTIME_SECONDS s reached: stopping training (up to $STOP_GRACE_SECONDS s to save a checkpoint)"
      # The job's process group, not the watchers passing its output on
      # (a handler's last lines must still reach the log), then the
      # instance, once the job and its wrapper have ended or the grace is
      # over.
      # A job that saves and exits 0 was still stopped: the report says 143.
      : > "$STATE_DIR/deadline"
      end_job 1
      local i=0
      while kill -0 "$WRAPPER_PID" 2>/dev/null && [ "$i" -lt 30 ]; do sleep 1; i=$((i + 1)); done
      stop_instance "maximum runtime reached"
      # Its report is written by its own exit trap: wait for it to end.
      while kill -0 "$WRAPPER_PID" 2>/dev/null; do sleep 1; done
      rm -rf "$STATE_DIR"
      exit 0
    fi
    sleep "$POLL_SECONDS"
  done
  # The wrapper is gone. If its trap did not run (it was killed), report the
  # run as killed (137: its bill, nothing to learn) and stop now.
  if [ ! -e "$STATE_DIR/wrapper-done" ]; then
    # Its job lives on in its own process group: it is stopped first (with
    # the grace to save a checkpoint), then the run reported and stopped.
    end_job 0
    write_report 137 || log "the run report could not be written"
    stop_instance "wrapper killed"
  fi
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
# setsid (util-linux) puts the job in a process group of its own without a
# fork: $! is the job and its group.
SETSID=""
command -v setsid >/dev/null 2>&1 && SETSID=setsid
run_job $SETSID bash -o pipefail -c "$TRAIN_COMMAND" >&3 2>&4 3>&- 4>&- &
train_pid=$!
printf '%s\n' "$train_pid" > "$STATE_DIR/job_pid"
wait "$train_pid"
status=$?
exit "$status"
