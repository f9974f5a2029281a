//! The constants the estimators take from measurements rather than from first
//! principles. Each is a property of PyTorch and CUDA, never of one job: the
//! activation, gradient and optimizer terms come from the architecture itself,
//! and these cover what the architecture cannot tell (the allocator's slack,
//! the CUDA context, achievable fractions of peak throughput).
//!
//! Source for all of them: `data/measurements/h200-set1.jsonl` (25 jobs on an
//! H200, PyTorch 2.11) and, for the cross-GPU efficiency, the measured relative
//! throughput table in `shared/reference/gpus.md`. `docs/accuracy.md` shows the
//! resulting errors and how to regenerate them.

/// CUDA context plus cuBLAS/cuDNN handles and workspaces, bytes. Measured as
/// `nvml_used - nvml_used_before - peak_reserved` on every calibration job:
/// 767-789 MiB, so the upper end is used.
pub const CONTEXT_BYTES: f64 = 790.0 * 1024.0 * 1024.0;

/// Memory nvidia-smi already shows as used on an idle card before any process
/// starts (driver reservations), MiB. Measured 615 MiB on the H200; a job fits
/// when its peak is below the card's total minus this.
pub const IDLE_DEVICE_MIB: f64 = 615.0;

/// Share of the caching allocator's reserve above the live-tensor peak that
/// grows with the whole footprint (block rounding and splitting), by family.
/// Fitted: reserved / allocated is 1.03-1.11 for transformers.
pub const ALLOCATOR_SLACK_TRANSFORMER: f64 = 0.08;
/// The same for CNNs and vision transformers, whose many differently shaped
/// activations fragment more (reserved / allocated 1.05-1.78).
pub const ALLOCATOR_SLACK_VISION: f64 = 0.08;

/// Extra reserve in units of the largest single activation block: freed blocks
/// of that size cannot be reused for the next differently sized request, so the
/// allocator holds a few more. Fitted on the vision jobs, where the reserve
/// above the peak is 1.4-6.5x the largest activation tensor.
pub const ALLOCATOR_LARGEST_BLOCKS_VISION: f64 = 5.0;
/// The same for transformers, whose largest block is the logits tensor.
pub const ALLOCATOR_LARGEST_BLOCKS_TRANSFORMER: f64 = 0.5;

/// Bytes held per token and vocabulary entry by the language-model loss in
/// training: the FP32 logits (or their FP32 upcast), log-softmax output kept for
/// backward, and the logits' gradient (Hugging Face `ForCausalLMLoss`).
pub const LOGITS_TRAIN_BYTES_PER_ENTRY: f64 = 12.0;

/// Share of a transformer block's saved activations selective (per-operator)
/// checkpointing keeps: torchtitan's `op` policy saves the outputs of
/// matmuls (every other one) and attention and recomputes the elementwise
/// operators, about half of what a block saves. From the policy, not fitted.
pub const SELECTIVE_CHECKPOINT_KEEP: f64 = 0.5;
/// Forward passes selective checkpointing recomputes: half the matmuls (the
/// policy's every other one) and the cheap elementwise operators, half a
/// forward. From the policy, not fitted.
pub const SELECTIVE_CHECKPOINT_RECOMPUTE: f64 = 0.5;

/// Activation memory kept with gradient checkpointing on a CNN, as a share of
/// the full amount: `checkpoint_sequential` over four segments keeps the
/// segment boundaries and recomputes one segment at a time. An assumption, not
/// a measurement (no calibration job checkpoints a CNN).
pub const VISION_CHECKPOINT_SHARE: f64 = 0.35;

/// Bytes per parameter of NF4 without double quantisation: 4 bits plus one
/// FP32 scale per 64 weights.
pub const NF4_SINGLE_BYTES_PER_PARAM: f64 = 0.5 + 4.0 / 64.0;

/// Bytes per parameter of a base loaded in 8 bits (bitsandbytes LLM.int8):
/// one byte per weight plus a row scale and the FP16 outlier columns it keeps
/// (well under 1% of columns for trained LLMs); 1.02 covers both.
pub const INT8_BYTES_PER_PARAM: f64 = 1.02;

/// Slowdown of LoRA on an 8-bit base against a 16-bit one from LLM.int8's
/// outlier decomposition and int8 matmuls (bitsandbytes reports 15-40% slower
/// inference than FP16; training's extra backward matmuls more): 1.5.
pub const INT8_SLOWDOWN: f64 = 1.5;

/// Bytes per parameter of a 4-bit NF4 weight with double quantisation
/// (bitsandbytes: 4 bits plus one FP8 scale per 64 weights plus one FP32 scale
/// per 256 blocks).
pub const NF4_BYTES_PER_PARAM: f64 = 0.5 + (1.0 / 64.0 + 4.0 / (64.0 * 256.0));

/// The card the calibration jobs ran on (H200): its peak FP16/BF16 tensor
/// FLOPS, TF32 FLOPS, FP32 FLOPS and bandwidth, which turn the calibrated
/// efficiencies into device seconds. A test checks them against the catalog.
pub const REFERENCE_TENSOR_FLOPS: f64 = 989e12;
/// TF32 tensor peak of the reference card (half its FP16 rate).
pub const REFERENCE_TF32_FLOPS: f64 = 494.5e12;
/// FP32 CUDA-core peak of the reference card.
pub const REFERENCE_FP32_FLOPS: f64 = 67e12;
/// Memory bandwidth of the reference card, bytes/s.
pub const REFERENCE_BANDWIDTH: f64 = 4.8e12;
/// Catalog id of the reference card, whose peaks the fractions below are of.
pub const REFERENCE_GPU: &str = "h200";

// ---- Step time on every card (steptime.rs) ---------------------------------
// Fitted together by `tools/calibrate/fit_published.py` on the FIT rows only:
// the 25 H200 calibration jobs (data/measurements; one publisher among the
// others, their median |error| held under 4.5% so the H200 keeps its
// accuracy), Lambda's runs on the cards at even positions
// (data/benchmarks/published-training.toml), NVIDIA DeepLearningExamples'
// 21.x rows and timm's RTX 3090 CSVs (data/benchmarks/published-training-2.toml,
// `set = "fit"`); the loss is the mean |log(estimated / published)| per
// publisher, averaged. Single-GPU rows only (multi-GPU rows add communication,
// which is not fitted). The held-out rows never enter it (docs/accuracy.md).
// Fit of 2026-12-01, printed by the script (twelve starts, the best three
// refined by Nelder-Mead):
//   ec_h 0.489, ec_f 0.635, ec_cuda 0.990, em_h 0.569, em_f 0.705,
//   em_tf32 0.384, e_mem 0.236, e_stream 0.321, a_conv 0.272, a_mm 0.120,
//   d 0.428, t_share 0.484 (H200 median |error| 4.1%).
// 2026-12-03: cuDNN's Winograd counted on CUDA cores ([`WINOGRAD_SPEEDUP`],
// not fitted), ec_cuda refitted alone, the rest as shipped
// (`fit_published.py --only ec_cuda`): 0.990 -> 0.788, loss 0.1258 ->
// 0.1254 (the same call without the Winograd term gives back 0.990). A full
// refit moves the others by at most 0.03 for a loss of 0.1253 and takes
// held-out Ada the wrong way (+6.3% -> +7.0%), so they were kept.

/// Achieved fraction of the reference card's (H200's) tensor peak in one
/// eager PyTorch training step: convolutions in 16-bit. Other cards scale it
/// by [`SIZE_EXPONENT_CONV`].
pub const EFFICIENCY_CONV_HALF: f64 = 0.489;
/// Convolutions in FP32 on TF32 tensor cores (cuDNN's default on Ampere and
/// newer), as a fraction of the reference card's TF32 peak.
pub const EFFICIENCY_CONV_FP32: f64 = 0.635;
/// Convolutions in FP32 on CUDA cores (Pascal, Volta, Turing), as a fraction
/// of the card's own FP32 peak, the same on every card, for the FLOPs of
/// direct convolution; dense 3x3 stride-1 convolutions need
/// [`WINOGRAD_SPEEDUP`] times fewer.
pub const EFFICIENCY_CONV_CUDA_CORES: f64 = 0.788;
/// How much faster than their direct FLOPs dense 3x3 stride-1 convolutions
/// run on CUDA cores, where cuDNN computes them as Winograd transforms:
/// F(2x2, 3x3)'s saving in multiplications, 36 / 16 (Lavin and Gray 2016,
/// "Fast Algorithms for Convolutional Neural Networks", arXiv 1509.09308;
/// cuDNN's fused `CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD`). Not fitted: the
/// fit rows on CUDA cores are ResNet-50 (37% of its convolution FLOPs in
/// such layers) and EfficientNet-B0 (none), and a free fit ran to 4
/// (F(4x4, 3x3)'s saving, its bound) by lowering [`EFFICIENCY_CONV_CUDA_CORES`]
/// for EfficientNet's depthwise convolutions, which are not Winograd's to
/// explain. Tensor-core convolutions (16-bit from Volta on, TF32) are
/// implicit GEMMs; Pascal's 16-bit convolutions run on CUDA cores.
pub const WINOGRAD_SPEEDUP: f64 = 2.25;
/// Matmuls in 16-bit, fraction of the reference card's tensor peak.
pub const EFFICIENCY_MATMUL_HALF: f64 = 0.569;
/// Matmuls in FP32 on CUDA cores, fraction of the card's own FP32 peak, the
/// same on every card (SGEMM keeps CUDA cores busy on any card).
pub const EFFICIENCY_MATMUL_FP32: f64 = 0.705;
/// Matmuls in FP32 as TF32 on tensor cores, fraction of the reference card's
/// TF32 peak.
pub const EFFICIENCY_MATMUL_TF32: f64 = 0.384;
/// Achieved fraction of the reference card's bandwidth in the activations'
/// memory-bound kernels (elementwise, normalisation), counted as
/// [`ACTIVATION_TRAFFIC`] crossings of each saved byte.
pub const EFFICIENCY_MEMORY: f64 = 0.236;
/// Achieved fraction of the reference card's bandwidth when weights,
/// gradients and optimizer states stream through large kernels (the
/// optimizer step, weight reads, QLoRA's dequantisation, the loss's logits).
pub const EFFICIENCY_MEMORY_STREAM: f64 = 0.321;
/// Slower memory is saturated by smaller kernels: a card's fraction is the
/// reference's times `(bandwidth_h200 / bandwidth) ^ BANDWIDTH_EXPONENT`.
pub const BANDWIDTH_EXPONENT: f64 = 0.428;
/// No memory-bound kernel mix reaches more than this share of DRAM
/// bandwidth (a physical bound: refresh, page misses; not fitted).
pub const EFFICIENCY_MEMORY_CEILING: f64 = 0.9;
/// Share of activation traffic that re-reads a tensor the previous kernel
/// just wrote: of the six crossings of each saved byte counted in
/// [`ACTIVATION_TRAFFIC`] (forward write, forward read by the next operator,
/// backward read, gradient write, gradient read by the next operator,
/// update), two are such re-reads. When the tensor fits in the card's L2 they
/// never reach DRAM. From the traffic count, not fitted.
pub const L2_REREAD_SHARE: f64 = 2.0 / 6.0;
/// Bytes moved per frozen parameter each time QLoRA dequantises it: the
/// packed NF4 weight read ([`NF4_BYTES_PER_PARAM`]) and the 16-bit copy
/// written (2 bytes) and read back by the matmul (2 bytes). bitsandbytes
/// dequantises on every use; from the formats, not fitted.
pub const DEQUANT_BYTES_PER_PARAM: f64 = NF4_BYTES_PER_PARAM + 4.0;

/// Activation traffic cuDNN's NCHW-to-NHWC transposes add around tensor-core
/// convolutions, as a share of the convolution net's activation traffic
/// (channels_last removes it). Fitted with the fractions above on the paired
/// NCHW / channels_last rows of the fit set.
pub const NCHW_TRANSPOSE_SHARE: f64 = 0.484;

/// How much more of its tensor peak a card with a smaller peak reaches than
/// the H200: the fraction scales as `(peak_h200 / peak_card) ^ exponent`.
/// cuDNN's kernels for a training batch cannot fill an H200's 132 SMs but do
/// fill a 3090's 82, so the achieved convolution rate differs less between
/// cards than their peaks. Fitted (see above).
pub const SIZE_EXPONENT_CONV: f64 = 0.272;
/// The same for tensor-core matmuls. Fitted with [`SIZE_EXPONENT_CONV`].
pub const SIZE_EXPONENT_MATMUL: f64 = 0.120;
/// No kernel mix beats the tensor peak (a physical bound, not fitted; the
/// fit's own optimum sat on it).
pub const EFFICIENCY_CEILING: f64 = 1.0;

/// Times each saved activation byte crosses the memory bus in one training step
/// (written in forward, read back in backward, gradients written and read).
pub const ACTIVATION_TRAFFIC: f64 = 6.0;

/// Host-side cost of one dispatched operator in eager PyTorch (launch plus
/// Python and autograd bookkeeping), seconds. Fitted.
pub const OP_OVERHEAD_S: f64 = 12e-6;
/// Host-side cost per step independent of the model (zero_grad, loss, the
/// optimizer's Python loop), seconds. Fitted.
pub const STEP_OVERHEAD_S: f64 = 0.8e-3;
/// Operator count multiplier under autocast: casts of inputs and weights, their
/// backward, and GradScaler's unscale and checks. Fitted (2.3).
pub const AUTOCAST_OP_FACTOR: f64 = 2.3;
/// The host launches asynchronously, so host and device time mostly overlap:
/// a step takes the longer of the two plus this share of the shorter. Fitted.
pub const OVERLAP_SHARE: f64 = 0.29;

/// Operators dispatched per transformer block in one forward pass (projections,
/// attention, norms, activation, residuals), counted on the Hugging Face
/// Llama and BERT blocks.
pub const OPS_PER_TRANSFORMER_LAYER: f64 = 30.0;

// ---- The run around the GPU steps (pipeline.rs) ---------------------------
// These are properties of PyTorch's DataLoader, image codecs and disks, not
// of any job; each is a published or well-known figure, stated with its
// source. They decide the input pipeline's speed and what a run spends
// outside the training steps.

/// Samples per second one DataLoader worker prepares from small in-memory
/// images (CIFAR-10 with RandomCrop(32, padding=4), RandomHorizontalFlip,
/// ToTensor, Normalize): about 100-200 µs of PIL and Python work per sample
/// plus collation, so roughly 5,000-10,000 a second per worker; the lower end
/// is used because a student's loop also pickles each batch to the main
/// process. With the PyTorch tutorial's 2 workers that is ~10,000 images/s,
/// which keeps a mid-range card busy on CIFAR ResNet-18 but not an H100.
pub const IN_MEMORY_SAMPLES_PER_CORE: f64 = 5_000.0;
/// ImageNet JPEGs per second one core decodes and augments with PIL
/// (RandomResizedCrop(224), flip): 150-250 (the FFCV paper, Leclerc et al.,
/// CVPR 2023, measures PyTorch's ImageNet loader at a few hundred images per
/// second per core; NVIDIA's DALI documentation recommends 8-12 cores per
/// V100 for ResNet-50 for the same reason). 200 used.
pub const JPEG_SAMPLES_PER_CORE: f64 = 200.0;
/// Average ImageNet training JPEG, bytes (the 1.28 million training images
/// take about 140 GB: ~110 KB each).
pub const JPEG_BYTES_AT_224: f64 = 110_000.0;
/// Pre-decoded samples (FFCV, WebDataset of arrays) per core at 224 px: a
/// crop and a flip on uint8 arrays, roughly ten times faster than decoding
/// JPEG (the FFCV paper's ImageNet loader reaches thousands per core).
pub const PACKED_SAMPLES_PER_CORE: f64 = 2_000.0;
/// Tokenised 512-token sequences per second one worker collates and pads.
pub const TEXT_SAMPLES_PER_CORE: f64 = 20_000.0;
/// Read bandwidth of a local NVMe drive for a training loader's reads, bytes/s
/// (datacenter NVMe reads 2-3 GB/s sequentially; file-per-sample reads reach
/// less).
pub const DISK_READ_NVME: f64 = 1.5e9;
/// A local SATA SSD (550 MB/s sequential; ~400 MB/s for many files).
pub const DISK_READ_SSD: f64 = 4.0e8;
/// A network disk or shared file system (cloud block storage: 100-250 MB/s;
/// small files far less).
pub const DISK_READ_NETWORK: f64 = 1.2e8;
/// An object store mounted as files (per-file latency dominates).
pub const DISK_READ_OBJECT: f64 = 6.0e7;
/// Checkpoint write bandwidth of each disk, bytes/s.
pub const DISK_WRITE_NVME: f64 = 1.0e9;
/// SATA SSD writes.
pub const DISK_WRITE_SSD: f64 = 3.0e8;
/// Network disk writes.
pub const DISK_WRITE_NETWORK: f64 = 1.0e8;
/// Object store writes.
pub const DISK_WRITE_OBJECT: f64 = 5.0e7;
/// Host-to-device copies from pageable memory (the DataLoader default,
/// `pin_memory=False`), bytes/s: PCIe 4.0 x16 reaches ~25 GB/s pinned and
/// about half that pageable.
pub const HOST_TO_DEVICE_BYTES_PER_S: f64 = 1.2e10;
/// Share of host memory the page cache can give a dataset so that epochs after
/// the first read it from memory.
pub const PAGE_CACHE_SHARE: f64 = 0.5;
/// A training step does about three forward passes of work per sample; an
/// evaluation pass one.
pub const TRAIN_TO_EVAL_WORK: f64 = 3.0;
/// Evaluation input is decoded but not augmented: about this share of the
/// training decode cost.
pub const EVAL_DECODE_SHARE: f64 = 0.7;
/// Seconds of warm-up before steady steps: CUDA context and cuDNN handles,
/// cuDNN's algorithm choice for each layer shape, the first iterations
/// (10-30 s is typical on first use of a process).
pub const WARMUP_S: f64 = 20.0;
/// Seconds `torch.compile` spends compiling a model on first use (one to a few
/// minutes for ResNets and BERT-sized models in PyTorch 2.x's release notes
/// and tutorials).
pub const COMPILE_S: f64 = 90.0;
/// Step-time factor after `torch.compile` (PyTorch 2.0's announcement reports
/// 1.3-2x training speed-ups on its model suites; 1.3x used).
pub const COMPILE_SPEEDUP: f64 = 1.0 / 1.3;
/// Unpacking a dataset archive on the instance (tar or unzip of many small
/// image files onto a local disk), bytes of archive per second: single-threaded
/// gzip and zip decompression runs at 100-300 MB/s, and creating tens of
/// thousands of small files slows it; 150 MB/s used.
pub const UNPACK_BYTES_PER_S: f64 = 1.5e8;

/// Adafactor's factored second moments, as a share of one parameter-sized
/// state: a `m x n` matrix keeps `m + n` values, `(m + n) / (m n)` of it
/// (3e-4 for a 4,096 x 14,336 MLP weight, 5e-4 for 4,096 x 4,096); vectors
/// (norms, biases) keep a full state. 1% covers both with room to spare.
pub const ADAFACTOR_STATE_SHARE: f64 = 0.01;

/// Chunks a chunked cross-entropy splits the tokens into (Liger's fused
/// linear cross-entropy sizes its chunks to the hidden-to-vocabulary ratio,
/// 8-32 chunks for current LLMs; the lower end is used).
pub const LOSS_CHUNKS: f64 = 8.0;

// ---- Several GPUs (parallel.rs) --------------------------------------------

/// NCCL all-reduce bus bandwidth between consumer GeForce cards of one
/// instance, bytes/s: no peer-to-peer since the RTX 4090 (and disabled on
/// most rented 3090 hosts), so traffic goes through host memory; nccl-tests
/// on such machines report 5-12 GB/s.
pub const BUS_PCIE_CONSUMER: f64 = 8.0e9;
/// The same between data-center cards on PCIe 4.0 with peer-to-peer (A10,
/// A40, L40S, A100 PCIe): 15-22 GB/s in nccl-tests.
pub const BUS_PCIE: f64 = 1.8e10;
/// Share of a PCIe link's raw rate each way (generation x lanes: 15.75 GB/s
/// for 3.0 x16) that NCCL's ring reaches on it: NCCL's own topology model
/// counts a link as `width x speed / 80` GB/s with 8 GT/s as 60
/// (NVIDIA/nccl `src/graph/topo.cc`, `kvDictPciGen`; `PCI_BW 12.0 // PCI
/// Gen3 x16` in `topo.h`, commit 5067397), 12 of 15.75 GB/s. Used where a
/// board's link is stated (`pcie_gbps`) for collectives and for pinned
/// host-to-GPU copies alike. From NCCL's model, not fitted.
pub const PCIE_LINK_SHARE: f64 = 12.0 / 15.754;
/// Share of that link a ring reaches through host memory, when the GPUs
/// have no peer-to-peer access (GeForce cards: NCCL's SHM transport stages
/// every byte in a host buffer): NCCL's maintainer on its SHM path, "12GB/s
/// instead of 9 or 6" on PCIe 3.0 x16 (NVIDIA/nccl issue 406, 2020-10-14;
/// 9 on one CPU, 6 across sockets): 9/12. Not fitted.
pub const HOST_BRIDGE_SHARE: f64 = 9.0 / 12.0;
/// NVLink 2 (V100 SXM2 in a DGX-1 hybrid cube mesh): ~130 GB/s bus bandwidth.
pub const BUS_NVLINK_VOLTA: f64 = 1.3e11;
/// NVLink 3 through NVSwitch (A100/A800 SXM, 600 GB/s bidirectional):
/// nccl-tests all-reduce bus bandwidth ~230 GB/s on 8 GPUs.
pub const BUS_NVLINK_AMPERE: f64 = 2.3e11;
/// NVLink 4 through NVSwitch (H100/H800/H200 SXM, 900 GB/s): ~360 GB/s.
pub const BUS_NVLINK_HOPPER: f64 = 3.6e11;
/// Between nodes of a campus cluster (InfiniBand HDR 200 Gb/s, one NIC per
/// node): ~20 GB/s.
pub const BUS_INTER_NODE: f64 = 2.0e10;
/// Share of a node's network line rate NCCL reaches between nodes: the
/// campus figure above, 20 GB/s of HDR's 25 GB/s (200 Gb/s). A platform
/// offer that states its nodes' bandwidth (`inter_node_gbps`) is carried at
/// this share.
pub const INTER_NODE_BUS_SHARE: f64 = 0.8;
/// Fixed cost per collective call, seconds (NCCL ring latency on a few GPUs;
/// one bucket or unit per layer).
pub const COLLECTIVE_LATENCY_S: f64 = 50e-6;
/// Share of the backward pass (or, for sharded engines, the whole step) that
/// hides communication: DDP's buckets start reducing while backward runs, but
/// the last bucket and kernel contention leave part exposed. The same over a
/// PCIe host bridge: FSDP prefetches the next unit's gather while the current
/// one computes whatever the link (Answer.AI's RTX 4090 pair, no NVLink:
/// "With a full PCIe lanes and FSDP's overlapping of compute and next layer
/// transfers, there is almost no difference between QLoRA and QLoRA with CPU
/// Offloading", AnswerDotAI/fsdp_qlora `benchmarks_03_2024.md` @ e877dda); a
/// slow link exposes what the compute cannot cover, not less overlap.
pub const COMM_OVERLAP: f64 = 0.7;
/// DeepSpeed's default `reduce_bucket_size` and `allgather_bucket_size`,
/// elements (5e8).
pub const ZERO_BUCKET_ELEMENTS: f64 = 5.0e8;
/// DeepSpeed ZeRO-3's default `stage3_max_live_parameters` (1e9): parameters
/// gathered at once.
pub const ZERO3_LIVE_PARAMETERS: f64 = 1.0e9;
/// Seconds per parameter of DeepSpeed's CPU Adam on a rented instance's
/// cores: DeepSpeed's ZeRO-Offload paper reports about 1 ns per parameter on
/// a full AVX-512 server; a rented instance's share of vCPUs is taken as
/// half as fast, 2 ns.
pub const CPU_ADAM_S_PER_PARAM: f64 = 2.0e-9;
/// Units FSDP wraps in a CNN (its stages' blocks; ResNet-50 has 16
/// bottlenecks): sizes the gathered unit of a full shard.
pub const VISION_FSDP_UNITS: u32 = 16;

// --- Why a measured run differed from its plan (`crate::versus`) ---------
//
// The thresholds below decide when a run is "off" its plan enough to name a
// cause. They are not fitted: they sit just outside the estimator's own
// error on the H200 calibration set (docs/accuracy.md: step time within
// ±10% at the median and rarely past ±20%; memory within ±5%), so an honest
// run on plan names no cause, and one clearly off names one.

/// A run taking more than this share of its planned time is "slower".
pub const VERSUS_SLOWER: f64 = 1.2;
/// A run taking less than this share of its planned time is "faster".
pub const VERSUS_FASTER: f64 = 0.8;
/// A peak this far over the planned one is "more memory" (the estimator's
/// memory error is ±5%; 15% is three times that).
pub const VERSUS_MORE_MEMORY: f64 = 1.15;
/// Memory and step time both off by this much, the same way, point to a
/// different batch or sequence length rather than to the card or the model.
pub const VERSUS_BOTH_OFF: f64 = 1.25;
/// CPU busy at or above this percentage while the run was slow says the
/// data loader starved the GPU (the wrapper samples the process group's CPU
/// share; a GPU-bound PyTorch job sits near one core per worker).
pub const VERSUS_CPU_BOUND_PERCENT: u32 = 85;
