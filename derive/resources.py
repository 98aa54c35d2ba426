"""Where the shipped resources live: inside the package once installed,
beside it in a source checkout (``operators/``, ``templates/`` at the top level)."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """``derive/<name>`` when installed, else ``<checkout>/<name>``."""
    for candidate in (_HERE / name, _HERE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"derive resource folder {name!r} not found beside {_HERE}")
