"""Triton's layout encodings as linear layouts: ``#ttg.blocked`` and ``#ttg.swizzled_shared``.

The rules are Triton's ``toLinearLayout`` (triton-lang/triton
``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp``) for one CTA
(``CTAsPerCGA`` all 1); docs/linear.md states them. Pinned against
``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp`` and compared
with Triton's own conversion when the wheel is installed.
"""

from __future__ import annotations

from collections.abc import Sequence

from layoutalg.errors import LinearLayoutError, describe
from layoutalg.linear.layout import LinearLayout
from layoutalg.validate import is_int, positive_int, power_of_two


def _powers(values: object, argument: str, who: str, rank: int | None = None) -> list[int]:
    if not isinstance(values, (list, tuple)) or not values or (
            rank is not None and len(values) != rank):
        wanted = f"{rank} " if rank is not None else ""
        raise LinearLayoutError(f"{who}: {argument} must be a list of {wanted}powers of two; got "
                                f"{describe(values)}")
    return [power_of_two(LinearLayoutError, f"{argument}[{k}]", v, where=who)
            for k, v in enumerate(values)]


def _order(order: object, rank: int, who: str) -> list[int]:
    if not isinstance(order, (list, tuple)) or not all(is_int(o) for o in order) or sorted(
            order) != list(range(rank)):
        raise LinearLayoutError(f"{who}: order must be a permutation of range({rank}) (minor "
                                f"dim first); got {describe(order)}")
    return [int(o) for o in order]


def _unit(rank: int, dim: int, value: int) -> list[int]:
    return [value if d == dim else 0 for d in range(rank)]


def _identity(sizes: Sequence[int], order: Sequence[int],
              below: Sequence[int] | None = None) -> list[list[int]]:
    """Bases covering ``sizes`` dim by dim in ``order`` (Triton's identityStandardND),
    above the ``below[d]`` elements of each dim an inner level already covers."""
    below = below or [1] * len(sizes)
    return [_unit(len(sizes), d, below[d] << j) for d in order
            for j in range(sizes[d].bit_length() - 1)]


def blocked(size_per_thread: Sequence[int], threads_per_warp: Sequence[int],
            warps_per_cta: Sequence[int], order: Sequence[int],
            shape: Sequence[int]) -> LinearLayout:
    """``#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>`` on ``shape``:
    registers, then lanes, then warps cover their sizes dim by dim in ``order`` (minor
    first); a larger tensor repeats in more registers, a smaller one turns lane and
    warp bases past it into 0 (broadcast) and drops such registers.

    >>> blocked([1], [4], [4], [0], [16])        # LinearLayoutConversionsTest SimpleBlocked
    LinearLayout({'register': [], 'lane': [[1], [2]], 'warp': [[4], [8]], 'block': []}, out_dims={'dim0': 16})
    """
    who = "blocked"
    shape = _powers(shape, "shape", who)
    rank = len(shape)
    spt = _powers(size_per_thread, "size_per_thread", who, rank)
    tpw = _powers(threads_per_warp, "threads_per_warp", who, rank)
    wpc = _powers(warps_per_cta, "warps_per_cta", who, rank)
    order = _order(order, rank, who)
    registers = _identity(spt, order)
    lanes = _identity(tpw, order, spt)
    warps = _identity(wpc, order, [s * t for s, t in zip(spt, tpw)])
    covered = [s * t * w for s, t, w in zip(spt, tpw, wpc)]
    # a larger tensor repeats in registers, above what one CTA covers
    registers += _identity([max(n // c, 1) for n, c in zip(shape, covered)], order, covered)

    def fit(bases):  # a smaller tensor: bases past its size broadcast
        return [[v if v < shape[d] else 0 for d, v in enumerate(b)] for b in bases]

    # a register past the tensor would repeat an element the thread already holds: dropped
    # (Triton 3.x; older Triton kept it as a zero basis, e.g. LinearLayoutConversionsTest's
    # Blocked4D at commit 00dbc5c)
    registers = [b for b in fit(registers) if any(b)]
    return LinearLayout([("register", registers), ("lane", fit(lanes)),
                         ("warp", fit(warps)), ("block", [])],
                        [(f"dim{d}", s) for d, s in enumerate(shape)])


def swizzled_shared(vec: int, per_phase: int, max_phase: int, order: Sequence[int],
                    shape: Sequence[int]) -> LinearLayout:
    """``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`` on ``shape``: ``(offset,
    block) → (dim0, …)``. Offsets run along ``order[0]``, then ``order[1]``; the offset
    bit of row ``2**j`` has basis ``(2**j, vec·((2**j / perPhase) mod maxPhase) mod
    numCols)`` (Triton's rule; a row XORs the bases of its set bits).

    >>> swizzled_shared(1, 1, 4, [0, 1], [4, 8]).bases[0]   # ...Test SharedSwizzled2D_Order01
    ('offset', ((1, 0), (2, 0), (1, 1), (2, 2), (0, 4)))
    """
    who = "swizzled_shared"
    shape = _powers(shape, "shape", who)
    rank = len(shape)
    for name, value in (("vec", vec), ("per_phase", per_phase), ("max_phase", max_phase)):
        positive_int(LinearLayoutError, name, value, where=who)
    order = _order(order, rank, who)
    col, rows = order[0], shape[order[1]] if rank > 1 else 1
    offsets = _identity(shape, order[:1])       # the columns, then each row 2**j swizzled
    for j in range(rows.bit_length() - 1):
        basis = _unit(rank, order[1], 1 << j)
        basis[col] = (vec * (((1 << j) // per_phase) % max_phase)) % shape[col]
        offsets.append(basis)
    offsets += _identity(shape, order[2:])
    return LinearLayout([("offset", offsets), ("block", [])],
                        [(f"dim{d}", s) for d, s in enumerate(shape)])


__all__ = ["blocked", "swizzled_shared"]
