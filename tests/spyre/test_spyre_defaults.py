"""Default layouts of every rank and the dim_map ↔ stride_map conversion.

Expected parts are derived by hand from the rule (DESIGN §3.2, torch-spyre's
generic stick layout): dim_map = order[1:] + [order[0], order[-1]], the
stick dim's first device dim gets ⌈size/E⌉, the last E, the others the size.
"""

from __future__ import annotations

import itertools

import pytest
import sympy

import layoutalg as la
from layoutalg.spyre import (
    SpyreLayout,
    default_layout,
    dim_map_to_stride_map,
    parametric_default_map,
    stride_map_to_dim_map,
)

# Proofs over symbolic sizes answer in well under a second on a quiet machine; a
# timeout would make them UNKNOWN (a failure), so they get room for a loaded one.
PROOF_MS = 60_000

# (size, dtype, dim_order, device_size, dim_map)
DEFAULTS = [
    ([], "float16", None, [64], [-1]),
    ([7], "float16", None, [1, 64], [0, 0]),
    ([100], "float32", None, [4, 32], [0, 0]),
    ([512, 256], "float16", None, [4, 512, 64], [1, 0, 1]),          # DESIGN's example
    ([512, 256], "float32", [1, 0], [16, 256, 32], [0, 1, 0]),
    ([128, 256, 512], "float16", None, [256, 8, 128, 64], [1, 2, 0, 2]),  # the seed's
    # order [2, 0, 1]: dim_map [0, 1] + [2, 1]; stick dim 1 first gets ⌈256/128⌉ = 2
    ([128, 256, 512], "int8", [2, 0, 1], [128, 2, 512, 128], [0, 1, 2, 1]),
    ([2, 3, 4, 130], "int8", None, [3, 4, 2, 2, 128], [1, 2, 3, 0, 3]),
    ([2, 2, 3, 3, 40], "float32", None, [2, 3, 3, 2, 2, 32], [1, 2, 3, 4, 0, 4]),
    ([2, 2, 2, 2, 2, 100], "float16", None, [2, 2, 2, 2, 2, 2, 64], [1, 2, 3, 4, 5, 0, 5]),
    ([5, 6, 7, 8, 9, 10], "bfloat16", [5, 4, 3, 2, 1, 0],
     [9, 8, 7, 6, 1, 10, 64], [4, 3, 2, 1, 0, 5, 0]),
    # size-1 dims are dropped first: [512, 1] and [1, 512] get [512]'s layout
    ([512, 1], "float16", None, [8, 64], [0, 0]),
    ([1, 512], "float16", None, [8, 64], [1, 1]),
    ([512, 1, 256], "float16", None, [4, 512, 64], [2, 0, 2]),
    ([1, 1], "float16", None, [64], [-1]),
    ([1, 1, 1, 1, 1, 1, 1, 300], "float16", None, [5, 64], [7, 7]),  # rank 1 once canonical
    # sparse: a trailing -1; the stick dim keeps its size, one element per stick
    ([100, 200], "float16", [0, 1, -1], [200, 100, 64], [1, 0, -1]),
    ([300], "float32", [0, -1], [300, 32], [0, -1]),
    ([4, 5, 6], "float16", [2, 0, 1, -1], [4, 5, 6, 64], [0, 1, 2, -1]),
]


@pytest.mark.parametrize("size, dtype, order, device, dims", DEFAULTS)
def test_default_layouts(size, dtype, order, device, dims):
    layout = default_layout(size, dtype, dim_order=order)
    assert layout.device_size == tuple(device)
    assert layout.dim_map == tuple(dims)
    assert la.check_bijective(layout.index_map()).proved


def test_dim_order_defaults_to_row_major():
    assert default_layout([3, 4, 5]) == default_layout([3, 4, 5], dim_order=[0, 1, 2])


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_every_rank_4_order_is_a_bijection_for_all_sizes(order):
    """The proofs cover every order of ranks 2 and 3; rank 4 runs here."""
    size = la.extents("S0 S1 S2 S3")
    (e,) = la.extents("E")
    verdict = la.check_bijective(parametric_default_map(size, e, order), timeout_ms=PROOF_MS)
    assert verdict.proved, verdict


@pytest.mark.parametrize("size, dtype, order", [
    ([6, 70], "float16", [1, 0]), ([3, 5, 70], "float16", [2, 0, 1]), ([130], "int8", None),
    ([2, 3, 40], "float32", [0, 1, 2, -1]),
])
def test_parametric_map_bound_to_numbers_is_the_concrete_default(size, dtype, order):
    symbols = la.extents(" ".join(f"S{k}" for k in range(len(size))))
    (e,) = la.extents("E")
    order_ = None if order is None else [d for d in order if d != -1]
    sparse = order is not None and order[-1] == -1
    m = parametric_default_map(symbols, e, order_, sparse=sparse)
    bound = m.bind(E=la.spyre.elems_per_stick(dtype), **{f"S{k}": n for k, n in enumerate(size)})
    layout = default_layout(size, dtype, dim_order=order)
    assert bound.codomain.extents == layout.device_size
    assert la.check_equivalent(bound, layout.index_map()).proved


def test_parametric_padding_formula():
    S0, S1 = la.extents("S0 S1")
    (e,) = la.extents("E")
    pad = la.padding(parametric_default_map((S0, S1), e))
    assert sympy.simplify(pad.count - S0 * (e * sympy.ceiling(S1 / e) - S1)) == 0


# -- stride maps -------------------------------------------------------------------------

# (size, stride, device_size, dim_map, stride_map) by hand
STRIDE_MAPS = [
    ([512, 256], None, [4, 512, 64], [1, 0, 1], (64, 256, 1)),
    ([128, 256, 512], None, [256, 8, 128, 64], [1, 2, 0, 2], (512, 64, 131072, 1)),
    ([100, 200], None, [200, 100, 64], [1, 0, -1], (1, 200, -1)),
    ([512, 256], [1, 512], [4, 512, 64], [1, 0, 1], (32768, 1, 512)),
    ([4, 4], None, [1, 4, 64], [1, 0, 1], (4, 4, 1)),   # the tile stride capped at 4
    ([512, 1, 256], None, [1, 4, 512, 64], [1, 2, 0, 2], (-1, 64, 256, 1)),
    ([6, 300], None, [3, 2, 6, 64], [1, 1, 0, 1], (128, 64, 300, 1)),
]


@pytest.mark.parametrize("size, stride, device, dims, strides", STRIDE_MAPS)
def test_dim_map_to_stride_map(size, stride, device, dims, strides):
    assert dim_map_to_stride_map(size, device, dims, stride) == strides


@pytest.mark.parametrize("size, stride, device, dims, strides", STRIDE_MAPS)
def test_stride_map_back_to_an_equivalent_dim_map(size, stride, device, dims, strides):
    back = stride_map_to_dim_map(size, device, strides, stride)
    original = SpyreLayout(size, "float16", device, dims, stride=stride)
    rebuilt = SpyreLayout(size, "float16", device, back, stride=stride)
    assert la.check_equivalent(rebuilt.index_map(), original.index_map()).proved
    assert rebuilt.stride_map == strides


@pytest.mark.parametrize("size, device, strides, dims", [
    # a size-1 torch dim: -1 becomes the synthetic dim in the last place, and
    # the size-1 dim elsewhere
    ([512, 1], [1, 512, 64], (-1, 1, -1), (1, 0, -1)),
    ([1, 512, 1], [2, 8, 64], (-1, 64, 1), (0, 1, 1)),
    # without the cap the coarse tile of a short stick dim has stride 64; that
    # device dim has extent 1, so any stride means the same layout
    ([512, 10], [1, 512, 64], (10, 10, 1), (1, 0, 1)),
])
def test_stride_map_to_dim_map_special_cases(size, device, strides, dims):
    assert stride_map_to_dim_map(size, device, strides) == dims


def test_from_stride_map_builds_the_same_layout():
    layout = SpyreLayout.from_stride_map([128, 256, 512], "float16", [256, 8, 128, 64],
                                         [512, 64, 131072, 1])
    assert layout == default_layout([128, 256, 512])
