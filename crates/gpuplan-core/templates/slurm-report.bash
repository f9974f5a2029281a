# 运行报告：作业结束（完成、失败、到时限或被取消）时，在作业目录写一个 JSON，
# 记录显卡、显存峰值、运行时长、进度行和退出码，用 gpuplan ledger import 导入。
# Run report: when the job ends (done, failed, at its walltime or
# cancelled) a small JSON file is written next to the job, atomically: the
# GPU, peak GPU memory, wall time, progress lines and exit status. Import it
# with: gpuplan ledger import FILE. Nothing leaves the cluster.
@REPORT_KIT@
REPORTED=0
on_exit() {
  status=$?
  # The job's last lines first: nothing below may land inside them.
  wait_for_watchers
  # A requeued part has reported and removed its state folder already.
  if [ -d "$STATE_DIR" ]; then touch "$STATE_DIR/wrapper-done"; fi
  [ "$REPORTED" = 1 ] || write_report "$status" || log "the run report could not be written"
  rm -rf "$STATE_DIR"
}
trap on_exit EXIT
# Slurm's TERM at the walltime (or scancel) ends the job: exit through the
# report. The job step is started in the background so the trap runs at once.
trap 'exit 143' TERM
