"""A core check that Z3 leaves UNKNOWN on a small concrete map is decided by
enumeration (``verify.enumerated.falls_back``), and says so.

The truths are computed here with plain Python integers, not by the
library's enumeration. Z3's unknown is forced (a mocked solver), so the
tests do not depend on how fast Z3 is on this machine.
"""

from __future__ import annotations

import itertools
import math

import pytest
import sympy

import layoutalg as la
from layoutalg.verify import enumerated
from layoutalg.verify.result import Status
from layoutalg.verify.z3_backend import solver

UNKNOWN = solver.Outcome("unknown", reason="z3: timeout")


@pytest.fixture
def z3_says_unknown(monkeypatch):
    monkeypatch.setattr(solver, "solve", lambda *a, **k: UNKNOWN)


def squares() -> la.IndexMap:
    """(a, b) over 2 × 3 to a + b² + ⌈a/2⌉ in [0, 7): images 0, 1, 4, 2, 3, 6."""
    d = la.Space.of(("a", "b"), (2, 3))
    a, b = d.symbols
    return la.IndexMap(d, la.Space.of(("p",), (7,)), [a + b**2 + sympy.ceiling(a / 2)],
                       name="squares")


def python_images() -> list[int]:
    return [a + b * b + -(-a // 2) for a, b in itertools.product(range(2), range(3))]


def test_the_truth_of_the_example():
    assert sorted(python_images()) == [0, 1, 2, 3, 4, 6]  # slot 5 empty, all distinct, < 7


@pytest.mark.parametrize("check, status", [
    (la.check_in_bounds, Status.PROVED),       # every image < 7
    (la.check_injective, Status.PROVED),       # six distinct images
    (la.check_surjective, Status.REFUTED),     # slot 5 holds nothing
    (la.check_bijective, Status.REFUTED),
])
def test_unknown_becomes_the_enumerated_verdict(z3_says_unknown, check, status):
    verdict = check(squares())
    assert verdict.status is status
    assert verdict.method == "enumeration"
    assert "decided by enumeration after Z3 said unknown (" in verdict.reason
    assert "z3: timeout" in verdict.reason
    if check in (la.check_surjective, la.check_bijective):
        assert verdict.counterexample == {"p": 5}


def test_images_valid_falls_back_to_the_python_padding_slot(z3_says_unknown):
    m = squares()
    (p,) = m.codomain.symbols
    padded = la.IndexMap(m.domain, m.codomain, m.exprs, valid=sympy.Ne(p, 6), name="padded")
    verdict = la.check_images_valid(padded)
    on_padding = [(a, b) for (a, b), image in zip(itertools.product(range(2), range(3)),
                                                  python_images()) if image == 6]
    assert verdict.status is Status.REFUTED and verdict.method == "enumeration"
    assert [(verdict.counterexample["a"], verdict.counterexample["b"])] == on_padding == [(1, 2)]


def test_equivalent_falls_back_and_finds_the_python_difference(z3_says_unknown):
    m = squares()
    a, b = m.domain.symbols
    other = la.IndexMap(m.domain, m.codomain, [a + b**2], name="no ceiling")
    verdict = la.check_equivalent(m, other)
    differing = [(x, y) for x, y in itertools.product(range(2), range(3)) if -(-x // 2) != 0]
    assert verdict.status is Status.REFUTED and verdict.method == "enumeration"
    assert (verdict.counterexample["a"], verdict.counterexample["b"]) in differing


def test_symbolic_sizes_stay_unknown(z3_says_unknown):
    """Nothing to enumerate: UNKNOWN is kept, never a pass."""
    n = sympy.Symbol("N", integer=True, positive=True)
    d = la.Space(i=n)
    m = la.IndexMap(d, la.Space(o=n), [d.symbols[0]], name="symbolic")
    assert la.check_bijective(m).status is Status.UNKNOWN


def test_assumptions_that_are_not_literally_true_stay_unknown(z3_says_unknown):
    """A contradictory (or any real) assumption is Z3's to judge: no fallback."""
    n = sympy.Symbol("N", integer=True, positive=True)
    assert la.check_in_bounds(squares(), assume=[n < 0]).status is Status.UNKNOWN


def test_maps_past_the_limit_stay_unknown(z3_says_unknown, monkeypatch):
    monkeypatch.setattr(enumerated, "FALLBACK_UP_TO", math.prod((2, 3)) - 1)
    assert la.check_in_bounds(squares()).status is Status.UNKNOWN


def test_a_divisor_that_may_be_zero_stays_unknown(z3_says_unknown):
    """x mod (i - 1) has no value at i = 1: enumeration declines, UNKNOWN stays."""
    d = la.Space(i=3)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=3), [sympy.Mod(2, i - 1, evaluate=False)], name="zero")
    assert la.check_in_bounds(m).status is Status.UNKNOWN


def test_the_parts_of_bijective_keep_their_method(monkeypatch):
    """Only the outermost check falls back: bijective's verdict is enumerated
    whole, not assembled from parts decided by different methods."""
    seen = []
    real = enumerated.decide

    def spying(check, maps, assume, **kw):
        seen.append((check, kw.get("limit")))
        return real(check, maps, assume, **kw)

    monkeypatch.setattr(enumerated, "decide", spying)
    monkeypatch.setattr(solver, "solve", lambda *a, **k: UNKNOWN)
    la.check_bijective(squares())
    fallbacks = [c for c, limit in seen if limit is not None]
    assert fallbacks == ["bijective"]
