"""Turns the reviewed rows of data/benchmarks/research-2026-12.md into
data/benchmarks/published-training-2.toml (run once; the TOML is the reviewed
data from then on, edited by hand).

Every row keeps its quoted figure, unit, source (repository, path, commit),
what was measured and how the setup differs from a plain PyTorch loop. The
fit / held-out split is fixed here, by publisher and card, before any fit:
  fit       NVIDIA DeepLearningExamples 21.x rows (not the 20.06 ones),
            timm's RTX 3090 CSVs;
  held-out  every other publisher (Falaleev, IBM, Answer.AI, MosaicML,
            torchtitan/Trainy, Alibaba, DeepSpeed, TensorFlow, InternLM),
            DLE's 20.06 rows, and any row on p100, rtx2080ti, rtx5090, h200
            or a100-40g-sxm.
A row the estimator cannot express yet says why (`not_expressible`).

    python3 tools/calibrate/research_to_toml.py > data/benchmarks/published-training-2.toml
"""
import re
import sys

SRC = "data/benchmarks/research-2026-12.md"
HELD_CARDS = {"p100", "rtx2080ti", "rtx5090", "h200", "a100-40g-sxm"}

PUB = {
    "NV": ("nvidia-dle", "NVIDIA/DeepLearningExamples"),
    "TM": ("timm", "huggingface/pytorch-image-models"),
    "NF": ("falaleev", "NikolasEnt/NikolasEnt.github.io"),
    "IBM": ("ibm", "foundation-model-stack"),
    "AA": ("answerai", "AnswerDotAI/fsdp_qlora"),
    "MM": ("mosaicml", "mosaicml/llm-foundry"),
    "PT": ("torchtitan", "pytorch/torchtitan"),
    "AL": ("alibaba", "QwenLM/Qwen, modelscope/ms-swift"),
    "DS": ("deepspeed", "deepspeedai/DeepSpeedExamples"),
    "TF": ("tensorflow", "tensorflow/tensorflow"),
    "IL": ("internlm", "InternLM/InternLM"),
}

NV_SRC = {
    "A": ("NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5/README.md @ 5843f4e5a1220dd98936e477d8597d8a77320666, 'Training performance results' (pytorch-21.03 NGC)", "2021-04"),
    "B": ("NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5/README.md @ 9061083098da527671529366315f5bc0e16493c4, 'Training performance results' (pytorch-20.06 NGC)", "2020-10"),
    "C": ("NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/efficientnet/README.md @ 5843f4e5a1220dd98936e477d8597d8a77320666 (pytorch-21.03 NGC)", "2021-04"),
    "D": ("NVIDIA/DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md @ a07d20a124b2b7187fc81029250da043d266e58d (pytorch:21.11-py3)", "2022-05"),
    "E": ("NVIDIA/DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md @ 78ec680207ad61bb2644f39dd2f117b80f893fa8 (pytorch:20.06-py3)", "2021-08"),
}
NF_SRC = {
    "A": ("NikolasEnt/NikolasEnt.github.io _posts/2025-02-17-RTX5090-Benchmark.md @ 8d6c38ec8262536975952f63442920e9f01fd837 (last changed da6bf2a8)", "2025-02"),
    "B": ("NikolasEnt/NikolasEnt.github.io _posts/2022-11-30-Four-gens-of-Nvidia-GPUs-compared.md @ 8d6c38ec8262536975952f63442920e9f01fd837", "2022-11"),
    "C": ("NikolasEnt/NikolasEnt.github.io _posts/2018-11-06-Benchmarking-RTX-2080-Ti-vs-Pascal-GPUs-with-DL-tasks.md @ 8d6c38ec8262536975952f63442920e9f01fd837", "2018-11"),
}

SETUP = {
    "NV": "NGC container; NVIDIA's optimised scripts (APEX/native AMP, fused optimizers, DALI or torch DataLoader, pinned CPU affinity); AMP CNN runs channels_last; 1-GPU rows ran on a DGX",
    "TM": "timm benchmark.py: synthetic inputs (no data loading), SGD momentum 0.9, 10 warm-up + 40 timed steps, PyTorch 1.12 + CUDA 11.3, autocast fp16",
    "NF": "timm benchmark.py (2022/2025 posts) or the u39kun harness (2018 post); synthetic inputs",
    "IBM": "HF SFTTrainer (fms-acceleration): fp16 weights, flash-attn 2, gradient checkpointing, packed 4096-token sequences, accelerate FSDP FULL_SHARD on 2 GPUs",
    "AA": "Answer.AI train.py: pure bf16 weights, LoRA r64 on q,k,v,up,down,gate, reentrant gradient checkpointing, dummy dataset of 1,024 samples timed end to end (includes model load)",
    "MM": "Composer + FSDP, FlashAttention, microbatching with gradient accumulation, 12 timed steps",
    "PT": "torchtitan FSDP2, bf16 mixed precision, selective activation checkpointing, optional torch.compile and float8",
    "AL": "Qwen finetune.py (HF Trainer, flash-attn 2, gradient checkpointing, grad-accum 8) or ms-swift sft",
    "DS": "transformers 4.12 example scripts (run_glue / run_clm), 200 steps, DDP via torch.distributed.launch or DeepSpeed ZeRO",
    "TF": "TensorFlow tf_cnn_benchmarks (not PyTorch), CUDA 8 / cuDNN 5.1, 10 warm-up + 100 steps",
    "IL": "InternEvo trainer with flash-attn and Apex fused ops, ZeRO-1 within a node",
}


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def arrow(s):
    m = re.search(r"→\s*(?:nearest\s+)?([a-z0-9][a-z0-9.\-]*)", s)
    if not m or "not in catalog" in s.split("→", 1)[1][:20]:
        return None
    return m.group(1).rstrip("?")


def num(s):
    m = re.search(r"[-+]?\d[\d,]*\.?\d*", s)
    return float(m.group(0).replace(",", "")) if m else None


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


rows = []
pub = None
for line in open(SRC, encoding="utf-8"):
    m = re.match(r"\|\s*([A-Z]+)-(\d+)\s*\|", line)
    if not m:
        continue
    rows.append((m.group(1), int(m.group(2)), cells(line)))

out = []
out.append("""# Published training throughput beyond Lambda: the rows of
# data/benchmarks/research-2026-12.md as reviewed data (tools/calibrate/
# research_to_toml.py wrote the first version; edited by hand since).
#
# Every row names its source (repository, path and commit, or paper and
# table), the figure exactly as printed (`quoted`, `unit`), what was measured
# (`measured`), how the setup differs from a plain PyTorch loop (`setup`) and
# the per-GPU samples per second derived from it (`samples_per_s`, with
# `derivation`). `set` is fixed by publisher and card before any fit
# (docs/accuracy.md): fit = NVIDIA DeepLearningExamples 21.x and timm's RTX 3090
# CSVs; held-out = every other publisher, DLE's 20.06 rows and every row on
# p100, rtx2080ti, rtx5090, h200 or a100-40g-sxm. A row the estimator cannot
# express yet says why in `not_expressible`; it is loaded and reported, never
# scored. Unknown fields are rejected.
""")

for p, n, c in rows:
    rid = f"{p}-{n}"
    card, model_s, quoted, unit, batch_s, prec_s, res_s, opt_s, gpus_s, derived, notes = c[1:12]
    gpu = arrow(card)
    model = arrow(model_s)
    if "Llama 3.1 8B" in model_s:
        model = "llama-3.1-8b"
        model_s = model_s.replace("llama-3-8b", "llama-3.1-8b")
    if p == "MM" or p == "IL" or p == "AL":
        model = None if p != "AL" or "chatglm3" not in model_s else "chatglm3-6b"
    if "RTX 6000 Ada" in card:
        gpu = "rtx6000-ada"  # in the catalog since issue 25
    if gpu and gpu.startswith("a100-80g-?"):
        gpu = "a100-80g-sxm"
    r = dict(id=rid, publisher=PUB[p][0], card=card, model_as_published=model_s,
             quoted=quoted, unit=unit, notes=notes, gpu=gpu, model=model)
    reasons = []
    # precision
    pl = prec_s.lower()
    tf32 = False
    if pl.startswith("tf32"):
        precision, tf32 = "fp32", True
    elif "fp8" in pl or "float8" in pl:
        precision = "bf16-amp"
        reasons.append("FP8 / Float8 matmuls are not in the estimator")
    elif pl.startswith("fp32") or pl.startswith("float32"):
        precision = "fp32"
    elif "pure .half()" in pl:
        precision = "fp16-amp"
        reasons.append("pure .half() FP16 training (no FP32 master weights) is not a precision the job shape has")
    elif pl.startswith("fp16 weights") or pl.startswith("bf16 weights") or "mp mode pure" in pl:
        precision = "bf16"
    elif pl.startswith("amp_bf16") or pl.startswith("bf16"):
        precision = "bf16-amp"
    elif "fp16" in pl or "float16" in pl:
        precision = "fp16-amp"
    else:
        precision = "fp32"
    r["precision"], r["tf32"] = precision, tf32
    # resolution / seq
    rs = num(res_s)
    if p in ("NV",) and "seq" in res_s:
        r["seq_len"] = int(rs if rs else 384)
        m2 = re.search(r"seq (\d+)", res_s)
        r["seq_len"] = int(m2.group(1))
    elif p in ("NV", "TM", "NF", "TF"):
        r["resolution"] = int(rs) if rs else 224
    elif p == "DS":
        r["seq_len"] = 128 if "128" in res_s else 1024
    elif p == "AL" and "max_length" in res_s:
        r["seq_len"] = int(re.search(r"max_length (\d+)", res_s).group(1))
    else:
        r["seq_len"] = int(rs)
    # batch
    b = num(batch_s)
    r["batch"] = int(b) if b else 1
    # optimizer
    ol = opt_s.lower()
    if ol.startswith("none"):
        r["optimizer"] = "sgd-plain"
    elif "sgd" in ol:
        r["optimizer"] = "sgd"
    elif "rmsprop" in ol:
        r["optimizer"] = "rmsprop"
    else:
        r["optimizer"] = "adamw"
    # gpus / nodes / interconnect
    g = int(num(gpus_s)) if num(gpus_s) else 1
    mnodes = re.search(r"\((\d+) nodes?", gpus_s)
    nodes = int(mnodes.group(1)) if mnodes else max(1, (g + 7) // 8)
    r["gpus"], r["nodes"] = g, nodes
    gl = gpus_s.lower()
    if g > 1:
        if "pcie" in gl:
            r["interconnect"] = "pcie"
        elif "nvlink" in gl or "sxm" in gl:
            r["interconnect"] = "nvlink"
    # per-GPU throughput
    if derived.startswith("= quoted"):
        spg = num(quoted)
    else:
        spg = num(derived)
    r["derivation"] = derived
    # mode / engine / checkpointing from notes
    nl = (notes + " " + model_s).lower()
    mode = "train"
    if "qlora" in nl or "q-lora" in nl:
        mode = "qlora"
    elif "lora" in nl and "full" not in nl.split("lora")[0][-12:]:
        mode = "lora"
    if "full-parameter" in nl or "(full)" in nl or "; full" in nl:
        mode = "train"
    r["mode"] = mode
    r["grad_checkpointing"] = ("grad checkpointing on" in nl or "grad ckpt" in nl
                               or "activation ckpt true" in nl or p == "AA")
    # per publisher
    conf = "high"
    if p == "NV":
        src_key = re.search(r"src ([A-E])", notes).group(1)
        r["source"], r["observed"] = NV_SRC[src_key]
        r["set"] = "held-out" if src_key in ("B", "E") else "fit"
        r["measured"] = ("training throughput, " + unit + (", synthetic or real ImageNet (README does not say which backend)" if r.get("resolution") else ", SQuAD v1.1 fine-tuning" if "SQuAD" in res_s else ", BERT pre-training"))
        r["engine"] = "ddp" if g > 1 else None
        r["channels_last"] = "NHWC" in batch_s or (precision == "fp16-amp" and r.get("resolution") is not None and src_key in ("A", "C"))
        if "pre-training" in res_s:
            r["setup_extra"] = "fused LAMB (two states, costed as AdamW); gradient accumulation amortises the optimizer step over 1-256 micro-batches"
        if model == "efficientnet-b0":
            r["setup_extra"] = "RMSprop with DLE's alpha 0.9, eps 0.01"
        if "126" == batch_s.strip():
            conf = "medium"
    elif p == "TM":
        nhwc = "NHWC" in notes
        fname = "benchmark-train-amp-nhwc-pt112-cu113-rtx3090.csv" if nhwc else "benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv"
        r["source"] = f"huggingface/pytorch-image-models results/{fname} @ c865028c34fc05cc7deea8e753b30d8cd1952591, row {model_s.split('`')[1]}"
        r["observed"] = "2022-07"
        r["set"] = "fit"
        r["measured"] = "train_samples_per_sec of timm benchmark.py, synthetic inputs, 1 GPU"
        r["channels_last"] = nhwc
        if model == "efficientnet-b3":
            r["resolution"] = 288
    elif p == "NF":
        sk = re.search(r"src ([ABC])", notes)
        sk = sk.group(1) if sk else ("A" if n <= 18 else "B")
        r["source"], r["observed"] = NF_SRC[sk]
        r["set"] = "held-out"
        r["measured"] = "timm benchmark.py training samples/s, synthetic inputs, 1 GPU" if sk != "C" else "ms per iteration (zero_grad + forward + backward, no optimizer step), synthetic batch"
        if sk == "A":
            r["batch"] = 256
            conf = "low"
            r["setup_extra"] = "batch starts at 256 and is cut by 32 until it fits; per-row batch not published (256 used)"
        if "FP16" in prec_s or "float16" in prec_s:
            if "pure" not in prec_s:
                conf = "low" if conf == "low" else "medium"
                r["setup_extra"] = (r.get("setup_extra", "") + "; 'FP16' may be AMP or pure half (costed as AMP)").lstrip("; ")
        if sk == "C":
            conf = "medium"
            r["setup_extra"] = "no optimizer step, loss = output.sum(), cudnn.benchmark on, NGC pytorch:18.10 (costed with plain SGD, no state)"
        if "suspect" in notes:
            conf = "low"
    elif p == "IBM":
        if n <= 14:
            r["source"] = "foundation-model-stack/fms-acceleration scripts/benchmarks/refs/a100_80gb.csv @ 04702cc5b9f0e198d545b88a7c6fd9ade8c50bb8, " + re.search(r"row index \d+", notes).group(0)
            r["observed"] = "2024-05"
            r["measured"] = "train_tokens_per_second (per device) of HF Trainer over 100 steps; derived seq/s = tokens/s / 4096"
            r["attention"] = "flash"
            r["lora_rank"] = 16
            r["lora_targets"] = "q,k,v,o"
            if g > 1:
                r["engine"] = "fsdp-full"
            if n >= 13:
                reasons.append("fms-acceleration fused Triton kernels (accelerated-peft-bnb), not plain PEFT")
        else:
            commit = "4ffb9bdfa30e957e339ccfbb617a589fd07c495e" if "B1" in notes else "ed74fd5ddec00e309eac20f478de883464c86526"
            r["source"] = f"foundation-model-stack/fms-fsdp README.md @ {commit}"
            r["observed"] = "2024-03" if "B1" in notes else "2024-05"
            r["measured"] = "tokens/s/GPU of Llama-2 pre-training (FMS implementation)"
            r["attention"] = "flash"
            r["engine"] = "hsdp" if "hsdp" in nl else "fsdp-full"
            r["inter_node_gbps"] = 800.0 if r.get("gpu") == "h100-sxm" else 400.0
            if "compile: torch.compile" in notes:
                r["compile"] = True
            if "selective ac" in nl:
                reasons.append("fms-fsdp's selective checkpointing (a share of blocks, not stated in the README)")
        r["set"] = "held-out"
    elif p == "AA":
        r["source"] = "AnswerDotAI/fsdp_qlora benchmarks_03_2024.md @ e877dda5026dfd964cccdb92a4532da587cbdae0"
        r["observed"] = "2024-03"
        r["set"] = "held-out"
        r["measured"] = "wall seconds to train 1,024 samples on all GPUs (includes start-up); derived seq/s/GPU = 1024 / time / GPUs"
        r["lora_rank"] = 64
        r["lora_targets"] = "q,k,v,up,down,gate"
        r["engine"] = "ddp" if ("sharding `ddp`" in notes or "DDP True" in notes) else "fsdp-full"
        if "CPU+activation offload True" in notes:
            reasons.append("FSDP CPU offload of parameters and activations")
        elif "offload True" in notes or "CPU offload;" in notes or "CPU offload of params" in notes:
            r["offload"] = True
        if n >= 21:
            conf = "medium"
        if n in (1, 2):
            conf = "medium"
            r["setup_extra"] = "the post's prose says '800 seconds vs 550' for these runs; the table is used"
    elif p == "MM":
        r["source"] = "mosaicml/llm-foundry scripts/train/benchmarking/README.md @ 495218376830947dce625efabc4d86be7c47cc45, " + re.search(r"README line \d+", notes).group(0)
        r["observed"] = "2024-01"
        r["set"] = "held-out"
        r["measured"] = "tokens/s/GPU of MPT pre-training over 12 steps"
        r["engine"] = "fsdp-full"
        if "RoCE 1600" in gpus_s:
            r["inter_node_gbps"] = 1600.0
        reasons.append("MPT models are not in the zoo")
    elif p == "PT":
        if n <= 7:
            r["source"] = "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @ 820504e20d1149fbf0b98c567af24c4b0433b22d"
            r["observed"] = "2024-12"
            conf = "medium"
            r["setup_extra"] = "H100 96GB HBM2e at 500 W (Grand Teton): between SXM and NVL; scored against h100-sxm"
        else:
            r["source"] = "pytorch/torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md @ cbccb387871a5e1f522c1e222c51ab88b03c0392"
            r["observed"] = "2025-06"
        r["set"] = "held-out"
        r["measured"] = "tokens/s/GPU (TPS/GPU) read at step 90-100"
        r["engine"] = "fsdp-full"
        r["attention"] = "flash"
        if "full AC" in notes:
            r["grad_checkpointing"] = True
        if "selective AC" in notes:
            r["selective_checkpointing"] = True
        if "compile" in prec_s + notes:
            r["compile"] = True
        r["inter_node_gbps"] = 3200.0
    elif p == "AL":
        r["source"] = ("QwenLM/Qwen README.md @ 712d922eceea9a9388375fc51ee97ec971eb13bb, 'Profiling of Memory and Speed'" if n <= 21
                       else "modelscope/ms-swift:docs/source_en/LLM/Benchmark.md @ cdb169b781c22dd06ef03e06209819ec1f4208eb")
        r["observed"] = "2024-06" if n <= 21 else "2024-07"
        r["set"] = "held-out"
        r["measured"] = "s per iteration of 8 micro-batches" if n <= 21 else "samples/s of swift sft on variable-length data"
        if n <= 21:
            reasons.append("Qwen(1) models are not in the zoo")
        else:
            reasons.append("variable-length data: tokens per sample unknown" if model else "model not in the zoo")
    elif p == "DS":
        r["source"] = "deepspeedai/DeepSpeedExamples training/autotuning/hf/README.md @ b90ffabe1ae90149ff4e913ab9e3b20ac2f1b50c"
        r["observed"] = "2021-11"
        r["set"] = "held-out"
        r["measured"] = "HF Trainer samples/s over 16 GPUs of one node, 200 steps"
        r["gpu"] = "v100-32g"
        conf = "medium"
        r["gpus_per_node"] = 16
        r["interconnect"] = "nvlink"
        r["setup_extra"] = "16 V100s in one node is a DGX-2 (NVSwitch, NVLink between all 16); the source names neither"
        if "ZeRO" in notes:
            reasons.append("DeepSpeed autotuned config (not checked)")
        if model == "gpt2-medium" or model == "gpt2-large" or model == "gpt2":
            pass
    elif p == "TF":
        r["source"] = "tensorflow/tensorflow tensorflow/docs_src/performance/benchmarks.md @ 5984ffefd320c5d71b801ee06079a51b91ea42c0"
        r["observed"] = "2017-05"
        r["set"] = "held-out"
        r["measured"] = "images/s of tf_cnn_benchmarks, " + ("synthetic" if "synthetic" in notes else "real ImageNet") + " data"
        conf = "medium"
        r["setup_extra"] = "DGX-1 P100 is the SXM2 part (10.6 FP32 TFLOPS, 732 GB/s); the catalog's p100 is the PCIe card (9.3)"
        if g > 1:
            r["engine"] = "ddp"
            if "parameter_server" in notes:
                reasons.append("parameter server on the CPU (TensorFlow), not an all-reduce engine")
        if n == 9:
            reasons = ["Tesla K80 is not in the catalog"]
    elif p == "IL":
        r["source"] = "InternLM/InternLM doc/en/train_performance.md @ 20fe5ac297e61c6ee62a8589e0b7fd12e36b590b"
        r["observed"] = "2023-09"
        r["set"] = "held-out"
        r["measured"] = "tokens/GPU/s (TGS)"
        r["inter_node_gbps"] = 400.0
        reasons.append("InternLM-7B is not in the zoo")
    if g > 1024:
        reasons.append(f"{g} GPUs over {nodes} nodes: the planner stops at 1024 GPUs")
    if p == "TF" and n in (5, 6) and g > 1:
        reasons.append("variable_update of the 'Other results' table not stated (parameter server in the main table)")
    if r.get("gpu") in HELD_CARDS:
        r["set"] = "held-out"
    if r.get("gpu") is None:
        reasons.append("card not in the catalog: " + card)
    if r.get("model") is None and not any("zoo" in x for x in reasons):
        reasons.append("model not in the zoo: " + model_s)
    if "Swin-B" in model_s:
        reasons = [x for x in reasons if "zoo" not in x] + ["Swin-B is not in the zoo (swin-t is)"]
    if spg is None:
        reasons.append("no per-GPU throughput can be derived")
        spg = 0.0
    r["samples_per_s"] = spg
    r["confidence"] = conf
    r["reasons"] = reasons
    if p == "AA" and g >= 2 and "not stated" in gpus_s:
        pass
    if p in ("IBM",) and g > 1 and "interconnect" not in r:
        r["interconnect_note"] = "interconnect not stated"
    out.append(r)

# emit
print(out[0])
for r in out[1:]:
    print("[[run]]")
    for k in ("id", "publisher", "set"):
        print(f"{k} = {q(r[k])}")
    print(f"source = {q(r['source'])}")
    print(f"observed = {q(r['observed'])}")
    print(f"confidence = {q(r['confidence'])}")
    print(f"card = {q(r['card'])}")
    if r.get("gpu"):
        print(f"gpu = {q(r['gpu'])}")
    print(f"model_as_published = {q(r['model_as_published'])}")
    if r.get("model"):
        print(f"model = {q(r['model'])}")
    print(f"quoted = {q(r['quoted'])}")
    print(f"unit = {q(r['unit'])}")
    print(f"measured = {q(r['measured'])}")
    setup = SETUP[r['id'].split('-')[0]]
    if r.get("setup_extra"):
        setup += "; " + r["setup_extra"]
    if r.get("notes"):
        setup += "; row notes: " + r["notes"]
    print(f"setup = {q(setup)}")
    print(f"samples_per_s = {r['samples_per_s']}")
    print(f"derivation = {q(r['derivation'])}")
    print(f"mode = {q(r['mode'])}")
    print(f"precision = {q(r['precision'])}")
    if r["tf32"]:
        print("tf32 = true")
    if r.get("resolution"):
        print(f"resolution = {r['resolution']}")
    if r.get("seq_len"):
        print(f"seq_len = {r['seq_len']}")
    print(f"optimizer = {q(r['optimizer'])}")
    print(f"batch = {r['batch']}")
    if r["grad_checkpointing"]:
        print("grad_checkpointing = true")
    if r.get("lora_rank") and r["mode"] != "train":
        print(f"lora_rank = {r['lora_rank']}")
        print(f"lora_targets = {q(r['lora_targets'])}")
    if r.get("attention"):
        print(f"attention = {q(r['attention'])}")
    if r.get("channels_last"):
        print("channels_last = true")
    if r.get("selective_checkpointing"):
        print("selective_checkpointing = true")
    if r.get("compile"):
        print("compile = true")
    print(f"gpus = {r['gpus']}")
    if r["nodes"] > 1:
        print(f"nodes = {r['nodes']}")
    if r.get("engine") and r["gpus"] > 1:
        print(f"engine = {q(r['engine'])}")
    if r.get("offload") and r["gpus"] > 1:
        print("offload = true")
    if r.get("interconnect") and r["gpus"] > 1:
        print(f"interconnect = {q(r['interconnect'])}")
    if r.get("inter_node_gbps") and r["nodes"] > 1:
        print(f"inter_node_gbps = {r['inter_node_gbps']}")
    if r.get("gpus_per_node"):
        print(f"gpus_per_node = {r['gpus_per_node']}")
    if r["reasons"]:
        print(f"not_expressible = {q('; '.join(dict.fromkeys(r['reasons'])))}")
    print()
