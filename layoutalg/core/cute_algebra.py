"""CuTe's layout algebra on :class:`CuteLayout` values, refusing what CuTe assumes.

The operations keep CuTe's definitions and names (NVIDIA CUTLASS
``include/cute/layout.hpp``, ``media/docs/cpp/cute/02_layout_algebra.md``;
pycute ``layout.py``): ``coalesce``, ``complement``, ``composition``,
``right_inverse`` and ``left_inverse`` here; the divides and products built
from them in :mod:`layoutalg.core.cute_tiling`. Each result is a plain
layout; what it must satisfy is proved by
:mod:`layoutalg.verify.cute_postconditions`.

Where CuTe only asserts a precondition (or pycute skips it and returns a
wrong layout), these functions check it and raise ``MapError`` naming the
mode and the sizes: a composition that is not a layout mode by mode is
refused with the first index where ``A(B(i))`` and the candidate differ.
"""

from __future__ import annotations

import functools
import itertools

from layoutalg.core.cute_layout import CuteLayout, IntTuple, as_layout, flatten
from layoutalg.core.tiling import colex_strides
from layoutalg.errors import MapError, describe
from layoutalg.validate import positive_int

Tiler = CuteLayout | int | str | tuple | None

# Up to this many indices, a composition whose modes may interfere is decided
# by evaluating both sides in Python ints; past it, it is refused (see _interference).
ENUMERATION_LIMIT = 1 << 16


def make_layout(*layouts: CuteLayout) -> CuteLayout:
    """The layouts side by side as the modes of one layout: ``(A, B)``."""
    parts = [as_layout(x, f"layouts[{k}]") for k, x in enumerate(layouts)]
    if not parts:
        raise MapError("make_layout: give at least one layout; got none")
    return CuteLayout(tuple(p.shape for p in parts), tuple(p.stride for p in parts))


def size(layout: object) -> int:
    """The size of the domain."""
    return as_layout(layout, "layout").size


def cosize(layout: object) -> int:
    """The size of the codomain: the largest offset plus one."""
    return as_layout(layout, "layout").cosize


def _flat(modes: list[tuple[int, int]]) -> CuteLayout:
    if len(modes) == 1:
        return CuteLayout(*modes[0])
    return CuteLayout(tuple(s for s, _ in modes), tuple(d for _, d in modes))


def coalesce(layout: object) -> CuteLayout:
    """The same function with the fewest flat modes.

    Size-1 modes go; a mode continuing the previous one (``d2 == s1·d1``)
    merges into it. Postcondition (proved by ``prove_coalesce``): the result
    is equivalent to ``layout`` and has the same size.

    >>> str(coalesce(CuteLayout((2, (1, 6)), (1, (6, 2)))))
    '12:1'
    """
    layout = as_layout(layout, "layout")
    modes: list[tuple[int, int]] = []
    for s, d in layout.leaves():
        if s == 1:
            continue
        if modes and modes[-1][0] * modes[-1][1] == d:
            modes[-1] = (modes[-1][0] * s, modes[-1][1])
        else:
            modes.append((s, d))
    return _flat(modes or [(1, 0)])


def coalesce_modes(layout: object) -> CuteLayout:
    """Each top-level mode coalesced on its own; the rank is kept (CuTe's profile ``(1,...,1)``)."""
    return make_layout(*(coalesce(mode) for mode in as_layout(layout, "layout").modes))


def filter_layout(layout: object) -> CuteLayout:
    """``layout`` without its stride-0 and size-1 modes, coalesced (CuTe's ``filter``)."""
    layout = as_layout(layout, "layout")
    kept = [(s, d) for s, d in layout.leaves() if s != 1 and d != 0]
    return coalesce(_flat(kept)) if kept else CuteLayout(1, 0)


def by_mode(operation, name: str, a: CuteLayout, tiler: tuple) -> CuteLayout:
    """``operation`` on ``a``'s modes and ``tiler``'s entries pairwise; None keeps a mode."""
    if len(tiler) > a.rank:
        raise MapError(f"{name}: the tiler {describe(tiler)} has {len(tiler)} modes, more than "
                       f"the {a.rank} of {a}")
    modes = [operation(a[k], t) for k, t in enumerate(tiler)]
    return make_layout(*modes, *a.modes[len(tiler):])


def mode_wise(argument: str):
    """Make ``operation(a, b)`` of two layouts take what CuTe's tilers take: ``b`` None
    (``a`` itself), a tuple of tilers (:func:`by_mode`), or a layout, int or string."""

    def wrap(operation):
        @functools.wraps(operation, assigned=("__module__", "__name__", "__qualname__",
                                             "__doc__"))
        def run(a: object, b: Tiler) -> CuteLayout:
            a = as_layout(a, "a")
            if b is None:
                return a
            if isinstance(b, tuple):
                return by_mode(run, operation.__name__, a, b)
            return operation(a, as_layout(b, argument))
        del run.__wrapped__  # the signature is run's: any tiler
        return run
    return wrap


@mode_wise("b")
def composition(a: CuteLayout, b: CuteLayout) -> CuteLayout:
    """``A ∘ B``: the layout ``R`` with ``R(i) == A(B(i))`` for every index of ``B``.

    ``b`` may be a layout, an int ``n`` (``n:1``), or a tuple of those (and
    None) composed mode by mode with ``a``'s modes. Where ``B`` reaches past
    ``size(A)``, ``A``'s last coalesced mode keeps counting, as in CuTe.

    Raises:
        MapError: a mode of ``B`` breaks CuTe's stride or shape divisibility
            condition against a mode of coalesced ``A`` (named, with sizes),
            or ``B``'s modes interfere in ``A`` so that no layout computed
            mode by mode is ``A ∘ B`` (the first index that differs is named).

    >>> str(composition(CuteLayout((6, 2), (8, 2)), CuteLayout((4, 3), (3, 1))))
    '((2,2),3):((24,2),8)'
    """
    a_modes = list(coalesce(a).leaves())
    leaves = iter(range(len(b.leaves())))

    def compose_modes(shape: IntTuple, stride: IntTuple) -> CuteLayout:
        if isinstance(shape, tuple):
            return make_layout(*(compose_modes(s, d) for s, d in zip(shape, stride)))
        return _compose_leaf(a, b, a_modes, next(leaves), shape, stride)

    result = compose_modes(b.shape, b.stride)
    _check_no_interference(a, b, a_modes, result)
    return result


def _compose_leaf(a, b, a_modes, j, s, d) -> CuteLayout:
    """``A ∘ (s:d)`` over coalesced ``A``, with CuTe's divisibility conditions."""
    if d == 0:
        return CuteLayout(s, 0)
    shapes, strides = [], []
    rest_s, rest_d = s, d
    for k, (ak, ek) in enumerate(a_modes[:-1]):
        if rest_s > 1 and ak % rest_d and rest_d % ak:
            raise MapError(
                f"composition: {a} ∘ {b} is not a layout: B's mode {j} ({s}:{d}) reaches "
                f"coalesced A's mode {k} (size {ak}) with stride {rest_d}, and {ak} and "
                f"{rest_d} must divide one another (CuTe's stride divisibility condition)")
        taken = min(max(1, ak // rest_d), rest_s)
        if rest_s > 1 and rest_s % taken:
            raise MapError(
                f"composition: {a} ∘ {b} is not a layout: B's mode {j} ({s}:{d}) takes "
                f"{taken} of coalesced A's mode {k} (size {ak}) and has {rest_s} left, "
                f"not a multiple of {taken} (CuTe's shape divisibility condition)")
        if taken != 1:
            shapes.append(taken)
            strides.append(rest_d * ek)
        rest_s //= taken
        rest_d = -(-rest_d // ak)
    if rest_s != 1 or not shapes:
        shapes.append(rest_s)
        strides.append(rest_d * a_modes[-1][1])
    return _flat(list(zip(shapes, strides)))


def _check_no_interference(a, b, a_modes, result) -> None:
    """Refuse ``result`` unless the sum of its modes is ``A ∘ B`` (right-distributivity).

    Each mode of ``result`` is exact on its own; their sum is ``A(B(i))``
    when ``A`` is linear (one coalesced mode) or when ``B``'s modes, sorted
    by stride, occupy disjoint ranges (``d2 >= s1·d1``): then no mode
    carries into another and, with the divisibility conditions, ``A``'s
    digits add. Otherwise (modes overlap) it is decided exactly.
    """
    if len(a_modes) == 1:
        return
    used = sorted((d, s) for s, d in b.leaves() if s > 1 and d > 0)
    if all(d2 >= d1 * s1 for (d1, s1), (d2, _) in itertools.pairwise(used)):
        return
    where = _interference(a, b, result)
    if where is not None:
        i, truth, got = where
        raise MapError(
            f"composition: {a} ∘ {b} is not a layout: B's modes overlap, and composed mode by "
            f"mode they give {result}, which differs from A(B(i)) at i={i}: A(B({i})) = "
            f"A({b.offset(i)}) = {truth}, but {result} gives {got}")


def _interference(a, b, result):
    """``(i, A(B(i)), result(i))`` at the first index that differs, or None.

    Decided by evaluating both sides in Python ints (exact); a ``B`` too
    large to evaluate is refused rather than guessed.
    """
    if b.size > ENUMERATION_LIMIT:
        raise MapError(f"composition: {a} ∘ {b}: B's modes overlap and B has {b.size} indices, "
                       f"more than the {ENUMERATION_LIMIT} this check evaluates; refusing rather "
                       f"than guessing. Fix: compose with B's modes one at a time")
    extended = extended_to(a, b.cosize)
    for i in range(b.size):
        truth = extended.offset(b.offset(i))
        if result.offset(i) != truth:
            return i, truth, result.offset(i)
    return None


def extended_to(a: CuteLayout, cover: int) -> CuteLayout:
    """``a`` itself if its domain holds ``[0, cover)``, else coalesced ``a`` with its
    last mode grown until it does: the function CuTe composes with."""
    if cover <= a.size:
        return a
    modes = list(coalesce(a).leaves())
    inner = a.size // modes[-1][0]
    modes[-1] = (-(-cover // inner), modes[-1][1])
    return _flat(modes)


def complement(layout: object, cosize_hi: int | None = None) -> CuteLayout:
    """The layout ``R`` of the offsets ``layout`` skips, up to ``cosize_hi``.

    ``R`` is ordered, ``R(j)`` for ``j >= 1`` is never an offset of the
    layout, ``(layout, R)`` is injective and reaches at least
    ``cosize_hi`` (default: the layout's cosize). Stride-0 and size-1 modes
    are ignored, as in CuTe.

    Raises:
        MapError: ``cosize_hi`` is not a positive int; the layout is not
            injective (a mode starts inside the range its smaller modes span);
            or a mode's stride is not a multiple of that range, so no layout
            fills the gaps (CuTe rounds down and misses offsets).

    >>> str(complement(CuteLayout(4, 2), 24))
    '(2,3):(1,8)'
    """
    layout = as_layout(layout, "layout")
    if cosize_hi is None:
        cosize_hi = layout.cosize
    cosize_hi = positive_int(MapError, "cosize_hi", cosize_hi, where="complement")
    modes, current = [], 1
    for d, s in sorted((d, s) for s, d in layout.leaves() if s != 1 and d != 0):
        if d < current:
            raise MapError(
                f"complement: {layout} is not injective: its mode {s}:{d} starts at offset {d}, "
                f"inside the {current} offsets its smaller modes already span")
        if d % current:
            raise MapError(
                f"complement: {layout} has no complement: its mode {s}:{d} starts at offset "
                f"{d}, not a multiple of the {current} offsets its smaller modes span, so the "
                f"gaps it leaves cannot be filled by one layout (CuTe and pycute return a "
                f"result that misses offsets: size(R) < cosize_hi / size(layout))")
        modes.append((d // current, current))
        current = s * d
    modes.append((-(-cosize_hi // current), current))
    return coalesce(_flat(modes))


def right_inverse(layout: object) -> CuteLayout:
    """``R`` with ``layout(R(i)) == i`` for every ``i < size(R)``, as large as CuTe finds.

    Follows CuTe: start at offset stride 1 and chain the modes whose stride
    is the span reached so far; ``1:0`` when no mode has stride 1.

    >>> str(right_inverse(CuteLayout((4, 2), (2, 1))))
    '(2,4):(4,1)'
    """
    layout = as_layout(layout, "layout")
    colex = colex_strides(flatten(layout.shape))
    modes, current = [], 1
    remaining = [(s, d, c) for (s, d), c in zip(layout.leaves(), colex) if s > 1]
    while (step := next((m for m in remaining if m[1] == current), None)) is not None:
        remaining.remove(step)
        modes.append((step[0], step[2]))
        current = step[0] * step[1]
    return coalesce(_flat(modes)) if modes else CuteLayout(1, 0)


def left_inverse(layout: object) -> CuteLayout:
    """``R`` with ``R(layout(i)) == i`` for every index of an injective layout.

    Raises:
        MapError: the layout is not injective.

    >>> str(left_inverse(CuteLayout(4, 2)))
    '(2,4):(4,1)'
    """
    layout = as_layout(layout, "layout")
    for s, d in layout.leaves():
        if s > 1 and d == 0:
            raise MapError(f"left_inverse: {layout} is not injective: its mode {s}:0 sends "
                           f"{s} indices to one offset")
    return right_inverse(make_layout(layout, complement(layout)))


__all__ = [
    "CuteLayout", "by_mode", "coalesce", "coalesce_modes", "complement", "composition", "cosize",
    "extended_to", "filter_layout", "left_inverse", "make_layout", "mode_wise", "right_inverse", "size",
]
