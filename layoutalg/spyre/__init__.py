"""IBM Spyre tensor layouts (torch-spyre): sticks, tiling, padding, sparse layouts.

The public names of the family; everything is re-exported from small
modules. ``SpyreLayout.index_map()`` maps host coordinates to device
coordinates, so the core checks apply: a valid layout is a bijection onto
its non-padding slots. torch-spyre's own ``SpyreTensorLayout`` (object, printed
repr or dict; stride_map or dim_map form) comes in through ``from_torch_spyre``
and goes out through ``to_torch_spyre``, every rule checked, including the one
torch-spyre's DMA needs (``check_dma_rule``, torch-spyre#3401).

>>> import layoutalg as la
>>> s = la.spyre.default_layout([512, 256], "float16")
>>> s.device_size, s.dim_map, s.device_bytes
((4, 512, 64), (1, 0, 1), 262144)
"""

from __future__ import annotations

from layoutalg.errors import (
    CoverageError,
    DimMapError,
    SpyreError,
    StickSizeError,
    StrideMapError,
    TorchSpyreError,
)
from layoutalg.spyre.checks import check_padding, check_stride_map
from layoutalg.spyre.defaults import (
    MAX_RANK,
    default_device_size,
    default_dim_map,
    default_layout,
    parametric_default_map,
)
from layoutalg.spyre.dma import check_dma_reading, check_dma_rule, dma_dim_map, dma_reading
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.spyre.sticks import STICK_BYTES, dtype_name, elems_per_stick, itemsize
from layoutalg.spyre.stride_maps import dim_map_to_stride_map, stride_map_to_dim_map
from layoutalg.spyre.torch_layout import TorchLayout, contiguous_strides
from layoutalg.spyre.torch_spyre import (
    TorchSpyreLayout,
    as_layout,
    from_torch_spyre,
    parse_repr,
    to_torch_spyre,
)

__all__ = [
    "MAX_RANK", "STICK_BYTES", "CoverageError", "DimMapError", "SpyreError", "SpyreLayout",
    "StickSizeError", "StrideMapError", "TorchLayout", "TorchSpyreError", "TorchSpyreLayout",
    "as_layout", "check_dma_reading", "check_dma_rule", "check_padding", "check_stride_map",
    "contiguous_strides", "default_device_size", "default_dim_map", "default_layout",
    "dim_map_to_stride_map", "dma_dim_map", "dma_reading", "dtype_name", "elems_per_stick",
    "from_torch_spyre", "itemsize", "parametric_default_map", "parse_repr",
    "stride_map_to_dim_map", "to_torch_spyre",
]
