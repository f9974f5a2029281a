"""Fit (and leave-one-out check) the step-time constants of calibration.rs.

Input: the `WORK` lines printed by
    cargo test -p gpuplan-cli --features tauri/custom-protocol --test integration accuracy -- --ignored --nocapture
(name, measured seconds, conv FLOPs, matmul FLOPs, traffic bytes, ops, half?).
The model is the one in crates/gpuplan-core/src/steptime.rs on the reference
card (H200): device = conv/(P*e_conv) + matmul/(P*e_mm) + traffic/(BW*e_mem),
host = c0 + ops*tau*(amp factor), step = max(host, device) + a*min(host, device).
Random search on the median |log error| plus 0.3x the mean. Pure Python.

    python3 tools/calibrate/fit_steptime.py < work.txt [--loo]
"""
import math
import random
import statistics
import sys

P_TENSOR, P_TF32, P_FP32, BW = 989e12, 494.5e12, 67e12, 4.8e12
START = [0.30, 0.23, 0.60, 0.72, 0.35, 12e-6, 2.3, 0.8e-3, 0.29]


def load(lines):
    rows = []
    for line in lines:
        _, name, t, cf, mf, tr, ops, half = line.split()
        rows.append((name, float(t), float(cf), float(mf), float(tr), float(ops), half == "true"))
    return rows


def predict(p, r):
    ec_h, ec_f, em_h, em_f, e_m, tau, ampf, c0, alpha = p
    _, _, cf, mf, tr, ops, half = r
    dev = (cf / (P_TENSOR * ec_h) + mf / (P_TENSOR * em_h)) if half else (cf / (P_TF32 * ec_f) + mf / (P_FP32 * em_f))
    dev += tr / (BW * e_m)
    host = c0 + ops * tau * (ampf if half else 1.0)
    return max(host, dev) + min(alpha, 1.0) * min(host, dev)


def loss(p, rows):
    if any(x <= 0 for x in p):
        return 1e9
    errs = [abs(math.log(predict(p, r) / r[1])) for r in rows]
    return statistics.median(errs) + 0.3 * statistics.mean(errs)


def fit(rows, iters=20000, seed=0):
    rng = random.Random(seed)
    best, bl = list(START), loss(START, rows)
    for _ in range(iters):
        cand = [x * math.exp(rng.gauss(0, 0.15)) for x in best]
        cand[:5] = [min(c, 0.95) for c in cand[:5]]
        lc = loss(cand, rows)
        if lc < bl:
            best, bl = cand, lc
    return best


def main():
    rows = load(sys.stdin)
    if "--loo" in sys.argv:
        errs = []
        for i, r in enumerate(rows):
            p = fit(rows[:i] + rows[i + 1:], iters=4000, seed=i)
            e = predict(p, r) / r[1] - 1
            errs.append(abs(e))
            print(f"{r[0]:42s} held out: {e * 100:+6.1f}%")
        print(f"leave-one-out median |error| {statistics.median(errs) * 100:.1f}%")
        return
    p = fit(rows)
    print("constants:", [f"{x:.4g}" for x in p])
    errs = [abs(predict(p, r) / r[1] - 1) for r in rows]
    print(f"in-sample median |error| {statistics.median(errs) * 100:.1f}%")


if __name__ == "__main__":
    main()
