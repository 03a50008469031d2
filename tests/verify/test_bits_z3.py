"""Z3 decides bit operations in both encodings, and agrees with brute force.

Random expression trees over XOR, masks, shifts, ``+``, ``//`` and ``mod``
are asked "is there an x with expr(x) == v?" through the one query path
(``query.ask``), with concrete ranges (Int-with-bits and bit-vectors) and
with a symbolic range ``x < N`` (only Int-with-bits applies); the truth is
the set of values plain Python integer arithmetic computes for the tree.
"""

from __future__ import annotations

import random

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.core.bits import bit_and, bit_xor, shift_left, shift_right
from layoutalg.verify import query
from layoutalg.verify.z3_backend import solver

x = sympy.Symbol("x", integer=True, nonnegative=True)
N = la.extents("N")[0]


def tree(rng: random.Random, depth: int):
    """(sympy expression, python function) of a random tree over x (a bit operation
    of a negative constant is refused when built, so such a draw keeps its operand)."""
    state = rng.getstate()
    try:
        return _tree(rng, depth)
    except la.LayoutError:
        rng.setstate(state)
        rng.random()
        return x, (lambda v: v)


def _tree(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.7:
            return x, (lambda v: v)
        c = rng.randrange(0, 300)
        return sympy.Integer(c), (lambda v, c=c: c)
    kind = rng.choice(["xor_small", "and", "shr", "shl", "add", "mul", "floor", "mod", "xor",
                       "sub"])
    e, f = tree(rng, depth - 1)
    if kind == "xor_small":  # XOR with a masked side: decidable for unbounded x too
        g, h = tree(rng, depth - 1)
        mask = rng.randrange(1, 256)
        return bit_xor(e, bit_and(g, mask)), (lambda v: f(v) ^ (h(v) & mask))
    if kind == "xor":
        g, h = tree(rng, depth - 1)
        return bit_xor(e, g), (lambda v: f(v) ^ h(v))
    if kind == "and":
        mask = rng.randrange(0, 512)
        return bit_and(e, mask), (lambda v: f(v) & mask)
    if kind == "shr":
        k = rng.randrange(0, 6)
        return shift_right(e, k), (lambda v: f(v) >> k)
    if kind == "shl":
        k = rng.randrange(0, 4)
        return shift_left(e, k), (lambda v: f(v) << k)
    if kind == "add":
        g, h = tree(rng, depth - 1)
        return e + g, (lambda v: f(v) + h(v))
    if kind == "sub":  # negative values: floor, mod and bits as Python computes them
        g, h = tree(rng, depth - 1)
        return e - g, (lambda v: f(v) - h(v))
    if kind == "mul":
        c = rng.choice([2, 3, 16, 128, 11])
        if rng.random() < 0.3:  # a basis value times one bit, as linear layouts write it
            return c * bit_and(e, 1), (lambda v: c * (f(v) & 1))
        return c * e, (lambda v: c * f(v))
    if kind == "floor":
        c = rng.choice([2, 3, 8, 16])
        return e // c, (lambda v: f(v) // c)
    c = rng.choice([2, 3, 8, 32])
    return sympy.Mod(e, c, evaluate=False), (lambda v: f(v) % c)


def ask(expr, target, high, *, parameters=(), assume=()):
    return query.ask([solver.Bounded(x, 0, high)], [sympy.Eq(expr, target, evaluate=False)],
                     parameters=parameters, assumptions=assume, timeout_ms=20_000)


@pytest.mark.parametrize("encoding", ["int", "bitvector"])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), pick=st.integers(0, 10**6), high=st.integers(1, 300))
def test_concrete_ranges_agree_with_brute_force(encoding, seed, pick, high):
    expr, python = tree(random.Random(seed), 3)
    values = [python(v) for v in range(high)]
    target = values[pick % high] if pick % 3 else pick % 700 - 350  # hits and (likely) misses
    with solver.use_encoding(encoding):
        outcome = ask(expr, target, high)
    if encoding == "bitvector" and "does not apply" in outcome.reason:
        return  # a bit operation of a possibly negative value: Int theory only (run above)
    if "neither side of" in outcome.reason or "not shown to be non-negative" in outcome.reason:
        return  # an XOR or AND of unbounded or possibly negative terms: UNKNOWN, no guess
    if outcome.answer == "unknown" and "timeout" in outcome.reason:
        return  # undecided is never counted as agreement (test_queries_are_decided_often_enough)
    assert outcome.answer != "unknown", outcome.reason
    assert outcome.encoding == encoding
    assert (outcome.answer == "sat") == (target in values)
    if outcome.answer == "sat":
        assert python(outcome.model[x]) == target


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), pick=st.integers(0, 10**6), bound=st.integers(1, 200))
def test_symbolic_ranges_agree_with_brute_force(seed, pick, bound):
    """x < N for every N <= bound: the mixed encoding splits unbounded terms."""
    expr, python = tree(random.Random(seed), 3)
    values = {python(v) for v in range(bound)}
    target = sorted(values)[pick % len(values)] if pick % 3 else pick % 700
    outcome = ask(expr, target, N, parameters=[N], assume=[N <= bound])
    if outcome.answer == "unknown":
        # XOR of two unbounded terms, refused; or a hard instance past the budget (a
        # verdict must not hang on the machine's speed; how often queries are decided
        # is pinned by test_queries_are_decided_often_enough)
        assert any(why in outcome.reason for why in (
            "neither side of", "not shown to be non-negative", "timeout")), outcome.reason
        return
    assert outcome.encoding == "int"
    assert (outcome.answer == "sat") == (target in values)
    if outcome.answer == "sat":
        assert outcome.model[x] < outcome.model[N] <= bound
        assert python(outcome.model[x]) == target


def test_queries_are_decided_often_enough():
    """The tests above are not vacuous: most trees are decided in both settings."""
    symbolic = concrete = 0
    for seed in range(40):
        expr, python = tree(random.Random(seed), 3)
        if ask(expr, python(5), N, parameters=[N], assume=[N <= 64]).answer != "unknown":
            symbolic += 1
        if ask(expr, python(5), 64).answer != "unknown":
            concrete += 1
    assert symbolic >= 30 and concrete >= 34


def test_auto_takes_bitvectors_only_for_concrete_bit_queries():
    swizzled = bit_xor(x, shift_right(bit_and(x, 896), 3))
    assert ask(swizzled, 144, 1024).encoding == "bitvector"
    assert ask(x + 1, 5, 1024).encoding == "int"
    assert ask(swizzled, 144, N, parameters=[N], assume=[N <= 4096]).encoding == "int"
    # a value past 64 bits: bit-vectors would need 128, so Int theory
    assert ask(shift_left(x, 70), 2**71, 4).encoding == "int"


def test_a_forced_bitvector_encoding_that_does_not_apply_is_unknown():
    with solver.use_encoding("bitvector"):
        outcome = ask(bit_xor(x, 1), 3, N, parameters=[N])
    assert outcome.answer == "unknown" and "does not apply" in outcome.reason
    with pytest.raises(la.LayoutError, match="encoding must be one of"):
        with solver.use_encoding("bv"):
            pass


def test_shift_by_a_symbol():
    k = sympy.Symbol("k", integer=True, nonnegative=True)
    bounds = [solver.Bounded(x, 0, 64), solver.Bounded(k, 0, 8)]
    for encoding in ("int", "bitvector"):
        with solver.use_encoding(encoding):
            found = query.ask(bounds, [sympy.Eq(shift_left(x, k), 96, evaluate=False),
                                       sympy.Eq(shift_right(x, k), 2, evaluate=False)],
                              timeout_ms=20_000)
            # x << k == 96 with x < 64: (48, 1), (24, 2), (12, 3), (6, 4), (3, 5); then
            # x >> k is 24, 6, 1, 0, 0 by hand: never 2, once 1 (x=12, k=3)
            assert found.answer == "unsat", encoding
            found = query.ask(bounds, [sympy.Eq(shift_left(x, k), 96, evaluate=False),
                                       sympy.Eq(shift_right(x, k), 1, evaluate=False)],
                              timeout_ms=20_000)
            assert found.answer == "sat", encoding
            assert (found.model[x], found.model[k]) == (12, 3)


def test_xor_of_two_unbounded_terms_is_unknown_not_a_pass():
    y = sympy.Symbol("y", integer=True, nonnegative=True)
    outcome = query.ask([solver.Bounded(x, 0, N), solver.Bounded(y, 0, N)],
                        [sympy.Eq(bit_xor(x, y), 3, evaluate=False)], parameters=[N],
                        timeout_ms=5_000)
    assert outcome.answer == "unknown" and "neither side of ^" in outcome.reason
