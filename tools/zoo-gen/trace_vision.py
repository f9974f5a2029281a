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


def cifar_resnet(name):
    """torchvision's ResNet with the CIFAR stem (He et al. 2016, §4.2, as in the
    widely used kuangliu/pytorch-cifar): a 3x3 stride-1 first convolution and
    no max-pool, so 32x32 inputs keep their resolution through the first stage."""
    def build(num_classes, res):
        import torchvision.models as m

        model = getattr(m, name)(weights=None, num_classes=num_classes)
        model.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
        model.maxpool = nn.Identity()
        return model
    return build


class WideBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.short = None if cin == cout and stride == 1 else nn.Conv2d(cin, cout, 1, stride, 0, bias=False)

    def forward(self, x):
        o = torch.relu(self.bn1(x))
        y = self.conv1(o)
        y = self.conv2(torch.relu(self.bn2(y)))
        return y + (x if self.short is None else self.short(o))


class WideResNet(nn.Module):
    """WRN-depth-k of Zagoruyko & Komodakis 2016 (pre-activation blocks)."""

    def __init__(self, depth, k, num_classes):
        super().__init__()
        n = (depth - 4) // 6
        widths = [16, 16 * k, 32 * k, 64 * k]
        self.conv = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        layers = []
        cin = widths[0]
        for g, stride in zip(range(1, 4), (1, 2, 2)):
            for i in range(n):
                layers.append(WideBlock(cin, widths[g], stride if i == 0 else 1))
                cin = widths[g]
        self.blocks = nn.Sequential(*layers)
        self.bn = nn.BatchNorm2d(cin)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.blocks(self.conv(x))
        x = torch.relu(self.bn(x))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


def wrn(depth, k):
    return lambda num_classes, res: WideResNet(depth, k, num_classes)


def cifar_vgg16(num_classes, res):
    """VGG-16 with batch norm and the CIFAR head (one linear layer on the
    512-channel 1x1 map), as in kuangliu/pytorch-cifar and torchvision's
    features."""
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
    layers, cin = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(cin, v, 3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            cin = v
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, num_classes))


# Small-image models are traced at 32 and 48 pixels; the rest at 224 and 320.
CIFAR = {"resnet18-cifar", "resnet34-cifar", "resnet50-cifar", "wrn-28-10", "vgg16-cifar"}

# id, display name, builder, task, source of the architecture
MODELS = [
    ("resnet18-cifar", "ResNet-18 (CIFAR)", cifar_resnet("resnet18"), "classification", "torchvision.models.resnet18 with the CIFAR stem (3x3 stride-1 conv1, no max-pool)"),
    ("resnet34-cifar", "ResNet-34 (CIFAR)", cifar_resnet("resnet34"), "classification", "torchvision.models.resnet34 with the CIFAR stem (3x3 stride-1 conv1, no max-pool)"),
    ("resnet50-cifar", "ResNet-50 (CIFAR)", cifar_resnet("resnet50"), "classification", "torchvision.models.resnet50 with the CIFAR stem (3x3 stride-1 conv1, no max-pool)"),
    ("wrn-28-10", "WideResNet-28-10", wrn(28, 10), "classification", "WideResNet-28-10 (Zagoruyko and Komodakis 2016), pre-activation blocks"),
    ("vgg16-cifar", "VGG-16 (CIFAR)", cifar_vgg16, "classification", "VGG-16 with batch norm and a single linear CIFAR head"),
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

# Vision transformers' attention, from each constructor's arguments
# (torchvision swin_t: patch_size=[4, 4], depths=[2, 2, 6, 2],
# num_heads=[3, 6, 12, 24], window_size=[7, 7], attention_dropout=0.0;
# vit_b_16 / vit_l_16: patch_size=16, num_layers=12 / 24, num_heads=12 / 16,
# attention_dropout=0.0, one class token; timm vit_small_patch16_224:
# patch_size=16, depth=12, num_heads=6, attn_drop_rate=0.0, one class token).
# `traced` is the kernel the traced library runs, so its tensors are in the
# saved bytes: torchvision's ViT calls nn.MultiheadAttention with
# need_weights=False, which takes F.scaled_dot_product_attention; timm's
# Attention does too (fused_attn, timm >= 0.9); torchvision's Swin computes
# softmax(q @ k^T) itself. The estimator adds or removes eager attention's
# score matrices from these (crates/gpuplan-core/src/vram.rs).
ATTENTION = {
    "swin-t": ("eager", 4, 0, 7, [2, 2, 6, 2], [3, 6, 12, 24]),
    "vit-s-16": ("sdpa", 16, 1, 0, [12], [6]),
    "vit-b-16": ("sdpa", 16, 1, 0, [12], [12]),
    "vit-l-16": ("sdpa", 16, 1, 0, [24], [16]),
}


def attention_line(mid):
    """The zoo's `attention` inline table of a vision transformer, or ''."""
    if mid not in ATTENTION:
        return ""
    traced, patch, extra, window, depths, heads = ATTENTION[mid]
    return (f'attention = {{ traced = "{traced}", patch = {patch}, extra_tokens = {extra}, '
            f'window = {window}, depths = {depths}, heads = {heads}, dropout = false }}\n')


# The day of the trace the committed vision.toml holds (the Winograd share
# was added then); set it to the day you rerun the generator.
OBSERVED = "2026-12-03"

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


def winograd_fraction(model, x, task, classes):
    """Share of convolution FLOPs in dense 3x3 stride-1 undilated
    convolutions: the ones cuDNN can run as Winograd transforms (Lavin and
    Gray 2016, arXiv 1509.09308: F(2x2, 3x3) needs 2.25x fewer
    multiplications). Counted with forward hooks, FLOPs as the flop counter
    counts them (2 x output elements x input channels per group x kernel)."""
    totals = {"all": 0.0, "winograd": 0.0}

    def hook(mod, inputs, out):
        kh, kw = mod.kernel_size
        flops = 2.0 * out.numel() * (mod.in_channels // mod.groups) * kh * kw
        totals["all"] += flops
        if (kh, kw) == (3, 3) and tuple(mod.stride) == (1, 1) and tuple(mod.dilation) == (1, 1) and mod.groups == 1:
            totals["winograd"] += flops

    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        run_forward(model, x, task, classes)
    for h in handles:
        h.remove()
    return totals["winograd"] / totals["all"] if totals["all"] > 0 else 0.0


def head_params(build, task, res):
    """Parameters that scale with the number of classes: (fixed, per_class),
    at the traced resolution (a ViT's position embeddings grow with it)."""
    n = lambda m: sum(p.numel() for p in m.parameters())
    a, b = n(build(1000, res)), n(build(10, res))
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
        classes = 21 if task == "segmentation" else (10 if mid in CIFAR else 1000)
        res_a, res_b = (32, 48) if mid in CIFAR else (RES_A, RES_B)
        fixed, per_class = head_params(build, task, res_a)
        # DeepLab's image-pooling branch has batch norm on a 1x1 map, which needs
        # at least two samples in train mode.
        ba, bb = (2, 3) if task == "segmentation" else (BATCH_A, BATCH_B)
        res = {}
        for r in (res_a, res_b):
            model = build(classes, r).train()
            sa, la = saved_bytes(model, ba, r, task, classes, False)
            sb, lb = saved_bytes(model, bb, r, task, classes, False)
            ampa, _ = saved_bytes(model, ba, r, task, classes, True)
            ampb, _ = saved_bytes(model, bb, r, task, classes, True)
            res[r] = dict(per=(sb - sa) / (bb - ba), largest=(lb / bb),
                          amp_per=(ampb - ampa) / (bb - ba))
            if r == res_a:
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
                winograd = winograd_fraction(model, torch.randn(ba, 3, r, r), task, classes)
            del model
        exp = math.log(res[res_b]["per"] / res[res_a]["per"]) / math.log(res_b / res_a)
        amp_ratio = res[res_a]["amp_per"] / res[res_a]["per"]
        out.write(f'[model.{mid}]\nname = "{name}"\nfamily = "vision"\ntask = "{task}"\n')
        out.write(f'architecture = "{arch_src}"\n')
        out.write(f"params_fixed = {fixed}\nparams_per_class = {per_class}\ndefault_classes = {classes}\n")
        out.write(f"ref_resolution = {res_a}\n")
        out.write(f"saved_bytes_per_sample = {res[res_a]['per']:.0f}\n")
        out.write(f"saved_resolution_exponent = {exp:.4f}\n")
        out.write(f"largest_saved_bytes_per_sample = {res[res_a]['largest']:.0f}\n")
        out.write(f"amp_saved_ratio = {amp_ratio:.4f}\n")
        out.write(f"forward_flops_per_sample = {int(flops)}\n")
        out.write(f"conv_flop_fraction = {conv_fraction:.4f}\n")
        out.write(f"winograd_flop_fraction = {winograd:.4f}\n")
        out.write(f"forward_ops = {ops}\n")
        out.write(f'source = "traced: {arch_src}, torch {torch.__version__}"\nobserved = "{OBSERVED}"\nconfidence = "high"\n')
        out.write(attention_line(mid) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
