"""The postcondition of each CuTe operation, proved on its result by the checks.

Each ``prove_*`` takes an operation's arguments and, optionally, a claimed
result (default: layoutalg's own), and returns a ``CheckResult``: PROVED
when the postcondition holds for every index (Z3, through
``check_equivalent`` / ``check_bijective`` / ``check_in_bounds`` on index
maps built by ``strided`` and ``compose``), REFUTED with the index where it
fails — so a wrong answer from elsewhere (pycute's, a paper's) is refuted,
not trusted. ``method="enumeration"`` asks the same questions of the
brute-force twins (``layoutalg.verify.brute``). Each function's docstring
states its postcondition; docs/cute.md tabulates them.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import time

from layoutalg.core import cute_algebra as cute
from layoutalg.core import cute_tiling as tiling
from layoutalg.core.cute import strided
from layoutalg.core.cute_layout import CuteLayout, as_layout
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import MapError
from layoutalg.validate import one_of
from layoutalg.verify import brute, checks
from layoutalg.verify.compose import compose
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status

METHODS = ("z3", "enumeration")

# Regroupings up to this size are checked by evaluating every index (exact);
# larger ones go to Z3 through compose and check_equivalent.
REGROUP_LIMIT = 1 << 16


def check_layout_equivalent(a: object, b: object, *, method: str = "z3", assume=(),
                            timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Do two layouts (or a layout and an index map) send every index to the same offset?

    Unlike ``check_equivalent``, different sizes are an answer, not an
    error: REFUTED ``sizes differ: 2 vs 3``, with the first index that only
    the larger one has. ``method="enumeration"`` is the brute-force twin
    (every ``prove_*`` below takes it too): the same question answered by
    ``layoutalg.verify.brute``. ``assume`` goes to Z3 with the question
    (contradictory assumptions: UNKNOWN, as everywhere); the twin takes none.

    >>> check_layout_equivalent("(2,2):(1,2)", "4:1").status
    <Status.PROVED: 'PROVED'>
    >>> check_layout_equivalent("2:1", "3:1").reason
    'sizes differ: 2 vs 3; index i=2 lies in one domain only'
    """
    check = _checks(method)
    first, second = _as_map(a, "a"), _as_map(b, "b")
    if not assume:
        n1, n2 = first.domain.extents[0], second.domain.extents[0]
        if n1 != n2:
            return _sizes_differ("equivalent", f"{first.label} ≡ {second.label}", n1, n2)
        return check.check_equivalent(first, second)
    if check is brute:
        raise MapError(f"check_layout_equivalent: method='enumeration' takes no assumptions; "
                       f"got assume={assume!r}")
    return check.check_equivalent(first, second, assume=assume, timeout_ms=timeout_ms)


def _sizes_differ(check: str, subject: str, n1: int, n2: int) -> CheckResult:
    return _refuted(check, subject, {"i": min(n1, n2)},
                    f"sizes differ: {n1} vs {n2}; index i={min(n1, n2)} lies in one domain only")


def prove_coalesce(layout: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """``coalesce(layout)`` has the same size and sends every index where ``layout`` does."""
    layout = as_layout(layout, "layout")
    result = cute.coalesce(layout) if result is None else as_layout(result, "result")
    return _named(check_layout_equivalent(result, layout, method=method), "coalesce")


def prove_composition(a: object, b: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """``result(i) == A(B(i))`` for every index of ``B`` (default result: ``composition``).

    ``A`` is read past its size as CuTe does (its last coalesced mode keeps
    counting) when ``B`` reaches past it. A tuple ``b`` is proved mode by mode.
    """
    a = as_layout(a, "a")
    if isinstance(b, tuple):
        result = cute.composition(a, b) if result is None else as_layout(result, "result")
        parts = [prove_composition(a[k], t, result[k], method=method)
                 for k, t in enumerate(b) if t is not None]
        return _all_of("composition", f"{result} = {a} ∘ {_text(b)}",
                       parts + _kept(a, b, result, method))
    b = as_layout(b, "b")
    result = cute.composition(a, b) if result is None else as_layout(result, "result")
    if result.size != b.size:
        return _sizes_differ("composition", f"{result} ≡ {a} ∘ {b}", result.size, b.size)
    return _named(check_layout_equivalent(result, composed_map(a, b), method=method),
                  "composition")


def composed_map(a: CuteLayout, b: CuteLayout) -> IndexMap:
    """``A ∘ B`` as an index map, built by ``compose`` from the two layouts' maps."""
    extended = cute.extended_to(a, b.cosize)
    label = f"{a} ∘ {b}" if extended is a else f"{a} (extended to {extended}) ∘ {b}"
    return _composed(b, extended.size, extended, label)


def prove_complement(layout: object, cosize_hi: int | None = None, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """``(filter(layout), R)`` is a bijection onto ``[0, N)``, ``N`` the least multiple of
    the layout's span (its largest ``shape·stride``) that is at least ``cosize_hi``.

    So ``R`` is injective, never meets the layout's offsets (but at 0), and
    together they fill every offset up to ``N`` exactly once, and no further.
    """
    layout = as_layout(layout, "layout")
    hi = layout.cosize if cosize_hi is None else cosize_hi
    result = cute.complement(layout, hi) if result is None else as_layout(result, "result")
    span = max([s * d for s, d in layout.leaves() if s > 1 and d > 0] or [1])
    target = -(-hi // span) * span
    both = cute.make_layout(cute.filter_layout(layout), result)
    if both.size != target:
        return _refuted("complement", f"({layout}, {result})", {"offset": min(both.size, target)},
                        f"({layout}, {result}) holds {both.size} offsets; the complement of "
                        f"{layout} in {hi} fills exactly [0, {target})")
    return _named(_checks(method).check_bijective(both.index_map(cosize=target)), "complement")


def _tiled(op):
    """Make a proof of ``R = op(A, B)`` for a layout ``B`` into one taking what ``op``
    takes: ``R`` defaults to ``op(A, tiler)``; with no tiler ``R ≡ A`` is proved, with a
    tuple of tilers mode by mode (the untiled modes kept)."""
    name = op.__name__

    def wrap(proof):
        @functools.wraps(proof, assigned=("__module__", "__name__", "__qualname__",
                                         "__doc__"))
        def run(a: object, tiler: object, result: object = None, *,
                method: str = "z3") -> CheckResult:
            a = as_layout(a, "a")
            result = op(a, tiler) if result is None else as_layout(result, "result")
            if tiler is None:
                return _named(check_layout_equivalent(result, a, method=method), name)
            if isinstance(tiler, tuple):
                parts = [run(a[k], t, result[k], method=method)
                         for k, t in enumerate(tiler) if t is not None]
                return _all_of(name, f"{result} = {name}({a}, {_text(tiler)})",
                               parts + _kept(a, tiler, result, method))
            return proof(a, as_layout(tiler, "tiler"), result, method=method)
        del run.__wrapped__  # the signature is run's: any tiler, R optional
        return run
    return wrap


@_tiled(tiling.logical_divide)
def prove_logical_divide(a: CuteLayout, b: CuteLayout, result: CuteLayout, *,
        method: str = "z3") -> CheckResult:
    """``R ≡ A ∘ (B, complement(B, size(A)))``, that complement proved (a tuple: by mode)."""
    rest = cute.complement(b, a.size)
    return _all_of("logical_divide", f"{result} = logical_divide({a}, {b})", [
        prove_complement(b, a.size, rest, method=method),
        prove_composition(a, cute.make_layout(b, rest), result, method=method)])


@_tiled(tiling.logical_product)
def prove_logical_product(a: CuteLayout, b: CuteLayout, result: CuteLayout, *,
        method: str = "z3") -> CheckResult:
    """``R = (A, C ∘ B)`` with ``C = complement(A, size(A)·cosize(B))``: both proved."""
    hi = a.size * b.cosize
    rest = cute.complement(a, hi)
    if result.rank != 2:
        return _refuted("logical_product", str(result), None,
                        f"{result} has rank {result.rank}; a logical product has 2 modes")
    return _all_of("logical_product", f"{result} = logical_product({a}, {b})", [
        _named(check_layout_equivalent(result[0], a, method=method), "logical_product"),
        prove_complement(a, hi, rest, method=method),
        prove_composition(rest, b, result[1], method=method)])


def prove_zipped_divide(a: object, tiler: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """``logical_divide`` proved, and ``R`` is it with the modes gathered."""
    return _regrouped("zipped_divide", a, tiler, result, lambda t: tiling.tile_unzip(t, tiler),
                      method)


def prove_tiled_divide(a: object, tiler: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """``logical_divide`` proved, and ``R`` is it with the modes gathered and unpacked."""
    def regroup(t):
        zipped = tiling.tile_unzip(t, tiler)
        return cute.make_layout(zipped[0], *zipped[1].modes)
    return _regrouped("tiled_divide", a, tiler, result, regroup, method)


def prove_blocked_product(block: object, tiler: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """The logical product proved, and ``R`` is it regrouped as ``(block_k, tiler_k)`` modes."""
    return _rank_product("blocked_product", block, tiler, result, True, method)


def prove_raked_product(block: object, tiler: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """The logical product proved, and ``R`` is it regrouped as ``(tiler_k, block_k)`` modes."""
    return _rank_product("raked_product", block, tiler, result, False, method)


def prove_right_inverse(layout: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """``L(R(i)) == i`` for every ``i < size(R)``."""
    return _inverse("right_inverse", layout, result, method)


def prove_left_inverse(layout: object, result: object = None, *,
        method: str = "z3") -> CheckResult:
    """``R(L(i)) == i`` for every ``i < size(L)``."""
    return _inverse("left_inverse", layout, result, method)


def _inverse(name: str, layout: object, result: object, method: str) -> CheckResult:
    """``outer ∘ inner`` is ``i ↦ i`` on ``inner``'s domain, ``inner``'s offsets lying in
    ``outer``'s domain: ``L ∘ R`` for a right inverse ``R``, ``R ∘ L`` for a left one."""
    layout = as_layout(layout, "layout")
    result = getattr(cute, name)(layout) if result is None else as_layout(result, "result")
    inner, outer = (result, layout) if name == "right_inverse" else (layout, result)
    check = _checks(method)
    outside = check.check_in_bounds(inner.index_map(cosize=outer.size))
    if not outside.proved:
        return _named(outside, name)
    round_trip = _composed(inner, outer.size, outer, f"{outer} ∘ {inner}")
    return _named(check.check_equivalent(round_trip, strided(inner.size, 1)), name)


# -- helpers --------------------------------------------------------------------------


def _composed(first: CuteLayout, cosize: int, then: CuteLayout, name: str) -> IndexMap:
    """``then ∘ first`` as an index map (``first`` read into ``[0, cosize)``), by ``compose``.

    When ``first`` is the identity of ``then``'s domain the answer is
    ``then``'s own map: composing would build a map equal to ``then`` (all
    but its name), which ``compose``'s memo then records as a part of
    itself and ``in_own_codomain`` recurses forever (a core bug, reported).
    """
    if first.size == then.size == cosize and cute.coalesce(first) in (
            CuteLayout(first.size, 1), CuteLayout(1, 0)):
        return then.index_map(name=name)
    return compose(first.index_map(cosize=cosize), then.index_map(), name=name)


def _checks(method: str):
    """The module answering the checks: ``layoutalg.verify.checks`` (Z3) or its twin ``brute``."""
    return checks if one_of(MapError, "method", method, METHODS) == "z3" else brute


def _rank_product(check, block, tiler, result, block_first, method):
    product, rank = tiling.rank_product_parts(block, tiler)
    made = tiling.blocked_product if block_first else tiling.raked_product
    result = made(block, tiler) if result is None else as_layout(result, "result")
    args = (tiling.append_modes(as_layout(block, "block"), rank),
            tiling.append_modes(as_layout(tiler, "tiler"), rank))
    first = prove_logical_product(*args, product, method=method)
    permutation = _permutation(product,
                               lambda t: tiling.zip_product(t, rank, block_first=block_first))
    return _all_of(check, f"{result} = {check}({block}, {tiler})",
                   [first, _as_regrouping(check, result, product, permutation, method)])


def _regrouped(check, a, tiler, result, regroup, method):
    a = as_layout(a, "a")
    logical_result = tiling.logical_divide(a, tiler)
    result = regroup(logical_result) if result is None else as_layout(result, "result")
    permutation = _permutation(logical_result, regroup)
    return _all_of(check, f"{result} = {check}({a}, {_text(tiler)})", [
        prove_logical_divide(a, tiler, logical_result, method=method),
        _as_regrouping(check, result, logical_result, permutation, method)])


def _permutation(layout: CuteLayout, regroup) -> CuteLayout:
    """The layout ``P`` with ``regroup(layout) ≡ layout ∘ P``: index → index of ``layout``.

    ``regroup`` only moves modes, so it is run on a copy of ``layout`` whose
    strides are the leaves' ordinals, which tells where each leaf went; ``P``
    sends a leaf's coordinate to its colexicographic step in ``layout``.
    """
    leaves = layout.leaves()
    labels = _relabel(layout.shape, iter(range(len(leaves))))
    moved = regroup(CuteLayout(layout.shape, labels))
    steps = list(itertools.accumulate((s for s, _ in leaves[:-1]), operator.mul, initial=1))
    strides = _relabel(moved.shape, iter(steps[label] if s > 1 else 0
                                         for s, label in moved.leaves()))
    return CuteLayout(moved.shape, strides)


def _relabel(shape, values):
    return tuple(_relabel(s, values) for s in shape) if isinstance(shape, tuple) else next(values)


def _as_regrouping(check, result, logical_result, permutation, method) -> CheckResult:
    """``result(i) == logical_result(P(i))`` for every index, by exhaustive evaluation.

    A regrouping only moves modes, and the flat-index maps of a permutation
    are hard for Z3 (seconds for a few hundred indices) and for SymPy's
    substitution; evaluating every index in Python ints is a complete proof
    over the finite domain and takes microseconds per index.
    """
    start = time.perf_counter()
    subject = f"{result} ≡ {logical_result} regrouped by {permutation}"
    if result.size != logical_result.size:
        return _refuted(check, subject, {"i": min(result.size, logical_result.size)},
                        f"sizes differ: {result.size} vs {logical_result.size}")
    if result.size > REGROUP_LIMIT:
        reference = _composed(permutation, logical_result.size, logical_result,
                              f"{logical_result} regrouped")
        return _named(check_layout_equivalent(result, reference, method=method), check)
    for i in range(result.size):
        want = logical_result.offset(permutation.offset(i))
        if result.offset(i) != want:
            return _refuted(check, subject, {"i": i},
                            f"they differ at (i={i}): {result} gives {result.offset(i)}, the "
                            f"regrouped {logical_result} gives {want}")
    return CheckResult(Status.PROVED, check, subject, None,
                       f"every one of the {result.size} indices goes where the regrouped "
                       f"layout sends it", time.perf_counter() - start, "enumeration")


def _kept(a: CuteLayout, tiler: tuple, result: CuteLayout, method: str) -> list[CheckResult]:
    """Modes a tuple tiler leaves alone (None, or past its end) must come out unchanged."""
    kept = [k for k, t in enumerate(tiler) if t is None] + list(range(len(tiler), a.rank))
    return [_named(check_layout_equivalent(result[k], a[k], method=method), "unchanged mode")
            for k in kept]


def _as_map(value: object, argument: str) -> IndexMap:
    return value if isinstance(value, IndexMap) else as_layout(value, argument).index_map()


def _named(result: CheckResult, check: str) -> CheckResult:
    return dataclasses.replace(result, check=check)


def _refuted(check, subject, counterexample, reason) -> CheckResult:
    return CheckResult(Status.REFUTED, check, subject, counterexample, reason, 0.0, "arithmetic")


def _all_of(check: str, subject: str, parts: list[CheckResult]) -> CheckResult:
    """PROVED when every part is; else the first part that is not (UNKNOWN is not a pass)."""
    start = time.perf_counter()
    for part in parts:
        if not part.proved:
            return CheckResult(part.status, check, subject, part.counterexample,
                               f"{part.check}({part.subject}): {part.reason}",
                               sum(p.seconds for p in parts), part.method)
    reasons = "; ".join(f"{p.check}: {p.reason}" for p in parts)
    return CheckResult(Status.PROVED, check, subject, None, reasons,
                       sum(p.seconds for p in parts) + time.perf_counter() - start)


def _text(tiler) -> str:
    if isinstance(tiler, tuple):
        return "(" + ", ".join(_text(t) for t in tiler) + ")"
    return "_" if tiler is None else str(as_layout(tiler, "tiler"))


__all__ = [
    "check_layout_equivalent", "composed_map", "prove_blocked_product", "prove_coalesce",
    "prove_complement", "prove_composition", "prove_left_inverse", "prove_logical_divide",
    "prove_logical_product", "prove_raked_product", "prove_right_inverse",
    "prove_tiled_divide", "prove_zipped_divide",
]
