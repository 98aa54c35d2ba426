"""The key's preload (derive.present.key.files.preload): what it loads before the workers
fork covers what a key renders, so no worker loads a template of its own, and it changes no
output (the keys are byte-identical with it: tests/commands/test_key.py and the golden files)."""

from __future__ import annotations

from conftest import ROOT

from derive.pipeline.key import build_key
from derive.present.formats import templated_formats
from derive.present.key.files import KEY_TEMPLATES, preload
from derive.present.render import environment
from derive.problem.sets.problem_set import load_problem_set
from derive.resources import resource_dir


def _loaded() -> set[tuple[str, str]]:
    """(format, template) pairs the environments hold."""
    return {(f.name, key[1]) for f in templated_formats() for key in environment(f.name).cache}


def test_every_preloaded_name_is_a_template():
    folder = resource_dir("templates")
    for name in KEY_TEMPLATES:
        assert any((folder / (name + f.template_suffix)).is_file() for f in templated_formats())


def test_a_key_renders_only_preloaded_templates():
    preload()
    before = _loaded()
    pset = load_problem_set(ROOT / "benchmarks" / "set20.toml")
    files = build_key(pset, "set20", time_limit=None, jobs=1)  # in this process
    assert files
    assert _loaded() == before
    assert {name.split(".")[0] for _, name in before} >= set(KEY_TEMPLATES)
