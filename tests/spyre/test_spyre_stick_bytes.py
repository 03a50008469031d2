"""Which device bytes hold an element: ``device_offset_map``'s ``valid``, byte by byte.

A byte holds an element when it starts one (a multiple of the element size), its place in
the 128-byte stick lies inside the stick dim, and its device slot is not padding. The
stick-dim condition is left out of ``valid`` where every place of a stick meets it (a full
stick dim: 64 fp16, 32 fp32, 128 int8 elements); these tests check, on every byte, that
the valid bytes are exactly the bytes the host elements land on (the forward map, a
different formula), and that a stick dim shorter than a stick still rules out the places
past it (hand-worked: [2, 32] fp16 in a [2, 32] device grid, 64 of each stick's 128 bytes).
"""

from __future__ import annotations

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.spyre import SpyreLayout, default_layout
from layoutalg.spyre.defaults import parametric_default_map


@st.composite
def small_layouts(draw):
    size = draw(st.lists(st.integers(1, 9), min_size=1, max_size=3))
    if draw(st.booleans()):
        size[-1] = draw(st.integers(1, 140))  # more than one stick along the stick dim
    order = list(draw(st.permutations(range(len(size)))))
    if draw(st.booleans()):
        order.append(-1)  # sparse: one element per stick
    return default_layout(size, draw(st.sampled_from(["float16", "float32", "int8"])), order)


@settings(max_examples=60, deadline=None)
@given(small_layouts())
def test_the_valid_bytes_are_exactly_where_host_elements_land(layout):
    m = layout.device_offset_map()
    landing = {m(*h)[0]: h for h in itertools.product(*(range(n) for n in layout.size))}
    assert len(landing) == layout.numel  # the forward map is injective
    for byte in range(m.codomain.extents[0]):
        assert m.preimage(byte) == landing.get(byte), byte


def test_a_full_stick_dim_adds_no_condition_and_a_short_one_keeps_it():
    seed = SpyreLayout([128, 256, 512], "float16", [256, 8, 128, 64], [1, 2, 0, 2])
    conditions = sympy.And.make_args(seed.device_offset_map().valid)
    assert not any(isinstance(c, sympy.StrictLessThan) and c.rhs == 64 for c in conditions)
    short = SpyreLayout.unchecked([2, 32], "float16", [2, 32], [0, 1])
    m = short.device_offset_map()
    # stick 0 holds (0, 0..31) in bytes 0..62; bytes 64..127 are past the 32-element stick dim
    assert [m.preimage(b) for b in (0, 62, 64, 126, 128, 130)] == [
        (0, 0), (0, 31), None, None, (1, 0), (1, 1)]


def test_the_seed_layout_device_bytes_stay_a_bijection_onto_the_even_bytes():
    """specs/spyre.py seed_layout_device_bytes: 33,554,432 bytes, every even one an element."""
    seed = SpyreLayout([128, 256, 512], "float16", [256, 8, 128, 64], [1, 2, 0, 2])
    m = seed.device_offset_map()
    assert m.codomain.extents[0] == 33_554_432
    assert la.check_bijective(m).proved
    assert m.preimage(1) is None and m.preimage(33_554_430) == (127, 255, 511)


def test_symbolic_maps_bound_exactly_the_dims_whose_coverage_is_not_their_size():
    """parametric_default_map((S0, S1), E): device [⌈S1/E⌉, S0, E] by [1, 0, 1]; torch dim 0
    is covered exactly (S0 device rows: no bound), torch dim 1 by E·⌈S1/E⌉ ≥ S1 (bound
    E·dev0 + dev2 < S1). Bound to S0 = 3, S1 = 70, E = 64 it is default_layout([3, 70])
    slot for slot."""
    s0, s1, e = la.extents("S0 S1 E")
    m = parametric_default_map((s0, s1), e)
    dev0, _, dev2 = m.codomain.symbols
    assert set(sympy.And.make_args(m.valid)) == {sympy.Lt(e * dev0 + dev2, s1)}
    bound, concrete = m.bind(S0=3, S1=70, E=64), default_layout([3, 70]).index_map()
    assert bound.codomain.extents == concrete.codomain.extents == (2, 3, 64)
    for slot in itertools.product(range(2), range(3), range(64)):
        assert bound.preimage(*slot) == concrete.preimage(*slot)
