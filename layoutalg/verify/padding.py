"""``padding``: how many codomain slots hold no element."""

from __future__ import annotations

import math

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import MapError, VerificationError, describe
from layoutalg.verify import brute
from layoutalg.verify import query as q
from layoutalg.verify.checks import check_in_bounds, check_injective
from layoutalg.verify.result import Padding

ENUMERATION_LIMIT = 1 << 22


def padding(m: IndexMap, *, assume=()) -> Padding:
    """Slots that no element occupies: ``.count``, ``.total``, ``.fraction``.

    Small concrete maps are counted exactly by enumeration. Larger or
    parametric maps are counted as ``|codomain| − |domain|``, which is exact
    once Z3 proves the map injective and in bounds (it is proved here; a map
    that is not gets VerificationError, since the count would be a guess).
    For symbolic extents the count is a SymPy formula.

    >>> from layoutalg import Space, pad
    >>> padding(pad(Space(i=10), "i", 4)).count
    2
    """
    if not isinstance(m, IndexMap):
        raise MapError(f"padding: m must be an IndexMap; got {describe(m)}")
    assume = q.checked_assumptions(assume, m.parameters)  # before the enumeration ignores them
    extents = (m.domain.extents, m.codomain.extents)
    if m.is_concrete and max(map(math.prod, extents)) <= ENUMERATION_LIMIT:
        if any(a is not sympy.true for a in (*assume, *m.assumptions)):  # if they can hold
            gate = q.assumptions_met([m], assume=assume, timeout_ms=q.DEFAULT_TIMEOUT_MS)
            if gate.answer != "unsat":
                raise VerificationError(f"padding of {m.label}: {gate.reason}")
        return brute.padding(m)
    for check in (check_in_bounds, check_injective):
        verdict = check(m, assume=assume)
        if not verdict.proved:
            raise VerificationError(
                f"padding of {m.label} counts |codomain| - |domain| only for maps proved "
                f"injective and in bounds; {verdict.check} is {verdict.status}: {verdict.reason}"
            )
    total, used = m.codomain.size, m.domain.size
    if isinstance(total, int) and isinstance(used, int):
        return Padding(total - used, total, method="z3")
    return Padding(sympy.simplify(sympy.sympify(total) - used), sympy.sympify(total), method="z3")
