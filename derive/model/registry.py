"""Loading model files: every module-level ``Transformer`` is registered by name.

A model file is a Python module like an operator file (it may declare both), so
``--operators PATH`` loads either. The built-in models are ``models/*.py``. A model may also
be named by the path of a Hugging Face ``config.json`` (:mod:`derive.model.config_file`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from derive.declare.registry import load_operator_file
from derive.errors import OperatorFileError, ProblemError, UnknownNameError
from derive.model.config_file import is_config_path, load_config_model
from derive.model.sized import SizedModel, sized_model
from derive.model.tables import table_model
from derive.model.transformer import Transformer
from derive.problem.model_spec import ModelSpec
from derive.resources import resource_dir


@dataclass(frozen=True)
class ModelRegistry:
    """Models by name, in load order (built-ins first, then user files)."""

    models: tuple[Transformer, ...]

    def names(self) -> tuple[str, ...]:
        """Model names in load order."""
        return tuple(m.name for m in self.models)

    def get(self, name: str) -> Transformer:
        """The model called ``name`` (case-insensitive), or the one a config path names
        (a ``config.json`` or a folder holding one); the error lists what exists."""
        key = name.lower() if isinstance(name, str) else ""
        for m in self.models:
            if m.name.lower() == key:
                return m
        if is_config_path(name):
            return load_config_model(name)
        raise UnknownNameError(
            f"model {name!r}", f"unknown model; known: {', '.join(self.names())}"
        )

    def resolve(self, spec: ModelSpec) -> Transformer | SizedModel:
        """The model a problem names: by its size (``params``), its name or a config path."""
        if spec.params is not None:
            if spec.model:
                raise ProblemError(
                    f"--params {spec.params}",
                    f"give a model ({spec.model!r}) or its size, not both",
                )
            return sized_model(
                spec.params,
                spec.params_active,
                spec.kv_bytes_per_token,
                spec.attention_flops_per_token,
            )
        for flag, value in (
            ("--params-active", spec.params_active),
            ("--kv-bytes-per-token", spec.kv_bytes_per_token),
            ("--attention-flops-per-token", spec.attention_flops_per_token),
        ):
            if value is not None:
                raise ProblemError(
                    f"{flag} {value}",
                    "goes with --params (the total); an architecture has its own",
                )
        if spec.table is not None:
            return table_model(spec.table)
        if not spec.model:
            raise ProblemError(
                "model", "give a model's name, a config.json, or its size with --params"
            )
        return self.get(spec.model)


def builtin_model_files() -> tuple[Path, ...]:
    """The shipped model modules, sorted by file name."""
    return tuple(
        sorted(p for p in resource_dir("models").glob("*.py") if not p.name.startswith("_"))
    )


def load_models(paths: tuple[Path, ...] | list[Path] = ()) -> ModelRegistry:
    """Load the built-in models and the given files, refusing duplicate names."""
    files = builtin_model_files() + tuple(Path(p) for p in paths)
    seen: dict[str, Path] = {}
    models: list[Transformer] = []
    for path in files:
        module = load_operator_file(path)
        for key, value in vars(module).items():
            if key.startswith("_") or not isinstance(value, Transformer):
                continue
            lower = value.name.lower()
            if lower in seen:
                if any(m is value for m in models):
                    continue
                raise OperatorFileError(
                    f"model {value.name!r} in {str(path)!r}",
                    f"duplicate name: already declared in {str(seen[lower])!r} (names are unique ignoring case)",
                )
            seen[lower] = path
            models.append(value)
    return ModelRegistry(tuple(models))
