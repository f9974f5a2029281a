"""gpuplan 断点续跑训练模板 / resumable training template.

每 @EVERY@ 轮存一次 checkpoint（与抢占式报价假设的间隔相同），启动时自动从最新的
checkpoint 续跑；收到 SIGUSR1 或 SIGTERM 时立即保存并以状态 0 退出，方便 Slurm
重新排队或抢占式实例重启。把 build_model/build_data/train_one_epoch 换成你的代码。

Checkpoints every @EVERY@ epochs (the same interval the spot quote assumed) and
resumes automatically from the newest checkpoint. On SIGUSR1 or SIGTERM it
saves at once and exits with status 0 so Slurm can requeue it or a spot
instance can restart it. Replace build_model/build_data/train_one_epoch.
"""
import os
import signal
import sys

import torch

CHECKPOINT_EVERY = @EVERY@
CKPT_DIR = os.environ.get("GPUPLAN_CKPT_DIR", "checkpoints")
CKPT = os.path.join(CKPT_DIR, "last.pt")
EPOCHS = int(os.environ.get("EPOCHS", "50"))
stop_requested = False


def request_stop(signum, frame):
    # Only set a flag: the loop saves at a safe point.
    global stop_requested
    stop_requested = True


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
    model.train()
    for x, y in data:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if stop_requested:
            return


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
        start = state["epoch"] + 1
        print(f"resumed from epoch {start}", flush=True)
    for epoch in range(start, EPOCHS):
        train_one_epoch(model, optimizer, data, device)
        done = (epoch + 1) % CHECKPOINT_EVERY == 0 or epoch + 1 == EPOCHS
        if done or stop_requested:
            save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch})
            print(f"checkpoint at epoch {epoch}", flush=True)
        if stop_requested:
            print("stop requested: checkpoint saved, exiting for requeue", flush=True)
            sys.exit(0)


if __name__ == "__main__":
    main()
