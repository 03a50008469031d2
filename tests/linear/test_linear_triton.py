"""layoutalg's linear layouts against Triton's own ``LinearLayout`` (the ``triton`` wheel).

Triton's Python module ``triton._C.libtriton.linear_layout`` exposes the C++
class (``lib/Tools/LinearLayout.cpp``): ``from_bases``, ``apply``,
``is_injective``, ``is_surjective``, ``is_invertible``, ``compose``,
``invert_and_compose``, ``str``. Random layouts go through both; every
answer must be equal. Skipped when triton is not installed (the ``triton``
extra). Triton asserts (aborting the process) when asked to invert what is
not invertible, so ``invert_and_compose`` is only called where layoutalg
says the conversion exists, and every layout is built with explicit out
sizes and ``require_surjective=False``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_linear_differential import any_layout, layouts
from test_linear_triton_truths import CTA_BROADCAST, GLUON_BROADCAST, MMA_V2_32x32

from layoutalg.linear import (
    LinearLayout,
    check_conversion,
    check_injective,
    check_invertible,
    check_surjective,
    compose,
    convert,
)

libtriton = pytest.importorskip("triton._C.libtriton")
TritonLayout = libtriton.linear_layout.LinearLayout


def to_triton(layout: LinearLayout):
    return TritonLayout.from_bases([(n, [list(v) for v in vs]) for n, vs in layout.bases],
                                   list(layout.out_names), [s for _, s in layout.out_dims],
                                   False)


def test_triton_exposes_its_linear_layout():
    t = to_triton(MMA_V2_32x32)
    assert LinearLayout.from_triton(t) == MMA_V2_32x32
    assert str(MMA_V2_32x32) == str(t)


@pytest.mark.parametrize("layout", [MMA_V2_32x32, CTA_BROADCAST, GLUON_BROADCAST])
def test_verdicts_on_triton_test_layouts(layout):
    t = to_triton(layout)
    assert check_injective(layout).proved == t.is_injective()
    assert check_surjective(layout).proved == t.is_surjective()
    assert check_invertible(layout).proved == t.is_invertible()


@settings(max_examples=150)
@given(any_layout)
def test_same_verdicts_values_and_text_as_triton(layout):
    t = to_triton(layout)
    assert check_injective(layout).proved == t.is_injective()
    assert check_surjective(layout).proved == t.is_surjective()
    assert check_invertible(layout).proved == t.is_invertible()
    assert str(layout) == str(t)
    assert LinearLayout.from_triton(t) == layout
    for flat in range(layout.in_size):
        point = layout.unflat_in(flat)
        theirs = t.apply(point)
        assert layout(**point) == tuple(theirs[n] for n in layout.out_names)


def same_everywhere(ours, theirs, domain, names) -> None:
    """Our layout and the Triton port's give the same point (``names`` of it) at every
    input of ``domain``."""
    for flat in range(domain.in_size):
        point = domain.unflat_in(flat)
        got = theirs.apply(point)
        assert ours(**point) == tuple(got[n] for n in names)


@settings(max_examples=100)
@given(any_layout, st.data())
def test_compose_as_triton(inner, data):
    widths = [s.bit_length() - 1 for _, s in inner.out_dims]
    outer = data.draw(layouts(in_dims=inner.out_names, out_bits=[2], in_bits=widths))
    ours = compose(inner, outer)
    theirs = to_triton(inner).compose(to_triton(outer))
    same_everywhere(ours, theirs, inner, ours.out_names)


@settings(max_examples=100)
@given(layouts(in_dims=("offset",), invertible=True), st.data())
def test_conversion_as_triton_invert_and_compose(a, data):
    b = data.draw(layouts(in_dims=("register", "lane"),
                          out_bits=[s.bit_length() - 1 for _, s in a.out_dims]))
    assert check_conversion(a, b).proved
    ours = convert(a, b)
    # Triton: C = B.invertAndCompose(A) satisfies B(x) = A(C(x)), i.e. C = A⁻¹∘B
    theirs = to_triton(b).invert_and_compose(to_triton(a))
    same_everywhere(ours, theirs, b, a.in_names)


@settings(max_examples=100)
@given(any_layout)
def test_out_sizes_inferred_as_triton_infers_them(layout):
    inferred = LinearLayout(layout.bases, list(layout.out_names))
    # Triton's inferring constructor asserts (aborts) on a layout that is not surjective
    # onto the inferred sizes, so it is only asked where layoutalg proves surjectivity.
    if not check_surjective(inferred).proved:
        return
    theirs = TritonLayout.from_bases([(n, [list(v) for v in vs]) for n, vs in layout.bases],
                                     list(layout.out_names))
    assert tuple(tuple(d) for d in theirs.out_dims) == inferred.out_dims
