"""Questions around a problem's quantities: givens with units, defined quantities, equations.

A stage after the analyses (operators, kernels, whole models, serving steps) and before the
worked solution: it reads what a problem gives and defines (:mod:`.read`, derive's safe
parser with units), solves its equations exactly (:mod:`.solve`) and returns frozen
:class:`~derive.questions.records.Questions` that the key, JSON and the checker present.
"""
