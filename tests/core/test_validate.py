"""The one argument-validation module: each rule with values that pass and
values that fail, the error class the caller chose, and a message naming the
argument, the rule and the value.

Expected outcomes are written out by hand per value (not computed by the
rule's own test), so a rule that drifts fails here.
"""

import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg import validate as v
from layoutalg.errors import DataflowError, LayoutError, SpyreError, SwizzleError

HUGE = 2**200
M = sympy.Symbol("M", integer=True, positive=True)
REAL = sympy.Symbol("x", real=True)

# Values no integer rule accepts, with how the message shows them.
NOT_INTS = [(True, "True"), (False, "False"), (np.bool_(True), "np.True_"), (2.0, "2.0"),
            (2.5, "2.5"), ("2", "'2'"), (None, "None"), ((2,), "(2,)"), (M, "M")]


def refusal(call, error=LayoutError):
    with pytest.raises(LayoutError) as info:
        call()
    assert type(info.value) is error, "the rule raises the class its caller chose"
    return str(info.value)


# -- predicates ---------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [
    (0, True), (-3, True), (np.int64(7), True), (np.uint8(1), True), (HUGE, True),
    (True, False), (np.bool_(True), False), (2.0, False), ("2", False), (None, False),
    (sympy.Integer(2), False),
])
def test_is_int(value, expected):
    assert v.is_int(value) is expected


def test_is_bool_and_is_symbolic():
    assert [v.is_bool(x) for x in (True, np.bool_(False), 1, "True", None)] == [
        True, True, False, False, False]
    assert v.is_symbolic(1, 2 * M) and v.is_symbolic(REAL)
    assert not v.is_symbolic(1, sympy.Integer(3), np.int64(2), 2.0)


@pytest.mark.parametrize("values, expected", [
    ((3, 0, -1), (1, 0)),
    ((1, 2.5, 0), (1, 2.5)),
    ((True, 4), (0, True)),          # a bool is not a count
    ((np.int32(3), -2), (1, -2)),
    ((1, np.int64(2), 7), None),
    ((2, "3"), (1, "3")),
])
def test_first_not_positive_names_the_first_bad_entry(values, expected):
    assert v.first_not_positive(values) == expected


def test_first_not_positive_accepts_any_iterable():
    assert v.first_not_positive(iter([3, 1, 0])) == (2, 0)
    assert v.first_not_positive([]) is None


def test_first_out_of_range_on_a_hand_made_table():
    extents = (2, 3)
    outside = {(-1, 0): (0, -1), (2, 0): (0, 2), (0, 3): (1, 3), (1, -1): (1, -1),
               (2, 3): (0, 2), (-1, 5): (0, -1)}
    for p in itertools.product(range(-1, 4), repeat=2):
        inside = p[0] in (0, 1) and p[1] in (0, 1, 2)
        got = v.first_out_of_range(p, extents)
        assert (got is None) == inside
        if p in outside:
            assert got == outside[p]


# -- integers ------------------------------------------------------------------------


def test_integer_and_index():
    assert [v.integer(LayoutError, "k", x) for x in (-HUGE, -1, 0, np.int8(-3), HUGE)] == [
        -HUGE, -1, 0, -3, HUGE]
    for value, shown in NOT_INTS:
        assert refusal(lambda: v.integer(LayoutError, "k", value, where="f")) == (
            f"f: k must be an int; got {shown}")
    for i in range(-3, 7):
        if i in (0, 1, 2, 3):
            assert v.index(LayoutError, "ti", i, 4) == i
        else:
            assert refusal(lambda: v.index(LayoutError, "ti", i, 4)) == (
                f"ti must lie in [0, 4); got {i}")
    assert v.index(LayoutError, "ti", np.uint8(3), 4) == 3
    assert refusal(lambda: v.index(LayoutError, "ti", HUGE, 4)) == (
        f"ti must lie in [0, 4); got {HUGE}")
    assert refusal(lambda: v.index(LayoutError, "tk", 1.5, 4)) == "tk must be an int; got 1.5"
    assert refusal(lambda: v.index(LayoutError, "tk", True, 4)) == "tk must be an int; got True"


@pytest.mark.parametrize("value, expected", [
    (1, 1), (7, 7), (np.int64(5), 5), (np.uint16(3), 3), (HUGE, HUGE)])
def test_positive_int_accepts_and_returns_python_ints(value, expected):
    got = v.positive_int(LayoutError, "rows", value)
    assert got == expected and type(got) is int


@pytest.mark.parametrize("value, shown", [(0, "0"), (-1, "-1"), (-HUGE, str(-HUGE)),
                                          (np.int8(-3), "np.int8(-3)")] + NOT_INTS)
def test_positive_int_refuses(value, shown):
    message = refusal(lambda: v.positive_int(SwizzleError, "rows", value, where="grid"),
                      SwizzleError)
    assert message.startswith("grid: rows must be a positive int; got ")
    assert message.endswith(shown[:100]) or shown in message


def test_positive_int_names_its_unit():
    assert v.positive_int(LayoutError, "capacity", 64, unit="bytes") == 64
    assert refusal(lambda: v.positive_int(LayoutError, "capacity", 0, unit="bytes")) == (
        "capacity must be a positive int of bytes; got 0")


@pytest.mark.parametrize("value", [0, 1, 9, np.int32(0), HUGE])
def test_nonnegative_int_accepts(value):
    assert v.nonnegative_int(LayoutError, "base", value) == int(value)


@pytest.mark.parametrize("value, shown", [(-1, "-1"), (-HUGE, str(-HUGE))] + NOT_INTS)
def test_nonnegative_int_refuses(value, shown):
    assert refusal(lambda: v.nonnegative_int(LayoutError, "base", value)) == (
        f"base must be an int >= 0; got {shown}")


def test_positive_number():
    for value in (1, 0.25, HUGE, np.float32(0.5), np.int64(3), 1e308):
        assert v.positive_number(LayoutError, "seconds", value) == value
    assert type(v.positive_number(LayoutError, "seconds", np.float64(2.0))) is float
    for value, shown in [(0, "0"), (-0.5, "-0.5"), (0.0, "0.0"), (float("nan"), "nan"),
                         (float("inf"), "inf"), (True, "True"), ("1", "'1'"), (None, "None")]:
        assert refusal(lambda: v.positive_number(LayoutError, "seconds", value, where="f")) == (
            f"f: seconds must be a positive finite number; got {shown}")


POWERS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}


def test_power_of_two_against_a_hand_written_list():
    for n in range(-4, 1025):
        if n in POWERS:
            assert v.power_of_two(LayoutError, "size", n) == n
        else:
            assert refusal(lambda: v.power_of_two(LayoutError, "size", n)) == (
                f"size must be a power of two; got {n}")
    assert v.power_of_two(LayoutError, "size", 2**100) == 2**100
    assert v.power_of_two(LayoutError, "size", np.int64(64)) == 64
    for value, shown in NOT_INTS + [(2**100 + 2**99, str(2**100 + 2**99))]:
        assert refusal(lambda: v.power_of_two(LayoutError, "size", value)).endswith(
            f"got {shown}")


def test_ints():
    assert v.int_tuple(LayoutError, "size", [2, np.int64(3), 0]) == (2, 3, 0)
    assert v.int_tuple(LayoutError, "size", np.array([4, 5])) == (4, 5)
    assert v.int_tuple(LayoutError, "size", ()) == ()
    assert v.int_tuple(LayoutError, "size", (HUGE, 1), least=1) == (HUGE, 1)
    fails = [
        (("size", "4x4"), {}, "size must be a sequence of ints; got '4x4'"),
        (("size", 4), {}, "size must be a sequence of ints; got 4"),
        (("size", (4, True)), {}, "size[1] must be an int; got True in size=(4, True)"),
        (("size", [4, 2.0]), {}, "size[1] must be an int; got 2.0 in size=[4, 2.0]"),
        (("size", (4, 0)), {"least": 1},
         "size[1] must be a positive int; got 0 in size=[4, 0]"),
        (("size", (-1, 0)), {"least": 0},
         "size[0] must be an int >= 0; got -1 in size=[-1, 0]"),
        (("size", (1,)), {"least": 2}, "size[0] must be an int >= 2; got 1 in size=[1]"),
    ]
    for args, options, message in fails:
        assert refusal(lambda: v.int_tuple(SpyreError, *args, **options), SpyreError) == message


def test_point():
    assert v.int_point(LayoutError, "coord", [1, np.int64(3)], (2, 4), "size") == (1, 3)
    fails = [
        ((1,), "coord must have 2 ints for size [2, 4]; got (1,)"),
        ((2, 0), "coord[0] must lie in [0, 2) for size [2, 4]; got 2"),
        ((0, -1), "coord[1] must lie in [0, 4) for size [2, 4]; got -1"),
        ((0, 1.0), "coord[1] must be an int; got 1.0 in coord=(0, 1.0)"),
    ]
    for value, message in fails:
        assert refusal(lambda: v.int_point(LayoutError, "coord", value, (2, 4), "size")) == message


# -- sizes ---------------------------------------------------------------------------


def test_size_accepts_ints_and_positive_integer_expressions():
    assert v.positive_size(LayoutError, "n", 3) == 3
    assert type(v.positive_size(LayoutError, "n", sympy.Integer(3))) is int
    assert type(v.positive_size(LayoutError, "n", np.int16(3))) is int
    assert v.positive_size(LayoutError, "n", M) == M
    assert v.positive_size(LayoutError, "n", 4 * M + 1) == 4 * M + 1


@pytest.mark.parametrize("value, end", [
    (0, "must be a positive int; got 0"),
    (sympy.Integer(-2), "must be a positive int; got -2"),
    (True, "must be a positive int or a positive integer symbol; got True"),
    (2.0, "must be a positive int or a positive integer symbol (declare it with "
          "layoutalg.extents); got 2.0"),
    ("4", "symbol (declare it with layoutalg.extents); got '4'"),
    (REAL, "symbol (declare it with layoutalg.extents); got x"),
    (M - 2, "symbol (declare it with layoutalg.extents); got M - 2"),
])
def test_size_refuses(value, end):
    message = refusal(lambda: v.positive_size(DataflowError, "rows", value, where="f"),
                      DataflowError)
    assert message.startswith("f: rows ") and message.endswith(end)


def test_sizes():
    assert v.positive_sizes(LayoutError, "shape", [4, M, 2], "MNK") == (4, M, 2)
    assert refusal(lambda: v.positive_sizes(LayoutError, "shape", (4, 4), "MNK", where="f")) == (
        "f: shape must be a tuple ('M', 'N', 'K'); got (4, 4)")
    assert refusal(lambda: v.positive_sizes(LayoutError, "shape", (4, -4, 1), ("M", "N", "K"))) == (
        "shape N must be a positive int; got -4")


def test_concrete():
    v.concrete_sizes(LayoutError, "f", "s", 4, 5)
    for bad in (M, 4.0, True):
        assert refusal(lambda: v.concrete_sizes(LayoutError, "f", "the schedule", 4, bad)) == (
            "f: needs concrete sizes (bind the symbols first); got the schedule")


# -- choices, kinds, names -----------------------------------------------------------


def test_choice():
    assert v.one_of(LayoutError, "op", "read", ("read", "write")) == "read"
    for bad, shown in [("READ", "'READ'"), ("", "''"), (None, "None"), (0, "0")]:
        assert refusal(lambda: v.one_of(LayoutError, "op", bad, ("read", "write"), where="g")) == (
            f"g: op must be one of ('read', 'write'); got {shown}")


def test_instance_and_flag():
    v.instance_of(LayoutError, "n", 3, int)
    assert refusal(lambda: v.instance_of(LayoutError, "schedule", (4, 4), dict, where="f")) == (
        "f: schedule must be a dict; got (4, 4)")
    assert v.boolean(LayoutError, "strict", False) is False
    assert v.boolean(LayoutError, "strict", np.bool_(True)) is True
    for bad, shown in [(1, "1"), ("yes", "'yes'"), (None, "None")]:
        assert refusal(lambda: v.boolean(LayoutError, "strict", bad)) == (
            f"strict must be True or False; got {shown}")


def test_identifier_pairs_distinct():
    assert v.identifier(LayoutError, "name", "lane") == "lane"
    for bad, shown in [("class", "'class'"), ("1x", "'1x'"), ("a b", "'a b'"), (7, "7")]:
        assert refusal(lambda: v.identifier(LayoutError, "name", bad, where="L")) == (
            f"L: name must be a Python identifier; got {shown}")
    assert v.named_pairs(LayoutError, "b", {"x": 1, "y": 2}) == [("x", 1), ("y", 2)]
    assert v.named_pairs(LayoutError, "b", [["x", 1]]) == [("x", 1)]
    assert refusal(lambda: v.named_pairs(LayoutError, "b", [("x", 1, 2)])) == (
        "b must be a dict {name: ...} or a list of (name, ...) pairs; got [('x', 1, 2)]")
    v.all_distinct(LayoutError, "names", ["a", "b"])
    assert refusal(lambda: v.all_distinct(LayoutError, "names", ["a", "b", "a"])) == (
        "names must differ; got ['a', 'b', 'a']")


def test_a_long_value_is_shortened_in_the_message():
    message = refusal(lambda: v.positive_int(LayoutError, "n", -(10**300)))
    assert message.startswith("n must be a positive int; got -1000") and message.endswith("...")
    assert len(message) < 200


def test_listed():
    assert v.listed((np.int64(2), 64)) == "[2, 64]" and v.listed(()) == "[]"


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_integer_rules_against_plain_arithmetic(n):
    """Each integer rule accepts exactly the ints its rule names (bin() as the
    independent statement of "a power of two"), and returns them unchanged."""
    for rule, holds in ((v.positive_int, n >= 1), (v.nonnegative_int, n >= 0),
                        (v.power_of_two, n >= 1 and bin(n).count("1") == 1),
                        (v.integer, True), (v.positive_size, n >= 1)):
        if holds:
            assert rule(LayoutError, "n", n) == n
        else:
            with pytest.raises(LayoutError, match=f"^n must .*; got {n}$"):
                rule(LayoutError, "n", n)
