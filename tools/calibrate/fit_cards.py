"""Fit (and hold out) how step time carries from the calibration card to others.

Input: the `CARD` lines printed by
    cargo test -p gpuplan-cli --features tauri/custom-protocol --test integration cross_card -- --ignored --nocapture
(card, model, precision, batch, published seconds per step, conv FLOPs,
matmul FLOPs, traffic bytes, ops, half?, generation, tensor TFLOPS, FP32
TFLOPS, bandwidth GB/s, tf32?).

The model is the one in crates/gpuplan-core/src/steptime.rs: device seconds
are the step's work over each card's own peaks (tensor, TF32 or FP32 CUDA
cores; bandwidth) times achieved fractions. The fractions were fitted on the
H200; a smaller card reaches a larger share of its peak, as
    e(card) = min(CEILING, e_h200 * (peak_h200 / peak_card) ** exponent),
with one exponent for convolutions and one for matmuls; FP32 convolutions on
cards without TF32 (Volta, Turing, Pascal) run on CUDA cores and scale from
the H200's FP32 peak. Bandwidth keeps the H200's fraction (a fitted exponent
came out at zero). Only runs on the fit cards (even positions in the sorted
list of card ids) are fitted; the rest are reported as held out.

    python3 tools/calibrate/fit_cards.py < card_lines.txt
"""
import math
import random
import statistics
import sys

# The H200 fractions and host constants of calibration.rs.
EC_H, EC_F, EM_H, EM_F, E_M = 0.30, 0.23, 0.60, 0.72, 0.35
TAU, AMPF, C0, ALPHA = 12e-6, 2.3, 0.8e-3, 0.29
REF = dict(tensor=989e12, tf32=494.5e12, fp32=67e12, bw=4.8e12)
GEN = ["Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell"]
CEILING = 0.75


def load(lines):
    rows = []
    for line in lines:
        if not line.startswith("CARD "):
            continue
        _, gpu, model, prec, b, t, cf, mf, tr, ops, half, gen, ten, f32, bw, tf32 = line.split()
        rows.append(dict(gpu=gpu, model=model, prec=prec, b=int(b), t=float(t), cf=float(cf),
                         mf=float(mf), tr=float(tr), ops=float(ops), half=half == "true", gen=gen,
                         ten=float(ten) * 1e12, f32=float(f32) * 1e12, bw=float(bw) * 1e9,
                         tf32=tf32 == "true"))
    return rows


def predict(r, p):
    gc, gmm = p
    ampere = GEN.index(r["gen"]) >= GEN.index("Ampere")
    if r["half"]:
        pc = pm = r["ten"]
        refc = refm = REF["tensor"]
        ec0, em0 = EC_H, EM_H
    else:
        tf = r["ten"] / 2 if ampere else r["f32"]
        pc = tf
        pm = tf if (r["tf32"] and ampere) else r["f32"]
        refc = REF["tf32"] if ampere else REF["fp32"]
        refm = REF["tf32"] if (r["tf32"] and ampere) else REF["fp32"]
        ec0 = EC_F
        em0 = EM_F
    ec = min(CEILING, ec0 * (refc / pc) ** gc)
    em = min(CEILING, em0 * (refm / pm) ** gmm)
    dev = r["cf"] / (pc * ec) + r["mf"] / (pm * em) + r["tr"] / (r["bw"] * E_M)
    host = C0 + r["ops"] * TAU * (AMPF if r["half"] else 1)
    return max(dev, host) + ALPHA * min(dev, host)


def loss(p, rows):
    if any(x <= 0 for x in p):
        return 1e9
    e = [math.log(predict(r, p) / r["t"]) for r in rows]
    # Median and mean of |log error|, plus the signed median: optimism is
    # what costs a student money, so a systematic bias is penalised too.
    return statistics.median(map(abs, e)) + 0.3 * statistics.mean(map(abs, e)) + 0.5 * abs(statistics.median(e))


def fit(rows, iters=30000, seed=1):
    rng = random.Random(seed)
    best = [0.5, 0.3]
    bl = loss(best, rows)
    for _ in range(iters):
        cand = [max(1e-3, x + rng.gauss(0, 0.04)) for x in best]
        lc = loss(cand, rows)
        if lc < bl:
            best, bl = cand, lc
    return best


def summary(rows, p):
    e = [predict(r, p) / r["t"] - 1 for r in rows]
    return "n=%d median |error| %.1f%%, median signed %+.1f%%" % (
        len(e), 100 * statistics.median(map(abs, e)), 100 * statistics.median(e))


def main():
    rows = load(sys.stdin)
    cards = sorted({r["gpu"] for r in rows})
    fit_cards = {c for i, c in enumerate(cards) if i % 2 == 0}
    train = [r for r in rows if r["gpu"] in fit_cards]
    held = [r for r in rows if r["gpu"] not in fit_cards]
    p = fit(train)
    print("SIZE_EXPONENT_CONV = %.3f, SIZE_EXPONENT_MATMUL = %.3f" % tuple(p))
    print("fit:     ", summary(train, p))
    print("held out:", summary(held, p))


if __name__ == "__main__":
    main()
