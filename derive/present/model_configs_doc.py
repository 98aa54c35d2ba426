"""``docs/model-configs.md``: how a Hugging Face config.json maps to derive's model, per model_type.

Generated from the tables derive reads configs with (:mod:`derive.model.config_map`) and the
notation (:mod:`derive.model.symbols`) by ``templates/model_configs.md.j2`` (the page's prose
and layout), so the page cannot drift from the code; a test
checks the committed page is current. Regenerate with
``python -m derive.present.model_configs_doc docs/model-configs.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from derive.model.config_map import REQUIRED, Check, Family, Field, tables
from derive.model.symbols import NOTATION
from derive.present.render import render_template


def _symbol(target: str) -> str:
    note = NOTATION.get(target)
    return f"${note.latex}$ (`{target}`)" if note else f"`{target}`"


def _default(row: Field) -> str:
    if row.default is REQUIRED:
        return "required" + (" (null: the part is absent)" if row.nullable else "")
    if row.default is None:
        return "derived (the note above)"
    text = str(row.default).lower() if isinstance(row.default, bool) else str(row.default)
    return f"`{text}`" + (" (null allowed)" if row.nullable else "")


def _fixed(family: Family) -> str:
    return ", ".join(
        f"`{k} = {str(v).lower() if isinstance(v, bool) else v}`" for k, v in family.fixed
    )


def _check(check: Check) -> str:
    shown = " or ".join(
        "null" if v is None else str(v).lower() if isinstance(v, bool) else f"`{v}`"
        for v in check.allowed
    )
    return f"- `{check.config}`: {shown}; otherwise refused: {check.why}"


def model_configs_markdown() -> str:
    """The whole page: ``templates/model_configs.md.j2`` over the tables."""
    return render_template(
        "model_configs.md.j2",
        "md",
        families=tables().families.values(),
        ignored=tables().ignored,
        checked=tables().checked,
        symbol=_symbol,
        default=_default,
        fixed=_fixed,
        check=_check,
    )


if __name__ == "__main__":  # pragma: no cover - the generator's entry point
    Path(sys.argv[1]).write_text(model_configs_markdown(), encoding="utf-8")
