"""The catalogue: what derive knows by name, declared once (problem kinds, quantities).

Every later stage reads its names from here instead of spelling them again.
"""

from derive.catalogue.kinds import ProblemKind

__all__ = ["ProblemKind"]
