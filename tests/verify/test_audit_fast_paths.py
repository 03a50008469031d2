"""Audit of the fast paths that decide verdicts without the old Z3 queries:
enumeration (``verify.exhaustive`` through ``query.shortcuts``), the
mixed-radix lemma (``verify.radix``), plugged witnesses (``verify.plugged``).

Truths come from plain Python int arithmetic, written out here. Five tests
are defects the audit found (a map dividing by 0 enumerated, a wrong
counterexample there, XOR of a negative value proved by Z3, a plugged
witness dividing by 0, the twin enumerating a division by 0), each fixed
and now pinning the fix; the others pin attacks the code survives.
"""

from __future__ import annotations

import itertools

import pytest
import sympy
from sympy import Eq, Mod, floor

import layoutalg as la
from layoutalg.core import bits
from layoutalg.errors import UndefinedValueError
from layoutalg.verify import brute, plugged, radix
from layoutalg.verify import query as q
from layoutalg.verify.result import Status

TIMEOUT_MS = 60_000  # a margin: these queries answer in milliseconds


def python_mod(a: int, b: int) -> int | None:
    """``a mod b`` in Python ints; None where Python raises (b == 0)."""
    try:
        return a % b
    except ZeroDivisionError:
        return None


# -- defects (xfail strict) ------------------------------------------------------------


# Found by this audit, fixed in 9b68018 (enumerated leaves such divisors to Z3).
def test_enumeration_does_not_prove_a_map_that_divides_by_zero():
    d = la.Space(i=4, j=3)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=4), [Mod(i, j)], name="i mod j")
    undefined = [(a, b) for a in range(4) for b in range(3) if python_mod(a, b) is None]
    assert undefined  # (i, 0): the map has no value there in Python ints
    assert la.check_in_bounds(m).status is Status.UNKNOWN  # Z3: not known positive
    with q.shortcuts(reuse=False):
        verdict = la.check_in_bounds(m)
    assert not verdict.proved, verdict


# Found by this audit, fixed in 9b68018.
def test_enumeration_counterexample_is_a_point_where_the_map_is_defined():
    d = la.Space(i=4, j=3)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=4), [Mod(i, j - 1)], name="i mod (j-1)")
    with q.shortcuts(reuse=False):
        verdict = la.check_injective(m)
    if verdict.refuted:
        ce = verdict.counterexample
        for a, b in ((ce["i"], ce["j"]), (ce["i'"], ce["j'"])):
            assert python_mod(a, b - 1) is not None, (verdict.reason, (a, b))
    else:
        assert verdict.status is Status.UNKNOWN


# Found by this audit; fixed: a bit operation whose argument is not shown non-negative is not encoded (UNKNOWN).
def test_xor_of_a_negative_value_is_not_proved():
    d = la.Space(i=4)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=8), [bits.bit_xor(i - 2, 1) + 4], name="negxor")
    with pytest.raises(la.LayoutError):
        m(0)                                   # the project's semantics: undefined
    with pytest.raises(la.LayoutError):
        brute.check_in_bounds(m)
    for run in (lambda: la.check_in_bounds(m), lambda: _short(la.check_in_bounds, m)):
        assert not run().proved


def _short(check, m):
    with q.shortcuts(reuse=False):
        return check(m)


# -- attacks survived: enumeration is exact past int64 ---------------------------------


@pytest.mark.parametrize("offset, extent, escapes", [
    (2**63 - 4, 2**63, False),     # images 2**63-4 … 2**63-1: the last int64 values
    (2**63 - 3, 2**63, True),      # i = 3 gives 2**63, one past int64 and the codomain
    (2**64 - 4, 2**64, False),     # all images past int64
])
def test_in_bounds_at_the_int64_edge_enumeration_and_z3(offset, extent, escapes):
    d = la.Space(i=4)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=extent), [offset + i], name="edge")
    truth = any(not 0 <= offset + k < extent for k in range(4))
    assert truth is escapes
    enumerated = _short(la.check_in_bounds, m)
    assert enumerated.method == "enumeration"
    assert enumerated.refuted is escapes and la.check_in_bounds(m).refuted is escapes
    if escapes:
        assert offset + enumerated.counterexample["i"] >= extent


def test_injective_with_images_spanning_past_int64():
    # 2**61·i + 2**61·j collides: (1, 0) and (0, 1); codes must not wrap
    d = la.Space(i=4, j=3)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=2**64), [i * 2**61 + j * 2**61], name="wide")
    verdict = _short(la.check_injective, m)
    assert verdict.refuted
    ce = verdict.counterexample
    assert (ce["i"] + ce["j"]) == (ce["i'"] + ce["j'"]) and (ce["i"], ce["j"]) != (
        ce["i'"], ce["j'"])


def test_negative_mod_and_floor_enumerated_as_python_ints():
    d = la.Space(i=4, j=3)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=4, p=3), [Mod(i - 7, 4), Mod(j - 5, 3)], name="negmod")
    images = {((a - 7) % 4, (b - 5) % 3) for a in range(4) for b in range(3)}
    assert len(images) == 12                               # Python: a bijection
    assert _short(la.check_bijective, m).proved and la.check_bijective(m).proved


# -- attacks survived: the mixed-radix lemma -------------------------------------------


M, N, K, S = la.extents("M N K S")


def _rows(extents_, stride):
    """``[a, b] → [o]``, ``o = stride·a + b``, inverse peeled by the extent of b."""
    d = la.Space(a=extents_[0], b=extents_[1])
    a, b = d.symbols
    c = la.Space(o=extents_[0] * extents_[1])
    (o,) = c.symbols
    return d, c, [stride * a + b], [floor(o / extents_[1]), Mod(o, extents_[1])]


def test_radix_symbolic_stride_needs_it_equal():
    d, c, exprs, inverse = _rows((M, N), S)
    loose = la.IndexMap(d, c, exprs, inverse=inverse, assumptions=[S >= N])
    assert radix.digit_by_digit(loose, (), TIMEOUT_MS) is None
    assert not brute.check_bijective(loose.bind(M=3, N=4, S=5)).proved  # S > N escapes
    tight = la.IndexMap(d, c, exprs, inverse=inverse, assumptions=[Eq(S, N)])
    assert radix.digit_by_digit(tight, (), TIMEOUT_MS).proved
    assert brute.check_bijective(tight.bind(M=3, N=4, S=4)).proved


def test_radix_silent_on_negative_coefficients():
    # -4a + b + 8 is a bijection onto [0, 12) (a reversed), 4a - b is not: the
    # lemma covers neither (its strides are positive) and says nothing
    d = la.Space(a=3, b=4)
    a, b = d.symbols
    c = la.Space(o=12)
    (o,) = c.symbols
    inverse = [floor(o / 4), Mod(o, 4)]
    for expr, f in ((-4 * a + b + 8, lambda u, v: -4 * u + v + 8), (4 * a - b, lambda u, v: 4 * u - v)):
        m = la.IndexMap(d, c, [expr], inverse=inverse)
        truth = sorted(f(u, v) for u in range(3) for v in range(4)) == list(range(12))
        assert radix.digit_by_digit(m, (), TIMEOUT_MS) is None
        assert brute.check_bijective(m).proved is truth
        assert la.check_bijective(m).proved is truth


def test_radix_padded_delinearization_wider_than_the_box_is_silent():
    c = la.Space(x=3, y=4)
    x, y = c.symbols
    for size, bijective in ((13, False), (11, True)):
        d = la.Space(i=size)
        (i,) = d.symbols
        m = la.IndexMap(d, c, [floor(i / 4), Mod(i, 4)], inverse=[4 * x + y],
                        valid=sympy.Lt(4 * x + y, size))
        images = [(k // 4, k % 4) for k in range(size)]
        assert (all(p < 3 for p, _ in images) and len(set(images)) == size) is bijective
        proved = radix.digit_by_digit(m, (), TIMEOUT_MS)
        assert (proved is not None and proved.proved) is bijective
        assert brute.check_bijective(m).proved is bijective


def test_radix_symbolic_padding_needs_the_bound_and_not_contradictory_ones():
    d = la.Space(i=M)
    (i,) = d.symbols
    c = la.Space(x=N, y=K)
    x, y = c.symbols
    m = la.IndexMap(d, c, [floor(i / K), Mod(i, K)], inverse=[K * x + y],
                    valid=sympy.Lt(K * x + y, M))
    assert radix.digit_by_digit(m, (), TIMEOUT_MS) is None
    assert not brute.check_bijective(m.bind(M=13, N=3, K=4)).proved
    assert radix.digit_by_digit(m, [M <= N * K], TIMEOUT_MS).proved
    assert radix.digit_by_digit(m, [M <= N * K, M > N * K], TIMEOUT_MS) is None
    for sizes in itertools.product(range(1, 5), repeat=3):
        mm, nn, kk = sizes
        if mm <= nn * kk:
            assert brute.check_bijective(m.bind(M=mm, N=nn, K=kk)).proved, sizes


# -- attacks survived: plugged witnesses agree with Python ints -------------------------


def test_plugged_uses_floored_mod_and_floor_of_negatives():
    # (M - 5) mod 3 == 1 and floor((M - 5) / 2) == -1 hold together at M = 3 only
    # (floored: -2 mod 3 = 1, floor(-2/2) = -1; C's truncation would give -2 mod 3 = -2)
    assumptions = [Eq(Mod(M - 5, 3), 1), Eq(floor((M - 5) / 2), -1)]
    witnesses = [m_ for m_ in range(1, 20)
                 if (m_ - 5) % 3 == 1 and (m_ - 5) // 2 == -1]
    assert witnesses == [3]
    assert all(plugged.holds(assumptions, {M: v}) is (v in witnesses) for v in range(1, 20))
    # and a check under them is about M = 3 only: i + 1 escapes [0, M) at i = 2
    d = la.Space(i=M)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=M), [i + 1], name="shift")
    verdict = la.check_in_bounds(m, assume=assumptions)
    assert verdict.refuted and verdict.counterexample["M"] == 3


def test_contradictory_assumptions_modulo_stay_unknown():
    d = la.Space(i=M)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=M), [i + 1], name="shift")
    assume = [Eq(Mod(M, 4), 1), Eq(Mod(M, 2), 0)]   # odd and even
    assert not any(v % 4 == 1 and v % 2 == 0 for v in range(1, 100))
    assert plugged.witness(assume, [M]) is None
    assert la.check_in_bounds(m, assume=assume).status is Status.UNKNOWN


# -- attacks survived: enumeration never passes under false assumptions or on padding ---


@pytest.mark.parametrize("assume", [[sympy.false], [Eq(1, 2)]], ids=["false", "1 = 2"])
def test_enumeration_leaves_false_assumptions_to_the_guard(assume):
    d = la.Space(i=4)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=4), [i + 1], name="shift")   # i = 3 escapes
    with q.shortcuts(reuse=True):
        assert la.check_in_bounds(m, assume=assume).status is Status.UNKNOWN
        assert la.check_in_bounds(m).refuted


def test_enumeration_sees_the_one_point_on_padding():
    d = la.Space(i=4)
    (i,) = d.symbols
    c = la.Space(o=5)
    (o,) = c.symbols
    m = la.IndexMap(d, c, [i + 1], valid=sympy.Lt(o, 4), name="onto padding")
    assert [k + 1 for k in range(4) if not k + 1 < 4] == [4]        # only i = 3
    verdict = _short(la.check_bijective, m)
    assert verdict.refuted and verdict.counterexample == {"i": 3}
    assert la.check_bijective(m).refuted


# Found by this audit; fixed: plugged.holds refuses a candidate where a divisor is 0.
def test_plugged_witness_never_divides_by_zero():
    K = la.extents("K")[0]
    assumption = Eq(Mod(M, K - 1), 0)
    assert python_mod(3, 1 - 1) is None
    assert not plugged.holds([assumption], {M: 3, K: 1})


# Found by this audit; fixed: the twin refuses a map that divides by 0 at a domain point
# (now by the evaluator's one rule: UndefinedValueError naming the first such point).
def test_brute_oracle_does_not_prove_a_map_that_divides_by_zero():
    d = la.Space(i=4, j=3)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=4), [Mod(i, j)], name="i mod j")
    assert python_mod(0, 0) is None                   # (i, j) = (0, 0): the first such point
    with pytest.raises(UndefinedValueError, match="at i=0, j=0: its divisor j is 0"):
        brute.check_in_bounds(m)
