"""Composition and conversion of linear layouts, exactly over GF(2).

:func:`convert` is ``a⁻¹ ∘ b`` (Triton's ``b.invertAndCompose(a)``). Triton picks
the smallest preimage when ``a`` holds an element twice and asserts when ``a``
misses one (``include/triton/Tools/LinearLayout.h``, triton-lang/triton); here
both are refused with the inputs that show why (``ConversionError``).
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.errors import ConversionError, LinearLayoutError
from layoutalg.linear import gf2
from layoutalg.linear.layout import LinearLayout, pack
from layoutalg.validate import instance_of
from layoutalg.verify.result import point_text


def check_layout(value: object, argument: str) -> LinearLayout:
    instance_of(LinearLayoutError, argument, value, LinearLayout)
    return value


def reorder_outs(layout: LinearLayout, names: tuple[str, ...], who: str) -> LinearLayout:
    """``layout`` with its out dims in the order ``names`` (the same set)."""
    if set(layout.out_names) != set(names) or len(names) != len(layout.out_names):
        raise LinearLayoutError(f"{who}: the layouts must have the same out dims; got "
                                f"{layout.out_names} and {names}")
    if layout.out_names == names:
        return layout
    index = [layout.out_names.index(n) for n in names]
    sizes = dict(layout.out_dims)
    bases = [(d, [[v[k] for k in index] for v in vs]) for d, vs in layout.bases]
    return LinearLayout(bases, [(n, sizes[n]) for n in names])


def compose(inner: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """``outer ∘ inner`` (Triton: ``inner.compose(outer)``); inner's out dims must be
    outer's in dims (any order), each no larger.

    >>> swap = LinearLayout({"i": [[0, 1], [1, 0]]}, {"a": 2, "b": 2})
    >>> back = LinearLayout({"a": [[0, 1]], "b": [[1, 0]]}, {"x": 2, "y": 2})
    >>> compose(swap, back)(i=1)
    (1, 0)
    """
    check_layout(inner, "compose: inner")
    check_layout(outer, "compose: outer")
    ins = dict(outer.in_dims)
    if set(inner.out_names) != set(ins):
        raise LinearLayoutError(f"compose: inner's out dims must be outer's in dims; got "
                                f"{inner.out_names} and {tuple(ins)}")
    for name, size in inner.out_dims:
        if size > ins[name]:
            raise LinearLayoutError(f"compose: inner's out dim {name!r} (size {size}) must fit "
                                    f"outer's in dim of size {ins[name]}")
    bases = [(d, [list(outer(**dict(zip(inner.out_names, v)))) for v in vs])
             for d, vs in inner.bases]
    return LinearLayout(bases, list(outer.out_dims))


@dataclass(frozen=True)
class Obstacle:
    """Why ``a⁻¹ ∘ b`` does not exist: two inputs of ``a`` on one element, or an
    input of ``b`` whose element ``a`` never holds."""

    kind: str                       # "not_injective" or "missing"
    point: dict[str, int]
    other: dict[str, int] | None
    element: tuple[int, ...]
    text: str


def conversion_obstacle(a: LinearLayout, b: LinearLayout, who: str = "convert",
                        a_name: str = "a", b_name: str = "b") -> Obstacle | None:
    """The first reason ``a⁻¹ ∘ b`` does not exist, or None when it does; errors and
    texts name the caller ``who`` and its arguments ``a_name``, ``b_name``."""
    b = reorder_outs(b, a.out_names, who)
    state = gf2.eliminate(a.columns)
    if state.kernel:
        point, zero, element = a.unflat_in(state.kernel[0]), a.unflat_in(0), a.unflat_out(0)
        return Obstacle("not_injective", zero, point, element,
                        f"{a_name} is not injective, so it is not invertible on {b_name}'s "
                        f"image: {point_text(zero, zero.values())} and "
                        f"{point_text(point, point.values())} of {a_name} both hold "
                        f"{point_text(a.out_names, element)}")
    for bit, column in enumerate(columns_in(b, a)):
        rest, _ = state.reduce(column)
        if rest:
            point = b.unflat_in(1 << bit)
            element = b(**point)
            return Obstacle("missing", point, None, element,
                            f"{b_name}'s element {point_text(b.out_names, element)} at "
                            f"{point_text(point, point.values())} is nowhere in {a_name}")
    return None


def columns_in(b: LinearLayout, a: LinearLayout) -> list[int]:
    """b's columns flattened with a's out sizes, up to the first basis with a value
    past a's size, kept as a high bit: never in a's span, never a column of a."""
    columns = []
    for _, vectors in b.bases:
        for vector in vectors:
            if any(v >= size for v, (_, size) in zip(vector, a.out_dims)):
                return columns + [1 << a.out_bits + 1]
            columns.append(pack(vector, a.out_dims))
    return columns


def convert(a: LinearLayout, b: LinearLayout) -> LinearLayout:
    """``a⁻¹ ∘ b``: for each input of ``b``, the input of ``a`` holding the same element
    (``a(convert(a, b)(x)) == b(x)``); ConversionError when ``a`` is not injective or
    misses an element of ``b``.

    >>> regs = LinearLayout({"lane": [[1], [2]]})
    >>> smem = LinearLayout({"offset": [[2], [1]]})
    >>> convert(smem, regs)(lane=1)
    (2,)
    """
    check_layout(a, "convert: a")
    check_layout(b, "convert: b")
    obstacle = conversion_obstacle(a, b)
    if obstacle is not None:
        raise ConversionError(f"convert(a, b): a⁻¹∘b does not exist: {obstacle.text}")
    b = reorder_outs(b, a.out_names, "convert")
    state = gf2.eliminate(a.columns)
    bases = [(name, [list(a.unflat_in(state.reduce(a.flat_out(v))[1]).values()) for v in vectors])
             for name, vectors in b.bases]
    return LinearLayout(bases, list(a.in_dims))


def free_variable_masks(layout: LinearLayout) -> dict[str, int]:
    """Per in dim, the bits that duplicate others (Triton's ``getFreeVariableMasks``): bit
    ``b`` is free when its basis lies in the span of the bases before it. The inputs
    with every free bit 0 hold each element of the image exactly once (triton PR
    #5840's ``isRepresentative`` for lanes).

    >>> tma = LinearLayout({"register": [[1], [2], [16], [0]], "lane": [[0], [0], [0]]})
    >>> free_variable_masks(tma)                  # register 8 repeats register 0; all lanes
    {'register': 8, 'lane': 7}
    """
    check_layout(layout, "free_variable_masks: layout")
    # each kernel vector ends at the column that was dependent
    free = sum(1 << (combo.bit_length() - 1) for combo in gf2.eliminate(layout.columns).kernel)
    return layout.unflat_in(free)


__all__ = ["columns_in", "compose", "conversion_obstacle", "convert", "free_variable_masks"]
