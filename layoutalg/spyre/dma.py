"""How torch-spyre's copy moves a Spyre layout, and the rule that keeps it from dividing by zero.

torch-spyre copies a tensor between host and device with loop nests built from the
layout (torch-spyre/torch-spyre ``torch_spyre/csrc/spyre_mem.cpp`` at commit
0583ae3aa6e63306941490db7232f08231abcd00: ``get_dim_map``, ``get_tile_map``,
``get_device_stride_infos``). Its host strides are the ``stride_map`` (1 where -1) and
its device strides the contiguous strides of ``device_size``: iteration ``idx`` moves
host element ``dot(idx, stride_map)`` to device slot ``idx``, where the layout puts it.
The dim_map it recovers (``get_dim_map``: each device dim of size > 1 gets the host dim
with the largest host stride not above its stride; device dim ``device_rank - 3`` is
re-read as the stick dim's tiles) only groups device dims under host dims to size the
loops. So a reading that differs from the layout's never moves an element elsewhere;
it can make a divisor ``stride_map[k] / stride[d]`` (C++ integer division) zero, which
killed the process with SIGFPE (torch-spyre#3401), or trip the copy's own
``TORCH_CHECK`` (a RuntimeError).

``copy_plan`` replays those divisions and loop sizes in Python ints;
``check_dma_rule`` refuses a layout whose copy would crash or stop (the torch-spyre
bridge runs it); ``check_dma_reading`` runs every iteration of the loop nests.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from layoutalg.core.tiling import dot, row_major_strides
from layoutalg.errors import SpyreError, TorchSpyreError
from layoutalg.spyre.dma_sparse import sparse_note
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.spyre.mapping import SYNTHETIC
from layoutalg.validate import instance_of, listed
from layoutalg.verify import query
from layoutalg.verify.claims import register_claim
from layoutalg.verify.result import CheckResult, Status

#: Most copy iterations ``check_dma_reading`` runs before it answers UNKNOWN.
MAX_ITERATIONS = 1 << 24


def dma_dim_map(size, stride, device_size, stride_map) -> tuple[int, ...]:
    """The dim_map torch-spyre's ``get_dim_map`` reads from a stride_map.

    ``-1`` where no host dim is read (size-1 device dims, ``-1`` strides).

    >>> dma_dim_map((5, 100, 150), (15000, 150, 1), (100, 3, 5, 64), (150, 64, 15000, 1))
    (1, 2, 0, 2)
    >>> dma_dim_map((1, 4, 4096, 128), (2097152, 524288, 128, 1), (1, 4, 128, 64, 64),
    ...             (2097152, 524288, 1, 8192, 128))
    (-1, 1, 2, 2, 2)
    """
    rank = len(stride_map)
    best = [0] * rank
    read = [SYNTHETIC] * rank
    for i, (extent, host_stride) in enumerate(zip(size, stride)):
        if extent == 1 or host_stride == 0:  # size-1 and expanded host dims are skipped
            continue
        for j in range(rank):
            if device_size[j] == 1:
                continue
            if best[j] < host_stride <= stride_map[j]:
                best[j], read[j] = host_stride, i
    tile = rank - 3 if rank > 2 else 0  # the device dim read as the stick dim's tiles
    if read[tile] != SYNTHETIC:
        read[tile] = read[rank - 1]
    return tuple(read)


@dataclass(frozen=True)
class CopyPlan:
    """What ``get_device_stride_infos`` computes for one layout.

    ``divisors``: ``(device dim, host dim, stride_map[k] / stride[d])`` for every
    quotient the copy divides by, in the order it does. ``boxes``: the loop nests
    it runs, each ``(sizes, host offset, device offset)`` over device dims.
    ``failure``: why the copy would not run (SIGFPE or its TORCH_CHECK), else None.
    """

    dim_map: tuple[int, ...]
    divisors: tuple[tuple[int, int, int], ...]
    boxes: tuple[tuple[tuple[int, ...], int, int], ...]
    failure: str | None


def copy_plan(size, stride, device_size, stride_map) -> CopyPlan:
    """Replay torch-spyre's ``get_device_stride_infos`` (spyre_mem.cpp, commit 0583ae3) in
    Python ints: its divisions, its checks and the loop nests it builds.

    >>> plan = copy_plan((10, 22), (22, 1), (10, 1, 64), (22, 22, 1))
    >>> plan.divisors, plan.boxes, plan.failure
    (((0, 1, 22), (2, 1, 1)), (((10, 1, 22), 0, 0),), None)
    """
    rank = len(stride_map)
    read = dma_dim_map(size, stride, device_size, stride_map)
    tiles = _tile_map(read, stride_map, len(size))
    host_strides = [1 if s == -1 else s for s in stride_map]
    device_strides = row_major_strides(device_size)
    loops = [device_size[k] if stride_map[k] == 0 else 1 for k in range(rank)]
    divisors, rests = [], []

    def plan(failure=None) -> CopyPlan:
        boxes = [(tuple(loops), 0, 0)]
        for rest, host_off, dev_off in rests:  # each remainder doubles the nests so far
            boxes += [(tuple(r or n for r, n in zip(rest, sizes)), h + host_off, d + dev_off)
                      for sizes, h, d in boxes]
        return CopyPlan(read, tuple(divisors), tuple(boxes) if failure is None else (), failure)

    for i in range(len(size) - 1, -1, -1):
        if not tiles[i]:
            continue
        host_stride, host_size = stride[i], size[i]
        for j in range(i - 1, -1, -1):  # fold the leading host dims with no tiles
            if tiles[j]:
                break
            if stride[j] != 0:
                host_size *= size[j]
        before = 1
        j = len(tiles[i]) - 1
        while j >= 0:
            k = tiles[i][j]
            tile_stride = _cdiv(host_strides[k], host_stride)
            if device_size[k] == 1:
                j -= 1
                continue
            if before == 0:
                return plan(f"SIGFPE: host_size % elements_before with elements_before = 0 at "
                            f"device dim {k} (the loops sized so far hold no element)")
            if host_size % before:
                return plan(f"RuntimeError (TORCH_CHECK): host_size {host_size} of torch dim {i} "
                            f"is not a multiple of the {before} elements of its outer tiles")
            current = host_size // before
            divisors.append((k, i, tile_stride))
            if tile_stride == 0:
                return plan(_zero(k, i, stride_map[k], host_stride))
            remaining = current // tile_stride
            if remaining <= 0:
                return plan(f"RuntimeError (TORCH_CHECK): device dim {k} steps "
                            f"{tile_stride} elements of torch dim {i}, more than its "
                            f"{current} (remaining elements 0)")
            if current % tile_stride == 0:
                loops[k] = min(remaining, device_size[k])
                before *= loops[k]
            else:
                if j == 0:
                    return plan(f"RuntimeError (TORCH_CHECK): 'Invalid tiling for dimension' "
                                f"{i}: device dim {k} leaves a remainder and no tile follows")
                j -= 1
                nxt = tiles[i][j]
                next_stride = _cdiv(host_strides[nxt], host_stride)
                divisors.append((nxt, i, next_stride))
                if next_stride == 0:
                    return plan(_zero(nxt, i, stride_map[nxt], host_stride))
                tiled = current // next_stride
                loops[k], loops[nxt] = remaining, device_size[nxt]
                before *= tiled
                rest = [0] * rank
                rest[k], rest[nxt] = 1, tiled % device_size[nxt]
                rests.append((rest, remaining * host_strides[k], remaining * device_strides[k]))
            j -= 1
    return plan()


def _tile_map(read, stride_map, host_rank) -> list[list[int]]:
    """``get_tile_map``: per host dim, its device dims by increasing stride (stick first)."""
    pairs = [{} for _ in range(host_rank)]
    rank = len(stride_map)
    if read[rank - 1] != SYNTHETIC:
        pairs[read[rank - 1]][-1] = rank - 1
    for k in range(rank - 2, -1, -1):
        if read[k] != SYNTHETIC:
            pairs[read[k]].setdefault(stride_map[k], k)  # std::map::insert keeps the first
    return [[pairs[d][s] for s in sorted(pairs[d])] for d in range(host_rank)]


def _cdiv(a: int, b: int) -> int:
    """C++ int64 division (truncates toward zero); b == 0 is left to the caller."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _zero(k: int, i: int, stride_k: int, host_stride: int) -> str:
    return (f"SIGFPE: the copy divides by stride_map[{k}] / {host_stride} = "
            f"{_cdiv(stride_k, host_stride)} (device dim {k} grouped under torch dim {i}, host "
            f"stride {host_stride}, by get_dim_map; torch-spyre#3401)")


def check_dma_rule(layout: SpyreLayout) -> None:
    """Raise ``TorchSpyreError`` if torch-spyre's copy of ``layout`` would divide by zero
    (SIGFPE) or stop at its own check.

    >>> from layoutalg.spyre import default_layout
    >>> check_dma_rule(default_layout([5, 100, 150]))  # the docs' example
    """
    instance_of(SpyreError, "layout", layout, SpyreLayout, where="check_dma_rule")
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    if plan.failure is None:
        return
    stride_map = layout.stride_map
    where = ""
    if plan.divisors and plan.divisors[-1][2] == 0:
        k, d, _ = plan.divisors[-1]
        put = layout.dim_map[k]
        where = (f"stride_map[{k}] = {stride_map[k]}: torch-spyre's DMA (spyre_mem.cpp "
                 f"get_dim_map) reads device dim {k} as torch dim {d} (host stride "
                 f"{layout.stride[d]})" + (f", but the layout puts torch dim {put} there"
                                           if put != d else "") + "; ")
    raise TorchSpyreError(
        f"{where}torch-spyre's copy cannot run this layout: {plan.failure}; got "
        f"device_size={listed(layout.device_size)}, stride_map={listed(stride_map)} for "
        f"size={listed(layout.size)}, stride={listed(layout.stride)}")


def dma_reading(layout: SpyreLayout) -> SpyreLayout:
    """The layout with the dim_map ``get_dim_map`` reads, unchecked. The copy sizes its
    loops by this grouping; it does not place elements by it (it places them by the
    stride_map, as the layout does)."""
    instance_of(SpyreError, "layout", layout, SpyreLayout, where="dma_reading")
    read = dma_dim_map(layout.size, layout.stride, layout.device_size, layout.stride_map)
    return SpyreLayout.unchecked(layout.size, layout.dtype, layout.device_size, read,
                                 stride=layout.stride)


def check_dma_reading(layout: SpyreLayout, *, assume=(), timeout_ms: int | None = None
                      ) -> CheckResult:
    """torch-spyre's copy moves every host element exactly once to the slot the layout
    gives it, and reads no host offset outside the tensor.

    Decided by running every iteration of the copy's loop nests (``copy_plan``) against
    the layout's map of every host element (plain ints: the layouts are concrete);
    REFUTED names the zero divisor, the check the copy stops at, or the host element
    (``dma_sparse`` says why a sparse layout's copy loses some); UNKNOWN past
    ``MAX_ITERATIONS``. ``assume``: the layouts are concrete, so assumptions
    only gate the answer (contradictory ones: UNKNOWN, as everywhere).

    >>> from layoutalg.spyre import default_layout
    >>> check_dma_reading(default_layout([5, 100, 150])).status
    <Status.PROVED: 'PROVED'>
    """
    start = time.perf_counter()
    instance_of(SpyreError, "layout", layout, SpyreLayout, where="check_dma_reading")
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    subject = (f"{layout.label} as torch-spyre's copy moves it (loops grouped by dim_map "
               f"{listed(plan.dim_map)})")

    def verdict(status, counterexample, reason) -> CheckResult:
        return CheckResult(status, "spyre_dma_reading", subject, counterexample, reason,
                           time.perf_counter() - start, method="enumeration")

    if assume:  # under assumptions no size meets, nothing is proved or refuted
        possible = query.assumptions_met(assume=assume,
                                         timeout_ms=timeout_ms or query.DEFAULT_TIMEOUT_MS)
        if possible.answer == "unknown":
            return query.unknown("spyre_dma_reading", subject, start, possible)

    if plan.failure is not None:
        k, d, q = plan.divisors[-1] if plan.divisors else (-1, -1, -1)
        example = {"device_dim": k, "torch_dim": d, "divisor": q}  # the last division run
        return verdict(Status.REFUTED, example, f"the copy cannot run: {plan.failure}")
    iterations = sum(math.prod(sizes) for sizes, _, _ in plan.boxes)
    if max(iterations, layout.numel) > MAX_ITERATIONS:
        return verdict(Status.UNKNOWN, None, f"{iterations:,} copy iterations, past the "
                                             f"{MAX_ITERATIONS:,} this check runs")
    found = _compare(layout, plan)
    if found is None:
        return verdict(Status.PROVED, None,
                       f"the copy's {len(plan.boxes)} loop nest(s) move all {layout.numel:,} "
                       f"host elements, each once, to the layout's slots")
    counterexample, reason = found  # a sparse layout in the dim_map form: say why
    return verdict(Status.REFUTED, counterexample, reason + sparse_note(
        layout.device_size, layout.stride_map, plan.dim_map, layout.dim_map))


def _compare(layout: SpyreLayout, plan: CopyPlan):
    """None if the copy's moves are exactly the layout's, else (counterexample, reason).

    The first finding in a fixed order: a read outside the tensor (loop order); the
    lowest device slot written twice; the lowest slot written that holds no element;
    the first host element (row-major) not moved to its slot. Two equal procedures find
    it: :func:`_scatter_finding` indexes by device slot (linear; while the slots span at
    most ``DENSE_SPAN`` times the moves), :func:`_sorted_finding` sorts by slot.
    """
    host_strides = [1 if s == -1 else s for s in layout.stride_map]
    dev_strides = row_major_strides(layout.device_size)
    src = np.concatenate([(h + _grid_sum(n, host_strides)).ravel() for n, h, _ in plan.boxes])
    dst = np.concatenate([(d + _grid_sum(n, dev_strides)).ravel() for n, _, d in plan.boxes])
    host = np.ogrid[tuple(slice(0, n) for n in layout.size)]
    (want_dst,) = layout.device_offset_map().apply(*host)
    want_dst = np.asarray(want_dst, dtype=np.int64).ravel() // layout.itemsize
    want_src = _grid_sum(layout.size, layout.stride).ravel()
    extent = layout.torch_layout.extent()
    outside = np.flatnonzero((src < 0) | (src >= extent))
    if outside.size:
        n = outside[0]
        return ({"host_offset": int(src[n]), "device_offset": int(dst[n])},
                (f"the copy reads host offset {int(src[n])} (outside the tensor's {extent} "
                 f"elements) into device slot {int(dst[n])}"))
    find = _scatter_finding if _dense(dst, want_dst) else _sorted_finding
    found = find(dst, src, want_dst, want_src)
    if found is None:
        return None
    kind, slot, n, got = found
    if kind == "twice":
        return ({"device_offset": slot}, f"the copy writes device slot {slot} more than once")
    if kind == "stray":  # the device-to-host copy runs the same moves back: padding onto data
        return ({"host_offset": got, "device_offset": slot},
                (f"the copy moves host offset {got} to device slot {slot}, which holds no "
                 f"element of the layout (so the copy back writes it over host offset {got})"))
    point = np.unravel_index(n, layout.size)
    coords = {f"h{k}": int(point[k]) for k in range(layout.rank)}
    what = (f"writes host offset {got} there instead" if got is not None else "never writes it")
    return (coords, (f"host element {tuple(coords.values())} belongs at device slot "
                     f"{slot}; the copy {what}"))


#: ``_compare`` indexes by device slot while the slots span at most this many times the
#: moves (dense and stick-padded layouts); sparse layouts (64 slots per element) sort.
DENSE_SPAN = 4


def _dense(dst: np.ndarray, want_dst: np.ndarray) -> bool:
    slots = np.concatenate([dst, want_dst])
    return bool(slots.size) and 0 <= slots.min() and (
        slots.max() < DENSE_SPAN * max(dst.size, want_dst.size))


def _scatter_finding(dst, src, want_dst, want_src):
    """``_compare``'s finding by arrays indexed by device slot: ``(kind, slot, host
    element index, host offset or None)`` or None. Needs ``src >= 0`` and every slot in
    ``[0, span)``."""
    span = max(int(dst.max(initial=0)), int(want_dst.max(initial=0))) + 1
    writes = np.bincount(dst, minlength=span)
    twice = np.flatnonzero(writes > 1)
    if twice.size:
        return "twice", int(twice[0]), None, None
    owner = np.full(span, -1, dtype=np.int64)
    owner[dst] = src
    holds = np.zeros(span, dtype=bool)
    holds[want_dst] = True
    stray = np.flatnonzero((writes > 0) & ~holds)
    if stray.size:
        slot = int(stray[0])
        return "stray", slot, None, int(owner[slot])
    got = owner[want_dst]
    wrong = np.flatnonzero((got < 0) | (got != want_src))  # -1: the slot is never written
    if wrong.size:
        n = int(wrong[0])
        return "wrong", int(want_dst[n]), n, (int(got[n]) if got[n] >= 0 else None)
    return None


def _sorted_finding(dst, src, want_dst, want_src):
    """``_compare``'s finding by sorting the moves by device slot (see :func:`_scatter_finding`)."""
    order = np.argsort(dst, kind="stable")
    dst, src = dst[order], src[order]
    twice = np.flatnonzero(dst[1:] == dst[:-1])
    if twice.size:
        return "twice", int(dst[twice[0]]), None, None
    stray = np.flatnonzero(~np.isin(dst, want_dst))
    if stray.size:
        n = stray[0]
        return "stray", int(dst[n]), None, int(src[n])
    if not dst.size:
        return ("wrong", int(want_dst[0]), 0, None) if want_dst.size else None
    at = np.minimum(np.searchsorted(dst, want_dst), dst.size - 1)
    written = dst[at] == want_dst
    wrong = np.flatnonzero(~written | (src[at] != want_src))
    if wrong.size:
        n = int(wrong[0])
        return "wrong", int(want_dst[n]), n, (int(src[at[n]]) if written[n] else None)
    return None


def _grid_sum(sizes, strides) -> np.ndarray:
    """``sum(i_k * strides[k])`` over the grid ``sizes``, as an int64 array of that shape."""
    grid = np.ogrid[tuple(slice(0, n) for n in sizes)]
    return np.broadcast_to(dot([i.astype(np.int64) for i in grid], strides), tuple(sizes))


register_claim("spyre_dma_reading", check_dma_reading, index_map=False)

__all__ = ["MAX_ITERATIONS", "CopyPlan", "check_dma_reading", "check_dma_rule", "copy_plan",
           "dma_dim_map", "dma_reading"]
