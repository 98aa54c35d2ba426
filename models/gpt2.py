"""GPT-2 small (124M): biases, layernorms, learned positions and a tied head.

Source: Radford et al., "Language Models are Unsupervised Multitask Learners" (OpenAI,
2019), Table 2 (the smallest model: 12 layers, d_model 768); the released
configuration (Hugging Face ``openai-community/gpt2`` config.json: n_layer 12,
n_embd 768, n_head 12, n_positions 1024, vocab_size 50257; the MLP is 4·d wide,
the output head is tied to the token embedding, every linear layer has a bias).
"""

from derive import Transformer

gpt2_small = Transformer(
    name="gpt2-small",
    layers=12,
    d_model=768,
    heads=12,
    d_ff=3072,
    mlp="plain",
    vocab=50257,
    tied_embeddings=True,
    positions=1024,
    bias=True,
    norm="layernorm",
    doc="GPT-2 small: Radford et al. 2019; openai-community/gpt2 config.json.",
)
