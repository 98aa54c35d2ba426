"""The compiled-template cache is opt-in (DERIVE_TEMPLATE_CACHE=DIR) and only saves time:
by default nothing is written outside the output folder, and output is the same with the
cache cold, warm, corrupt, unwritable or turned off again (DERIVE_NO_CACHE)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _key(tmp: Path, out: str, **env) -> dict[str, bytes]:
    unset = ("DERIVE_NO_CACHE", "DERIVE_TEMPLATE_CACHE", "XDG_CACHE_HOME")
    full = {k: v for k, v in os.environ.items() if k not in unset}
    full.update(PYTHONPATH=str(ROOT), **env)
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
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return {p.name: p.read_bytes() for p in sorted((tmp / out).iterdir())}


def test_no_cache_by_default(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    _key(tmp_path, "out", HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    assert not list(home.iterdir()), "derive wrote into the home folder"


def test_cache_never_changes_output(tmp_path):
    cache = tmp_path / "cache"
    default = _key(tmp_path, "default")
    off = _key(tmp_path, "off", DERIVE_NO_CACHE="1", DERIVE_TEMPLATE_CACHE=str(cache))
    assert not cache.exists()
    cold = _key(tmp_path, "cold", DERIVE_TEMPLATE_CACHE=str(cache))
    files = list(cache.rglob("*.cache"))
    assert files, "templates were not cached"
    warm = _key(tmp_path, "warm", DERIVE_TEMPLATE_CACHE=str(cache))
    for f in files:
        f.write_bytes(b"not a jinja cache file")
    corrupt = _key(tmp_path, "corrupt", DERIVE_TEMPLATE_CACHE=str(cache))
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    unwritable = _key(tmp_path, "unwritable", DERIVE_TEMPLATE_CACHE=str(blocked))
    folders = {f.parent for f in files}
    for folder in folders:  # a cache folder others can write: its compiled code is not trusted
        for f in folder.iterdir():
            f.unlink()
        folder.chmod(0o777)
    open_to_all = _key(tmp_path, "open", DERIVE_TEMPLATE_CACHE=str(cache))
    assert not [f for folder in folders for f in folder.iterdir()], (
        "a world-writable cache folder was used"
    )
    assert default == off == cold == warm == corrupt == unwritable == open_to_all
