"""Bit operations (layoutalg.core.bits): values, refusals, exact evaluation, printing.

The truths are Python's own integer operators and hand-computed values,
never the SymPy functions under test.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.bits import BitXor, bit_and, bit_xor, bounds_kernel, shift_left, shift_right
from layoutalg.core.evaluate import evaluate
from layoutalg.core.printing import latex, show
from layoutalg.core.space import coordinate
from layoutalg.errors import MapError

i = coordinate("i")
j = coordinate("j")


@pytest.mark.parametrize("made, value", [
    (bit_xor(0b1100, 0b1010), 0b0110),
    (bit_and(0b1101, 0b0110), 0b0100),
    (shift_right(13, 2), 3),
    (shift_left(3, 4), 48),
    (bit_xor(2**70, 1), 2**70 + 1),           # no width: Python ints
    (shift_left(1, 100), 2**100),
    (shift_right(2**100, 99), 2),
])
def test_numbers_evaluate_at_once_to_hand_computed_values(made, value):
    assert made == value and isinstance(made, sympy.Integer)


RULE = "must be a non-negative integer expression; got"


@pytest.mark.parametrize("build, message", [
    (lambda: bit_xor(-1, 2), f"bit_xor argument a {RULE} -1"),
    (lambda: bit_and(3, -8), f"bit_and argument mask {RULE} -8"),
    (lambda: shift_right(1.5, 1), f"shift_right argument a {RULE} 1.5"),
    (lambda: shift_left(1, sympy.Rational(1, 2)), f"shift_left argument k {RULE} 1/2"),
    (lambda: bit_xor(True, 1), f"bit_xor argument a {RULE} True"),
    (lambda: bit_xor("x+", 1), f"bit_xor argument a {RULE} 'x+'"),
    (lambda: bit_xor(i, 1).subs(i, -3), f"bit_xor argument a {RULE} -3"),
])
def test_bad_arguments_get_one_clear_error(build, message):
    with pytest.raises(MapError) as info:
        build()
    assert str(info.value) == message


def test_symbolic_simplifications_are_only_the_exact_ones():
    assert bit_xor(i, 0) == i and bit_xor(i, i) == 0 and bit_and(i, 0) == 0
    assert shift_right(i, 0) == i and shift_left(0, j) == 0
    assert isinstance(bit_xor(i, j), BitXor)
    assert bit_xor(i, j).is_integer and bit_xor(i, j).is_nonnegative


def swizzle(x):
    return bit_xor(x, shift_right(bit_and(x, 0x380), 3))


def test_printing_plain_and_latex():
    e = swizzle(i)
    assert str(e) == "i ^ ((i & 896) >> 3)"
    assert show(2 * e + 1) == "2*(i ^ ((i & 896) >> 3)) + 1"
    assert show(sympy.Mod(e, 8, evaluate=False)) == "(i ^ ((i & 896) >> 3)) mod 8"
    assert show(shift_left(i + 1, 2)) == "(i + 1) << 2"
    assert latex(e) == r"i \oplus \left(\left(i \land 896\right) \gg 3\right)"
    assert latex(2 * e) == r"2 \left(i \oplus \left(\left(i \land 896\right) \gg 3\right)\right)"
    assert latex(shift_left(i, 2)) == r"i \ll 2"


def test_vectorized_evaluation_matches_python_operators():
    xs = np.arange(4096)
    got = evaluate(swizzle(i), {i: xs})
    assert got.dtype == np.int64
    assert got.tolist() == [x ^ ((x & 0x380) >> 3) for x in range(4096)]


def test_no_silent_int64_wrap():
    xs = np.arange(20)
    big = evaluate(shift_left(i, 60), {i: xs})
    assert big.tolist() == [x << 60 for x in range(20)]            # past int64: exact ints
    assert big.dtype == object
    # NumPy shifts by >= 64 are undefined (x86 masks the count): exact path.
    assert evaluate(shift_right(i, 64), {i: np.array([2**64 - 1, 5], dtype=object)}).tolist() \
        == [0, 0]
    assert evaluate(shift_right(i, 70), {i: np.array([2**70, 3])}).tolist() == [1, 0]
    assert evaluate(bit_xor(i, 2**65), {i: np.arange(3)}).tolist() == [2**65, 2**65 + 1,
                                                                         2**65 + 2]


def test_negative_values_are_refused_at_evaluation():
    with pytest.raises(MapError, match="bit_xor argument a must be non-negative; got -3"):
        evaluate(bit_xor(i - 3, 1), {i: np.arange(5)})


def test_bounds_cover_every_value():
    kernel = bounds_kernel(swizzle(i) + shift_left(j, 2))
    low, high = kernel({i: (0, 1023), j: (0, 7)}, None)
    values = [x ^ ((x & 0x380) >> 3) + 4 * y for x in range(1024) for y in range(8)]
    assert low <= min(values) and max(values) <= high


OPS = ["xor", "and", "shr", "shl"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(OPS), st.integers(0, 2**40), st.integers(0, 2**40), st.integers(0, 70),
       st.lists(st.integers(0, 2**62), min_size=1, max_size=30))
def test_evaluation_differential(op, a, b, k, xs):
    """Random ops on random arrays (some past int64 after shifting): exactly Python's."""
    build = {"xor": lambda x: bit_xor(x, b), "and": lambda x: bit_and(x, b),
             "shr": lambda x: shift_right(x, k), "shl": lambda x: shift_left(x, k)}[op]
    python = {"xor": lambda x: x ^ b, "and": lambda x: x & b,
              "shr": lambda x: x >> k, "shl": lambda x: x << k}[op]
    got = evaluate(build(i), {i: np.array(xs, dtype=object)})  # a constant (i & 0) is a scalar
    assert [int(v) for v in np.broadcast_to(got, (len(xs),))] == [python(x) for x in xs]
    assert int(build(a)) == python(a)  # numbers fold at once


def test_bit_facts_bound_every_value():
    from layoutalg.core.bit_facts import log2_exact, trailing_zeros, upper_bound

    x = coordinate("x")
    exprs = [swizzle(x), bit_and(x - 5, 7), shift_right(x, 3) + 4 * (x % 8), shift_left(x, 2),
             sympy.floor(bit_xor(x, 3) / 4), 3 * bit_and(x, 1)]
    for expr in exprs:
        top = upper_bound(expr, {x: 1023})
        values = [int(expr.subs(x, v)) for v in range(5, 1024)]  # x - 5 & 7 needs x >= 5
        assert top is not None and 0 <= min(values) and max(values) <= top, expr
    assert upper_bound(x - 5, {x: 1023}) is None          # may be negative
    assert upper_bound(x + 1, {}) is None                 # x unbounded (a size)
    assert [trailing_zeros(e) for e in (128 * x + 64, 96 * x, shift_left(x, 3), x + 1)] == \
        [6, 5, 3, 0]
    assert all((128 * v + 64) % 64 == 0 for v in range(50))
    assert [log2_exact(sympy.Integer(n)) for n in (1, 2, 1024, 96, 0, -4)] == \
        [0, 1, 10, None, None, None]
