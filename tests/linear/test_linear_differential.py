"""GF(2) rank against enumeration, on random small linear layouts.

Every check of :mod:`layoutalg.linear` runs beside its twin in
``tests/oracles/linear.py`` (which tabulates the layout from its bases and
looks); the verdicts must agree, and every counterexample is replayed with
plain integer XOR written here. Conversions are checked on every input:
``a(convert(a, b)(x)) == b(x)``; compositions against evaluating one layout
after the other; CuTe equivalence against plain CuTe evaluation.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.linear import (
    ConversionError, LinearLayout, bank_conflicts, check_conversion, check_equivalent,
    check_injective, check_invertible, check_surjective, compose, convert, free_variable_masks,
)
from oracles import linear as brute

IN_DIMS = ("register", "lane", "warp", "block")


def plain_apply(layout: LinearLayout, point: dict[str, int]) -> tuple[int, ...]:
    """L(point) by the header's rule, written out: XOR the bases of the set bits."""
    out = [0] * len(layout.out_dims)
    for name, vectors in layout.bases:
        for j, vector in enumerate(vectors):
            if point.get(name, 0) >> j & 1:
                out = [a ^ b for a, b in zip(out, vector)]
    return tuple(out)


@st.composite
def layouts(draw, in_dims=IN_DIMS, max_bits=7, invertible=None, out_bits=None, in_bits=None):
    """A random layout; ``invertible=True`` draws a permutation of the unit vectors;
    ``in_bits`` fixes the number of bases per in dim."""
    out_widths = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)) if out_bits is None \
        else out_bits
    total_out = sum(out_widths)
    if invertible:
        counts = _split(draw, total_out, len(in_dims))
        units = draw(st.permutations(list(range(total_out))))
        mixed = draw(st.integers(0, 2 ** 16))
        columns = _mix([1 << u for u in units], mixed)
    else:
        counts = list(in_bits) if in_bits is not None else [draw(st.integers(0, 2))
                                                              for _ in in_dims]
        while in_bits is None and sum(counts) > max_bits:
            counts[counts.index(max(counts))] -= 1
        columns = [draw(st.integers(0, (1 << total_out) - 1)) for _ in range(sum(counts))]
    names = [f"dim{k}" for k in range(len(out_widths))]
    bases, k = [], 0
    for name, count in zip(in_dims, counts):
        bases.append((name, [_unflat(columns[k + j], out_widths) for j in range(count)]))
        k += count
    return LinearLayout(bases, [(n, 1 << w) for n, w in zip(names, out_widths)])


def _split(draw, total, parts):
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=parts - 1,
                                max_size=parts - 1)))
    return [b - a for a, b in zip([0] + cuts, cuts + [total])]


def _mix(columns, seed):
    """Random invertible column operations (column i ^= column j): still a bijection."""
    rng = random.Random(seed)
    columns = list(columns)
    for _ in range(len(columns) * 2):
        if len(columns) > 1:
            i, j = rng.sample(range(len(columns)), 2)
            columns[i] ^= columns[j]
    return columns


def _unflat(value, widths):
    out = []
    for w in widths:
        out.append(value & ((1 << w) - 1))
        value >>= w
    return out


any_layout = st.one_of(layouts(), layouts(invertible=True))


@given(any_layout)
def test_evaluation_is_the_headers_rule(layout):
    for flat in range(layout.in_size):
        point = layout.unflat_in(flat)
        assert layout(**point) == plain_apply(layout, point)


@given(any_layout)
def test_rank_checks_agree_with_enumeration(layout):
    for fast, slow in ((check_injective, brute.check_injective),
                       (check_surjective, brute.check_surjective),
                       (check_invertible, brute.check_invertible)):
        a, b = fast(layout), slow(layout)
        assert a.status == b.status, (fast.__name__, layout, a, b)
        assert a.method == "gf2-rank" and b.method == "enumeration"
    injective = check_injective(layout)
    if injective.refuted:
        ce = injective.counterexample
        first = {n: ce[n] for n in layout.in_names}
        second = {n: ce[n + "'"] for n in layout.in_names}
        assert first != second and plain_apply(layout, first) == plain_apply(layout, second)
    surjective = check_surjective(layout)
    if surjective.refuted:
        element = tuple(surjective.counterexample[n] for n in layout.out_names)
        assert all(plain_apply(layout, layout.unflat_in(x)) != element
                   for x in range(layout.in_size))


@given(layouts(invertible=True), st.data())
def test_conversion_holds_on_every_input(a, data):
    b = data.draw(layouts(in_dims=("register", "lane"),
                          out_bits=[s.bit_length() - 1 for _, s in a.out_dims]))
    verdict = check_conversion(a, b)
    assert verdict.status == brute.check_conversion(a, b).status
    assert verdict.proved     # a is invertible: every element of b has one place in a
    c = convert(a, b)
    for flat in range(b.in_size):
        x = b.unflat_in(flat)
        assert plain_apply(a, dict(zip(a.in_names, c(**x)))) == plain_apply(b, x)


@given(any_layout, st.data())
def test_conversion_refusals_agree_with_enumeration(a, data):
    b = data.draw(layouts(in_dims=("lane",), out_bits=[s.bit_length() - 1
                                                       for _, s in a.out_dims]))
    fast, slow = check_conversion(a, b), brute.check_conversion(a, b)
    assert fast.status == slow.status
    if fast.refuted:
        try:
            convert(a, b)
        except ConversionError:
            pass
        else:
            raise AssertionError("convert built a conversion check_conversion refuted")


@given(any_layout, st.data())
def test_compose_is_evaluation_after_evaluation(inner, data):
    widths = [s.bit_length() - 1 for _, s in inner.out_dims]
    outer = data.draw(layouts(in_dims=inner.out_names, out_bits=[2], in_bits=widths))
    both = compose(inner, outer)
    for flat in range(inner.in_size):
        x = inner.unflat_in(flat)
        middle = dict(zip(inner.out_names, plain_apply(inner, x)))
        assert both(**x) == plain_apply(outer, middle)


@settings(max_examples=60)
@given(any_layout)
def test_equivalence_with_itself_and_a_changed_copy(layout):
    assert check_equivalent(layout, layout).proved
    if layout.in_bits == 0 or layout.out_bits == 0:
        return
    bases = [(n, [list(v) for v in vs]) for n, vs in layout.bases]
    name, vectors = next((n, vs) for n, vs in bases if vs)
    vectors[-1][0] ^= 1 if layout.out_dims[0][1] > 1 else 0
    changed = LinearLayout(bases, list(layout.out_dims))
    fast, slow = check_equivalent(layout, changed), brute.check_equivalent(layout, changed)
    assert fast.status == slow.status
    if fast.refuted:
        point = {n: fast.counterexample[n] for n in layout.in_names}
        assert plain_apply(layout, point) != plain_apply(changed, point)


@st.composite
def power_of_two_cute(draw):
    """A CuTe layout with power-of-two modes and small strides (often a linear one)."""
    rank = draw(st.integers(1, 3))
    shape = tuple(1 << draw(st.integers(0, 2)) for _ in range(rank))
    stride = tuple(draw(st.sampled_from([0, 1, 2, 3, 4, 8, 16, 5])) for _ in range(rank))
    return la.CuteLayout(shape, stride)


@given(power_of_two_cute())
def test_cute_equivalence_agrees_with_enumeration(cute):
    bits = cute.size.bit_length() - 1
    top = max(cute(i) for i in range(cute.size))
    # the linear layout that agrees with cute on every 2**b, XOR elsewhere
    layout = LinearLayout({"i": [[cute(1 << b)] for b in range(bits)]},
                          {"dim0": 1 << max(top, 1).bit_length()})
    fast, slow = check_equivalent(layout, cute), brute.check_equivalent(layout, cute)
    assert fast.status == slow.status, (cute, fast, slow)
    if fast.refuted:
        i = fast.counterexample["i"]
        xor = 0
        for b in range(bits):
            if i >> b & 1:
                xor ^= cute(1 << b)
        assert xor != cute(i)   # plain ints: the XOR of the bases is not CuTe's sum


@st.composite
def conversions_through_shared(draw):
    """Register layouts (4..32 lanes) and an invertible shared layout of the same tensor."""
    shared = draw(layouts(in_dims=("offset",), invertible=True, out_bits=[
        draw(st.integers(3, 5)), draw(st.integers(2, 4))]))
    widths = [s.bit_length() - 1 for _, s in shared.out_dims]
    total = sum(widths)
    lane_bits = draw(st.integers(min(2, total), min(5, total)))
    units = _mix([1 << u for u in draw(st.permutations(list(range(total))))],
                 draw(st.integers(0, 2 ** 16)))
    lanes, regs = units[:lane_bits], units[lane_bits:]
    registers = LinearLayout([("register", [_unflat(c, widths) for c in regs]),
                              ("lane", [_unflat(c, widths) for c in lanes])],
                             list(shared.out_dims))
    return registers, shared


@given(conversions_through_shared(), st.sampled_from([1, 2, 4, 8, 16]))
def test_bank_conflict_degree_agrees_with_enumeration(pair, element_bytes):
    registers, shared = pair
    found = bank_conflicts(registers, shared, element_bytes=element_bytes)
    assert found.degree == brute.bank_conflict_degree(registers, shared,
                                                      element_bytes=element_bytes)
    if found.degree > 1:
        lane = found.witness["lane'"]
        element = plain_apply(registers, {"lane": lane})
        offset = next(o for o in range(shared.in_size)
                      if plain_apply(shared, {"offset": o}) == element)
        address = offset * element_bytes
        unit = max(4, element_bytes)
        assert (address // unit) % (128 // unit) == 0 and address // unit != 0


@given(any_layout)
def test_free_variables_leave_one_representative_per_element(layout):
    """LinearLayout.h on getFreeVariableMasks: "If all of the free variables are 0, then
    the layout is injective"; and the representatives still hold the whole image."""
    masks = free_variable_masks(layout)
    image = {plain_apply(layout, layout.unflat_in(x)) for x in range(layout.in_size)}
    held = []
    for flat in range(layout.in_size):
        point = layout.unflat_in(flat)
        if all(point[n] & masks[n] == 0 for n in layout.in_names):
            held.append(plain_apply(layout, point))
    assert len(held) == len(set(held)) and set(held) == image
    assert (sum(m.bit_count() for m in masks.values()) == 0) == check_injective(layout).proved
