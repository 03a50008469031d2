"""``SpyreLayout``: where each element of a PyTorch tensor lives on Spyre (docs/spyre.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy

from layoutalg.core.home import Home
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import SpyreError
from layoutalg.spyre import mapping, rules
from layoutalg.spyre.sticks import dtype_name, elems_per_stick, itemsize
from layoutalg.spyre.stride_maps import dim_map_to_stride_map, stride_map_to_dim_map
from layoutalg.spyre.torch_layout import TorchLayout, host_space
from layoutalg.validate import int_point, int_tuple, listed


@dataclass(frozen=True, init=False)
class SpyreLayout:
    """A validated Spyre tensor layout: row-major over ``device_size``, whose last dim is
    the stick dim; ``dim_map[k]`` is the torch dim device dim ``k`` indexes (``-1``: the
    synthetic dim of a sparse layout); a torch dim named more than once is tiled.

    Args:
        size: the PyTorch size (positive ints; size-1 dims may be left out of
            ``dim_map``).
        dtype: "float16", "bfloat16", "float32", "int8", … (aliases such as
            "fp16" accepted).
        device_size: extents of the device dims; ``device_size[-1]`` must be
            ``128 // itemsize``.
        dim_map: one entry per device dim in ``range(-1, rank)``.
        stride: the PyTorch strides (keyword-only; row-major contiguous by
            default); they only matter to ``stride_map`` and host offsets.

    Raises:
        StickSizeError, DimMapError, CoverageError: the rule broken, named.

    The seed's example: device element ``(a, b, c, d)`` is torch element ``(c, a, 64·b + d)``.

    >>> s = SpyreLayout([128, 256, 512], "float16", [256, 8, 128, 64], [1, 2, 0, 2])
    >>> s.device_to_host((3, 2, 5, 7))
    (5, 3, 135)
    >>> s.host_to_device((5, 3, 135))
    (3, 2, 5, 7)
    >>> s.device_bytes, s.stride_map
    (33554432, (512, 64, 131072, 1))
    """

    size: tuple[int, ...]
    dtype: str
    device_size: tuple[int, ...]
    dim_map: tuple[int, ...]
    stride: tuple[int, ...]

    def __init__(self, size, dtype, device_size, dim_map, *, stride=None) -> None:
        _assign(self, size, dtype, device_size, dim_map, stride)
        rules.check_all(self.size, self.dtype, self.device_size, self.dim_map)

    @classmethod
    def unchecked(cls, size, dtype, device_size, dim_map, *, stride=None) -> SpyreLayout:
        """A layout that skips the layout rules (stick size, ``-1`` placement,
        dims present, coverage) but not the argument types and lengths: its maps
        let a check show which host element a known-bad layout loses or doubles."""
        layout = object.__new__(cls)
        _assign(layout, size, dtype, device_size, dim_map, stride)
        rules.check_lengths(layout.device_size, layout.dim_map)
        rules.check_entries_in_range(layout.dim_map, len(layout.size))
        return layout

    @classmethod
    def from_stride_map(cls, size, dtype, device_size, stride_map, *, stride=None) -> SpyreLayout:
        """The layout given in the newer ``stride_map`` form (``-1`` where none).

        >>> SpyreLayout.from_stride_map([512, 256], "float16", [4, 512, 64], [64, 256, 1]).dim_map
        (1, 0, 1)
        """
        torch = TorchLayout(size, stride)
        sizes = int_tuple(SpyreError, "device_size", device_size, least=1)
        dims = stride_map_to_dim_map(torch.size, sizes, stride_map, torch.stride)
        return cls(torch.size, dtype, sizes, dims, stride=torch.stride)

    # -- derived facts --------------------------------------------------------------

    @property
    def rank(self) -> int:
        return len(self.size)

    @property
    def device_rank(self) -> int:
        return len(self.device_size)

    @property
    def itemsize(self) -> int:
        return itemsize(self.dtype)

    @property
    def elems_per_stick(self) -> int:
        return elems_per_stick(self.dtype)

    @property
    def is_sparse(self) -> bool:
        """The stick dim is synthetic: one element per stick."""
        return self.dim_map[-1] == mapping.SYNTHETIC

    @property
    def numel(self) -> int:
        return math.prod(self.size)

    @property
    def device_bytes(self) -> int:
        """128 bytes per stick: ``128 × prod(device_size[:-1])``."""
        return mapping.device_bytes(self.device_size)

    @property
    def padding_slots(self) -> int:
        """Device slots holding no element (a valid layout is a bijection onto the rest)."""
        return math.prod(self.device_size) - self.numel

    @property
    def torch_layout(self) -> TorchLayout:
        return TorchLayout(self.size, self.stride)

    @property
    def stride_map(self) -> tuple[int, ...]:
        """Per device dim, the host element stride of one step along it (from
        the PyTorch strides); ``-1`` for the synthetic dim and size-1 dims."""
        return dim_map_to_stride_map(self.size, self.device_size, self.dim_map, self.stride)

    @property
    def tile_strides(self) -> tuple[int, ...]:
        """Per device dim, its step along its torch dim (mixed radix)."""
        return mapping.tile_strides(self.device_size, self.dim_map)

    # -- coordinates -------------------------------------------------------------------

    def host_to_device(self, host_coord) -> tuple[int, ...]:
        point = int_point(SpyreError, "host_coord", host_coord, self.size, "size")
        return tuple(map(int, mapping.to_device_exprs(point, self.device_size, self.dim_map)))

    def device_to_host(self, device_coord) -> tuple[int, ...] | None:
        """The host element at a device slot, or None for a padding slot."""
        point = int_point(SpyreError, "device_coord", device_coord, self.device_size, "device_size")
        host = list(map(int, mapping.to_host_exprs(point, self.rank, self.device_size,
                                                    self.dim_map)))
        synthetic = any(c for c, d in zip(point, self.dim_map) if d == mapping.SYNTHETIC)
        return None if synthetic or any(h >= n for h, n in zip(host, self.size)) else tuple(host)

    def host_offset(self, device_coord) -> int | None:
        """Host element offset of a device slot through ``stride_map`` (None for padding)."""
        if self.device_to_host(device_coord) is None:
            return None
        return sum(c * s for c, s in zip(device_coord, self.stride_map) if s != -1)

    # -- index maps ----------------------------------------------------------------------

    def home(self) -> Home:
        """Where ``layoutalg run`` puts it: one device memory, element offsets."""
        return Home("spyre", self.itemsize, False, 0,
                    f"one device memory of {self.device_bytes} B", self.device_bytes, "device")

    def index_map(self) -> IndexMap:
        """Host coordinate ``(h0, h1, …)`` ↦ device coordinate ``(dev0, …)``, with the
        device-to-host inverse; ``valid`` marks the slots that hold an element."""
        return mapping.host_to_device_map(self.size, self.device_size, self.dim_map,
                                          name=self.label)

    def layout_steps(self) -> tuple[IndexMap, ...]:
        """``index_map()`` as two steps (the ``Stepped`` protocol of
        ``layoutalg.docgen.pages``): each torch dim cut into its device dims
        (``h2 → dev1 = ⌊h2/64⌋, dev3 = h2 mod 64``), torch dim by torch dim; then
        those put in device order (a synthetic dim is 0). Composed they give
        ``index_map()``. Empty when the second step would change nothing (every
        torch dim is one device dim, already in order).

        >>> cut, order = SpyreLayout([128, 256, 512], "float16", [256, 8, 128, 64],
        ...                          [1, 2, 0, 2]).layout_steps()
        >>> cut.codomain.names, cut(5, 3, 135), order(5, 3, 2, 7)
        (('dev2', 'dev0', 'dev1', 'dev3'), (5, 3, 2, 7), (3, 2, 5, 7))
        """
        order = sorted((d, k) for k, d in enumerate(self.dim_map) if d != mapping.SYNTHETIC)
        if [k for _, k in order] == list(range(self.device_rank)):
            return ()
        host = host_space(self.size)
        device = mapping.device_space(self.device_size)
        digits = Space(*(device.dims[k] for _, k in order))
        every = mapping.to_device_exprs(host.symbols, self.device_size, self.dim_map)
        by_name = dict(zip(digits.names, digits.symbols))
        placed = [by_name.get(name, sympy.Integer(0)) for name in device.names]
        cut = IndexMap(
            host, digits, [every[k] for _, k in order],
            inverse=mapping.to_host_exprs(placed, self.rank, self.device_size, self.dim_map),
            valid=mapping.valid_expr(placed, self.size, self.device_size, self.dim_map),
            name="torch dims cut into device dims")
        synthetic = [sympy.Eq(c, 0) for c, d in zip(device.symbols, self.dim_map)
                     if d == mapping.SYNTHETIC]
        ordered = IndexMap(digits, device, placed,
                           inverse=[device.symbols[k] for _, k in order],
                           valid=sympy.And(*synthetic), name="device order")
        return cut, ordered

    def device_to_host_map(self) -> IndexMap:
        """Device coordinate ↦ host coordinate over the whole device grid (padding
        slots land past the torch size)."""
        return mapping.device_to_host_map(self.size, self.device_size, self.dim_map,
                                          name=f"{self.label} device→host")

    def device_offset_map(self) -> IndexMap:
        """Host coordinate ↦ byte offset in device memory (``[0, device_bytes)``)."""
        return mapping.device_offset_map(self.size, self.device_size, self.dim_map,
                                         self.itemsize, name=f"{self.label} bytes")

    def host_offset_map(self, stride_map=None, *, in_bytes: bool = False) -> IndexMap:
        """Host coordinate ↦ ``dot(device coordinate, stride_map)`` (``self.stride_map``
        by default), in elements or, with ``in_bytes``, bytes. Equal to
        ``torch_layout.index_map()`` when the stride_map is right.

        >>> s = SpyreLayout([512, 256], "float16", [4, 512, 64], [1, 0, 1])
        >>> s.host_offset_map(in_bytes=True)(3, 130)
        (1796,)
        """
        chosen = self.stride_map
        if stride_map is not None:
            chosen = int_tuple(SpyreError, "stride_map", stride_map)
            if len(chosen) != self.device_rank:
                raise SpyreError(f"stride_map must have one entry per device dim "
                                 f"({self.device_rank}); got {listed(chosen)}")
        scale = self.itemsize if in_bytes else 1
        chosen = tuple(s if s == -1 else s * scale for s in chosen)
        return mapping.stride_map_offset_map(
            self.size, self.device_size, self.dim_map, chosen, self.torch_layout.extent() * scale,
            name=f"{self.label} via stride_map {listed(chosen)}{' bytes' if in_bytes else ''}")

    # -- text ------------------------------------------------------------------------------

    @property
    def label(self) -> str:
        sparse = " sparse" if self.is_sparse else ""
        return (f"spyre{listed(self.size)} {self.dtype}{sparse} → {listed(self.device_size)} "
                f"by {listed(self.dim_map)}")

    def __str__(self) -> str:
        return self.label

    def __repr__(self) -> str:
        text = (f"SpyreLayout({list(self.size)}, {self.dtype!r}, {list(self.device_size)}, "
                f"{list(self.dim_map)}")
        if self.stride != TorchLayout(self.size).stride:
            text += f", stride={list(self.stride)}"
        return text + ")"


def _assign(layout, size, dtype, device_size, dim_map, stride) -> None:
    torch = TorchLayout(size, stride)
    object.__setattr__(layout, "size", torch.size)
    object.__setattr__(layout, "dtype", dtype_name(dtype))
    object.__setattr__(layout, "device_size",
                       int_tuple(SpyreError, "device_size", device_size, least=1))
    object.__setattr__(layout, "dim_map", int_tuple(SpyreError, "dim_map", dim_map))
    object.__setattr__(layout, "stride", torch.stride)


__all__ = ["SpyreLayout"]
