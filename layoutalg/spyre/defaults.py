"""Default Spyre layouts (torch-spyre's generic stick layout), ranks 0 to 6.

From a size and a host dim order (row-major by default; its last dim is the stick
dim), with ``E = 128 // itemsize``: ``dim_map = order[1:] + [order[0], order[-1]]``
(rank 1: ``[o0, o0]``; rank 0: ``[-1]`` on ``device_size [E]``). The stick dim's first
device dim gets ``ceil(size / E)``, the last ``E``, every other the host size. A
trailing ``-1`` in the order asks for the sparse layout (last entry ``-1``, the stick
dim whole). Size-1 dims are dropped first. docs/spyre.md, "Default layouts".
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
    dims = int_tuple(SpyreError, "order", order)
    if len(set(dims)) != len(dims) or any(d < 0 for d in dims):
        raise SpyreError(
            f"order must be a permutation of range({len(dims)}) (the host dims, the stick dim "
            f"last; dims of size 1 may be left out), distinct nonnegative ints; "
            f"got {describe(order)}")
    if not dims:
        return (SYNTHETIC,)
    return (*dims[1:], dims[0], SYNTHETIC if sparse else dims[-1])


def default_device_size(size, order: Sequence[int], elems, *, sparse: bool = False) -> tuple:
    """The device_size of the default layout; ``size`` and ``elems`` may be symbolic.

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
    """The default Spyre layout of a tensor of ``size`` (ranks 0–6); ``dim_order``: a
    permutation of its dims (row-major when omitted), then optionally ``-1`` (sparse).

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
    """The default layout's host → device map with symbolic sizes: the builders of
    ``SpyreLayout.index_map`` without the concrete rules (the proofs establish them).

    >>> import layoutalg as la
    >>> S0, S1, E = la.extents("S0 S1 E")
    >>> print(parametric_default_map((S0, S1), E).codomain)
    [dev0:ceiling(S1/E), dev1:S0, dev2:E]
    """
    order = list(range(len(size)) if dim_order is None else dim_order)
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
