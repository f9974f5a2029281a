//! The CLI's two languages. Every user-facing string has a Chinese and an
//! English form here, so a missing translation is a compile error rather than
//! a blank in a handout.

/// Output language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// 简体中文
    Zh,
    /// English
    En,
}

impl Lang {
    /// The language of the user's locale: Chinese for any `zh*` locale, else English.
    pub fn from_locale() -> Self {
        match sys_locale::get_locale() {
            Some(l) if l.to_ascii_lowercase().starts_with("zh") => Lang::Zh,
            _ => Lang::En,
        }
    }
}

/// A message key.
#[derive(Debug, Clone, Copy)]
pub enum Msg {
    PeakMemory,
    Params,
    Trainable,
    Gpu,
    Vram,
    Verdict,
    MaxBatch,
    StepTime,
    Epoch,
    Run,
    Fits,
    Tight,
    DoesNotFit,
    Unsupported,
    FixesFor,
    NoFix,
    FitsTarget,
    Batch,
    Mode,
    Precision,
    Optimizer,
    Checkpointing,
    AccumulationSteps,
    ErrorPrefix,
    Weights,
    Gradients,
    OptimizerStates,
    Activations,
    Logits,
    KvCache,
    Workspace,
    Allocator,
    Context,
    Note,
    Family,
    Name,
    Id,
    Bf16,
    Yes,
    No,
    StepOn,
    PerStep,
}

/// The text of `m` in `lang`.
pub fn t(lang: Lang, m: Msg) -> &'static str {
    use Msg::*;
    match (lang, m) {
        (Lang::Zh, PeakMemory) => "峰值显存",
        (Lang::En, PeakMemory) => "Peak GPU memory",
        (Lang::Zh, Params) => "参数量",
        (Lang::En, Params) => "Parameters",
        (Lang::Zh, Trainable) => "可训练",
        (Lang::En, Trainable) => "trainable",
        (Lang::Zh, Gpu) => "显卡",
        (Lang::En, Gpu) => "GPU",
        (Lang::Zh, Vram) => "显存GiB",
        (Lang::En, Vram) => "VRAM GiB",
        (Lang::Zh, Verdict) => "能否放下",
        (Lang::En, Verdict) => "verdict",
        (Lang::Zh, MaxBatch) => "最大batch",
        (Lang::En, MaxBatch) => "max batch",
        (Lang::Zh, StepTime) => "秒/步",
        (Lang::En, StepTime) => "s/step",
        (Lang::Zh, Epoch) => "每轮",
        (Lang::En, Epoch) => "epoch",
        (Lang::Zh, Run) => "全程",
        (Lang::En, Run) => "run",
        (Lang::Zh, Fits) => "放得下",
        (Lang::En, Fits) => "fits",
        (Lang::Zh, Tight) => "很紧",
        (Lang::En, Tight) => "tight",
        (Lang::Zh, DoesNotFit) => "放不下",
        (Lang::En, DoesNotFit) => "does not fit",
        (Lang::Zh, Unsupported) => "不支持bf16",
        (Lang::En, Unsupported) => "no bf16",
        (Lang::Zh, FixesFor) => "放不下时的改法（目标显卡",
        (Lang::En, FixesFor) => "Fixes that make it fit (target GPU",
        (Lang::Zh, NoFix) => "没有找到能放下的改法：请换更大显存的卡。",
        (Lang::En, NoFix) => "No single change makes it fit: rent a card with more memory.",
        (Lang::Zh, FitsTarget) => "在目标显卡上放得下，无需修改。",
        (Lang::En, FitsTarget) => "Fits the target GPU as it is.",
        (Lang::Zh, Batch) => "batch",
        (Lang::En, Batch) => "batch",
        (Lang::Zh, Mode) => "模式",
        (Lang::En, Mode) => "mode",
        (Lang::Zh, Precision) => "精度",
        (Lang::En, Precision) => "precision",
        (Lang::Zh, Optimizer) => "优化器",
        (Lang::En, Optimizer) => "optimizer",
        (Lang::Zh, Checkpointing) => "梯度检查点",
        (Lang::En, Checkpointing) => "gradient checkpointing",
        (Lang::Zh, AccumulationSteps) => "梯度累积步数",
        (Lang::En, AccumulationSteps) => "accumulation steps",
        (Lang::Zh, ErrorPrefix) => "错误",
        (Lang::En, ErrorPrefix) => "error",
        (Lang::Zh, Weights) => "权重",
        (Lang::En, Weights) => "weights",
        (Lang::Zh, Gradients) => "梯度",
        (Lang::En, Gradients) => "gradients",
        (Lang::Zh, OptimizerStates) => "优化器状态",
        (Lang::En, OptimizerStates) => "optimizer states",
        (Lang::Zh, Activations) => "激活（反向用）",
        (Lang::En, Activations) => "activations",
        (Lang::Zh, Logits) => "logits与损失",
        (Lang::En, Logits) => "logits and loss",
        (Lang::Zh, KvCache) => "KV缓存",
        (Lang::En, KvCache) => "KV cache",
        (Lang::Zh, Workspace) => "临时工作区",
        (Lang::En, Workspace) => "transient workspace",
        (Lang::Zh, Allocator) => "分配器冗余",
        (Lang::En, Allocator) => "allocator overhead",
        (Lang::Zh, Context) => "CUDA上下文",
        (Lang::En, Context) => "CUDA context",
        (Lang::Zh, Note) => "说明：显存为 nvidia-smi 对该进程显示的值；时间不含数据加载。",
        (Lang::En, Note) => {
            "Memory is what nvidia-smi shows for the process; times exclude data loading."
        }
        (Lang::Zh, Family) => "类别",
        (Lang::En, Family) => "family",
        (Lang::Zh, Name) => "名称",
        (Lang::En, Name) => "name",
        (Lang::Zh, Id) => "ID",
        (Lang::En, Id) => "id",
        (Lang::Zh, Bf16) => "bf16",
        (Lang::En, Bf16) => "bf16",
        (Lang::Zh, Yes) => "是",
        (Lang::En, Yes) => "yes",
        (Lang::Zh, No) => "否",
        (Lang::En, No) => "no",
        (Lang::Zh, StepOn) => "在所选显卡上每步",
        (Lang::En, StepOn) => "Step time on the chosen GPU",
        (Lang::Zh, PerStep) => "每个有效步",
        (Lang::En, PerStep) => "per effective step",
    }
}
