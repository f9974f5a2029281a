"""Count the parameters of the zoo's transformer models with Hugging Face transformers.

Why: `data/models/transformers.toml` holds architecture numbers typed from each
model's published config.json, and the estimator computes parameter counts from
them. This script builds every model from the same numbers on the meta device
(no weights, no download) and prints the exact PyTorch parameter count, which is
stored as `params_reference` and checked against the Rust formula by a test.

Usage:  python verify_params.py   (needs torch and transformers)
"""
import tomllib
import pathlib
import torch
import transformers as tf

ROOT = pathlib.Path(__file__).resolve().parents[2]
zoo = tomllib.loads((ROOT / "data/models/transformers.toml").read_text())["model"]


def build(mid, m):
    kind, arch = m["kind"], m["hf_class"]
    common = dict(vocab_size=m["vocab"])
    if arch == "BertForSequenceClassification":
        cfg = tf.BertConfig(hidden_size=m["hidden"], num_hidden_layers=m["layers"], num_attention_heads=m["heads"],
                            intermediate_size=m["intermediate"], max_position_embeddings=m["max_positions"],
                            type_vocab_size=m.get("type_vocab", 2), num_labels=2, **common)
        return tf.BertForSequenceClassification(cfg)
    if arch == "RobertaForSequenceClassification":
        cfg = tf.RobertaConfig(hidden_size=m["hidden"], num_hidden_layers=m["layers"], num_attention_heads=m["heads"],
                               intermediate_size=m["intermediate"], max_position_embeddings=m["max_positions"] + 2,
                               type_vocab_size=m.get("type_vocab", 1), num_labels=2, **common)
        return tf.RobertaForSequenceClassification(cfg)
    if arch == "DistilBertForSequenceClassification":
        cfg = tf.DistilBertConfig(dim=m["hidden"], n_layers=m["layers"], n_heads=m["heads"], hidden_dim=m["intermediate"],
                                  max_position_embeddings=m["max_positions"], num_labels=2, **common)
        return tf.DistilBertForSequenceClassification(cfg)
    if arch == "T5ForConditionalGeneration":
        cfg = tf.T5Config(d_model=m["hidden"], num_layers=m["layers"], num_decoder_layers=m["layers"], num_heads=m["heads"],
                          d_kv=m["hidden"] // m["heads"], d_ff=m["intermediate"], **common)
        return tf.T5ForConditionalGeneration(cfg)
    if arch == "GPT2LMHeadModel":
        cfg = tf.GPT2Config(n_embd=m["hidden"], n_layer=m["layers"], n_head=m["heads"], n_positions=m["max_positions"], **common)
        return tf.GPT2LMHeadModel(cfg)
    if arch in ("LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"):
        C = {"LlamaForCausalLM": tf.LlamaConfig, "MistralForCausalLM": tf.MistralConfig, "Qwen2ForCausalLM": tf.Qwen2Config}[arch]
        cfg = C(hidden_size=m["hidden"], num_hidden_layers=m["layers"], num_attention_heads=m["heads"],
                num_key_value_heads=m["kv_heads"], intermediate_size=m["intermediate"],
                max_position_embeddings=m["max_positions"], tie_word_embeddings=m["tied_embeddings"], **common)
        return tf.AutoModelForCausalLM.from_config(cfg)
    return None


for mid, m in zoo.items():
    with torch.device("meta"):
        model = build(mid, m)
    if model is None:
        print(f"{mid}: no builder (remote code); keep the published count")
        continue
    n = sum(p.numel() for p in model.parameters())
    flag = "" if n == m.get("params_reference") else "   <-- differs from params_reference"
    print(f"{mid}: {n}{flag}")
