"""An operator that only communicates (``derive solve`` on a bare all-reduce), as a document:
its worked solution (Markdown, LaTeX) or every quantity as exact strings (JSON)."""

from __future__ import annotations

from derive.analysis.comms_only import CommsAnalysis
from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.present.formats import Document
from derive.present.json_export import collectives_json, laid_out
from derive.present.worked import worked_document
from derive.solution.comms_only_steps import comms_given, comms_steps, comms_verdict

_NO_COMPUTE = "the operator only communicates: no compute, so no intensity, ridge or crossover"


def comms_document(analysis: CommsAnalysis, level: int = 1) -> Document:
    """The worked solution of a comms-only operator, in the templates of a list of steps
    (``kernel.*.j2``); JSON: :func:`comms_json`."""
    problem = analysis.problem
    title = f"{problem.operator.name}: communication only on {problem.hardware_name}"
    return worked_document(
        title,
        comms_given(analysis),
        comms_steps(analysis),
        comms_verdict(analysis),
        lambda: comms_json(analysis),
        level,
    )


def comms_json(analysis: CommsAnalysis) -> dict[str, object]:
    """Every quantity of a comms-only operator (exact strings): the link, then its rows' values
    (its time, both bounds) laid out, then the collectives; the roofline's keys ``null``."""
    problem = analysis.problem
    link = {
        "operator": problem.operator.name,
        "hardware": problem.hardware_name,
        "dtypes": {name: dtype.name for name, dtype in problem.dtypes},
        "bound": {str(dim): str(value) for dim, value in problem.bound},
        "link_bandwidth": str(problem.link.value),
        "link_latency": str(problem.timing.link_latency),
        "binding": "link",
        q.FLOPS.name: "0",
        q.BYTES.name: "0",
        "bytes_sent": str(analysis.sent),
    }
    after = {
        q.T_UPPER: {
            q.COLLECTIVES.name: collectives_json(analysis.collectives),
            q.INTENSITY.name: None,
            q.RIDGE.name: None,
            q.CROSSOVER.name: None,
            "left_out": dict.fromkeys(
                (q.INTENSITY.name, q.RIDGE.name, q.CROSSOVER.name), _NO_COMPUTE
            ),
        }
    }
    return {**link, **laid_out(ProblemKind.COMMS, (analysis,), after)}
