"""``derive key``: a problem set in; the key, the questions, LaTeX and figures out.

:func:`derive.pipeline.key.build_key` derives every problem and renders every file in
memory (a failure writes nothing); ``write_files`` publishes them as one set (see
:mod:`derive.commands.output_files`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from derive import __version__
from derive.commands.output_files import safe_name, write_files
from derive.commands.progress import ProgressBar
from derive.deadline import DEFAULT_SECONDS, ENV_VAR, default_jobs, time_limit
from derive.errors import DeriveError, ProblemError
from derive.formula.decimals import ascii_int
from derive.pipeline.key import build_key
from derive.problem.sets.problem_set import ProblemSet, load_problem_set, parse_problem_set
from derive.problem.sets.registry import set_registry

if TYPE_CHECKING:
    from derive.commands.cli import Subparsers


BUILTIN_SET = "data/problems/rooflines.toml"


@dataclass(frozen=True)
class KeyOptions:
    """How ``derive key`` runs: trust, the budget per problem, workers, progress."""

    trust: bool = False
    time_limit: float | None = None
    jobs: int = 1
    quiet: bool = True


def _write_key(
    pset: ProblemSet,
    stem: str,
    out_dir: Path,
    force: bool,
    options: KeyOptions,
    errors: Sequence[DeriveError] = (),
) -> int:
    registry = set_registry(pset, options.trust, options.time_limit)
    bar = ProgressBar(f"derive key {stem}", quiet=options.quiet)
    try:
        files = build_key(
            pset,
            stem,
            registry,
            time_limit=options.time_limit,
            jobs=options.jobs,
            progress=bar,
            errors=errors,
        )
    finally:
        bar.close()
    if pset.variants is not None:
        files[f"{stem}-variants.md"] = _variants_key(pset)
    for written in write_files(out_dir, files, force, stem=stem):
        print(f"wrote {written}")
    return 0


def _variants_key(pset: ProblemSet) -> str:
    """Every variant's key: per problem, a row per variant of its drawn givens and the exact
    answer to each box, as ``derive check`` states it (variants alike are derived once)."""
    from derive.problem.sets.variants import variants_of
    from derive.web.book import build_workbook
    from derive.web.grading import Grader

    spec = pset.variants
    assert spec is not None
    known: dict[int, dict[str, tuple[str, list[str], list[str]]]] = {}
    rows: dict[str, list[list[str]]] = {}
    for i, vset in variants_of(pset):
        if id(vset) not in known:
            try:
                pages = build_workbook(vset, hints=False).pages
                grader = Grader.of(vset)
                known[id(vset)] = {
                    pid: (
                        page.entry.title,
                        asked,
                        [grader.check(pid, q, "1").expected or "" for q in asked],
                    )
                    for pid, page in pages.items()
                    for asked in ([a.quantity for a in page.asked],)
                }
            except DeriveError as exc:
                what = exc.what.removeprefix(f"{pset.source}: ")
                raise ProblemError(f"{pset.source}: variant {i}: {what}", exc.why) from None
        for pid, (_, _, said) in known[id(vset)].items():
            rows.setdefault(pid, []).append(
                [str(i), *(str(spec.choice(i, pid)[k]) for k in spec.keys_of(pid)), *said]
            )
    out = [f"# {pset.title}: the {spec.count} variants (seed {spec.seed})"]
    for pid, (title, asked, _) in next(iter(known.values())).items():
        head = ["variant", *spec.keys_of(pid), *asked]
        out += [f"\n## {pid}: {title}\n", _md_row(head), "|---" * len(head) + "|"]
        out += [_md_row(row) for row in rows[pid]]
    return "\n".join(out) + "\n"


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def run_key(
    path: Path,
    out_dir: Path,
    force: bool = False,
    options: KeyOptions = KeyOptions(),
) -> int:
    """``derive key FILE``: write the key files for a problem set (its Python only if trusted)."""
    errors: list[DeriveError] = []
    pset = load_problem_set(path, errors)
    return _write_key(pset, safe_name(path.stem), out_dir, force, options, errors)


def run_builtin_key() -> int:
    """Bare ``derive``: the built-in key (the rooflines chapter) into ``out/``."""
    text = resources.files("derive").joinpath(BUILTIN_SET).read_text(encoding="utf-8")
    pset = parse_problem_set(text, "rooflines.toml")  # its configs/… are the shipped ones
    out_dir = Path("out")
    print(
        f"derive {__version__}: no command given, so writing the built-in answer key "
        f"({pset.title}) into {out_dir.resolve()}; 'derive --help' lists the commands"
    )
    options = KeyOptions(time_limit=time_limit(), jobs=default_jobs(), quiet=False)
    return _write_key(pset, "rooflines", out_dir, False, options)


def add_key_parser(sub: Subparsers) -> None:
    """Register ``derive key FILE [-o DIR] [--force]``."""
    p = sub.add_parser(
        "key", help="write an answer key, questions, LaTeX and figures for a problem set"
    )
    p.add_argument("file", help="problem set (TOML)")
    p.add_argument(
        "-o", "--output", default="out", metavar="DIR", help="output folder (default out/)"
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite files that derive did not generate"
    )
    p.add_argument(
        "--trust",
        action="store_true",
        help="run the Python files the set names in 'operators' (a set is data otherwise)",
    )
    p.add_argument(
        "--time-limit",
        metavar="SECONDS",
        help=f"seconds each problem may take (default ${ENV_VAR} or {DEFAULT_SECONDS:g})",
    )
    p.add_argument(
        "--jobs",
        type=ascii_int,
        metavar="N",
        help="worker processes deriving problems at once (default: every core)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar on a terminal")
    p.set_defaults(handler=_run_key_args)


def _run_key_args(args: argparse.Namespace) -> int:
    if not args.output.strip():  # Path("") is the working folder: never write there unasked
        raise ProblemError("-o ''", "an empty folder name; give a folder (-o . for this one)")
    if args.jobs is not None and not 1 <= args.jobs <= 256:
        raise ProblemError(f"--jobs {args.jobs}", "must be from 1 to 256")
    options = KeyOptions(
        trust=args.trust,
        time_limit=time_limit(args.time_limit),
        jobs=args.jobs or default_jobs(),
        quiet=args.quiet,
    )
    return run_key(Path(args.file), Path(args.output), args.force, options=options)
