"""gpuplan 断点续跑训练模板 / resumable training template.

每 @EVERY@ 轮存一次 checkpoint（@WHY_ZH@），启动时自动从最新的
checkpoint 续跑；中途停下的那一轮续跑时从头再训一遍，不会跳过。收到 SIGUSR1（Slurm
在时限前发出，作业会重新排队）时保存并以状态 0 退出；收到 SIGTERM（实例被回收或
关机）时保存并以状态 143 退出，运行报告据此记为“被中断”而不是“完成”。
把 build_model/build_data/train_one_epoch 换成你的代码。

Checkpoints every @EVERY@ epochs (@WHY_EN@) and
resumes automatically from the newest checkpoint; an epoch cut short is
trained again from its start on resume, never skipped. On SIGUSR1 (Slurm's
warning before the walltime; the job is requeued) it saves and exits with
status 0; on SIGTERM (a preempted or stopped instance) it saves and exits
with 143, so the run report says interrupted, not completed. Its own lines
never read as progress lines ("N epochs done", not "epoch N").
Replace build_model/build_data/train_one_epoch.
"""
import os
import signal
import sys

import torch

CHECKPOINT_EVERY = @EVERY@
CKPT_DIR = os.environ.get("GPUPLAN_CKPT_DIR", "checkpoints")
CKPT = os.path.join(CKPT_DIR, "last.pt")
EPOCHS = int(os.environ.get("EPOCHS", "@EPOCHS@"))
stop_requested = False
stop_signal = None


def request_stop(signum, frame):
    # Only set a flag: the loop saves at a safe point.
    global stop_requested, stop_signal
    stop_requested = True
    stop_signal = signum


signal.signal(signal.SIGUSR1, request_stop)
signal.signal(signal.SIGTERM, request_stop)


def save(state):
    os.makedirs(CKPT_DIR, exist_ok=True)
    tmp = CKPT + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, CKPT)  # atomic: a crash never leaves half a checkpoint


def build_model():
    return torch.nn.Linear(10, 2)


def build_data():
    x = torch.randn(256, 10)
    y = torch.randint(0, 2, (256,))
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)


def train_one_epoch(model, optimizer, data, device):
    """Trains one epoch; False when a stop cut it short."""
    model.train()
    for x, y in data:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if stop_requested:
            return False
    return True


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = build_model().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = build_data()
    start = 0
    if os.path.exists(CKPT):
        state = torch.load(CKPT, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["epochs_done"]
        print(f"resumed: {start} epochs done", flush=True)
    for epoch in range(start, EPOCHS):
        whole = train_one_epoch(model, optimizer, data, device)
        # An epoch cut short is not done: the next part trains it again.
        done = epoch + 1 if whole else epoch
        due = whole and (done % CHECKPOINT_EVERY == 0 or done == EPOCHS)
        if due or stop_requested:
            save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epochs_done": done})
            print(f"checkpoint saved: {done} epochs done", flush=True)
        if stop_requested:
            # Slurm's USR1: requeued, this part ends as planned (0). A
            # SIGTERM: the instance is going away, the run was interrupted.
            requeue = stop_signal == signal.SIGUSR1
            print("stop requested: checkpoint saved, exiting" + (" for requeue" if requeue else ""), flush=True)
            sys.exit(0 if requeue else 128 + signal.SIGTERM)


if __name__ == "__main__":
    main()
