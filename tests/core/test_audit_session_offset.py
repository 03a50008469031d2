"""Audit (session after 92c76b2): ``offset`` by an amount that may be negative.

``core.combinators.offset`` refused an amount only when it was *known*
negative (``_known_negative``), so ``offset(Space(i=8), "i", M - 5)`` was
built and, like every combinator's map from a Space, recorded exact by
construction ("in bounds"). It is not: at ``M = 1`` element ``i = 0`` lands at
``0 + 1 - 5 = -4``, outside ``[0, M + 3) = [0, 4)``. So
``verify.composition.in_own_codomain`` answered PROVED "by construction" and
``compose`` accepted the map as a first part instead of raising
``CompositionError``; ``pad(Space(i=M), "i", to=N)`` had the same hole.

Fixed: an amount (or ``to - extent``) negative at some trial size is refused
at construction, naming the size; one SymPy cannot sign and no trial size
makes negative is built but *not* recorded exact, so the verify layer proves
it under Z3 (here: refutes it). The truths are plain Python ints.
"""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg.errors import CompositionError, MapError
from layoutalg.verify import composition as facts

(M,) = la.extents("M")
(N,) = la.extents("N")


def test_the_truth_in_python_ints():
    size = 1                                    # M = 1
    image, extent = 0 + size - 5, 8 + size - 5  # element i = 0; the codomain [0, M + 3)
    assert image == -4 and not 0 <= image < extent


def test_an_amount_that_may_be_negative_is_refused():
    with pytest.raises(MapError, match=r"nonnegative integer for every size; got M - 5, "
                                       r"which is -4 at M = 1"):
        la.offset(la.Space(i=8), "i", M - 5)


# An amount SymPy cannot sign and no trial size (1..16) makes negative: accepted,
# not taken on trust. Negative only at M = 50: (50 - 50)**2 - 1 = -1.

def _hidden():
    return la.offset(la.Space(i=8), "i", (M - 50) ** 2 - 1)


def test_the_hidden_amount_truth_in_python_ints():
    amounts = {size: (size - 50) ** 2 - 1 for size in range(1, 101)}
    assert [size for size, a in amounts.items() if a < 0] == [50]
    image, extent = 0 + amounts[50], 8 + amounts[50]   # element i = 0 at M = 50
    assert (image, extent) == (-1, 7) and not 0 <= image < extent


def test_an_amount_sympy_cannot_sign_is_not_recorded_exact():
    assert not facts.is_exact(_hidden())


def test_z3_refutes_in_bounds():
    verdict = la.check_in_bounds(_hidden())
    assert verdict.refuted and verdict.counterexample["M"] == 50


def test_in_own_codomain_does_not_prove_what_z3_refutes():
    verdict = facts.in_own_codomain(_hidden())
    assert verdict.refuted and verdict.counterexample["M"] == 50


def test_compose_refuses_a_first_part_that_escapes():
    first = _hidden()
    with pytest.raises(CompositionError, match=r"out of bounds"):
        la.compose(first, la.identity(first.codomain))


# -- the same for pad(..., to=N) ------------------------------------------------------
#
# ``pad(Space(i=M), "i", to=N)`` keeps ``i`` and widens the extent to ``N``; with
# ``M = 2, N = 1`` element ``i = 1`` lies outside ``[0, 1)`` (Python: ``not 0 <= 1 < 1``).


def test_pad_truth_in_python_ints():
    size_m, size_n = 2, 1
    assert [i for i in range(size_m) if not 0 <= i < size_n] == [1]   # element 1 escapes


def test_pad_to_a_size_that_may_be_smaller_is_refused():
    with pytest.raises(MapError, match=r"pad: to must be at least the extent M of i for every "
                                       r"size; got N, which is below it at M = 2, N = 1 "
                                       r"\(-M \+ N = -1\)"):
        la.pad(la.Space(i=M), "i", to=N)


# ``to = M·(N - 50)² + 1`` over extent ``M``: below it only at N = 50 (for M ≥ 2).

def _hidden_pad():
    return la.pad(la.Space(i=M), "i", to=M * (N - 50) ** 2 + 1)


def test_the_hidden_pad_truth_in_python_ints():
    below = [(m, n) for m in range(1, 6) for n in range(1, 101) if m * (n - 50) ** 2 + 1 < m]
    assert below == [(m, 50) for m in range(2, 6)]
    to = 2 * (50 - 50) ** 2 + 1                      # M = 2, N = 50
    assert [i for i in range(2) if not 0 <= i < to] == [1]


def test_pad_to_a_size_sympy_cannot_compare_is_not_recorded_exact():
    assert not facts.is_exact(_hidden_pad())


def test_in_own_codomain_does_not_prove_pad_to_a_smaller_size():
    verdict = facts.in_own_codomain(_hidden_pad())
    assert verdict.refuted
    ce = verdict.counterexample
    assert ce["N"] == 50 and ce["M"] >= 2
