"""The peers' step times on the published runs of docs/predictions.md (issue 46).

Not a speed measurement, and never a dependency of derive or its tests: Calculon (the SC'23
model, github calculon-ai/calculon) and llm-analysis (PyPI ``llm-analysis``) run from a
scratch venv, on the runs docs/predictions.md gives derive, each as close to the run's stated
setup as the peer can express it. The published step is recomputed from the paper's inputs
by the paper's FLOP count, as tests/training/test_predictions.py does.

    python3 -m venv /tmp/peers-venv
    /tmp/peers-venv/bin/pip install llm-analysis pandas psutil /tmp/calculon  # a git archive
    /tmp/peers-venv/bin/python benchmarks/peers.py [--calculon /tmp/peers-venv/bin/calculon]

What each peer cannot express is printed beside its figure (and listed in docs/predictions.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

SEQ, VOCAB = 2048, 51200
# Narayanan et al. 2021, Table 1 (+ examples/sc21/run_table_1.sh): name, heads, hidden,
# layers, tp, pp, GPUs, batch, aggregate PFLOP/s, micro-batch, virtual stages
MEGATRON = (
    ("GPT 1.7B", 24, 2304, 24, 1, 1, 32, 512, "4.4", 16, 1),
    ("GPT 3.6B", 32, 3072, 30, 2, 1, 64, 512, "8.8", 16, 1),
    ("GPT 7.5B", 32, 4096, 36, 4, 1, 128, 512, "18.2", 16, 1),
    ("GPT 18.4B", 48, 6144, 40, 8, 1, 256, 1024, "34.6", 8, 1),
    ("GPT 39.1B", 64, 8192, 48, 8, 2, 512, 1536, "70.8", 4, 1),
    ("GPT 76.1B", 80, 10240, 60, 8, 4, 1024, 1792, "143.8", 2, 3),
    ("GPT 145.6B", 96, 12288, 80, 8, 8, 1536, 2304, "227.1", 2, 2),
    ("GPT 310.1B", 128, 16384, 96, 8, 16, 1920, 2160, "297.4", 1, 2),
    ("GPT 529.6B", 128, 20480, 105, 8, 35, 2520, 2520, "410.2", 1, 3),
    ("GPT 1T", 160, 25600, 128, 8, 64, 3072, 3072, "502.0", 1, 1),
)
LLAMA = dict(d=16384, layers=126, heads=128, kv=8, f=53248, vocab=128256)
# Meta, The Llama 3 Herd of Models, Table 4: name, GPUs, cp, dp, seq, TFLOPs/GPU
LLAMA_RUNS = (
    ("Llama 3 405B, 8K GPUs", 8192, 1, 64, 8192, 430),
    ("Llama 3 405B, 16K GPUs", 16384, 1, 128, 8192, 400),
    ("Llama 3 405B, 16K GPUs, 128K context", 16384, 16, 8, 131072, 380),
)
TOKENS = 16 * 2**20
MATMUL = {"a100": 0.61, "h100": 0.49}
"""derive's fitted matmul efficiency per chip (docs/predictions.md), given to llm-analysis."""


def megatron_flops(batch: int, seq: int, layers: int, h: int, vocab: int) -> Fraction:
    return (
        96
        * batch
        * seq
        * layers
        * h
        * h
        * (1 + Fraction(seq, 6 * h) + Fraction(vocab, 16 * layers * h))
    )


def llama_params() -> int:
    m, hd = LLAMA, LLAMA["d"] // LLAMA["heads"]
    block = (
        2 * m["d"] * m["heads"] * hd + 2 * m["d"] * m["kv"] * hd + 3 * m["d"] * m["f"] + 2 * m["d"]
    )
    return m["layers"] * block + 2 * m["vocab"] * m["d"] + m["d"]


def runs() -> list[dict]:
    """Each run: its name, chip, published step (s) and the layout both peers are given."""
    out = []
    for name, heads, h, layers, tp, pp, gpus, batch, pflops, mbs, v in MEGATRON:
        out.append(
            dict(
                name=name,
                chip="a100",
                heads=heads,
                h=h,
                ff=4 * h,
                layers=layers,
                vocab=VOCAB,
                kv=heads,
                seq=SEQ,
                tp=tp,
                pp=pp,
                cp=1,
                dp=gpus // (tp * pp),
                batch=batch,
                mbs=mbs,
                v=v,
                recompute="full",
                zero=0,
                sp=False,
                published=megatron_flops(batch, SEQ, layers, h, VOCAB)
                / (Fraction(pflops) * 10**15),
            )
        )
    out.append(
        dict(
            name="BLOOM-176B",
            chip="a100",
            heads=112,
            h=14336,
            ff=4 * 14336,
            layers=70,
            vocab=250880,
            kv=112,
            seq=SEQ,
            tp=4,
            pp=12,
            cp=1,
            dp=8,
            batch=2048,
            mbs=2,
            v=1,
            recompute="full",
            zero=1,
            sp=False,
            published=megatron_flops(2048, SEQ, 70, 14336, 250880) / (150 * 10**12 * 384),
        )
    )
    m = LLAMA
    for name, gpus, cp, dp, seq, tflops in LLAMA_RUNS:
        flops = TOKENS * (6 * llama_params() + 6 * m["layers"] * m["d"] * seq)
        # neither peer has a gated MLP's three matmuls (llm-analysis's flag changes only the
        # activations): both get a two-matmul MLP of width 1.5·f, the same FLOPs and weights
        out.append(
            dict(
                name=name,
                chip="h100",
                heads=m["heads"],
                h=m["d"],
                ff=3 * m["f"] // 2,
                gated=True,
                layers=m["layers"],
                vocab=m["vocab"],
                kv=m["kv"],
                seq=seq,
                tp=8,
                pp=16,
                cp=cp,
                dp=dp,
                batch=TOKENS // seq,
                mbs=1,
                v=8,
                recompute="none",
                zero=1,
                sp=True,
                published=Fraction(flops, tflops * 10**12 * gpus),
            )
        )
    return out


def calculon(run: dict, exe: str, systems: Path, tmp: Path) -> tuple[float | None, str]:
    """Calculon's total_time, or None and why it cannot run. Calculon models the blocks only (no
    embedding or head), MHA or MQA (GQA: MQA, the nearer count) and no context parallelism."""
    if run["cp"] > 1:
        return None, "no context parallelism"
    gated = run.get("gated", False)
    app = dict(
        hidden=run["h"],
        feedforward=run["ff"],
        seq_size=run["seq"],
        attn_heads=run["heads"],
        attn_size=run["h"] // run["heads"],
        num_blocks=run["layers"],
    )
    procs = run["tp"] * run["pp"] * run["dp"]
    execution = dict(
        num_procs=procs,
        tensor_par=run["tp"],
        pipeline_par=run["pp"],
        data_par=run["dp"],
        tensor_par_net=0,
        pipeline_par_net=1,
        data_par_net=1,
        batch_size=run["batch"],
        microbatch_size=run["mbs"],
        datatype="float16",
        fused_activation=gated,
        attention_type="multiquery" if run["kv"] < run["heads"] else "multihead",
        activation_recompute=run["recompute"],
        pipeline_interleaving=run["v"],
        optimizer_sharding=run["zero"] > 0,
        tensor_par_comm_type="rs_ag" if run["sp"] else "ar",
        tensor_par_overlap="none",
        seq_par_ag_redo=False,
        data_par_overlap=run["chip"] == "h100",
        weight_offload=False,
        activations_offload=False,
        optimizer_offload=False,
        training=True,
    )
    stem = tmp / run["name"].replace(" ", "_").replace(",", "")
    (stem.with_suffix(".app.json")).write_text(json.dumps(app))
    (stem.with_suffix(".exe.json")).write_text(json.dumps(execution))
    system = systems / ("a100_80g.json" if run["chip"] == "a100" else "h100_80g_nvl8.json")
    note = ""
    for _ in range(2):
        done = subprocess.run(
            [
                exe,
                "llm",
                str(stem.with_suffix(".app.json")),
                str(stem.with_suffix(".exe.json")),
                str(system),
                str(stem.with_suffix(".out.json")),
            ],
            capture_output=True,
            text=True,
        )
        why = (done.stdout + done.stderr).strip().splitlines()
        if not done.returncode or not why or "Mem tier1 needs" not in why[-1]:
            break
        # Calculon keeps the S² attention scores (no FlashAttention): time it with the check lifted
        note = f"memory check lifted ({why[-1].removeprefix('ERROR: ')})"
        big = json.loads(system.read_text())
        big["mem1"]["GiB"] = 1 << 20
        system = stem.with_suffix(".system.json")
        system.write_text(json.dumps(big))
    if done.returncode:
        return None, why[-1] if why else "failed"
    return json.loads(stem.with_suffix(".out.json").read_text())["total_time"], note


def llm_analysis(run: dict, efficiency: float | None) -> tuple[float | None, str]:
    """llm-analysis 0.2.2's latency_per_iter: the step's FLOPs over tp·pp GPUs at its flops
    efficiency, times the micro-batches (no bubble, no communication); cp folded into dp."""
    from llm_analysis.analysis import train

    cfg = dict(
        name=run["name"],
        num_layers=run["layers"],
        n_head=run["heads"],
        hidden_dim=run["h"],
        vocab_size=run["vocab"],
        max_seq_len=run["seq"],
        num_key_value_heads=run["kv"],
        ffn_embed_dim=run["ff"],
        expansion_ratio=run["ff"] / run["h"],
    )
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cfg, f)
    dp = run["dp"] * run["cp"]
    gpu = "a100-sxm-80gb" if run["chip"] == "a100" else "h100-sxm-80gb"
    try:
        out = train(
            model_name=f.name,
            gpu_name=gpu,
            dtype_name="w16a16e16",
            log_level="ERROR",
            batch_size_per_gpu=run["mbs"],
            global_batch_size=run["batch"],
            seq_len=run["seq"],
            total_num_tokens=run["batch"] * run["seq"],
            activation_recomputation=2 if run["recompute"] == "full" else 0,
            ds_zero=run["zero"],
            dp_size=dp,
            tp_size=run["tp"],
            pp_size=run["pp"],
            flash_attn=run["chip"] == "h100",
            mlp_gated_linear_units=run.get("gated", False),
            flops_efficiency=efficiency,
        )
    except (AssertionError, ValueError) as exc:
        return None, str(exc).splitlines()[0][:80]
    return out["latency_per_iter"], ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calculon", default=str(Path(sys.executable).with_name("calculon")))
    ap.add_argument("--calculon-systems", default="/tmp/calculon/systems", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs():
            c, why_c = calculon(run, args.calculon, args.calculon_systems, Path(tmp))
            la, why_la = llm_analysis(run, MATMUL[run["chip"]])
            rows.append(
                dict(
                    name=run["name"],
                    published=float(run["published"]),
                    calculon=c,
                    calculon_note=why_c,
                    llm_analysis=la,
                    llm_analysis_note=why_la,
                )
            )
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        cells = [f"{r['name']:38}", f"{r['published']:8.2f}"]
        for peer in ("calculon", "llm_analysis"):
            t = r[peer]
            cells.append(
                f"{t:8.2f} {100 * (t / r['published'] - 1):+6.1f} %" if t else f"{'—':>17}"
            )
        cells += [r["calculon_note"], r["llm_analysis_note"]]
        print(" | ".join(cells))


if __name__ == "__main__":
    main()
