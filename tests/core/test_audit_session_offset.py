"""Audit (session after 92c76b2): ``offset`` by an amount that may be negative.

``core.combinators.offset`` refuses an amount only when it is *known* negative
(``_known_negative``), so ``offset(Space(i=8), "i", M - 5)`` is built, and, like
every combinator's map from a Space, recorded exact by construction ("in
bounds"). It is not: at ``M = 1`` element ``i = 0`` lands at ``0 + 1 - 5 = -4``,
outside ``[0, M + 3) = [0, 4)`` (plain Python ints below; ``check_in_bounds``
finds the same point with Z3). So ``verify.composition.in_own_codomain`` answers
PROVED "by construction", and ``compose`` accepts the map as a first part
instead of raising ``CompositionError``. The rule has been the same since before
the session (``81d9bb9`` moved it inline unchanged).
"""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg.errors import CompositionError, MapError
from layoutalg.verify import composition as facts

(M,) = la.extents("M")


def _shifted():
    return la.offset(la.Space(i=8), "i", M - 5)


def test_the_truth_in_python_ints():
    size = 1                                    # M = 1
    image, extent = 0 + size - 5, 8 + size - 5  # element i = 0; the codomain [0, M + 3)
    assert image == -4 and not 0 <= image < extent


def test_z3_refutes_in_bounds():
    verdict = la.check_in_bounds(_shifted())
    assert verdict.refuted and verdict.counterexample["M"] < 5


@pytest.mark.xfail(strict=True, raises=pytest.fail.Exception,
                   reason="offset refuses only an amount known negative: M - 5 (negative for "
                          "M < 5) is accepted although the rule says nonnegative")
def test_an_amount_that_may_be_negative_is_refused():
    with pytest.raises(MapError, match="nonnegative"):
        _shifted()


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="offset(.., M - 5) is recorded exact by construction, so "
                          "composition.in_own_codomain says PROVED where check_in_bounds "
                          "REFUTES (M = 1, i = 0 -> -4): a false PROVED")
def test_in_own_codomain_does_not_prove_what_z3_refutes():
    assert not facts.in_own_codomain(_shifted()).proved


@pytest.mark.xfail(strict=True, raises=pytest.fail.Exception,
                   reason="compose trusts the false exactness record and composes a first "
                          "part whose images escape its codomain (no CompositionError)")
def test_compose_refuses_a_first_part_that_escapes():
    first = _shifted()
    with pytest.raises(CompositionError):
        la.compose(first, la.identity(first.codomain))


# -- the same for pad(..., to=N): N - M is not known negative, so it is accepted ---------
#
# ``pad(Space(i=M), "i", to=N)`` keeps ``i`` and widens the extent to ``N``; with
# ``M = 2, N = 1`` element ``i = 1`` lies outside ``[0, 1)`` (Python: ``not 0 <= 1 < 1``).

(N,) = la.extents("N")


def _padded():
    return la.pad(la.Space(i=M), "i", to=N)


def test_pad_truth_in_python_ints():
    size_m, size_n = 2, 1
    assert [i for i in range(size_m) if not 0 <= i < size_n] == [1]   # element 1 escapes


def test_z3_refutes_pad_in_bounds():
    verdict = la.check_in_bounds(_padded())
    assert verdict.refuted and verdict.counterexample["N"] < verdict.counterexample["M"]


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="pad(.., to=N) over extent M is recorded exact by construction although "
                          "N may be below M: composition.in_own_codomain says PROVED where "
                          "check_in_bounds REFUTES (M = 2, N = 1): a false PROVED")
def test_in_own_codomain_does_not_prove_pad_to_a_smaller_size():
    assert not facts.in_own_codomain(_padded()).proved
