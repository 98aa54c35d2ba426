"""One step model (issue 22 item 5): a whole model's worked solution is made of the same typed
:class:`~derive.solution.steps.Step` records as an operator's, built in ``derive/solution``
from the frozen model analysis; the analysis holds quantities, not steps.
"""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp
from conftest import ROOT

from derive.model.analysis import select_quantities
from derive.model.records import ModelAnalysis
from derive.pipeline import derive_model
from derive.problem.model_spec import ModelSpec
from derive.solution.model_steps import SIZED_STEPS, STEPS, model_steps, shown_quantities
from derive.solution.steps import Line, Step, StepKind

CONFIGS = ROOT / "derive" / "data" / "problems" / "configs"
PROBLEMS = {
    "gpt2-small": ModelSpec("gpt2-small"),
    "mixtral-fit": ModelSpec("mixtral-8x7b", chip="h100", devices="8", sets=("B=16", "S=4096")),
    "llama-training": ModelSpec(
        "llama-3-8b",
        chip="h100",
        devices="8",
        train_tokens="15e12",
        mfu="0.4",
        state_bytes="adam-mixed",
    ),
    "gpt2-measured": ModelSpec(
        "gpt2-small", chip="a100", train_tokens="3e11", measured_tokens_per_s="1e5"
    ),
    # latent attention, shared experts, dense first layers (a config.json)
    "deepseek-v3": ModelSpec(
        str(CONFIGS / "deepseek-v3.json"), chip="h100", devices="16", sets=("B=8", "S=4096")
    ),
    # sliding windows
    "mistral-7b": ModelSpec(str(CONFIGS / "mistral-7b.json"), chip="h100", sets=("B=8", "S=32768")),
    # a model known by its size alone
    "sized": ModelSpec("", chip="h100", devices="2", params="70e9", train_tokens="1e12", mfu="0.4"),
}


def _analysis(spec: ModelSpec) -> ModelAnalysis:
    return derive_model(spec).analysis


@pytest.fixture(scope="module")
def analyses() -> dict[str, ModelAnalysis]:
    return {name: _analysis(spec) for name, spec in PROBLEMS.items()}


def test_the_analysis_is_frozen_and_holds_quantities_not_steps(analyses):
    a = analyses["gpt2-small"]
    assert not hasattr(a, "steps")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.quantities = ()  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_every_quantity_is_shown_once_in_a_typed_step(analyses, name):
    a = analyses[name]
    steps = model_steps(a)
    assert all(isinstance(step, Step) and isinstance(step.kind, StepKind) for step in steps)
    # every derived quantity has a row of the table, and the lines are one per quantity (a
    # yes-or-no one has two: its comparison, then its numbers and the verdict in words)
    assert shown_quantities(a) == a.quantities
    comparisons = sum(isinstance(q.value, sp.logic.boolalg.BooleanAtom) for q in a.quantities)
    assert sum(len(step.lines) for step in steps) == len(a.quantities) + comparisons
    assert all(isinstance(line, Line) for step in steps for line in step.lines)
    kinds = [step.kind for step in steps]
    assert len(set(kinds)) == len(kinds)
    table = SIZED_STEPS if name == "sized" else STEPS
    assert kinds == sorted(kinds, key=[row.kind for row in table].index)  # the table's order


@pytest.mark.parametrize("table", [STEPS, SIZED_STEPS], ids=["architecture", "sized"])
def test_each_table_names_each_quantity_once(table):
    keys = [key for row in table for key in row.keys]
    assert len(keys) == len(set(keys))


def test_asking_for_one_quantity_shows_the_steps_it_uses(analyses):
    a = select_quantities(analyses["mixtral-fit"], ("kv_bytes_per_token",))
    assert [step.kind for step in model_steps(a)] == [StepKind.KV_CACHE]
    a = select_quantities(analyses["mixtral-fit"], ("weights_bytes",))
    kinds = [step.kind for step in model_steps(a)]
    # the weights use the parameters, which use the blocks' and the globals'
    assert kinds == [
        StepKind.BLOCK_PARAMETERS,
        StepKind.GLOBAL_PARAMETERS,
        StepKind.PARAMETERS,
        StepKind.WEIGHTS,
    ]


def test_training_steps_say_their_recipe_and_convention(analyses):
    steps = {step.kind: step for step in model_steps(analyses["llama-training"])}
    assert "Recipe adam-mixed" in "".join(steps[StepKind.TRAINING_STATE].reason)
    assert any("6 = 2 (forward)" in "".join(n) for n in steps[StepKind.TRAINING].notes)
    assert StepKind.IMPLIED_MFU in {s.kind for s in model_steps(analyses["gpt2-measured"])}
