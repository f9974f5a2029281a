//! Architectures imported from `config.json` (issue 13): parameter counts
//! exact against the published counts of each family, mixtures counted in
//! full for memory and by their active experts for time, and RoPE scaling.

use gpuplan_core::zoo::{from_hf_config, TransformerKind};

/// (name, config.json as published on the Hugging Face Hub, the model's
/// published parameter count)
const CONFIGS: [(&str, &str, u64); 10] = [
    (
        "Mixtral-8x7B-v0.1",
        r#"{"model_type":"mixtral","architectures":["MixtralForCausalLM"],"hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"num_local_experts":8,"num_experts_per_tok":2,"vocab_size":32000,"max_position_embeddings":32768,"tie_word_embeddings":false,"hidden_act":"silu"}"#,
        46_702_792_704,
    ),
    (
        "gemma-7b",
        r#"{"model_type":"gemma","architectures":["GemmaForCausalLM"],"hidden_size":3072,"intermediate_size":24576,"num_attention_heads":16,"num_key_value_heads":16,"head_dim":256,"num_hidden_layers":28,"vocab_size":256000,"max_position_embeddings":8192,"hidden_act":"gelu_pytorch_tanh"}"#,
        8_537_680_896,
    ),
    (
        "gemma-2b",
        r#"{"model_type":"gemma","architectures":["GemmaForCausalLM"],"hidden_size":2048,"intermediate_size":16384,"num_attention_heads":8,"num_key_value_heads":1,"head_dim":256,"num_hidden_layers":18,"vocab_size":256000,"max_position_embeddings":8192,"hidden_act":"gelu_pytorch_tanh"}"#,
        2_506_172_416,
    ),
    (
        "phi-2",
        r#"{"model_type":"phi","architectures":["PhiForCausalLM"],"hidden_size":2560,"intermediate_size":10240,"num_attention_heads":32,"num_hidden_layers":32,"vocab_size":51200,"max_position_embeddings":2048,"partial_rotary_factor":0.4,"hidden_act":"gelu_new","tie_word_embeddings":false}"#,
        2_779_683_840,
    ),
    (
        "falcon-7b",
        r#"{"model_type":"falcon","architectures":["FalconForCausalLM"],"hidden_size":4544,"num_attention_heads":71,"num_hidden_layers":32,"multi_query":true,"parallel_attn":true,"bias":false,"new_decoder_architecture":false,"vocab_size":65024,"max_position_embeddings":2048}"#,
        6_921_720_704,
    ),
    (
        "pythia-1b (GPT-NeoX)",
        r#"{"model_type":"gpt_neox","architectures":["GPTNeoXForCausalLM"],"hidden_size":2048,"intermediate_size":8192,"num_attention_heads":8,"num_hidden_layers":16,"vocab_size":50304,"max_position_embeddings":2048,"hidden_act":"gelu","tie_word_embeddings":false,"use_parallel_residual":true}"#,
        1_011_781_632,
    ),
    (
        "bloom-560m",
        r#"{"model_type":"bloom","architectures":["BloomForCausalLM"],"n_embed":1024,"n_layer":24,"num_attention_heads":16,"vocab_size":250880}"#,
        559_214_592,
    ),
    (
        "Qwen1.5-MoE-A2.7B",
        r#"{"model_type":"qwen2_moe","architectures":["Qwen2MoeForCausalLM"],"hidden_size":2048,"intermediate_size":5632,"num_attention_heads":16,"num_key_value_heads":16,"num_hidden_layers":24,"num_experts":60,"num_experts_per_tok":4,"moe_intermediate_size":1408,"shared_expert_intermediate_size":5632,"vocab_size":151936,"max_position_embeddings":8192,"tie_word_embeddings":false}"#,
        14_315_784_192,
    ),
    (
        "t5-small",
        r#"{"model_type":"t5","architectures":["T5ForConditionalGeneration"],"d_model":512,"d_kv":64,"d_ff":2048,"num_layers":6,"num_heads":8,"vocab_size":32128,"feed_forward_proj":"relu","n_positions":512}"#,
        60_506_624,
    ),
    (
        "flan-t5-base",
        r#"{"model_type":"t5","architectures":["T5ForConditionalGeneration"],"d_model":768,"d_kv":64,"d_ff":2048,"num_layers":12,"num_heads":12,"vocab_size":32128,"feed_forward_proj":"gated-gelu","tie_word_embeddings":false}"#,
        247_577_856,
    ),
];

#[test]
fn imported_architectures_count_their_published_parameters_exactly() {
    for (name, json, published) in CONFIGS {
        let m = from_hf_config(json).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            m.params(),
            published,
            "{name}: parameters as the Hub lists them"
        );
    }
}

#[test]
fn mixtures_hold_every_expert_but_compute_with_the_active_ones() {
    let (_, mixtral, _) = CONFIGS[0];
    let m = from_hf_config(mixtral).expect("mixtral");
    // Memory holds all 46.7 B; a token passes through 2 of 8 experts (about
    // 12.9 B parameters of matmuls, the published "active" count less the
    // embeddings).
    let active = m.matmul_params() as f64;
    assert!(
        (12.4e9..13.2e9).contains(&active),
        "Mixtral's active matmul parameters: {active:e}"
    );
    assert_eq!(
        m.active_intermediate(),
        2 * 14336,
        "two experts' MLP width per token"
    );
    let (_, t5, _) = CONFIGS[8];
    assert_eq!(
        from_hf_config(t5).expect("t5").kind,
        TransformerKind::EncoderDecoder,
        "T5 is an encoder-decoder"
    );
}

#[test]
fn rope_scaling_lengthens_the_accepted_sequence() {
    let base = r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,"num_attention_heads":32,"num_hidden_layers":32,"vocab_size":32000,"max_position_embeddings":4096"#;
    let plain = from_hf_config(&format!("{base}}}")).expect("plain");
    let scaled = from_hf_config(&format!(
        r#"{base},"rope_scaling":{{"type":"linear","factor":4.0}}}}"#
    ))
    .expect("scaled");
    assert_eq!(plain.max_positions, 4096, "the table's length");
    assert_eq!(
        scaled.max_positions, 16384,
        "four times the table under a factor-4 scaling"
    );
}

#[test]
fn impossible_mixtures_are_refused_by_field() {
    // (config edit, field as the config names it, why)
    let cases = [
        (
            r#""num_experts_per_tok":9"#,
            "num_experts_per_tok",
            "more active experts than experts",
        ),
        (
            r#""num_local_experts":0"#,
            "num_local_experts",
            "no experts",
        ),
        (
            r#""num_local_experts":4294967297"#,
            "num_local_experts",
            "a count past u32",
        ),
    ];
    let (_, mixtral, _) = CONFIGS[0];
    for (edit, field, why) in cases {
        let key = edit.split(':').next().unwrap_or("");
        let json = mixtral
            .split(',')
            .map(|kv| if kv.starts_with(key) { edit } else { kv })
            .collect::<Vec<_>>()
            .join(",");
        let err = from_hf_config(&json).expect_err(why);
        assert_eq!(err.field, field, "{why}: {err}");
    }
}

#[test]
fn a_config_value_of_the_wrong_kind_or_an_unknown_architecture_is_refused_by_name() {
    let base = r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,"num_attention_heads":32,"num_hidden_layers":32,"vocab_size":32000,"max_position_embeddings":4096}"#;
    assert!(from_hf_config(base).is_ok(), "the base config reads");
    // (edit, field, why)
    let cases = [
        (
            ("\"intermediate_size\":11008", "\"intermediate_size\":-5"),
            "intermediate_size",
            "a negative size is not skipped for 4 x hidden",
        ),
        (
            (
                "\"intermediate_size\":11008",
                "\"intermediate_size\":\"11008\"",
            ),
            "intermediate_size",
            "a string is not a number",
        ),
        (
            (
                "\"intermediate_size\":11008",
                "\"intermediate_size\":11008.5",
            ),
            "intermediate_size",
            "a fraction is not a size",
        ),
        (
            (
                "\"hidden_size\":4096",
                "\"hidden_size\":4096,\"num_key_value_heads\":\"8\"",
            ),
            "num_key_value_heads",
            "a string head count is not 32 heads",
        ),
        (
            (
                "\"hidden_size\":4096",
                "\"hidden_size\":4096,\"tie_word_embeddings\":\"true\"",
            ),
            "tie_word_embeddings",
            "a string is not true",
        ),
        (
            ("\"model_type\":\"llama\"", "\"model_type\":\"mamba\""),
            "model_type",
            "Mamba is not estimated as a Llama",
        ),
        (
            (
                "\"model_type\":\"llama\"",
                "\"model_type\":\"\u{217C}lama\"",
            ),
            "model_type",
            "a lookalike letter is not llama",
        ),
    ];
    for ((from, to), field, why) in cases {
        let json = base.replacen(from, to, 1);
        assert_ne!(json, base, "{why}: the edit applies");
        let err = from_hf_config(&json).expect_err(why);
        assert_eq!(err.field, field, "{why}: {err}");
        assert!(err.said.is_some(), "{why}: worded from the catalog");
    }
    // A negative size is whole, just out of range; a fraction is not whole.
    // (edit, catalog key, why)
    let kinds = [
        (
            "\"hidden_size\":-4096",
            "error.outOfRange",
            "a negative size",
        ),
        (
            "\"hidden_size\":4096.5",
            "error.notWhole",
            "a fractional size",
        ),
        (
            "\"hidden_size\":1000000000000",
            "error.outOfRange",
            "a size past u32",
        ),
    ];
    for (to, key, why) in kinds {
        let json = base.replacen("\"hidden_size\":4096", to, 1);
        let err = from_hf_config(&json).expect_err(why);
        assert_eq!(
            err.said.as_ref().map(|s| s.message.key.as_str()),
            Some(key),
            "{why}: {err}"
        );
    }
    let json = base.replacen("\"hidden_size\":4096", "\"hidden_size\":1000000000000", 1);
    let err = from_hf_config(&json).expect_err("past u32");
    assert!(
        err.allowed.contains("8 to 65536"),
        "past u32, the size's own range is said, not u32's: {err}"
    );
    // A null is a value the config leaves unset, as real configs do.
    let null = base.replacen(
        "\"intermediate_size\":11008",
        "\"intermediate_size\":11008,\"head_dim\":null",
        1,
    );
    assert!(from_hf_config(&null).is_ok(), "head_dim: null is unset");
}
