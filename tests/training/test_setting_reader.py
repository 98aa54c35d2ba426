"""A training run's settings are read by one reader: the binding's, also when a setting is
solved for (review finding: the solver of ``--unknown seq`` had its own ``whole()``)."""

from __future__ import annotations

import pytest

from derive.commands.cli import main

_RUN = ["train", "llama-3-8b", "--chip", "h100"]
_SOLVE = ["--equation", "t_math <= 40 s", "--unknown", "seq"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_tokens_per_step_read_alike_when_seq_is_solved_for(capsys):
    """``--batch-tokens 4.194304e6`` runs (the binding reads it); solving for seq reads it
    the same, so both spellings give the same answer (it was refused as not ASCII digits)."""
    tokens = ("4.194304e6", "4194304")
    spelled = [_run([*_RUN, "--batch-tokens", t, "--dp", "8", *_SOLVE], capsys) for t in tokens]
    assert spelled[0] == spelled[1]
    assert "ASCII digits" not in spelled[0][2]


@pytest.mark.parametrize("rest", [["--seq", "4096"], _SOLVE])
def test_a_bad_degree_is_one_line_naming_its_flag_with_or_without_an_unknown(rest, capsys):
    code, out, err = _run([*_RUN, "--batch-tokens", "4194304", "--dp", "８", *rest], capsys)
    assert code == 2 and not out
    assert err.count("\n") == 1 and err.startswith("error: --dp")
    assert "from 1 to 1048576 in ASCII digits" in err  # the binding's own words, both ways
