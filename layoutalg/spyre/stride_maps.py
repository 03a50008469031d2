"""The two forms of a Spyre layout: ``dim_map`` and ``stride_map`` (docs/spyre.md).

``stride_map[k]`` is the host element stride of one step along device dim ``k``: a
valid slot holds host offset ``dot(device coordinate, stride_map)``; ``-1`` marks a
device dim that moves no host coordinate (the synthetic dim, a size-1 torch dim).
"""

from __future__ import annotations

import sympy

from layoutalg.errors import StrideMapError, describe
from layoutalg.spyre.mapping import SYNTHETIC, host_to_device_map
from layoutalg.spyre.torch_layout import contiguous_strides
from layoutalg.validate import int_tuple, listed
from layoutalg.verify.checks import check_equivalent

NONE = -1


def dim_map_to_stride_map(size, device_size, dim_map, stride=None) -> tuple:
    """The stride_map of a dim_map layout (ints, or SymPy for symbolic sizes): the
    finest device dim of torch dim ``d`` gets ``stride[d]``, each coarser one the previous
    stride times the previous device size, capped at ``stride[d]·size[d]`` as torch-spyre
    does (the cap only touches padding coordinates).

    >>> dim_map_to_stride_map((512, 256), (4, 512, 64), (1, 0, 1))
    (64, 256, 1)
    >>> dim_map_to_stride_map((100, 200), (200, 100, 64), (1, 0, -1))
    (1, 200, -1)
    """
    strides = contiguous_strides(size) if stride is None else tuple(stride)
    result = [NONE] * len(dim_map)
    coarser: dict[int, object] = {}
    for k in reversed(range(len(dim_map))):
        d = dim_map[k]
        if d == SYNTHETIC or _is_one(size[d]):
            continue
        result[k] = coarser.get(d, strides[d])
        coarser[d] = _min(result[k] * device_size[k], strides[d] * size[d])
    return tuple(result)


def stride_map_to_dim_map(size, device_size, stride_map, stride=None) -> tuple[int, ...]:
    """The dim_map of a stride_map layout, where one exists (concrete sizes).

    Read right to left, each stride must be the next step of a torch dim (its stride,
    then times the device sizes read so far; once covered, also the capped
    ``stride·size``). Every attribution giving a valid layout is tried; they must be one
    layout (up to size-1 device dims). ``-1`` becomes the synthetic dim in the last
    place, a size-1 torch dim elsewhere.

    >>> stride_map_to_dim_map((128, 256, 512), (256, 8, 128, 64), (512, 64, 131072, 1))
    (1, 2, 0, 2)

    Raises:
        StrideMapError: a stride that is no torch dim's next step (named with
            the steps expected there), no attribution covering every torch
            dim, or two attributions that are different layouts.
    """
    size = tuple(size)
    strides = contiguous_strides(size) if stride is None else tuple(stride)
    given = int_tuple(StrideMapError, "stride_map", stride_map)
    if len(given) != len(device_size):
        raise StrideMapError(
            f"stride_map must have one entry per device dim ({len(device_size)}, the length of "
            f"device_size={listed(device_size)}); got {describe(stride_map)}")
    for k, value in enumerate(given):
        if value < NONE:
            raise StrideMapError(f"stride_map[{k}] must be a nonnegative stride or -1 (none); "
                                 f"got {value} in stride_map={listed(given)}")
    found, stuck = _attributions(size, strides, tuple(device_size), given)
    if not found:
        raise StrideMapError(_failure(size, device_size, given, stuck))
    first = found[0]
    for other in found[1:]:
        if not _same_layout(size, device_size, first, other):
            raise StrideMapError(
                f"stride_map={listed(given)} is ambiguous: dim_maps {listed(first)} and "
                f"{listed(other)} both give it, and they place elements differently (a "
                f"capped stride hides which torch dim a padding-only device dim belongs to)")
    return first


LIMIT = 8  # attributions collected before comparing them


def _attributions(size, strides, device_size, given):
    """Backtracking over the torch dim each device dim indexes, right to left: the
    dim_maps found (at most ``LIMIT``), and ``(k, steps, reads)`` at the leftmost
    device dim ``k`` where a reading got stuck (None if none did)."""
    unit_dims = [d for d, n in enumerate(size) if n == 1]
    found: list[tuple[int, ...]] = []
    stuck: list[tuple[int, dict, dict]] = []

    def visit(k, dims, step, read) -> None:
        if len(found) >= LIMIT:
            return
        if k < 0:
            if all(read[d] >= size[d] for d in read):
                found.append(tuple(dims))
            return
        if given[k] == NONE:
            dims[k] = _placeholder(k, given, device_size, unit_dims)
            visit(k - 1, dims, step, read)
            return
        exact = [d for d in step if step[d] == given[k]]
        choices = exact + [d for d in step if read[d] >= size[d]
                           and strides[d] * size[d] == given[k] and d not in exact]
        if not choices and (not stuck or k < stuck[0][0]):
            stuck[:] = [(k, dict(step), dict(read))]
        if device_size[k] == 1:
            choices = choices[:1]  # a device dim of size 1 moves nothing: any owner is the same
        for d in choices:
            dims[k] = d
            visit(k - 1, dims, {**step, d: step[d] * device_size[k]},
                  {**read, d: read[d] * device_size[k]})

    real = [d for d, n in enumerate(size) if n > 1]
    visit(len(given) - 1, [0] * len(given), {d: strides[d] for d in real}, {d: 1 for d in real})
    return found, (stuck[0] if stuck else None)


def _failure(size, device_size, given, stuck) -> str:
    if stuck is None:
        return (f"stride_map={listed(given)} has no dim_map equivalent: every reading "
                f"leaves some torch dim of size {listed(size)} with too few device "
                f"coordinates (device_size={listed(device_size)})")
    k, step, read = stuck
    expected = ", ".join(f"dim {d}: {s}" for d, s in sorted(step.items()) if read[d] < size[d])
    return (f"stride_map[{k}] = {given[k]} is not the next step of any torch dim "
            f"(strides of one torch dim must grow right to left in mixed radix; reading right "
            f"to left, the next steps are {expected or 'none: every torch dim is covered'}); "
            f"stride_map={listed(given)}")


def _same_layout(size, device_size, a, b) -> bool:
    """Two dim_maps place every host element on the same device slot (Z3)."""
    first = host_to_device_map(size, device_size, a, name=listed(a))
    second = host_to_device_map(size, device_size, b, name=listed(b))
    return check_equivalent(first, second).proved


def _placeholder(k, given, device_size, unit_dims) -> int:
    if k == len(given) - 1:
        return SYNTHETIC
    if unit_dims:
        return unit_dims[0]
    raise StrideMapError(
        f"stride_map[{k}] is -1 on device dim {k} (size {device_size[k]}), but the dim_map form "
        f"has -1 only in the last place and no torch dim of size 1 to stand for it; "
        f"stride_map={listed(given)}")


def _is_one(extent) -> bool:
    return isinstance(extent, int) and extent == 1


def _min(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return sympy.Min(a, b)


__all__ = ["NONE", "dim_map_to_stride_map", "stride_map_to_dim_map"]
