# 运行时限到达前 5 分钟 Slurm 发出 USR1：训练脚本存 checkpoint 后退出，作业重新排队并从断点续跑。
# Slurm sends USR1 five minutes before the walltime. The handler only sets
# a flag and forwards the signal; the training script saves a checkpoint and
# exits, and the job is requeued to resume from it.
export GPUPLAN_RESUME=1
requeue=0
train_pid=""
# A USR1 that comes before training has started is passed on once it has.
on_usr1() { requeue=1; [ -z "$train_pid" ] || kill -USR1 "$train_pid" 2>/dev/null; }
trap on_usr1 USR1
open_streams
run_job srun -c "${SLURM_CPUS_PER_TASK:-1}" bash -o pipefail -c "$TRAIN_COMMAND" >&3 2>&4 3>&- 4>&- &
train_pid=$!
[ "$requeue" = 0 ] || kill -USR1 "$train_pid" 2>/dev/null
while true; do
  wait "$train_pid"
  status=$?
  # A trapped signal interrupts wait; keep waiting until training has exited.
  kill -0 "$train_pid" 2>/dev/null || break
done
if [ "$requeue" = 1 ] && [ "$status" = 138 ]; then
  # Killed by the warning itself (128 + USR1): no handler saved a checkpoint,
  # so a requeue would start it over, again and again, on the allocation.
  echo "gpuplan: the training was killed by the walltime warning (USR1) instead of saving a checkpoint: not requeued, it would start over. Its command must handle USR1 (the resume template does) and be one program (exec python ..., not a pipeline)."
  echo "gpuplan：训练被时限预警信号（USR1）直接杀掉，没有保存 checkpoint：不重新排队（否则会从头再跑）。训练命令要处理 USR1（续跑模板已处理），并且是单个程序（exec python ...，不要用管道）。"
elif [ "$requeue" = 1 ]; then
  # The requeue ends this script at once: report this part of the job first,
  # as a part that is not the last (the next part resumes the same run).
  touch "$STATE_DIR/wrapper-done"
  REQUEUED=1
  write_report "$status" && REPORTED=1
  rm -rf "$STATE_DIR"
  echo "gpuplan: walltime near, requeueing job $SLURM_JOB_ID to resume from its checkpoint"
  scontrol requeue "$SLURM_JOB_ID"
fi
exit "$status"
