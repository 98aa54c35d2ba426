"""Stage 4c, training: a model trained on a cluster, per parallelism strategy (after model).

- ``binding``: :class:`TrainingProblem`, a run bound exactly (dp, tp, pp, ep, ZeRO, recomputation, batch).
- ``memory``: parameters per device, the state's parts under ZeRO, activations (Korthikanti et al. 2022).
- ``comms``: bytes each device sends per step and per pass (ring collectives, bf16).
- ``analysis``: :func:`analyse_training`, times, bubble, MFU, critical batch, fit; the strategies compared.
"""
