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
stop_instance() {
  # Exactly once, whoever gets here first (the trap or the watchdog).
  mkdir "$STATE_DIR/stopped" 2>/dev/null || return 0
  log "stopping the instance ($1)"
@STOP_COMMAND@
}

on_exit() {
  status=$?
  # The job's last lines first: the log below must not land inside them.
  wait_for_watchers
  touch "$STATE_DIR/wrapper-done"
  log "training finished with status $status"
  write_report "$status" || log "the run report could not be written"
  stop_instance "wrapper exit, status $status"
}
trap on_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
# A closed terminal (started without nohup) ends the job: its report says
# so (129), not a clean 0 a short run would be learnt from. Once only: a
# second hangup while the report is written would end the shell before it
# (seen when both streams go through watchers). Under nohup HUP is ignored
# from the start and this trap does nothing.
trap 'trap "" HUP; exit 129' HUP

WRAPPER_PID=$$
watchdog() {
  trap '' HUP INT
  deadline=$(( $(date +%s) + MAX_RUNTIME_SECONDS ))
  while kill -0 "$WRAPPER_PID" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "maximum runtime of $MAX_RUNTIME_SECONDS s reached: stopping training"
      # The wrapper's children, the training among them, but not this
      # watchdog (a child too): it still has the instance to stop.
      for child in $(pgrep -P "$WRAPPER_PID" 2>/dev/null); do
        [ "$child" = "$BASHPID" ] || kill -TERM "$child" 2>/dev/null
      done
      kill -TERM "$WRAPPER_PID" 2>/dev/null
      sleep "$POLL_SECONDS"
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
run_job bash -o pipefail -c "$TRAIN_COMMAND" >&3 2>&4 3>&- 4>&- &
train_pid=$!
wait "$train_pid"
status=$?
exit "$status"
