"""The compiled-template cache is opt-in (DERIVE_TEMPLATE_CACHE=DIR) and only saves time:
by default nothing is written outside the output folder, and output is the same with the
cache cold, warm, corrupt, unwritable or turned off again (DERIVE_NO_CACHE).

The cache serves templates compiled from source, which derive does only when its
templates compiled ahead of time are not current (derive/present/compiled_templates.py);
so these runs use a copy of the tree without them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def source_only_tree(tmp_path_factory) -> Path:
    """derive, its operators, models and template sources, without the compiled templates."""
    tree = tmp_path_factory.mktemp("tree")
    ignore = shutil.ignore_patterns("__pycache__", "compiled")
    for name in ("derive", "operators", "models", "templates"):
        shutil.copytree(ROOT / name, tree / name, ignore=ignore)
    return tree


def _key(tmp: Path, out: str, tree: Path = ROOT, **env) -> dict[str, bytes]:
    unset = ("DERIVE_NO_CACHE", "DERIVE_TEMPLATE_CACHE", "XDG_CACHE_HOME")
    full = {k: v for k, v in os.environ.items() if k not in unset}
    full.update(PYTHONPATH=str(tree), **env)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "derive",
            "key",
            str(ROOT / "tests" / "sets" / "unseen.toml"),
            "--trust",
            "-o",
            str(tmp / out),
        ],
        cwd=tree,
        env=full,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return {p.name: p.read_bytes() for p in sorted((tmp / out).iterdir())}


def test_no_cache_by_default(tmp_path, source_only_tree):
    home = tmp_path / "home"
    home.mkdir()
    for tree in (ROOT, source_only_tree):
        _key(tmp_path, "out", tree, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
        assert not list(home.iterdir()), "derive wrote into the home folder"


def test_cache_never_changes_output(tmp_path, source_only_tree):
    cache = tmp_path / "cache"
    tree = source_only_tree
    default = _key(tmp_path, "default")
    from_source = _key(tmp_path, "source", tree)
    off = _key(tmp_path, "off", tree, DERIVE_NO_CACHE="1", DERIVE_TEMPLATE_CACHE=str(cache))
    assert not cache.exists()
    cold = _key(tmp_path, "cold", tree, DERIVE_TEMPLATE_CACHE=str(cache))
    files = list(cache.rglob("*.cache"))
    assert files, "templates were not cached"
    warm = _key(tmp_path, "warm", tree, DERIVE_TEMPLATE_CACHE=str(cache))
    for f in files:
        f.write_bytes(b"not a jinja cache file")
    corrupt = _key(tmp_path, "corrupt", tree, DERIVE_TEMPLATE_CACHE=str(cache))
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    unwritable = _key(tmp_path, "unwritable", tree, DERIVE_TEMPLATE_CACHE=str(blocked))
    folders = {f.parent for f in files}
    for folder in folders:  # a cache folder others can write: its compiled code is not trusted
        for f in folder.iterdir():
            f.unlink()
        folder.chmod(0o777)
    open_to_all = _key(tmp_path, "open", tree, DERIVE_TEMPLATE_CACHE=str(cache))
    assert not [f for folder in folders for f in folder.iterdir()], (
        "a world-writable cache folder was used"
    )
    assert default == from_source == off == cold == warm == corrupt == unwritable == open_to_all
