open_streams
srun -c "${SLURM_CPUS_PER_TASK:-1}" bash -c "$TRAIN_COMMAND" >&3 2>&4 3>&- 4>&- &
train_pid=$!
wait "$train_pid"
status=$?
exit "$status"
