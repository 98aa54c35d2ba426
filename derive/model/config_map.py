"""The Hugging Face ``config.json`` fields of each supported ``model_type``, as tables.

A :class:`Family` lists, for one ``model_type``, the config fields that set a
:class:`~derive.model.transformer.Transformer` field (:class:`Field`), the choices the
architecture fixes (``fixed``: a gated MLP, RMS norms, q/k norms…) and the fields known not
to change any count (``ignored``, on top of :data:`IGNORED`, each with its reason). Layer
patterns that need more than one field (sliding windows, dense layers) are read by the
small functions named in ``layers``. Every number was read from the ``configuration_*.py``
and ``modeling_*.py`` of transformers for that ``model_type`` (defaults included).

Anything else in a config is refused by :mod:`derive.model.config_file`: a field derive
does not know may change a count, and a silently wrong count is worse than an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):
    """What a config field holds."""

    SIZE = "a positive integer"
    COUNT = "a non-negative integer"
    FLAG = "true or false"


class LayerRule(str, Enum):
    """How a family says which layers are windowed or dense (several fields at once)."""

    WINDOW_ALL = "sliding_window (when not null) windows every layer"
    WINDOW_QWEN = (
        "use_sliding_window with sliding_window windows the layers from max_window_layers on "
        "(or the layer_types marked sliding_attention)"
    )
    WINDOW_ALTERNATE = (
        "sliding_window windows every other layer, the first included (or the layer_types "
        "marked sliding_attention)"
    )
    WINDOW_PATTERN = (
        "sliding_window windows every layer but each sliding_window_pattern-th (by default 6) "
        "(or the layer_types marked sliding_attention)"
    )
    DENSE_FIRST_K = "first_k_dense_replace blocks have a dense MLP of width intermediate_size"
    DENSE_SPARSE_STEP = (
        "blocks in mlp_only_layers, or whose index + 1 is not a multiple of decoder_sparse_step, "
        "have a dense MLP of width intermediate_size"
    )


REQUIRED = object()  # a Field default: the config must give the field


@dataclass(frozen=True)
class Field:
    """One config field that sets a Transformer field.

    ``default``: the value when the field is absent (transformers' default; ``REQUIRED``: the
    config must give it); ``nullable``: ``null`` is a value (the part is absent).
    """

    config: str
    target: str
    kind: Kind
    default: object = REQUIRED
    nullable: bool = False


@dataclass(frozen=True)
class Check:
    """A field read only at the values that change no count (``allowed``); any other value
    is refused, naming the field, the value and ``why``."""

    config: str
    allowed: tuple[object, ...]
    why: str

    def admits(self, value: object) -> bool:
        """Whether ``value`` is allowed (by type and value: ``0`` is not ``false``)."""
        return any(type(value) is type(a) and value == a for a in self.allowed)


@dataclass(frozen=True)
class Family:
    """The config of one ``model_type``: its fields, the fixed choices, the ignored fields.

    ``aliases``: (another name, the field it names), transformers' ``attribute_map``: a
    config may give either (both only with one value). ``checked``: fields read only at the
    values that change no count.
    """

    model_type: str
    fields: tuple[Field, ...]
    fixed: tuple[tuple[str, object], ...]
    ignored: tuple[tuple[str, str], ...] = ()
    layers: tuple[LayerRule, ...] = ()
    note: str = ""
    aliases: tuple[tuple[str, str], ...] = ()
    checked: tuple[Check, ...] = ()

    def field(self, config: str) -> Field | None:
        """The row for a config field, or None."""
        return next((f for f in self.fields if f.config == config), None)


# Fields of every config that change no count, with the reason (shown in the docs).
IGNORED: tuple[tuple[str, str], ...] = (
    ("architectures", "the class names; model_type decides the architecture"),
    ("model_type", "read first: it selects the table"),
    ("_name_or_path", "where the config came from"),
    ("auto_map", "code to load; derive never runs it"),
    ("transformers_version", "the library version"),
    ("torch_dtype", "the checkpoint's storage type: choose widths with --dtype"),
    ("dtype", "the checkpoint's storage type: choose widths with --dtype"),
    ("quantization_config", "read apart: the weights' dtype (fp8, GPTQ, AWQ, bitsandbytes)"),
    ("bos_token_id", "a token id"),
    ("eos_token_id", "a token id"),
    ("pad_token_id", "a token id"),
    ("use_cache", "a run-time switch"),
    ("initializer_range", "initialisation only"),
    ("hidden_act", "an activation function (elementwise, not counted)"),
    ("hidden_activation", "an activation function (elementwise, not counted)"),
    ("activation_function", "an activation function (elementwise, not counted)"),
    ("rms_norm_eps", "a norm's epsilon"),
    ("layer_norm_eps", "a norm's epsilon"),
    ("layer_norm_epsilon", "a norm's epsilon"),
    ("rope_theta", "rotary embeddings have no parameters"),
    ("rope_scaling", "rotary embeddings have no parameters"),
    ("rope_parameters", "rotary embeddings have no parameters"),
    ("max_position_embeddings", "the rotary range; rotary embeddings have no parameters"),
    ("attention_dropout", "training-time dropout"),
    ("output_attentions", "a run-time switch"),
    ("output_hidden_states", "a run-time switch"),
    ("return_dict", "a run-time switch"),
    ("tie_word_embeddings", "read by every family (the head reuses the embedding)"),
    ("chunk_size_feed_forward", "how the MLP is chunked at run time: the same weights"),
    ("id2label", "the labels of a classification head; the causal LM has none"),
    ("label2id", "the labels of a classification head; the causal LM has none"),
    ("num_labels", "the labels of a classification head; the causal LM has none"),
    ("problem_type", "the loss of a classification head; the causal LM has none"),
    ("finetuning_task", "the task a checkpoint was tuned on"),
    ("tokenizer_class", "the tokenizer's class"),
    ("prefix", "a prompt prefix"),
    ("sep_token_id", "a token id"),
    ("decoder_start_token_id", "a token id"),
    ("task_specific_params", "generation settings"),
    ("torchscript", "an export switch"),
    ("tf_legacy_loss", "a training loss switch"),
    ("use_bfloat16", "the checkpoint's storage type: choose widths with --dtype"),
    ("attn_implementation", "a run-time choice of attention kernel"),
    ("_attn_implementation", "a run-time choice of attention kernel"),
    ("_attn_implementation_autoset", "a run-time choice of attention kernel"),
    ("experts_implementation", "a run-time choice of experts kernel"),
    ("_commit_hash", "where the config came from"),
    ("name_or_path", "where the config came from"),
    *(
        (name, "a generation setting (transformers moves it to the generation config)")
        for name in (
            "assistant_confidence_threshold",
            "assistant_lookbehind",
            "bad_words_ids",
            "begin_suppress_tokens",
            "diversity_penalty",
            "do_sample",
            "early_stopping",
            "encoder_no_repeat_ngram_size",
            "encoder_repetition_penalty",
            "epsilon_cutoff",
            "eta_cutoff",
            "exponential_decay_length_penalty",
            "forced_bos_token_id",
            "forced_eos_token_id",
            "length_penalty",
            "max_length",
            "min_length",
            "no_repeat_ngram_size",
            "num_assistant_tokens",
            "num_assistant_tokens_schedule",
            "num_beam_groups",
            "num_beams",
            "num_return_sequences",
            "output_scores",
            "remove_invalid_values",
            "repetition_penalty",
            "return_dict_in_generate",
            "suppress_tokens",
            "target_lookbehind",
            "temperature",
            "top_k",
            "top_p",
            "typical_p",
        )
    ),
)

# Fields of every config read only at the value that changes no count.
CHECKED: tuple[Check, ...] = (
    Check("is_encoder_decoder", (False,), "an encoder-decoder; derive models decoder-only LMs"),
    Check("add_cross_attention", (False,), "cross-attention adds weights to every block"),
    Check("tie_encoder_decoder", (False,), "an encoder-decoder; derive models decoder-only LMs"),
    Check("cross_attention_hidden_size", (None,), "cross-attention adds weights to every block"),
    Check("pruned_heads", ({},), "pruned heads remove weights from their blocks"),
    Check("per_layer_config", (None,), "sizes that differ layer by layer"),
)
_BIDIRECTIONAL = Check(
    "use_bidirectional_attention",
    (None, False),
    "bidirectional attention is an encoder's (EmbeddingGemma); derive's steps are a causal LM's",
)

_ROPE_LONG = (
    ("original_max_position_embeddings", "the rotary range before scaling"),
    ("partial_rotary_factor", "how much of a head is rotated: no parameters"),
)
_MOE_ROUTING = (
    ("router_aux_loss_coef", "a training loss weight"),
    ("output_router_logits", "a run-time switch"),
    ("router_jitter_noise", "training-time noise"),
    ("norm_topk_prob", "how the k weights are normalised: elementwise"),
)
_DEEPSEEK_ROUTING = (
    ("n_group", "routing groups: which experts, not how many"),
    ("topk_group", "routing groups: which experts, not how many"),
    ("topk_method", "how experts are chosen, not how many"),
    ("norm_topk_prob", "how the k weights are normalised: elementwise"),
    ("routed_scaling_factor", "a scalar on the routed output"),
    ("scoring_func", "how router scores are normalised: elementwise"),
    ("aux_loss_alpha", "a training loss weight"),
    ("seq_aux", "a training loss switch"),
    ("ep_size", "expert parallelism at training time"),
    ("output_router_logits", "a run-time switch"),
    ("rope_interleave", "the order of rotated pairs: no parameters"),
    ("num_key_value_heads", "latent attention caches one latent for every head"),
    ("head_dim", "transformers sets it to qk_rope_head_dim; a head's width is nope + rope"),
    (
        "num_nextn_predict_layers",
        "the multi-token-prediction module is not part of transformers' model (not counted)",
    ),
)
_DEEPSEEK_CHECKED = (
    Check(
        "moe_layer_freq",
        (1,),
        "only 1 is modelled (as transformers): every block after the dense ones has experts",
    ),
    Check("mlp_bias", (False,), "DeepSeek's MLPs have no bias in transformers"),
)
_SOFTCAP = (
    ("attn_logit_softcapping", "a tanh cap on scores: elementwise"),
    ("final_logit_softcapping", "a tanh cap on logits: elementwise"),
    ("query_pre_attn_scalar", "a scale on the scores: elementwise"),
    ("cache_implementation", "a run-time choice of cache class"),
    ("sliding_window_size", "an older copy of sliding_window that transformers does not read"),
)
_GPT2 = (
    ("n_ctx", "the context length, the same as n_positions"),
    ("embd_pdrop", "training-time dropout"),
    ("resid_pdrop", "training-time dropout"),
    ("attn_pdrop", "training-time dropout"),
    ("summary_type", "the sequence-summary head of other GPT-2 classes"),
    ("summary_use_proj", "the sequence-summary head of other GPT-2 classes"),
    ("summary_activation", "the sequence-summary head of other GPT-2 classes"),
    ("summary_proj_to_labels", "the sequence-summary head of other GPT-2 classes"),
    ("summary_first_dropout", "the sequence-summary head of other GPT-2 classes"),
    ("scale_attn_weights", "a scale on the scores: elementwise"),
    ("scale_attn_by_inverse_layer_idx", "a scale on the scores: elementwise"),
    ("reorder_and_upcast_attn", "numerics of the scores"),
)
_LLAMA_EXTRA = (("pretraining_tp", "how training split the matmuls: the same weights"),)
_WINDOW_SWITCHES = (
    ("sliding_window", "read with the layer rule"),
    ("use_sliding_window", "read with the layer rule"),
    ("max_window_layers", "read with the layer rule"),
    ("layer_types", "read with the layer rule"),
)


def _core(head_dim: int | None = None) -> tuple[Field, ...]:
    """The fields every Llama-like config has (transformers' names)."""
    return (
        Field("num_hidden_layers", "layers", Kind.SIZE),
        Field("hidden_size", "d_model", Kind.SIZE),
        Field("num_attention_heads", "heads", Kind.SIZE),
        Field("intermediate_size", "d_ff", Kind.SIZE),
        Field("vocab_size", "vocab", Kind.SIZE),
        Field("num_key_value_heads", "kv_heads", Kind.SIZE, None, nullable=True),
        Field("head_dim", "head_dim", Kind.SIZE, head_dim, nullable=True),
    )


_LLAMA_FIXED: tuple[tuple[str, object], ...] = (("mlp", "gated"), ("norm", "rms"))
_TIED_FALSE = Field("tie_word_embeddings", "tied_embeddings", Kind.FLAG, False)
_TIED_TRUE = Field("tie_word_embeddings", "tied_embeddings", Kind.FLAG, True)
_MOE = (
    Field("num_local_experts", "experts", Kind.SIZE),
    Field("num_experts_per_tok", "top_k", Kind.SIZE),
)
_ATTENTION_BIAS = Field("attention_bias", "attention_bias", Kind.FLAG, False)
_LLAMA = (*_core(), _TIED_FALSE, _ATTENTION_BIAS, Field("mlp_bias", "mlp_bias", Kind.FLAG, False))
_QWEN_MOE = (
    Field("num_experts", "experts", Kind.SIZE),
    Field("num_experts_per_tok", "top_k", Kind.SIZE),
    Field("moe_intermediate_size", "d_ff", Kind.SIZE),
)
_SPARSE_STEP = (
    ("decoder_sparse_step", "read with the layer rule"),
    ("mlp_only_layers", "read with the layer rule"),
)
_GRANITE = tuple(
    (name, "a scalar multiplier: elementwise, no parameters")
    for name in (
        "embedding_multiplier",
        "logits_scaling",
        "residual_multiplier",
        "attention_multiplier",
    )
)
_STARCODER2 = (
    ("norm_epsilon", "a norm's epsilon"),
    ("residual_dropout", "training-time dropout"),
    ("embedding_dropout", "training-time dropout"),
)
_GEMMA3 = (
    ("rope_local_base_freq", "rotary embeddings have no parameters"),
    ("sliding_window_pattern", "read with the layer rule"),
    ("_sliding_window_pattern", "read with the layer rule"),
)

FAMILIES: dict[str, Family] = {
    f.model_type: f
    for f in (
        Family(
            "llama",
            _LLAMA,
            _LLAMA_FIXED,
            _LLAMA_EXTRA,
        ),
        Family(
            "mistral",
            (*_core(), _TIED_FALSE),
            _LLAMA_FIXED,
            _WINDOW_SWITCHES[:1],
            (LayerRule.WINDOW_ALL,),
        ),
        Family(
            "mixtral",
            (*_core(), _TIED_FALSE, *_MOE),
            _LLAMA_FIXED,
            _WINDOW_SWITCHES[:1] + _MOE_ROUTING,
            (LayerRule.WINDOW_ALL,),
            aliases=(("num_experts", "num_local_experts"),),
        ),
        Family(
            "qwen2",
            (*_core(), _TIED_FALSE),
            (*_LLAMA_FIXED, ("qkv_bias", True)),
            _WINDOW_SWITCHES,
            (LayerRule.WINDOW_QWEN,),
        ),
        Family(
            "qwen2_moe",
            (
                *_core(),
                _TIED_FALSE,
                Field("qkv_bias", "qkv_bias", Kind.FLAG, True),
                *_QWEN_MOE,
                Field("shared_expert_intermediate_size", "d_ff_shared", Kind.SIZE),
            ),
            (*_LLAMA_FIXED, ("shared_experts", 1), ("shared_gate", True)),
            _WINDOW_SWITCHES + _MOE_ROUTING + _SPARSE_STEP,
            (LayerRule.WINDOW_QWEN, LayerRule.DENSE_SPARSE_STEP),
            "intermediate_size is the dense layers' width; moe_intermediate_size an expert's; "
            "every MoE block also has one shared expert of width shared_expert_intermediate_size "
            "and its gate (a d → 1 projection, no bias).",
        ),
        Family(
            "qwen3",
            (*_core(head_dim=128), _TIED_FALSE, _ATTENTION_BIAS),
            (*_LLAMA_FIXED, ("qk_norm", True)),
            _WINDOW_SWITCHES,
            (LayerRule.WINDOW_QWEN,),
        ),
        Family(
            "qwen3_moe",
            (*_core(), _TIED_FALSE, _ATTENTION_BIAS, *_QWEN_MOE),
            (*_LLAMA_FIXED, ("qk_norm", True)),
            _WINDOW_SWITCHES + _MOE_ROUTING + _SPARSE_STEP,
            (LayerRule.WINDOW_QWEN, LayerRule.DENSE_SPARSE_STEP),
            "intermediate_size is the dense layers' width; moe_intermediate_size an expert's.",
            aliases=(("num_local_experts", "num_experts"),),
        ),
        Family(
            "gemma",
            (*_core(head_dim=256), _TIED_TRUE, _ATTENTION_BIAS),
            _LLAMA_FIXED,
            checked=(_BIDIRECTIONAL,),
        ),
        Family(
            "gemma2",
            (*_core(head_dim=256), _TIED_TRUE, _ATTENTION_BIAS),
            (*_LLAMA_FIXED, ("norms_per_block", 4)),
            _SOFTCAP + _WINDOW_SWITCHES[:1] + _WINDOW_SWITCHES[3:],
            (LayerRule.WINDOW_ALTERNATE,),
            "Four RMS norms a block: before and after attention, before and after the MLP.",
            checked=(_BIDIRECTIONAL,),
        ),
        Family(
            "gemma3_text",
            (*_core(head_dim=256), _TIED_TRUE, _ATTENTION_BIAS),
            (*_LLAMA_FIXED, ("norms_per_block", 4), ("qk_norm", True)),
            _SOFTCAP + _WINDOW_SWITCHES[:1] + _WINDOW_SWITCHES[3:] + _GEMMA3,
            (LayerRule.WINDOW_PATTERN,),
            "Four RMS norms a block (as Gemma 2) and q/k norms of width head_dim; the local "
            "(sliding) and global layers have the same weights.",
            checked=(_BIDIRECTIONAL,),
        ),
        Family(
            "phi3",
            (*_core(), _TIED_FALSE),
            _LLAMA_FIXED,
            _ROPE_LONG + _GPT2[1:3] + _WINDOW_SWITCHES[:1],
            (LayerRule.WINDOW_ALL,),
            "qkv_proj and gate_up_proj are fused: the same weights as separate projections.",
            checked=(
                Check(
                    "attention_bias",
                    (False,),
                    "transformers' Phi-3 builds qkv_proj and o_proj without a bias",
                ),
            ),
        ),
        Family(
            "olmo2",
            (*_core(), _TIED_FALSE, _ATTENTION_BIAS),
            (*_LLAMA_FIXED, ("qk_norm", True), ("qk_norm_full", True)),
            note="Two RMS norms a block, after attention and after the MLP (the same count as "
            "before); the q and k norms span every head (widths h·d_h and h_kv·d_h).",
        ),
        Family(
            "granite",
            _LLAMA,
            _LLAMA_FIXED,
            _GRANITE,
            note="A Llama block; its four multipliers scale activations and change no count.",
        ),
        Family(
            "starcoder2",
            (*_core(), _TIED_TRUE, Field("use_bias", "bias", Kind.FLAG, True)),
            (("mlp", "plain"), ("norm", "layernorm")),
            _STARCODER2 + _WINDOW_SWITCHES[:1],
            (LayerRule.WINDOW_ALL,),
            "A plain MLP (c_fc, c_proj); use_bias puts a bias on every projection of a block; "
            "the layer norms have a weight and a bias.",
            checked=(
                Check("mlp_type", ("default",), "transformers' StarCoder2 builds the plain MLP"),
                Check("norm_type", ("layer_norm",), "transformers' StarCoder2 builds layer norms"),
            ),
        ),
        Family(
            "gpt2",
            (
                Field("n_layer", "layers", Kind.SIZE),
                Field("n_embd", "d_model", Kind.SIZE),
                Field("n_head", "heads", Kind.SIZE),
                Field("n_inner", "d_ff", Kind.SIZE, None, nullable=True),
                Field("vocab_size", "vocab", Kind.SIZE),
                Field("n_positions", "positions", Kind.SIZE),
                _TIED_TRUE,
            ),
            (("mlp", "plain"), ("norm", "layernorm"), ("bias", True)),
            _GPT2,
            note="n_inner null means 4·n_embd; every Conv1D has a bias; the head is tied.",
            aliases=(
                ("hidden_size", "n_embd"),
                ("max_position_embeddings", "n_positions"),
                ("num_attention_heads", "n_head"),
                ("num_hidden_layers", "n_layer"),
            ),
        ),
        *(
            Family(
                model_type,
                (
                    Field("num_hidden_layers", "layers", Kind.SIZE),
                    Field("hidden_size", "d_model", Kind.SIZE),
                    Field("num_attention_heads", "heads", Kind.SIZE),
                    Field("moe_intermediate_size", "d_ff", Kind.SIZE),
                    Field("intermediate_size", "d_ff_dense", Kind.SIZE),
                    Field("vocab_size", "vocab", Kind.SIZE),
                    _TIED_FALSE,
                    _ATTENTION_BIAS,
                    Field("n_routed_experts", "experts", Kind.SIZE),
                    Field("num_experts_per_tok", "top_k", Kind.SIZE),
                    Field("n_shared_experts", "shared_experts", Kind.SIZE, nullable=True),
                    Field("first_k_dense_replace", "dense_layers", Kind.COUNT, 0),
                    Field("q_lora_rank", "q_lora_rank", Kind.SIZE, nullable=True),
                    Field("kv_lora_rank", "kv_lora_rank", Kind.SIZE),
                    Field("qk_rope_head_dim", "qk_rope_head_dim", Kind.SIZE),
                    Field("qk_nope_head_dim", "qk_nope_head_dim", Kind.SIZE),
                    Field("v_head_dim", "v_head_dim", Kind.SIZE),
                    Field("qk_head_dim", "head_dim", Kind.SIZE, None, nullable=True),
                ),
                _LLAMA_FIXED,
                _DEEPSEEK_ROUTING + _LLAMA_EXTRA,
                (LayerRule.DENSE_FIRST_K,),
                "The router's e_score_correction_bias (V3) is a buffer, not a parameter, in "
                "transformers: not counted. The MTP module (num_nextn_predict_layers) is not "
                "in transformers' model: not counted. qk_head_dim, when given, must be "
                "qk_nope_head_dim + qk_rope_head_dim.",
                aliases=aliases,
                checked=_DEEPSEEK_CHECKED,
            )
            for model_type, aliases in (
                ("deepseek_v2", (("num_experts", "n_routed_experts"),)),
                (
                    "deepseek_v3",
                    (
                        ("num_local_experts", "n_routed_experts"),
                        ("num_mtp_layers", "num_nextn_predict_layers"),
                    ),
                ),
            )
        ),
    )
}
