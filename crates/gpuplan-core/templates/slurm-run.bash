open_streams
run_job srun -c "${SLURM_CPUS_PER_TASK:-1}" bash -o pipefail -c "$TRAIN_COMMAND" >&3 2>&4 3>&- 4>&- &
train_pid=$!
wait "$train_pid"
status=$?
exit "$status"
