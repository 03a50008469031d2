"""The two forms of a Spyre layout: ``dim_map`` and ``stride_map``.

The ``dim_map`` form says which torch dim each device dim indexes. The
newer ``stride_map`` form gives, per device dim, the host element stride
of one step along it, so that a valid device slot holds host offset
``dot(device coordinate, stride_map)``; ``-1`` marks a device dim that
moves no host coordinate (the synthetic dim, a size-1 torch dim).

Going from dim_map to stride_map, the finest device dim of torch dim ``d``
gets ``stride[d]`` and each coarser one the previous stride times the
previous device size, capped at ``stride[d]·size[d]`` as torch-spyre does
(the cap only touches coordinates that are padding). The way back is
defined when every stride is the next step of exactly one torch dim; the
error says where it is not.
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
    """The stride_map of a dim_map layout (ints, or SymPy for symbolic sizes).

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

    Device dims are read right to left; each stride must be the next step of
    a torch dim (its stride, then times the device sizes read so far; for a
    torch dim already covered, also the capped ``stride·size``). Every way
    of attributing the strides that gives a valid layout is tried: one
    layout (up to device dims of size 1, which move nothing) is the answer.
    ``-1`` becomes the synthetic dim in the last place, a size-1 torch dim
    elsewhere.

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
    search = _Search(size, strides, tuple(device_size), given)
    found = search.run()
    if not found:
        raise StrideMapError(search.failure())
    first = found[0]
    for other in found[1:]:
        if not _same_layout(size, device_size, first, other):
            raise StrideMapError(
                f"stride_map={listed(given)} is ambiguous: dim_maps {listed(first)} and "
                f"{listed(other)} both give it, and they place elements differently (a "
                f"capped stride hides which torch dim a padding-only device dim belongs to)")
    return first


class _Search:
    """Backtracking over the torch dim each device dim indexes, right to left."""

    LIMIT = 8  # attributions collected before comparing them

    def __init__(self, size, strides, device_size, given) -> None:
        self.size, self.strides, self.device_size, self.given = size, strides, device_size, given
        self.unit_dims = [d for d, n in enumerate(size) if n == 1]
        self.found: list[tuple[int, ...]] = []
        self.stuck: tuple[int, dict, dict] | None = None

    def run(self) -> list[tuple[int, ...]]:
        real = [d for d, n in enumerate(self.size) if n > 1]
        for k, value in enumerate(self.given):
            if value < NONE:
                raise StrideMapError(f"stride_map[{k}] must be a nonnegative stride or -1 (none); "
                                     f"got {value} in stride_map={listed(self.given)}")
        self._visit(len(self.given) - 1, [0] * len(self.given),
                    {d: self.strides[d] for d in real}, {d: 1 for d in real})
        return self.found

    def _visit(self, k, dims, step, read) -> None:
        if len(self.found) >= self.LIMIT:
            return
        if k < 0:
            if all(read[d] >= self.size[d] for d in read):
                self.found.append(tuple(dims))
            return
        value = self.given[k]
        if value == NONE:
            dims[k] = _placeholder(k, self.given, self.device_size, self.unit_dims)
            self._visit(k - 1, dims, step, read)
            return
        choices = self._choices(value, step, read)
        if not choices and (self.stuck is None or k < self.stuck[0]):
            self.stuck = (k, dict(step), dict(read))
        if self.device_size[k] == 1:
            choices = choices[:1]  # a device dim of size 1 moves nothing: any owner is the same
        for d in choices:
            dims[k] = d
            self._visit(k - 1, dims, {**step, d: step[d] * self.device_size[k]},
                        {**read, d: read[d] * self.device_size[k]})

    def _choices(self, value, step, read) -> list[int]:
        exact = [d for d in step if step[d] == value]
        capped = [d for d in step if read[d] >= self.size[d]
                  and self.strides[d] * self.size[d] == value and d not in exact]
        return exact + capped

    def failure(self) -> str:
        if self.stuck is None:
            return (f"stride_map={listed(self.given)} has no dim_map equivalent: every reading "
                    f"leaves some torch dim of size {listed(self.size)} with too few device "
                    f"coordinates (device_size={listed(self.device_size)})")
        k, step, read = self.stuck
        expected = ", ".join(f"dim {d}: {s}" for d, s in sorted(step.items())
                             if read[d] < self.size[d])
        return (f"stride_map[{k}] = {self.given[k]} is not the next step of any torch dim "
                f"(strides of one torch dim must grow right to left in mixed radix; reading right "
                f"to left, the next steps are {expected or 'none: every torch dim is covered'}); "
                f"stride_map={listed(self.given)}")


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
