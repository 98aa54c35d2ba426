"""A model problem: a model with dtypes, hardware, devices, bound dims and a training run.

``ModelSpec`` holds what the user typed, as text; :func:`bind_model` checks each
piece and returns an exact :class:`ModelProblem`. Numbers go through
:mod:`derive.formula.decimals`; nothing typed is evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.errors import ProblemError, UnknownNameError
from derive.formula.decimals import parse_positive_int, set_items
from derive.model.expand import Role
from derive.model.sized import NEEDS_ARCHITECTURE, SizedModel
from derive.model.symbols import batch, context
from derive.model.transformer import Transformer
from derive.problem.chips import Chip, Figure, custom_figure, get_chip
from derive.problem.dtypes import Dtype, get_dtype
from derive.problem.model_spec import ModelSpec
from derive.problem.money import read_power, read_price

__all__ = ["RECIPES", "ModelProblem", "ModelSpec", "StateRecipe", "bind_model", "bind_tp"]

MAX_ITEMS = 64
DEFAULT_DTYPE = "bf16"


@dataclass(frozen=True)
class StateRecipe:
    """Training-state bytes per parameter, as named parts (``adam-mixed``: 2 + 2 + 12)."""

    name: str
    parts: tuple[tuple[str, sp.Rational], ...]

    @property
    def bytes_per_param(self) -> sp.Rational:
        """The sum of the parts."""
        return sp.Add(*(b for _, b in self.parts))


_W, _G, _M = "bf16 weights", "bf16 gradients", "fp32 master weights, Adam m and v"
_RECIPE_PARTS: dict[str, tuple[tuple[str, int], ...]] = {
    "adam-mixed": ((_W, 2), (_G, 2), (_M, 12)),
    "adam-fp32": (("fp32 weights", 4), ("fp32 gradients", 4), ("Adam m and v in fp32", 8)),
    # Megatron-LM's theoretical_memory_usage.py: 18, or 6 + 12/(dp·cp) sharded
    "megatron": ((_W, 2), ("fp32 gradients (main_grad)", 4), (_M, 12)),
    # DeepSpeed's estimate_zero2/3_model_states_mem_needs: 2 + 2 + 16
    "deepspeed": ((_W, 2), (_G, 2), (_M + ", fp32 gradients", 16)),
    # Training, "Data Parallelism": bf16 params, fp32 Adam state, "2 + 8 = 10"
    "scaling-book": ((_W, 2), ("gradients (not counted)", 0), ("Adam m and v in fp32", 8)),
    "sgd-mixed": ((_W, 2), (_G, 2), ("fp32 master weights", 4)),
}
RECIPES: dict[str, StateRecipe] = {
    name: StateRecipe(name, tuple((label, sp.Integer(n)) for label, n in parts))
    for name, parts in _RECIPE_PARTS.items()
}


@dataclass(frozen=True)
class ModelProblem:
    """A bound model problem: exact numbers, every name checked (``model`` may be known by
    its size alone: a :class:`~derive.model.sized.SizedModel`)."""

    model: Transformer | SizedModel
    chip: Chip | None
    capacity: Figure | None
    peak: Figure | None
    compute_dtype: str
    bandwidth: Figure | None
    devices: sp.Integer
    dtypes: tuple[tuple[Role, Dtype], ...]
    bound: tuple[tuple[sp.Symbol, sp.Integer], ...]
    train_tokens: Figure | None
    mfu: Figure | None
    measured_tokens_per_s: Figure | None
    state: StateRecipe | None
    tp: sp.Integer
    price_per_hour: Figure | None = None  # dollars per device-hour (issue 36)
    power: Figure | None = None  # watts per device

    @property
    def transformer(self) -> Transformer:
        """The model's architecture; a model known by its size alone has none (one line)."""
        if isinstance(self.model, SizedModel):
            raise ProblemError(f"model {self.model.name}", NEEDS_ARCHITECTURE)
        return self.model

    @property
    def replicas(self) -> sp.Integer:
        """Data-parallel replicas: the devices over the tensor-parallel degree (1 by default)."""
        return sp.Integer(self.devices // self.tp)

    def kv_split(self, tp: int) -> int:
        """Devices the KV heads are split over in a group of ``tp``, as the serving step lays
        them out (:mod:`derive.model.phase`): min(tp, h_kv), a head per device beyond h_kv; 1
        for latent attention, its one latent on every device; tp for a model known by its size."""
        m = self.model
        if isinstance(m, SizedModel):
            return tp
        heads = m.kv_heads
        kv = (heads if isinstance(heads, sp.Basic) else sp.Integer(heads)).xreplace(
            dict(self.bound)
        )
        if not kv.is_number:
            raise ProblemError(
                "the model's kv_heads", "bind every dim of the model with --set to time a step"
            )
        return 1 if m.is_mla else min(tp, int(kv))

    @property
    def kv_ways(self) -> int | None:
        """N_kv, the devices one copy of the KV cache is split over when fewer than the
        group's (:meth:`kv_split`); None when it spreads over the whole group or is unknown."""
        group = int(self.devices if self.replicas == 1 else self.tp)
        try:
            ways = self.kv_split(group)
        except ProblemError:
            return None
        return ways if ways < group else None

    def dtype(self, role: Role) -> Dtype:
        """The dtype bound to a role."""
        return dict(self.dtypes)[role]

    def value_of(self, dim: sp.Symbol) -> sp.Integer | None:
        """The value a dim is bound to, or None."""
        return dict(self.bound).get(dim)

    @property
    def hardware_name(self) -> str:
        """The chip's name, ``given numbers`` or ``no hardware``."""
        if self.chip:
            return self.chip.name
        return "given numbers" if self.capacity or self.peak else "no hardware"


_ROLE_KEYS = {r.flag: r for r in Role}


def _bind_dtypes(
    specs: tuple[str, ...], stored_as: Dtype | None = None, sized: bool = False
) -> tuple[tuple[Role, Dtype], ...]:
    """The dtype of each role: bf16, the weights as the config stores them, then ``--dtype``
    (a model known by its size has no cache dtype: its cache is ``--kv-bytes-per-token``)."""
    chosen = {r: get_dtype(DEFAULT_DTYPE) for r in Role}
    if stored_as is not None:
        chosen[Role.WEIGHT] = stored_as
    for spec in specs:
        if not isinstance(spec, str):
            raise ProblemError("--dtype", f"expected text like weights=int8, got {spec!r}")
        key, eq, name = (s.strip() for s in spec.partition("="))
        if not eq:
            key, name = "", key
        if sized and key == Role.KV_CACHE.flag:
            raise ProblemError(
                f"--dtype {spec}", "has no effect: --kv-bytes-per-token gives the cache's size"
            )
        if key and key not in _ROLE_KEYS:
            raise UnknownNameError(
                f"--dtype {spec}", f"unknown role {key!r}; roles are {', '.join(_ROLE_KEYS)}"
            )
        try:
            dt = get_dtype(name)
        except UnknownNameError as exc:
            raise UnknownNameError(f"--dtype {spec}", exc.why) from None
        for role in [_ROLE_KEYS[key]] if key else list(Role):
            chosen[role] = dt
    return tuple((r, chosen[r]) for r in Role if not (sized and r is Role.KV_CACHE))


def _bind_sets(
    model: Transformer | SizedModel, sets: tuple[str, ...]
) -> tuple[tuple[sp.Symbol, sp.Integer], ...]:
    known = {d.name: d for d in (batch, context, *model.free_dims)}
    bound: dict[sp.Symbol, sp.Integer] = {}
    for item in set_items(sets):
        if not isinstance(item, str) or "=" not in item:
            raise ProblemError(f"--set {item}", "expected DIM=INT, e.g. B=32 or S=8192")
        name, _, value = (s.strip() for s in item.partition("="))
        if name not in known:
            prompt = "; T is a prefill's prompt length (--phase prefill)" if name == "T" else ""
            raise UnknownNameError(
                f"--set {item}",
                f"model {model.name!r} has no dim {name!r}; its dims are {', '.join(known)}"
                + prompt,
            )
        bound[known[name]] = parse_positive_int(value, f"--set {name}")
    return tuple((d, bound[d]) for d in known.values() if d in bound)


def _devices(text: str | None) -> sp.Integer:
    if text is None:
        return sp.Integer(1)
    if (
        not isinstance(text, str)
        or not re.fullmatch(r"\s*\+?\d{1,9}\s*", text, re.ASCII)
        or int(text) <= 0
    ):
        raise ProblemError(
            f"--devices {text}",
            "give a whole number of devices from 1 to 999999999 in ASCII digits, e.g. --devices 8",
        )
    return sp.Integer(int(text))


MAX_DIVISORS_SHOWN = 12


def bind_tp(text: str | None, devices: sp.Integer) -> sp.Integer:
    """The tensor-parallel degree T: a divisor of the devices N (default N: one group).

    >>> bind_tp("8", sp.Integer(16)), bind_tp(None, sp.Integer(16))
    (8, 16)
    """
    if text is None:
        return devices
    if isinstance(text, str) and re.fullmatch(r"\s*\+?\d{1,9}\s*", text, re.ASCII):
        tp = int(text)
        if 0 < tp <= devices and devices % tp == 0:
            return sp.Integer(tp)
    allowed = [str(d) for d in sp.divisors(int(devices))]
    shown = ", ".join(allowed[:MAX_DIVISORS_SHOWN]) + (
        ", …" if len(allowed) > MAX_DIVISORS_SHOWN else ""
    )
    raise ProblemError(
        f"--tp {text}",
        f"the tensor-parallel degree divides --devices ({devices}) into replicas: one of {shown}",
    )


def _given(text: str | None, what: str) -> Figure | None:
    """A number the user typed, or None when not given."""
    return None if text is None else custom_figure(text, what)


def _fraction(text: str | None, what: str) -> Figure | None:
    if text is None:
        return None
    fig = custom_figure(text, what)
    if fig.value > 1:
        raise ProblemError(f"{what} {text}", "a utilisation is a fraction in (0, 1], e.g. 0.4")
    return fig


def _state(text: str | None) -> StateRecipe | None:
    if text is None:
        return None
    if isinstance(text, str) and text.strip().lower() in RECIPES:
        return RECIPES[text.strip().lower()]
    if isinstance(text, str) and not re.fullmatch(r"\s*[+-]?[\d._]*(?:[eE][+-]?\d+)?\s*", text):
        raise UnknownNameError(
            f"--state-bytes {text}",
            f"give bytes per parameter (e.g. 16) or a recipe: {', '.join(RECIPES)}",
        )
    value = custom_figure(text, "--state-bytes").value
    return StateRecipe(f"{text.strip()} bytes per parameter", (("given", value),))


def _hardware(spec: ModelSpec, compute: str, needs_peak: bool) -> tuple:
    capacity = _given(spec.capacity, "--capacity")
    if spec.chip is not None:
        chip = get_chip(spec.chip).overridden(spec.peak, spec.bandwidth, spec.capacity, None)
        try:
            peak = chip.peak(compute) if needs_peak or spec.peak is not None else None
        except UnknownNameError as exc:
            have = ", ".join(chip.peak_dtypes())
            raise UnknownNameError(
                exc.what,
                f"the chip has no {compute} peak; it has {have} (choose one with --dtype activations=DTYPE)",
            ) from None
        return chip, chip.capacity, peak, chip.hbm
    return None, capacity, _given(spec.peak, "--peak"), _given(spec.bandwidth, "--bandwidth")


def bind_model(spec: ModelSpec, model: Transformer | SizedModel) -> ModelProblem:
    """Validate a spec against its model and the catalogues; the result is exact."""
    for name in ("dtypes", "sets"):
        if len(getattr(spec, name)) > MAX_ITEMS:
            raise ProblemError(f"--{name[:-1]}", f"at most {MAX_ITEMS} given")
    dtypes = _bind_dtypes(
        tuple(spec.dtypes), getattr(model, "stored_as", None), isinstance(model, SizedModel)
    )
    compute = dict(dtypes)[Role.ACTIVATION].compute_as
    tokens = _given(spec.train_tokens, "--train-tokens")
    mfu = _fraction(spec.mfu, "--mfu")
    measured = _given(spec.measured_tokens_per_s, "--measured-tokens-per-s")
    needs_peak = mfu is not None or measured is not None
    chip, capacity, peak, bandwidth = _hardware(spec, compute, needs_peak)
    devices = _devices(spec.devices)
    if needs_peak and peak is None:
        raise ProblemError(
            "--mfu/--measured-tokens-per-s",
            "a training time or an MFU needs a peak: give --chip or --peak",
        )
    return ModelProblem(
        model=model,
        chip=chip,
        capacity=capacity,
        peak=peak,
        compute_dtype=compute,
        bandwidth=bandwidth,
        devices=devices,
        dtypes=dtypes,
        bound=_bind_sets(model, tuple(spec.sets)),
        train_tokens=tokens,
        mfu=mfu,
        measured_tokens_per_s=measured,
        state=_state(spec.state_bytes),
        tp=bind_tp(spec.tp, devices),
        price_per_hour=None
        if spec.price_per_hour is None
        else read_price(spec.price_per_hour, "--price-per-hour"),
        power=None if spec.power is None else read_power(spec.power, "--power"),
    )
