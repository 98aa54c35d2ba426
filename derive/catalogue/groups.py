"""Where a quantity that is not asked by itself is asked: the ask (a group of steps) showing it.

An operator's ``t_lower`` has no steps of its own: the ``bounds`` ask shows it (with
``t_upper``). So that the catalogue's name works in ``ask`` for every kind that has the
quantity, :func:`ask_key` reads a name, or one of its aliases, as the ask that shows it;
group words like ``bounds`` stay what they are.

>>> from derive.catalogue import ProblemKind
>>> ask_key(ProblemKind.OPERATOR, "t_lower"), ask_key(ProblemKind.OPERATOR, "bounds")
('bounds', 'bounds')
>>> ask_key(ProblemKind.TRAINING, "comms_dp")
'comms_bytes_per_device'
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from derive.catalogue import table as q
from derive.catalogue.kinds import ProblemKind
from derive.catalogue.records import Quantity, Use

_OP, _SERVING, _TRAINING = ProblemKind.OPERATOR, ProblemKind.SERVING, ProblemKind.TRAINING


def _within(pairs: dict[Quantity, Quantity]) -> Mapping[str, str]:
    return MappingProxyType({row.name: group.name for row, group in pairs.items()})


ASKED_WITHIN: Mapping[ProblemKind, Mapping[str, str]] = MappingProxyType(
    {
        ProblemKind.OPERATOR: _within(
            {
                q.FUSION_SAVINGS_TOTAL: q.BYTES,  # the bytes step shows the fusion's savings
                q.T_MATH: q.TIMES,
                q.T_MEM: q.TIMES,
                q.T_LOWER: q.BOUNDS,
                q.T_UPPER: q.BOUNDS,
                q.NETWORK_BYTES: q.NETWORK,
                q.NETWORK_INTENSITY: q.NETWORK,
                q.NETWORK_RIDGE: q.NETWORK,
                q.NETWORK_CROSSOVER: q.NETWORK,
                q.T_COMMS: q.NETWORK,
                q.T_LOWER_OVERLAPPED: q.STEP,
                q.MFU: q.MEASURED,
                q.MBU: q.MEASURED,
            }
        ),
        ProblemKind.KERNEL: _within({}),
        ProblemKind.BUDGET: _within({}),
        ProblemKind.WHAT_IF: _within({}),
        ProblemKind.COMMS: _within({}),
        ProblemKind.DECODE_CROSSOVER: _within({}),
        ProblemKind.QUESTIONS: _within({}),
        ProblemKind.MODEL: _within({}),
        ProblemKind.SERVING: _within(
            {q.T_LOWER: q.STEP, q.T_UPPER: q.STEP, q.STEP_MFU: q.MEASURED, q.STEP_MBU: q.MEASURED}
        ),
        ProblemKind.TRAINING: _within(
            {
                q.FITS: q.FIT,
                q.HEADROOM_PER_DEVICE: q.FIT,
                q.MEMORY_WEIGHTS: q.MEMORY_PER_DEVICE,
                q.MEMORY_GRADS: q.MEMORY_PER_DEVICE,
                q.MEMORY_OPTIMIZER: q.MEMORY_PER_DEVICE,
                **dict.fromkeys(
                    (q.COMMS_DP, q.COMMS_TP, q.COMMS_PP, q.COMMS_EP, q.COMMS_CP),
                    q.COMMS_BYTES_PER_DEVICE,
                ),
                **dict.fromkeys(
                    (q.T_COMMS_DP, q.T_COMMS_TP, q.T_COMMS_PP, q.T_COMMS_EP, q.T_COMMS_CP),
                    q.T_COMMS,
                ),
                q.CRITICAL_TOKENS_PER_CHIP: q.CRITICAL_TOKENS_PER_DEVICE,
                q.MFU_PREDICTED: q.T_PREDICTED,
                q.CRITICAL_BATCH_TOKENS: q.CRITICAL_TOKENS_PER_DEVICE,
                q.COST_PER_MILLION_TOKENS: q.COST_OF_RUN,
                q.ENERGY_PER_TOKEN: q.COST_OF_RUN,
            }
        ),
    }
)
"""Per kind, each quantity checked there but not asked by itself → the ask that shows it."""


def ask_key(kind: ProblemKind, word: str) -> str | None:
    """The ``ask`` key ``word`` means in a problem of ``kind``: an ask's own name, or the ask
    that shows the quantity ``word`` names (by its name or an alias); None when neither."""
    from derive.catalogue.lookup import names_for

    asks = names_for(kind, Use.ASK)
    if word in asks:
        return word
    for row in q.QUANTITIES:
        spelt = word in row.spellings() or word.lower() in row.spellings()
        if spelt and row.uses(kind) is not Use.NONE:
            return row.name if row.name in asks else ASKED_WITHIN[kind].get(row.name)
    return None
