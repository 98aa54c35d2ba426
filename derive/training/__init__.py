"""Stage 4c, training: a model trained on a cluster, per parallelism strategy (after model).

- ``binding``: :class:`TrainingProblem`, a run bound exactly (dp, tp, pp, ep, ZeRO, recomputation, batch).
- ``memory``: parameters per device, the state's parts under ZeRO, activations (Korthikanti et al. 2022).
- ``mesh``: the cluster's axes, the dims placed on them, hierarchical collectives.
- ``layout``: pipeline stages (even, uneven, interleaved) and the mesh read from the flags.
- ``comms``: bytes each device sends per step and per pass, timed over each dim's axes.
- ``search``: every layout of the devices, ranked (``--compare-strategies``).
- ``analysis``: :func:`analyse_training`, times, bubble, MFU, critical batch, fit; the strategies compared.
"""
