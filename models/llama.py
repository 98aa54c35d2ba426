"""Llama-style models: gated (SwiGLU) MLP, grouped-query attention, RMS norms, no biases, untied head.

Sources (the released config.json of each model on Hugging Face):

- Llama 3 8B (``meta-llama/Meta-Llama-3-8B``, April 2024): 32 layers, hidden_size 4096,
  32 attention heads, 8 key/value heads, intermediate_size 14336, vocab_size 128256.
- Llama 3 70B (``meta-llama/Meta-Llama-3-70B``, April 2024): 80 layers, hidden_size 8192,
  64 attention heads, 8 key/value heads, intermediate_size 28672, vocab_size 128256.
- Llama 2 70B (``meta-llama/Llama-2-70b-hf``; Touvron et al., "Llama 2", 2023): 80 layers,
  hidden_size 8192, 64 attention heads, 8 key/value heads, intermediate_size 28672,
  vocab_size 32000.

Rotary position embeddings have no parameters, so ``positions`` is None.
"""

from derive import Transformer

llama_3_8b = Transformer(
    name="llama-3-8b",
    layers=32,
    d_model=4096,
    heads=32,
    kv_heads=8,
    head_dim=128,
    d_ff=14336,
    mlp="gated",
    vocab=128256,
    tied_embeddings=False,
    norm="rms",
    doc="Llama 3 8B: meta-llama/Meta-Llama-3-8B config.json (2024).",
)

llama_3_70b = Transformer(
    name="llama-3-70b",
    layers=80,
    d_model=8192,
    heads=64,
    kv_heads=8,
    head_dim=128,
    d_ff=28672,
    mlp="gated",
    vocab=128256,
    tied_embeddings=False,
    norm="rms",
    doc="Llama 3 70B: meta-llama/Meta-Llama-3-70B config.json (2024).",
)

llama_2_70b = Transformer(
    name="llama-2-70b",
    layers=80,
    d_model=8192,
    heads=64,
    kv_heads=8,
    head_dim=128,
    d_ff=28672,
    mlp="gated",
    vocab=32000,
    tied_embeddings=False,
    norm="rms",
    doc="Llama 2 70B: Touvron et al. 2023; meta-llama/Llama-2-70b-hf config.json.",
)
