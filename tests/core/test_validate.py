"""The shared argument rules: each helper against a brute-force statement of its rule."""

import itertools

import numpy as np
import pytest

from layoutalg.validate import first_not_positive, first_out_of_range, is_int


@pytest.mark.parametrize("value, expected", [
    (0, True), (-3, True), (np.int64(7), True), (np.uint8(1), True),
    (True, False), (np.bool_(True), False), (2.0, False), ("2", False), (None, False),
])
def test_is_int(value, expected):
    assert is_int(value) is expected


@pytest.mark.parametrize("values, expected", [
    ((3, 0, -1), (1, 0)),
    ((1, 2.5, 0), (1, 2.5)),
    ((True, 4), (0, True)),          # a bool is not a count
    ((np.int32(3), -2), (1, -2)),
    ((1, np.int64(2), 7), None),
    ((2, "3"), (1, "3")),
])
def test_first_not_positive_names_the_first_bad_entry(values, expected):
    assert first_not_positive(values) == expected


def test_first_not_positive_accepts_any_iterable():
    assert first_not_positive(iter([3, 1, 0])) == (2, 0)
    assert first_not_positive([]) is None


def test_first_out_of_range_names_the_first_bad_coordinate():
    extents = (2, 3)
    for point in itertools.product(range(-1, 4), repeat=2):
        bad = [(k, v) for k, (v, e) in enumerate(zip(point, extents)) if not 0 <= v < e]
        assert first_out_of_range(point, extents) == (bad[0] if bad else None)
