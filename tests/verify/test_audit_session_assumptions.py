"""Audit (session after 92c76b2): assumptions written with a look-alike symbol.

``query.checked_assumptions`` promises that an assumption naming a look-alike
(``Symbol("M", integer=True)`` beside the extent ``M``) is rebound to the
parameter of its name. ``check_surjective``'s confirmation of an empty slot
(``checks._confirm_empty``) bound the map to the model's sizes and substituted
them into the *user's* assumptions with ``a.subs(params)``, keyed by the
canonical extent symbol: the look-alike survived, the bound map had no
parameters left, and the check raised ``MapError`` ("may mention only the extent
parameters ... got symbol M") instead of its verdict; ``check_bijective`` falls
back to ``check_surjective`` and raised the same. Fixed: the assumptions go
through ``checked_assumptions`` (look-alikes rebound) before the sizes are put in.

Truth in plain Python ints: ``f(i) = i`` from ``[0, M)`` into ``[0, M + 1)`` leaves
slot ``M`` empty for every ``M``, e.g. ``M = 2``: images ``{0, 1}``, slots ``{0, 1, 2}``.
"""

from __future__ import annotations

import sympy

import layoutalg as la
from layoutalg.verify.checks import check_surjective


def _shift():
    (M,) = la.extents("M")
    domain, codomain = la.Space(i=M), la.Space(o=M + 1)
    (i,), (o,) = domain.symbols, codomain.symbols
    return la.IndexMap(domain, codomain, [i], inverse=[o], name="into_one_more"), M


def test_the_truth_in_python_ints():
    for size in (2, 3, 7):
        assert set(range(size + 1)) - {i for i in range(size)} == {size}


def test_the_canonical_symbol_gives_the_verdict():
    m, M = _shift()
    assert check_surjective(m, assume=[M > 1]).refuted


LOOK_ALIKE = sympy.Symbol("M", integer=True)   # not the extent symbol (no positive=True)


def test_a_look_alike_assumption_gets_the_same_verdict():
    m, _ = _shift()
    assert check_surjective(m, assume=[LOOK_ALIKE > 1]).refuted


def test_a_look_alike_assumption_in_check_bijective():
    m, _ = _shift()
    assert la.check_bijective(m, assume=[LOOK_ALIKE > 1]).refuted
