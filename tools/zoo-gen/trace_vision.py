"""Trace the zoo's vision models on CPU and write their memory and FLOP facts.

Why a generator: the activation memory a CNN keeps for backward depends on
every layer's shape, so it is measured from the real PyTorch model rather than
typed in. For each model this script builds the torchvision/timm architecture
(random weights, nothing downloaded), runs one forward pass plus the loss in
train mode on CPU and records, through ``torch.autograd.graph.saved_tensors_hooks``,
every tensor autograd keeps for backward (deduplicated by storage, parameters
excluded). It does this at two batch sizes and two resolutions so that the
per-sample slope and the resolution exponent can be separated, and it counts
forward FLOPs (``torch.utils.flop_counter``) and dispatched ATen ops (a proxy
for kernel launches).

Usage:  python trace_vision.py > ../../data/models/vision.toml
Needs:  torch, torchvision, timm (CPU wheels are enough).
"""
import math
import sys

import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
torch.set_num_threads(max(1, torch.get_num_threads()))


def tv(name, **kw):
    import torchvision.models as m

    def build(num_classes, res):
        if name.startswith("vit_"):
            return getattr(m, name)(weights=None, num_classes=num_classes, image_size=res, **kw)
        if name.startswith("deeplabv3"):
            import torchvision.models.segmentation as seg

            return getattr(seg, name)(weights=None, weights_backbone=None, num_classes=num_classes, aux_loss=False)
        return getattr(m, name)(weights=None, num_classes=num_classes, **kw)
    return build


def timm_vit(name):
    def build(num_classes, res):
        import timm

        return timm.create_model(name, pretrained=False, num_classes=num_classes, img_size=res)
    return build


# id, display name, builder, task, source of the architecture
MODELS = [
    ("resnet18", "ResNet-18", tv("resnet18"), "classification", "torchvision.models.resnet18"),
    ("resnet34", "ResNet-34", tv("resnet34"), "classification", "torchvision.models.resnet34"),
    ("resnet50", "ResNet-50", tv("resnet50"), "classification", "torchvision.models.resnet50"),
    ("resnet101", "ResNet-101", tv("resnet101"), "classification", "torchvision.models.resnet101"),
    ("vgg16", "VGG-16", tv("vgg16"), "classification", "torchvision.models.vgg16"),
    ("mobilenet-v3-large", "MobileNetV3-Large", tv("mobilenet_v3_large"), "classification", "torchvision.models.mobilenet_v3_large"),
    ("efficientnet-b0", "EfficientNet-B0", tv("efficientnet_b0"), "classification", "torchvision.models.efficientnet_b0"),
    ("efficientnet-b3", "EfficientNet-B3", tv("efficientnet_b3"), "classification", "torchvision.models.efficientnet_b3"),
    ("densenet121", "DenseNet-121", tv("densenet121"), "classification", "torchvision.models.densenet121"),
    ("convnext-tiny", "ConvNeXt-Tiny", tv("convnext_tiny"), "classification", "torchvision.models.convnext_tiny"),
    ("swin-t", "Swin-T", tv("swin_t"), "classification", "torchvision.models.swin_t"),
    ("vit-s-16", "ViT-S/16", timm_vit("vit_small_patch16_224"), "classification", "timm vit_small_patch16_224"),
    ("vit-b-16", "ViT-B/16", tv("vit_b_16"), "classification", "torchvision.models.vit_b_16"),
    ("vit-l-16", "ViT-L/16", tv("vit_l_16"), "classification", "torchvision.models.vit_l_16"),
    ("deeplabv3-resnet50", "DeepLabV3 ResNet-50", tv("deeplabv3_resnet50"), "segmentation", "torchvision.models.segmentation.deeplabv3_resnet50"),
]

RES_A, RES_B = 224, 320
BATCH_A, BATCH_B = 1, 2


class OpCount(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


def run_forward(model, x, task, classes):
    out = model(x)
    if isinstance(out, dict):
        out = out["out"]
    if task == "segmentation":
        y = torch.randint(0, classes, (x.shape[0], x.shape[2], x.shape[3]))
    else:
        y = torch.randint(0, classes, (x.shape[0],))
    return nn.functional.cross_entropy(out, y)


def saved_bytes(model, batch, res, task, classes, amp):
    """Bytes of unique storages autograd saves for backward, parameters excluded."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        if isinstance(t, torch.Tensor):
            st = t.untyped_storage()
            ptr = st.data_ptr()
            if ptr not in params and ptr != 0:
                seen[ptr] = max(seen.get(ptr, 0), st.nbytes())
        return t

    x = torch.randn(batch, 3, res, res)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            loss = run_forward(model, x, task, classes)
    del loss
    return sum(seen.values()), max(seen.values())


def head_params(build, task):
    """Parameters that scale with the number of classes: (fixed, per_class)."""
    n = lambda m: sum(p.numel() for p in m.parameters())
    a, b = n(build(1000, RES_A)), n(build(10, RES_A))
    per_class = (a - b) // 990
    return a - 1000 * per_class, per_class


def main():
    out = sys.stdout
    if len(sys.argv) <= 1:
        out.write("# Generated by tools/zoo-gen/trace_vision.py from the real PyTorch models on CPU\n")
        out.write(f"# (torch {torch.__version__}). Do not edit by hand: rerun the generator.\n")
        out.write("# saved_* are bytes autograd keeps for backward per sample (fp32, or bf16 autocast\n")
        out.write("# for *_amp), parameters excluded; flops are forward FLOPs per sample.\n\n")
    if len(sys.argv) <= 1:
        # One process per model: PyTorch's CPU allocator and autocast caches grow
        # across models and a single process ran out of 24 GiB of memory.
        import subprocess

        for mid, *_ in MODELS:
            out.write(subprocess.run([sys.executable, __file__, mid], check=True, capture_output=True, text=True).stdout)
            out.flush()
            print(mid, file=sys.stderr, flush=True)
        return
    only = set(sys.argv[1:])
    for mid, name, build, task, arch_src in MODELS:
        if only and mid not in only:
            continue
        classes = 21 if task == "segmentation" else 1000
        fixed, per_class = head_params(build, task)
        # DeepLab's image-pooling branch has batch norm on a 1x1 map, which needs
        # at least two samples in train mode.
        ba, bb = (2, 3) if task == "segmentation" else (BATCH_A, BATCH_B)
        res = {}
        for r in (RES_A, RES_B):
            model = build(classes, r).train()
            sa, la = saved_bytes(model, ba, r, task, classes, False)
            sb, lb = saved_bytes(model, bb, r, task, classes, False)
            ampa, _ = saved_bytes(model, ba, r, task, classes, True)
            ampb, _ = saved_bytes(model, bb, r, task, classes, True)
            res[r] = dict(per=(sb - sa) / (bb - ba), largest=(lb / bb),
                          amp_per=(ampb - ampa) / (bb - ba))
            if r == RES_A:
                x = torch.randn(ba, 3, r, r)
                with FlopCounterMode(display=False) as fc:
                    run_forward(model, x, task, classes)
                flops = fc.get_total_flops() / ba
                by_op = fc.get_flop_counts().get("Global", {})
                conv = sum(v for k, v in by_op.items() if "convolution" in str(k))
                conv_fraction = conv / ba / flops
                oc = OpCount()
                with oc:
                    run_forward(model, torch.randn(ba, 3, r, r), task, classes)
                ops = oc.n
            del model
        exp = math.log(res[RES_B]["per"] / res[RES_A]["per"]) / math.log(RES_B / RES_A)
        amp_ratio = res[RES_A]["amp_per"] / res[RES_A]["per"]
        out.write(f'[model.{mid}]\nname = "{name}"\nfamily = "vision"\ntask = "{task}"\n')
        out.write(f'architecture = "{arch_src}"\n')
        out.write(f"params_fixed = {fixed}\nparams_per_class = {per_class}\ndefault_classes = {classes}\n")
        out.write(f"ref_resolution = {RES_A}\n")
        out.write(f"saved_bytes_per_sample = {res[RES_A]['per']:.0f}\n")
        out.write(f"saved_resolution_exponent = {exp:.4f}\n")
        out.write(f"largest_saved_bytes_per_sample = {res[RES_A]['largest']:.0f}\n")
        out.write(f"amp_saved_ratio = {amp_ratio:.4f}\n")
        out.write(f"forward_flops_per_sample = {flops}\n")
        out.write(f"conv_flop_fraction = {conv_fraction:.4f}\n")
        out.write(f"forward_ops = {ops}\n")
        out.write(f'source = "traced: {arch_src}, torch {torch.__version__}"\nobserved = "2026-11-30"\nconfidence = "high"\n\n')
        out.flush()


if __name__ == "__main__":
    main()
