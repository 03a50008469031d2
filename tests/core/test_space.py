"""Space: named dimensions with extents (concrete and symbolic), text forms,
value semantics, and eager validation with messages that name the argument."""

import dataclasses
import math
import re

import pytest
import sympy

import layoutalg as la
from layoutalg.errors import SpaceError


# -- concrete spaces -------------------------------------------------------------


def test_names_extents_rank_size_in_declaration_order():
    space = la.Space(i=4, j=8, k=3)
    assert space.names == ("i", "j", "k")
    assert space.extents == (4, 8, 3)
    assert space.rank == 3
    assert space.size == 4 * 8 * 3
    assert isinstance(space.size, int)
    assert space.is_concrete


def test_positional_pairs_and_keywords_build_the_same_space():
    assert la.Space(("i", 4), ("j", 8)) == la.Space(i=4, j=8)
    assert la.Space(("i", 4), j=8) == la.Space(i=4, j=8)


def test_order_of_dimensions_matters():
    assert la.Space(i=4, j=8) != la.Space(j=8, i=4)


def test_sympy_integer_extent_is_normalized_to_int():
    space = la.Space(i=sympy.Integer(4))
    assert space.extents == (4,)
    assert type(space.extents[0]) is int
    assert space == la.Space(i=4)


def test_symbols_are_nonnegative_integer_coordinates_named_after_dims():
    space = la.Space(row=3, col=5)
    row, col = space.symbols
    assert (row.name, col.name) == ("row", "col")
    for symbol in space.symbols:
        assert symbol.is_integer
        assert symbol.is_nonnegative
    # Two spaces with a dim of the same name share the coordinate symbol,
    # so expressions written against one read the same against the other.
    assert la.Space(row=7).symbols[0] == row


def test_index_and_extent_lookup_by_name():
    space = la.Space(a=2, b=3, c=5)
    assert space.index("c") == 2
    assert space.extent("b") == 3


def test_unknown_dimension_lookup_names_it_and_lists_the_dims():
    space = la.Space(a=2, b=3)
    with pytest.raises(SpaceError, match=r"'z'.*\('a', 'b'\)"):
        space.index("z")


def test_str_is_math_like_and_repr_is_the_constructor():
    space = la.Space(i=4, j=8)
    assert str(space) == "[i:4, j:8]"
    assert repr(space) == "Space(i=4, j=8)"
    # The repr evaluates back to an equal space.
    assert eval(repr(space), {"Space": la.Space}) == space


# -- value semantics --------------------------------------------------------------


def test_space_is_frozen():
    space = la.Space(i=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        space.dims = (("i", 5),)
    assert space.extents == (4,)


def test_equal_spaces_hash_equal_and_work_as_dict_keys():
    a = la.Space(i=4, j=8)
    b = la.Space(("i", 4), ("j", 8))
    assert a == b and hash(a) == hash(b)
    table = {a: "tile"}
    assert table[b] == "tile"
    assert la.Space(i=4, j=9) not in table
    assert len({a, b, la.Space(i=4)}) == 2


# -- symbolic extents ------------------------------------------------------------


def test_extents_gives_positive_integer_symbols():
    M, N, T = la.extents("M N T")
    for symbol, name in zip((M, N, T), "MNT"):
        assert symbol.name == name
        assert symbol.is_integer and symbol.is_positive


def test_symbolic_space_size_and_parameters():
    M, N = la.extents("M N")
    space = la.Space(i=M, j=2 * N)
    assert not space.is_concrete
    assert sympy.simplify(space.size - 2 * M * N) == 0
    assert space.parameters == frozenset({M, N})
    assert str(space) == "[i:M, j:2*N]"


def test_symbolic_spaces_are_values_too():
    (M,) = la.extents("M")
    assert la.Space(i=M) == la.Space(i=M)
    assert hash(la.Space(i=M)) == hash(la.Space(i=M))
    assert la.Space(i=M) != la.Space(i=M + 1)


def test_bind_substitutes_numbers_for_extent_symbols():
    M, N = la.extents("M N")
    space = la.Space(i=M, j=N + 1, k=3)
    bound = space.bind({M: 5, N: 6})
    assert bound == la.Space(i=5, j=7, k=3)
    assert bound.is_concrete
    assert bound.size == 5 * 7 * 3
    assert all(type(e) is int for e in bound.extents)


def test_partial_bind_keeps_the_other_symbols():
    M, N = la.extents("M N")
    bound = la.Space(i=M, j=N).bind({M: 5})
    assert bound.extents[0] == 5
    assert bound.extents[1] == N
    assert not bound.is_concrete


def test_bind_to_a_nonpositive_value_is_refused():
    (M,) = la.extents("M")
    with pytest.raises(SpaceError, match=r"extent i .*got 0"):
        la.Space(i=M).bind({M: 0})


def test_bind_leaves_the_original_untouched():
    (M,) = la.extents("M")
    space = la.Space(i=M)
    space.bind({M: 3})
    assert space.extents == (M,)


# -- bad input --------------------------------------------------------------------

K_PLAIN = sympy.Symbol("K")  # no assumptions: not known positive or integer
K_REAL = sympy.Symbol("K", positive=True)  # positive but not integer
K_INT = sympy.Symbol("K", integer=True)  # integer but not positive

BAD_SPACES = [
    # (id, args, kwargs, error class, pattern naming the argument and the value)
    ("negative extent", (), {"i": -3}, SpaceError, r"extent i must be a positive integer.*got -3"),
    ("zero extent", (), {"rows": 0}, SpaceError, r"extent rows must be a positive .*got 0"),
    ("bool extent", (), {"i": True}, SpaceError, r"extent i must be .*got True"),
    ("float extent", (), {"j": 2.5}, SpaceError, r"extent j must be .*got 2\.5"),
    ("integral float extent", (), {"j": 4.0}, SpaceError, r"extent j must be .*got 4\.0"),
    ("string extent", (), {"j": "4"}, SpaceError, r"extent j must be .*got '4'"),
    ("plain symbol extent", (), {"i": K_PLAIN}, SpaceError, r"extent i .*extents.*got K"),
    ("non-integer symbol", (), {"i": K_REAL}, SpaceError, r"extent i .*got K"),
    ("non-positive symbol", (), {"i": K_INT}, SpaceError, r"extent i .*got K"),
    ("non-identifier name", (("1x", 3),), {}, SpaceError,
     r"dimension name must be a Python identifier; got '1x'"),
    ("name with a dash", (("pe-row", 3),), {}, SpaceError,
     r"dimension name must be a Python identifier; got 'pe-row'"),
    ("keyword name", (("class", 3),), {}, SpaceError,
     r"dimension name must be a Python identifier; got 'class'"),
    ("non-string name", ((7, 3),), {}, SpaceError,
     r"dimension name must be a Python identifier; got 7"),
    ("duplicate name", (("i", 3),), {"i": 4}, SpaceError,
     r"dimension names must be unique; got 'i' twice"),
    ("not a pair", (("i", 3, 4),), {}, SpaceError,
     r"dimension must be a \(name, extent\) pair; got \('i', 3, 4\)"),
]


@pytest.mark.parametrize(
    "args, kwargs, error, pattern",
    [case[1:] for case in BAD_SPACES],
    ids=[case[0] for case in BAD_SPACES],
)
def test_bad_space_input_is_refused_with_a_message_naming_it(args, kwargs, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        la.Space(*args, **kwargs)
    # Every bad-input error is a LayoutError (and a ValueError) for callers.
    assert isinstance(info.value, la.LayoutError)
    assert isinstance(info.value, ValueError)


def test_symbol_without_assumptions_message_tells_how_to_declare_it():
    with pytest.raises(SpaceError) as info:
        la.Space(i=K_PLAIN)
    assert "layoutalg.extents" in str(info.value)


def test_space_of_requires_parallel_tuples():
    assert la.Space.of(("i", "j"), (2, 3)) == la.Space(i=2, j=3)
    with pytest.raises(SpaceError, match=r"2 names and 1 extents"):
        la.Space.of(("i", "j"), (2,))


def test_error_messages_stay_short_for_huge_values():
    huge = list(range(1000))
    with pytest.raises(SpaceError) as info:
        la.Space(i=huge)
    message = str(info.value)
    assert message.startswith("extent i must be")
    assert len(message) < 300
    assert re.search(r"\.\.\.$", message)


def test_size_of_many_dims_matches_product():
    extents = {f"d{k}": k + 2 for k in range(6)}
    assert la.Space(**extents).size == math.prod(extents.values())
