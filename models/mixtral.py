"""Mixtral 8x7B: a mixture of 8 gated experts, 2 active per token, with GQA.

Source: Jiang et al., "Mixtral of Experts" (Mistral AI, 2024), Table 1 (dim 4096,
n_layers 32, head_dim 128, hidden_dim 14336, n_heads 32, n_kv_heads 8, vocab_size
32000, num_experts 8, top_k_experts 2); the released config.json
(``mistralai/Mixtral-8x7B-v0.1``): RMS norms, no biases, untied head, a linear router
of d·E weights without bias in every layer.
"""

from derive import Transformer

mixtral_8x7b = Transformer(
    name="mixtral-8x7b",
    layers=32,
    d_model=4096,
    heads=32,
    kv_heads=8,
    head_dim=128,
    d_ff=14336,
    mlp="gated",
    vocab=32000,
    tied_embeddings=False,
    norm="rms",
    experts=8,
    top_k=2,
    doc="Mixtral 8x7B: Jiang et al. 2024, Table 1; mistralai/Mixtral-8x7B-v0.1 config.json.",
)
