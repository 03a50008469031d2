"""Row-major strides past int64 in the placement tables (``execute.analysis``).

An in-memory offset is ``Σ coordinate · stride`` row-major over the codomain's
in-memory extents; with a wide inner extent (``2**64``) the stride of an outer
coordinate is past int64. Where that coordinate is always 0 the offsets stay
small and the layout places; where it is not, the offset is past any memory
and placement is refused with one ``CapacityError`` — never a bare
``OverflowError`` from an int64 product, on the per-axis table path
(``_weighted``, separable maps) and the per-element path (``_offsets``) alike.

Truths are plain Python ints: ``offset(point) = Σ c_k · Π_{l>k} extent_l``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.errors import CapacityError
from layoutalg.execute import Machine, fetch, place, required_bytes
from layoutalg.execute.analysis import analyse

CAPACITY = 1 << 10   # bytes per memory


def _python_offset(coord, extents) -> int:
    """Row-major offset of ``coord`` over ``extents``, in Python ints."""
    return sum(c * math.prod(extents[k + 1:]) for k, c in enumerate(coord))


def _points(m: la.IndexMap):
    return [tuple(p) for p in np.ndindex(*m.domain.extents)]


def _python_images(m: la.IndexMap):
    """Every image by substituting the point into the SymPy expressions (no evaluator)."""
    out = []
    for point in _points(m):
        env = dict(zip(m.domain.symbols, point))
        out.append(tuple(int(e.subs(env)) for e in m.exprs))
    return out


def _placed_cells(m: la.IndexMap, itemsize_dtype=np.int64):
    machine = Machine.for_layout(m, capacity=CAPACITY, memory_dims=1, name="PE")
    data = np.arange(100, 100 + math.prod(m.domain.extents), dtype=itemsize_dtype)
    place(data.reshape(m.domain.extents), m, machine, fill=-1)
    return machine, data


def _wide(separable: bool) -> la.IndexMap:
    """(i, j) on (pe=1, a=2, b=2**64): a = ⌊i/2⌋ or ⌊i·j/8⌋, both 0 on this domain."""
    dom = la.Space(i=2, j=4)
    i, j = dom.symbols
    a = sympy.floor(i / 2) if separable else sympy.floor(i * j / 8)
    return la.IndexMap(dom, la.Space(pe=1, a=2, b=2**64), [0, a, 4 * i + j],
                       name="sep" if separable else "joint")


def test_the_truth_in_python_ints():
    for separable in (True, False):
        images = _python_images(_wide(separable))
        assert [c[1] for c in images] == [0] * 8
        assert [_python_offset(c[1:], (2, 2**64)) for c in images] == list(range(8))
    assert 2**64 > 2**63 - 1     # the stride of a does not fit in int64


@pytest.mark.parametrize("separable", [True, False], ids=["tables", "per-element"])
def test_an_always_zero_coordinate_with_a_wide_stride_places(separable):
    m = _wide(separable)
    machine, data = _placed_cells(m)
    assert (analyse(m, machine, 8, False).memory is not None) == separable   # the path taken
    cells = machine.storage.view(np.int64)[0]
    for point, value, coord in zip(_points(m), data, _python_images(m)):
        assert cells[_python_offset(coord[1:], (2, 2**64))] == value, point
    assert fetch(m, machine, np.int64).reshape(-1).tolist() == data.tolist()
    assert required_bytes(m, machine, 8).tolist() == [8 * 8]


def test_three_inner_coordinates_with_two_wide_strides():
    dom = la.Space(i=8)
    (i,) = dom.symbols
    # strides of (a, b, c) over (2, 2**40, 2**40): 2**80, 2**40, 1; a and b always 0
    m = la.IndexMap(dom, la.Space(pe=2, a=2, b=2**40, c=2**40),
                    [i % 2, sympy.floor(i / 16), 0, i // 2], name="deep")
    machine, data = _placed_cells(m)
    assert analyse(m, machine, 8, False).memory is not None
    cells = machine.storage.view(np.int64)
    for value, coord in zip(data, _python_images(m)):
        assert cells[coord[0], _python_offset(coord[1:], (2, 2**40, 2**40))] == value
    assert required_bytes(m, machine, 8).tolist() == [32, 32]


@pytest.mark.parametrize("separable", [True, False], ids=["tables", "per-element"])
def test_a_wide_stride_that_multiplies_one_is_a_capacity_error(separable):
    dom = la.Space(i=2, j=4)
    i, j = dom.symbols
    a = i if separable else sympy.floor(i * j / 3)       # 1 first at (i=1, j=0) / (i=1, j=3)
    m = la.IndexMap(dom, la.Space(pe=1, a=2, b=2**64), [0, a, 4 * i + j], name="far")
    machine = Machine.for_layout(m, capacity=CAPACITY, memory_dims=1, name="PE")
    with pytest.raises(CapacityError, match="far|PE"):
        place(np.arange(8, dtype=np.int64).reshape(2, 4), m, machine)
    with pytest.raises(CapacityError):
        required_bytes(m, machine, 8)


@settings(max_examples=60, deadline=None)
@given(d=st.integers(1, 16), wide=st.integers(2**40, 2**70), separable=st.booleans())
def test_random_wide_strides_place_or_refuse_as_python_says(d, wide, separable):
    """(i, j) on (pe=1, a=8, b=wide) with n = 4i + j: a = ⌊n/d⌋ or ⌊i/⌈d/4⌉⌋, b = n."""
    dom = la.Space(i=2, j=4)
    i, j = dom.symbols
    n = 4 * i + j
    a = sympy.floor(i / sympy.ceiling(sympy.Rational(d, 4))) if separable else sympy.floor(n / d)
    m = la.IndexMap(dom, la.Space(pe=1, a=8, b=wide), [0, a, n], name="rand")
    offsets = [_python_offset(c[1:], (8, wide)) for c in _python_images(m)]
    machine = Machine.for_layout(m, capacity=CAPACITY, memory_dims=1, name="PE")
    data = np.arange(8, dtype=np.int64).reshape(2, 4)
    if 8 * max(offsets) + 8 > CAPACITY:
        with pytest.raises(CapacityError):
            place(data, m, machine)
        return
    place(data, m, machine, fill=-1)
    cells = machine.storage.view(np.int64)[0]
    assert [int(cells[o]) for o in offsets] == list(range(8))
