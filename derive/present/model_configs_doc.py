"""``docs/model-configs.md``: how a Hugging Face config.json maps to derive's model, per model_type.

Generated from the tables derive reads configs with (:mod:`derive.model.config_map`) and the
notation (:mod:`derive.model.symbols`), so the page cannot drift from the code; a test
checks the committed page is current. Regenerate with
``python -m derive.present.model_configs_doc docs/model-configs.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from derive.model.config_map import CHECKED, FAMILIES, IGNORED, REQUIRED, Check, Family, Field
from derive.model.symbols import NOTATION

_HEAD = """# Models from a config.json

This page covers `derive model PATH` with a Hugging Face `config.json`: the fields derive
reads for each `model_type`, the symbols they become, and the fields it ignores or refuses.

```console
$ derive model derive/data/problems/configs/deepseek-v3.json --quantity params --claim 671e9
verdict: correct
quantity: params
claim read as: 671000000000
expected: 671026404352 parameters ≈ 6.7103e11
…
```

`derive model PATH` reads a Hugging Face `config.json` (or a folder holding one) as data:
JSON only, never code, at most 1 MB, nested at most 8 deep, integers of at most 19 digits,
strings of at most 1000 characters, sizes at most 10⁹. The `model_type` selects one of the
tables below; every other field of the config must be in that table or in the list of
fields that change no count, or derive refuses the config in one line naming the field (a
field derive does not model could change a count, and a silently wrong count is worse than
an error). A problem set names a config the same way: `model = "path/to/config.json"`,
relative to the set's folder.


Each table lists the fields of transformers' configuration class for that `model_type`
(transformers 5 names and defaults): a field that sets a size; another name for it
(transformers' `attribute_map`, e.g. qwen3_moe's `num_local_experts` for `num_experts`),
read as the field it names (both given must agree); a field read only at the values that
change no count (Phi-3's `attention_bias: false`; any other value is refused, naming the
field and the value); and the fields read and ignored, each with why it changes no count.
Files as published and as transformers re-saves them read alike.

The givens of the worked solution name each size by the config's own field. Parameter
counts follow the module structure of transformers' `modeling_<type>.py` (its biases, its
norms, a tied head stored once); the tests count every supported `model_type` by hand, and
round-trip transformers' own configuration classes (`tests/model/test_config_transformers.py`: a
default and two edited configurations of each `model_type`, saved by `save_pretrained`).
"""


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


def _family(family: Family) -> str:
    lines = [f"## `{family.model_type}`", ""]
    if family.note:
        lines += [family.note, ""]
    lines += ["| config field | derive | if absent |", "|---|---|---|"]
    for row in family.fields:
        lines.append(f"| `{row.config}` | {_symbol(row.target)} | {_default(row)} |")
    fixed = ", ".join(
        f"`{k} = {str(v).lower() if isinstance(v, bool) else v}`" for k, v in family.fixed
    )
    lines += ["", f"Fixed by the architecture: {fixed}."]
    for rule in family.layers:
        lines.append(f"Layers: {rule.value}.")
    if family.aliases:
        lines += [
            "",
            "Other names (transformers' `attribute_map`), read as the field they name:",
            "",
        ]
        lines += [f"- `{alias}`: `{target}`" for alias, target in family.aliases]
    if family.checked:
        lines += ["", "Read only at the values that change no count (any other is refused):", ""]
        lines += [_check(c) for c in family.checked]
    if family.ignored:
        lines += ["", "Also read and ignored (they change no count):", ""]
        lines += [f"- `{key}`: {why}" for key, why in family.ignored]
    return "\n".join(lines) + "\n"


def _check(check: Check) -> str:
    shown = " or ".join(
        "null" if v is None else str(v).lower() if isinstance(v, bool) else f"`{v}`"
        for v in check.allowed
    )
    return f"- `{check.config}`: {shown}; otherwise refused: {check.why}"


def model_configs_markdown() -> str:
    """The whole page."""
    parts = [_HEAD]
    parts.append(
        "Absent `num_key_value_heads` means `num_attention_heads` (multi-head attention); "
        "absent `head_dim` means `hidden_size / num_attention_heads` unless the table gives a "
        "default; gpt2's absent `n_inner` means `4·n_embd`.\n"
    )
    parts += [_family(f) for f in FAMILIES.values()]
    parts.append("## Fields of every config that change no count\n")
    parts.append("\n".join(f"- `{key}`: {why}" for key, why in IGNORED) + "\n")
    parts.append("## Fields of every config read only at the value that changes no count\n")
    parts.append("\n".join(_check(c) for c in CHECKED) + "\n")
    return "\n".join(parts)


if __name__ == "__main__":  # pragma: no cover - the generator's entry point
    Path(sys.argv[1]).write_text(model_configs_markdown(), encoding="utf-8")
