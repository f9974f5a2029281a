"""gpuplan 运行报告（笔记本用）/ gpuplan run report for notebooks.

在第一个单元格里 / in the first cell:
    from gpuplan_report import RunReport
    report = RunReport().start()
每轮结束时 / after each epoch:    report.progress(f"Epoch {epoch}")
训练结束后 / when training ends:  report.finish()        # or report.finish(exit_status=1)
It writes gpuplan-run-YYYYMMDD-HHMMSS.json next to the notebook; import it
with `gpuplan ledger import FILE`. Nothing leaves the machine.

Resuming from a checkpoint in a new session? Give the first report's run id
and the part number, so the parts are joined into one run:
    report = RunReport(run_id="...", part=2).start()
and finish every part but the last with report.finish(requeued=True).

A script run by the shutdown wrapper or a Slurm script needs none of this;
one line at its start hands PyTorch's peak memory to their report (where
nvidia-smi cannot see the job's processes):
    import gpuplan_report; gpuplan_report.report_torch_peak()
"""
import json
import os
import re
import subprocess
import time
from datetime import datetime

SCHEMA = @SCHEMA@
PLAN = @PLAN@
PLAN_JOB = @PLAN_JOB@
PLATFORM = @PLATFORM@


def _now():
    return datetime.now().astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")


def _clean(s):
    return re.sub(r"[\x00-\x1f\x7f]", "", str(s))[:200]


def _smi(*args):
    try:
        out = subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        return []


def _cpu_ticks():
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
        return busy, busy + v[3] + v[4]
    except (OSError, ValueError, IndexError):
        return None


def _torch_allocated_mib():
    """PyTorch's peak of live tensors on each GPU this process used, MiB
    (max_memory_allocated: without the CUDA context and the allocator's
    cache, which the estimate then leaves out too)."""
    try:
        import torch

        if torch.cuda.is_available():
            peaks = [torch.cuda.max_memory_allocated(d) // (1024 * 1024) for d in range(torch.cuda.device_count())]
            return [int(p) for p in peaks if p > 0]
    except Exception:
        pass
    return []


def _gpu_order():
    """Each GPU's PCI bus id to its index, in nvidia-smi's order."""
    index = {}
    for line in _smi("--query-gpu=index,pci.bus_id", "--format=csv,noheader"):
        i, _, bus = line.partition(",")
        index[bus.strip()] = int(i) if i.strip().isdigit() else len(index)
    return index


def _own_pids():
    """This process and its descendants (a notebook's kernel and what it
    started), from /proc."""
    parent = {}
    for d in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parent[d] = f.read().rsplit(")", 1)[1].split()[1]
            except (OSError, IndexError):
                pass
    own, me = set(), str(os.getpid())
    for p in parent:
        q, n = p, 0
        while q in parent and n < 64:
            if q == me:
                own.add(p)
                break
            q, n = parent[q], n + 1
    return own


def _gpu_use_mib():
    """Memory the compute processes use on each GPU now, MiB, by bus id:
    every process's and this job's own, and whether nvidia-smi named any
    of the job's processes (a container names none: then every process
    counts, as the wrapper's report does)."""
    own = _own_pids()
    every, ours, named = {}, {}, False
    for line in _smi("--query-compute-apps=pid,gpu_bus_id,used_memory", "--format=csv,noheader,nounits"):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 3 or not fields[2].isdigit():
            continue
        pid, bus, mib = fields[0], fields[1], int(fields[2])
        every[bus] = every.get(bus, 0) + mib
        if pid in own:
            ours[bus] = ours.get(bus, 0) + mib
            named = True
    return every, ours, named


def report_torch_peak():
    """Under the wrapper or a Slurm script: at exit, write this process's
    PyTorch peak where their report reads it (one file per rank). Does
    nothing elsewhere."""
    import atexit

    path = os.environ.get("GPUPLAN_TORCH_PEAK_FILE")
    if not path:
        return
    rank = os.environ.get("LOCAL_RANK") or os.environ.get("RANK") or "0"
    rank = rank if rank.isdigit() else "0"

    def _write():
        peaks = _torch_allocated_mib()
        if peaks:
            try:
                with open(f"{path}.{rank}", "w", encoding="utf-8") as f:
                    f.write(str(max(peaks)))
            except OSError:
                pass

    atexit.register(_write)


class RunReport:
    _made = 0

    def __init__(self, job="notebook", path=None, run_id=None, part=1):
        self.job = job
        # The process id and a count too: two notebooks (or two reports of
        # one notebook) started in one second in one folder would otherwise
        # write one file, and one bill would be lost.
        RunReport._made += 1
        n = f"-{RunReport._made}" if RunReport._made > 1 else ""
        self.path = path or time.strftime("gpuplan-run-%Y%m%d-%H%M%S") + f"-{os.getpid()}{n}.json"
        self.run_id = _clean(run_id or time.strftime("%Y%m%d%H%M%S") + f"-{os.getpid()}")[:100]
        self.part = int(part) if int(part) > 0 else 1
        self.lines = 0
        self.last = ""
        self.first = None
        self.opening = ""
        self.every = {}
        self.ours = {}
        self.named = False
        self.written = None

    def start(self):
        self.t0 = time.time()
        self.started = _now()
        self.cpu0 = _cpu_ticks()
        return self

    def progress(self, text):
        if self.first is None:
            self.first = int(time.time() - self.t0)
            # A run resumed mid-way starts past the first epoch.
            self.opening = _clean(text)[:40]
        self.lines += 1
        self.last = _clean(text)[:40]
        # Sample memory while the job still holds it.
        every, ours, named = _gpu_use_mib()
        for seen, now in ((self.every, every), (self.ours, ours)):
            for bus, mib in now.items():
                seen[bus] = max(seen.get(bus, 0), mib)
        self.named = self.named or named

    def _peaks(self):
        """Per-GPU peaks in nvidia-smi's order: the job's own where
        nvidia-smi ever named its processes, else every process's."""
        used = self.ours if self.named else self.every
        index = _gpu_order()
        return [used[b] for b in sorted(used, key=lambda b: index.get(b, 1 << 30)) if used[b] > 0]

    def finish(self, exit_status=0, requeued=False):
        # A finish cell run again is the same run: its report is written
        # once (a second, later one would be a second bill).
        if self.written:
            return self.written
        # Only rows nvidia-smi answers with count: a driver/library mismatch
        # prints its error on stdout (not a card, and not a GPU to bill).
        gpus = [g for g in _smi("--query-gpu=name,driver_version", "--format=csv,noheader")
                if re.fullmatch(r".+, *[0-9][0-9.]*", g)]
        name, _, driver = (gpus[0] if gpus else ",").partition(",")
        cpu = None
        c1 = _cpu_ticks()
        if self.cpu0 and c1 and c1[1] > self.cpu0[1]:
            cpu = min(100, 100 * (c1[0] - self.cpu0[0]) // (c1[1] - self.cpu0[1]))
        report = {
            "schema": SCHEMA,
            "plan": PLAN,
            "job": _clean(self.job),
            "platform": PLATFORM,
            "run_id": self.run_id,
            "part": self.part,
            "requeued": bool(requeued),
            "gpu_name": _clean(name.strip()),
            "driver": _clean(driver.strip()),
            "gpu_count": len(gpus),
            "gpu_peaks_mib": self._peaks(),
            "torch_allocated_mib": _torch_allocated_mib(),
            "started_at": self.started,
            "ended_at": _now(),
            "wall_seconds": int(time.time() - self.t0),
            "first_progress_seconds": self.first,
            "first_progress": self.opening,
            "progress_lines": self.lines,
            "last_progress": self.last,
            "cpu_percent": cpu,
            "exit_status": int(exit_status) & 255,
        }
        if PLAN_JOB:
            report["plan_job"] = PLAN_JOB
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(report, f, ensure_ascii=False, indent=2)
        os.replace(tmp, self.path)
        self.written = self.path
        return self.path
