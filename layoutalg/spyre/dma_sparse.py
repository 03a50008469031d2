"""The two forms of a sparse Spyre layout, and the one torch-spyre's copy reads right.

layoutalg's sparse layout is torch-spyre's first, ``dim_map`` form: order ``[0, 1, -1]``
of a ``[512, 256]`` fp16 tensor gives ``device_size [256, 512, 64]``, ``dim_map [1, 0, -1]``
(torch-spyre/torch-spyre ``tests/tensor/test_tensor_layout.py``, ``test_sparse_dim_order``,
dim_map-era version). The ``stride_map`` torch-spyre counts the trailing ``-1`` as a dim
of the order (``torch_spyre/csrc/spyre_tensor_impl.cpp`` ``SpyreTensorLayout::init`` with
``get_generic_stick_layout`` at commit 049b02ded77ce12f1c99cc3be52c857f0b9ffed7): one
more device dim, of size 1 and stride_map ``-1``, at ``device_rank - 3``: ``device_size
[256, 1, 512, 64]``, ``stride_map [1, -1, 256, -1]`` (the same test, stride_map-era
version). A size-1 dim moves no slot: both forms put every element in the same place.

The copy (``spyre_mem.cpp`` ``get_dim_map`` at commit 0583ae3) re-reads device dim
``device_rank - 3`` as the stick dim's tiles, i.e. as ``dim_map[-1]``, ``-1`` here. In
torch-spyre's form that dim is the size-1 one; in the dim_map form it is a host dim's
only device dim, so the copy moves only the elements whose coordinate there is 0.
"""

from __future__ import annotations

from layoutalg.spyre.layout import SpyreLayout
from layoutalg.spyre.mapping import SYNTHETIC
from layoutalg.validate import listed


def torch_spyre_sparse_form(device_size, stride_map):
    """``(device_size, stride_map)`` of a dim_map-form sparse layout (``stride_map[-1] ==
    -1``) as torch-spyre's stride_map constructor builds it, else None.

    >>> torch_spyre_sparse_form((256, 512, 64), (1, 256, -1))
    ((256, 1, 512, 64), (1, -1, 256, -1))
    >>> torch_spyre_sparse_form((4, 512, 64), (64, 256, 1)) is None
    True
    """
    sizes, strides = tuple(device_size), tuple(stride_map)
    if len(sizes) < 2 or strides[-1] != SYNTHETIC:
        return None
    at = len(sizes) - 2  # becomes device dim device_rank - 3 of the longer form
    return sizes[:at] + (1,) + sizes[at:], strides[:at] + (SYNTHETIC,) + strides[at:]


def family_sparse_form(device_size, stride_map=None, dim_map=None):
    """``(device_size, stride_map, dim_map)`` of torch-spyre's sparse form read back into
    this family's (the size-1 device dim at ``device_rank - 3`` dropped from each given
    field), else None. The fields are that form when device dim ``device_rank - 3`` has
    size 1 and each map given holds ``-1`` there and in the stick dim.

    >>> family_sparse_form((256, 1, 512, 64), (1, -1, 256, -1))
    ((256, 512, 64), (1, 256, -1), None)
    >>> family_sparse_form((256, 512, 64), (1, 256, -1)) is None
    True
    """
    sizes = tuple(device_size)
    maps = [tuple(m) for m in (stride_map, dim_map) if m is not None]
    at = len(sizes) - 3
    if at < 0 or not maps or sizes[at] != 1 or any(
            len(m) != len(sizes) or m[-1] != SYNTHETIC or m[at] != SYNTHETIC for m in maps):
        return None

    def drop(entries):
        return None if entries is None else tuple(entries)[:at] + tuple(entries)[at + 1:]
    return drop(sizes), drop(stride_map), drop(dim_map)


def torch_spyre_form(layout: SpyreLayout) -> SpyreLayout:
    """The layout as torch-spyre holds and copies it: a sparse layout (``stride_map[-1]
    == -1``) in torch-spyre's form (``SpyreLayout.unchecked``: its dim_map has ``-1``
    twice, which this family's rules refuse); any other layout as it is.

    >>> from layoutalg.spyre.defaults import default_layout
    >>> form = torch_spyre_form(default_layout([512, 256], "float16", [0, 1, -1]))
    >>> form.device_size, form.stride_map, form.dim_map
    ((256, 1, 512, 64), (1, -1, 256, -1), (1, -1, 0, -1))
    """
    form = torch_spyre_sparse_form(layout.device_size, layout.stride_map)
    if form is None:
        return layout
    at = layout.device_rank - 2
    dims = layout.dim_map[:at] + (SYNTHETIC,) + layout.dim_map[at:]
    return SpyreLayout.unchecked(layout.size, layout.dtype, form[0], dims, stride=layout.stride)


def sparse_note(device_size, stride_map, read, dim_map) -> str:
    """Why the copy loses a sparse layout's elements, for a REFUTED reason; ``""`` when
    the loss does not come from ``get_dim_map`` (``read``: ``dma_dim_map``) erasing
    device dim ``device_rank - 3``."""
    form = torch_spyre_sparse_form(device_size, stride_map)
    rank = len(stride_map)
    tile = rank - 3 if rank > 2 else 0
    if form is None or stride_map[tile] == SYNTHETIC or device_size[tile] == 1 \
            or read[tile] != SYNTHETIC:
        return ""
    return (f" (get_dim_map reads device dim {tile}, torch dim {dim_map[tile]}'s, as the "
            f"stick dim's tiles, here the synthetic dim -1, so the copy never loops over "
            f"torch dim {dim_map[tile]}: this is the dim_map form "
            f"of a sparse layout; torch-spyre builds it as device_size={listed(form[0])}, "
            f"stride_map={listed(form[1])}, the same slots, and copies that form whole)")


__all__ = ["family_sparse_form", "sparse_note", "torch_spyre_form", "torch_spyre_sparse_form"]
