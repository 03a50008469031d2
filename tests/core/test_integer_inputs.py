"""The evaluator's inputs are integers: one rule for typed and object arrays.

``core.integers.narrow`` converts the values bound to a map's coordinates. An
integer is a Python int, a NumPy integer, a bool, anything with ``__index__``
(a SymPy ``Integer``), or a float with an integral value (``2.0``, as the float64
path has always taken). Anything else is refused with one ``MapError`` from
``IndexMap.apply`` naming the coordinate, the rule and the value, whether it
sits in a float64 array or an object array: Python's ``int()`` would truncate
2.5 to 2 and parse ``'3'``, which is why the conversion does not use it.

Truths are plain Python: ``2 * v`` for an integer ``v``; for the rest, Python's
own verdict that the value is not an integer (``operator.index`` refuses it and,
for a float, ``v != math.floor(v)`` or it is not finite).
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.core import evaluate as ev
from layoutalg.core.expr import Unsupported
from layoutalg.errors import MapError

RULE = "values must be integers"
NOT_INTEGERS = [2.5, Fraction(5, 2), "3", None, "x", 1j, float("nan"), float("inf"),
                sympy.Rational(5, 2), sympy.Float(2.5), b"3", [3], np.float32(0.5)]
INTEGERS = [3, True, False, np.int8(-3), np.uint64(2**64 - 1), np.bool_(True), sympy.Integer(7),
            2.0, np.float64(-4.0), 2**64, -(2**70), 1e20]


def _double() -> la.IndexMap:
    space = la.Space(i=8)
    (i,) = space.symbols
    return la.IndexMap(space, la.Space(o=16), [2 * i], name="double")


def _is_integer_in_python(value) -> bool:
    """Python's verdict, independent of the code under test."""
    if isinstance(value, (float, np.floating)):
        return math.isfinite(value) and value == math.floor(value)
    try:
        operator.index(value)
    except TypeError:
        return isinstance(value, np.bool_)   # NumPy 2 bools refuse __index__; still 0 or 1
    return True


def test_the_truth_in_python():
    assert not any(_is_integer_in_python(v) for v in NOT_INTEGERS)
    assert all(_is_integer_in_python(v) for v in INTEGERS)
    assert int(2.5) == 2 and int("3") == 3          # what int() would have made of them


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
def test_a_non_integer_in_an_object_array_is_named(value):
    array = np.empty(3, dtype=object)
    array[:] = [1, 2, 0]
    array[1] = value
    with pytest.raises(MapError, match=RULE) as caught:
        _double().apply(array)
    message = str(caught.value)
    assert "map double" in message and "the values of i" in message
    assert repr(value) in message and "at index (1,)" in message


@pytest.mark.parametrize("value", [2.5, float("nan"), float("-inf")], ids=repr)
def test_a_float64_array_names_its_first_non_integer(value):
    with pytest.raises(MapError, match=RULE) as caught:
        _double().apply(np.array([[0.0, 1.0], [value, 2.5]]))
    assert "the values of i" in str(caught.value) and "at index (1, 0)" in str(caught.value)
    assert repr(value) in str(caught.value)


@pytest.mark.parametrize("array", [np.array(["3"]), np.array([1 + 0j]), np.array([b"3"])],
                         ids=["str", "complex", "bytes"])
def test_an_array_of_another_kind_is_refused(array):
    with pytest.raises(MapError, match=RULE) as caught:
        _double().apply(array)
    assert f"an array of {array.dtype}" in str(caught.value)


@pytest.mark.parametrize("value", INTEGERS, ids=repr)
def test_integers_of_every_kind_are_taken_exactly(value):
    truth = 2 * int(value)
    for array in (np.array([value], dtype=object), np.array(value, dtype=object)):
        (image,) = _double().apply(array)
        assert image.reshape(-1).tolist() == [truth]


def test_a_zero_d_object_array_of_a_non_integer_is_refused():
    with pytest.raises(MapError, match=RULE):
        _double().apply(np.array(Fraction(1, 2), dtype=object))


def test_evaluate_names_the_symbol_and_as_int64_names_its_argument():
    i = sympy.Symbol("i", integer=True)
    with pytest.raises(Unsupported, match=r"the values of i hold 'x' \(a str\) at index \(0,\)"):
        ev.evaluate(i + 1, {i: np.array(["x"], dtype=object)})
    with pytest.raises(Unsupported, match=r"offsets of m hold 0\.5 \(a float\)"):
        ev.as_int64(np.array([0.5], dtype=object), "offsets of m")


def test_narrow_keeps_exact_ints_and_narrows_what_fits():
    assert ev.narrow(np.array([1, True, np.int16(3)], dtype=object)).dtype == np.int64
    wide = ev.narrow(np.array([2**64, 2.0, True, np.int8(-1), sympy.Integer(5)], dtype=object))
    assert wide.dtype == object and wide.tolist() == [2**64, 2, 1, -1, 5]
    assert all(type(v) is int for v in wide.tolist())


_ELEMENT = st.one_of(
    st.integers(-(2**70), 2**70), st.booleans(),
    st.integers(-(2**60), 2**60).map(float),                       # integral floats
    st.floats(allow_nan=True, allow_infinity=True),                # mostly not integral
    st.fractions(max_denominator=5), st.text(max_size=2), st.none())


@settings(max_examples=200, deadline=None)
@given(st.lists(_ELEMENT, min_size=1, max_size=6))
def test_random_object_arrays_are_taken_or_refused_as_python_says(values):
    array = np.empty(len(values), dtype=object)
    array[:] = values
    first_bad = next((k for k, v in enumerate(values) if not _is_integer_in_python(v)), None)
    if first_bad is None:
        (image,) = _double().apply(array)
        assert image.tolist() == [2 * int(v) for v in values]
    else:
        with pytest.raises(MapError, match=RULE) as caught:
            _double().apply(array)
        assert f"at index ({first_bad},)" in str(caught.value)
