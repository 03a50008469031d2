"""Default Spyre layouts (torch-spyre's generic stick layout), ranks 0 to 6.

From a size and a host dim order (row-major ``[0, 1, …, r-1]`` by default;
the last dim of the order is the stick dim):

- rank 0: ``device_size [E]``, ``dim_map [-1]`` — one stick, element 0;
- rank 1: ``dim_map [o0, o0]``;
- ranks 2–6: ``dim_map = order[1:] + [order[0], order[-1]]``;

where ``E = 128 // itemsize``. The first device dim of the stick dim gets
``ceil(size / E)``, the last device dim ``E``, every other one the host size.
A trailing ``-1`` in the order asks for the sparse layout: the last dim_map
entry becomes ``-1`` and the stick dim keeps its whole size (one element
per stick). Size-1 dims are dropped first (canonical form), so ``[512, 1]``
and ``[512]`` get the same device layout.
"""

from __future__ import annotations

from collections.abc import Sequence

from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import ceil_div
from layoutalg.errors import SpyreError, describe
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.spyre.mapping import SYNTHETIC, host_to_device_map
from layoutalg.spyre.sticks import elems_per_stick
from layoutalg.spyre.torch_layout import TorchLayout
from layoutalg.validate import int_tuple, listed

MAX_RANK = 6


def default_dim_map(order: Sequence[int], *, sparse: bool = False) -> tuple[int, ...]:
    """The dim_map of the default layout for a host dim order (no size-1 dims).

    >>> default_dim_map([0, 1, 2]), default_dim_map([0]), default_dim_map([])
    ((1, 2, 0, 2), (0, 0), (-1,))
    """
    given = order
    order = list(int_tuple(SpyreError, "order", order))
    if len(set(order)) != len(order) or any(d < 0 for d in order):
        raise SpyreError(
            f"order must be a permutation of range({len(order)}) (the host dims, the stick dim "
            f"last; dims of size 1 may be left out), distinct nonnegative ints; "
            f"got {describe(given)}")
    if not order:
        return (SYNTHETIC,)
    dims = order[1:] + [order[0], order[-1]]
    if sparse:
        dims[-1] = SYNTHETIC
    return tuple(dims)


def default_device_size(size, order: Sequence[int], elems, *, sparse: bool = False) -> tuple:
    """The device_size of the default layout; ``size`` and ``elems`` may be
    SymPy symbols (the proofs use that).

    >>> default_device_size((512, 256), [0, 1], 64)
    (4, 512, 64)
    """
    order = list(order)
    if not order:
        return (elems,)
    stick = order[-1]
    # Before the last entry the default dim_map lists each host dim once (a
    # rotation of the order), so the stick dim met there is its first occurrence.
    device = [
        ceil_div(size[d], elems) if d == stick and not sparse else size[d]
        for d in default_dim_map(order, sparse=sparse)[:-1]
    ]
    return tuple(device) + (elems,)


def default_layout(size, dtype: object = "float16", dim_order=None) -> SpyreLayout:
    """The default Spyre layout of a tensor of ``size`` (ranks 0–6).

    ``dim_order`` is a permutation of the dims of ``size`` (row-major when
    omitted), optionally followed by ``-1`` for the sparse layout.

    >>> s = default_layout([512, 256])
    >>> s.device_size, s.dim_map
    ((4, 512, 64), (1, 0, 1))
    >>> default_layout([512, 256], "float32", dim_order=[1, 0]).dim_map
    (0, 1, 0)
    """
    torch = TorchLayout(size)
    order, sparse = _order(dim_order, torch.rank)
    kept = [d for d in order if torch.size[d] > 1]
    if len(kept) > MAX_RANK:
        raise SpyreError(
            f"default_layout supports tensors of rank 0 to {MAX_RANK} after size-1 dims are "
            f"dropped; got size={listed(torch.size)} (rank {len(kept)} without size-1 dims)")
    elems = elems_per_stick(dtype)
    device = default_device_size(torch.size, kept, elems, sparse=sparse)
    return SpyreLayout(torch.size, dtype, device, default_dim_map(kept, sparse=sparse))


def parametric_default_map(size, elems, dim_order=None, *, sparse: bool = False,
                           name: str | None = None) -> IndexMap:
    """The default layout's host → device map with symbolic sizes: the same
    builders ``SpyreLayout.index_map`` uses, without the concrete rules
    (which the proofs establish instead).

    >>> import layoutalg as la
    >>> S0, S1, E = la.extents("S0 S1 E")
    >>> print(parametric_default_map((S0, S1), E).codomain)
    [dev0:ceiling(S1/E), dev1:S0, dev2:E]
    """
    rank = len(size)
    order = list(range(rank)) if dim_order is None else list(dim_order)
    device = default_device_size(size, order, elems, sparse=sparse)
    dims = default_dim_map(order, sparse=sparse)
    label = name or f"default{list(size)} order {order}{' sparse' if sparse else ''}"
    return host_to_device_map(tuple(size), device, dims, name=label)


def _order(dim_order, rank: int) -> tuple[list[int], bool]:
    if dim_order is None:
        return list(range(rank)), False
    order = list(int_tuple(SpyreError, "dim_order", dim_order))
    sparse = bool(order) and order[-1] == SYNTHETIC
    if sparse:
        order = order[:-1]
    if sorted(order) != list(range(rank)):
        raise SpyreError(
            f"dim_order must be a permutation of range({rank}) (the dims of the rank-{rank} "
            f"tensor), optionally followed by -1 for a sparse layout; got {describe(dim_order)}")
    return order, sparse


__all__ = ["MAX_RANK", "default_device_size", "default_dim_map", "default_layout",
           "parametric_default_map"]
