"""Bad input to the Spyre family: the error class names the rule, the message
names the argument, states the rule and shows the value."""

from __future__ import annotations

import inspect
import re

import pytest

import layoutalg as la
from layoutalg import spyre
from layoutalg.spyre import (
    CoverageError,
    DimMapError,
    SpyreError,
    SpyreLayout,
    StickSizeError,
    StrideMapError,
    TorchLayout,
    check_padding,
    check_stride_map,
    default_layout,
    stride_map_to_dim_map,
)

GOOD = default_layout([512, 256])

CASES = [
    # -- the layout rules ---------------------------------------------------------------
    ("stick of 128 fp16", StickSizeError,
     lambda: SpyreLayout([128, 256], "float16", [2, 128, 128], [1, 0, 1]),
     r"device_size\[-1\] is the stick dim and must hold one 128-byte stick: 128 // 2 = 64 "
     r"elements of float16; got 128 in device_size=\[2, 128, 128\]"),
    ("stick of 64 fp32", StickSizeError,
     lambda: SpyreLayout([100], "float32", [2, 64], [0, 0]),
     r"128 // 4 = 32 elements of float32; got 64"),
    ("torch dim missing", DimMapError,
     lambda: SpyreLayout([128, 256, 512], "float16", [256, 128, 64], [1, 0, 1]),
     r"every torch dim of size > 1 at least once; torch dim 2 \(size 512\) is missing from "
     r"dim_map=\[1, 0, 1\]"),
    ("-1 misplaced", DimMapError,
     lambda: SpyreLayout([100, 256], "float16", [4, 2, 100, 64], [1, -1, 0, 1]),
     r"-1 only as its last entry .*got -1 at position 1 of 4 in dim_map=\[1, -1, 0, 1\]"),
    ("-1 repeated", DimMapError,
     lambda: SpyreLayout([100], "float16", [1, 100, 64], [-1, 0, -1]),
     r"-1 \(the synthetic dim of a sparse layout\) at most once; got it at positions \[0, 2\]"),
    ("dim_map entry too big", DimMapError,
     lambda: SpyreLayout([4, 8], "float16", [4, 1, 64], [2, 0, 1]),
     r"dim_map\[0\] must be in range\(-1, 2\) .*got 2 in dim_map=\[2, 0, 1\]"),
    ("dim_map entry too small", DimMapError,
     lambda: SpyreLayout([4, 8], "float16", [4, 1, 64], [0, -2, 1]),
     r"dim_map\[1\] must be in range\(-1, 2\) .*got -2"),
    ("coverage too small", CoverageError,
     lambda: SpyreLayout([100, 200, 500], "float16", [256, 7, 128, 64], [1, 2, 0, 2]),
     r"device dims of torch dim 2 \(device dims \[1, 3\]: 7 × 64 = 448 coordinates\) must "
     r"cover its size 500; host element \(0, 0, 448\) and 52 coordinate\(s\) of dim 2"),
    ("coverage of a rows dim", CoverageError,
     lambda: SpyreLayout([512, 256], "float16", [4, 500, 64], [1, 0, 1]),
     r"torch dim 0 \(device dims \[1\]: 500 = 500 coordinates\) must cover its size 512; "
     r"host element \(500, 0\)"),
    ("lengths differ", DimMapError,
     lambda: SpyreLayout([512, 256], "float16", [4, 512, 64], [1, 0]),
     r"device_size and dim_map must have the same length \(the device rank\); got 3 and 2"),
    ("no device dims", SpyreError,
     lambda: SpyreLayout([], "float16", [], []),
     r"device_size must have at least one dim \(the stick dim\); got \[\]"),
    # -- argument types -------------------------------------------------------------------
    ("size zero", SpyreError, lambda: SpyreLayout([0, 4], "float16", [1, 0, 64], [1, 0, 1]),
     r"size\[0\] must be a positive int; got 0 in size=\[0, 4\]"),
    ("size not a sequence", SpyreError, lambda: SpyreLayout(5, "float16", [1, 64], [0, 0]),
     r"size must be a sequence of ints; got 5"),
    ("size holds a bool", SpyreError, lambda: SpyreLayout([True], "float16", [1, 64], [0, 0]),
     r"size\[0\] must be an int; got True"),
    ("device size zero", SpyreError, lambda: SpyreLayout([4], "float16", [0, 64], [0, 0]),
     r"device_size\[0\] must be a positive int; got 0"),
    ("dim_map holds a float", SpyreError, lambda: SpyreLayout([4], "float16", [1, 64], [0, 0.0]),
     r"dim_map\[1\] must be an int; got 0.0"),
    ("unknown dtype", SpyreError, lambda: SpyreLayout([4], "float64", [1, 16], [0, 0]),
     r"dtype must be one of \[.*'float16'.*\].*got 'float64'"),
    ("dtype not a name", SpyreError, lambda: default_layout([4], 16),
     r"dtype must be one of .*got 16"),
    ("stride length", SpyreError, lambda: SpyreLayout([4, 8], "float16", [1, 4, 64], [1, 0, 1],
                                                      stride=[8]),
     r"stride must have one entry per dim of size \[4, 8\] \(2\); got \[8\]"),
    ("negative stride", SpyreError, lambda: TorchLayout([4, 8], [8, -1]),
     r"stride\[1\] must be an int >= 0; got -1"),
    # -- defaults ---------------------------------------------------------------------------
    ("rank 7", SpyreError, lambda: default_layout([2] * 7),
     r"rank 0 to 6 after size-1 dims are dropped; got size=\[2, 2, 2, 2, 2, 2, 2\] \(rank 7"),
    ("order not a permutation", SpyreError, lambda: default_layout([4, 8], dim_order=[0, 0]),
     r"dim_order must be a permutation of range\(2\) .*got \[0, 0\]"),
    ("order -1 first", SpyreError, lambda: default_layout([4, 8], dim_order=[-1, 0, 1]),
     r"dim_order must be a permutation of range\(2\) .*optionally followed by -1"),
    # -- coordinates ------------------------------------------------------------------------
    ("host coord too big", SpyreError, lambda: GOOD.host_to_device((512, 0)),
     r"host_coord\[0\] must lie in \[0, 512\) for size \[512, 256\]; got 512"),
    ("host coord short", SpyreError, lambda: GOOD.host_to_device((1,)),
     r"host_coord must have 2 ints for size \[512, 256\]; got \(1,\)"),
    ("device coord too big", SpyreError, lambda: GOOD.device_to_host((0, 0, 64)),
     r"device_coord\[2\] must lie in \[0, 64\) for device_size \[4, 512, 64\]; got 64"),
    ("device coord negative", SpyreError, lambda: GOOD.device_to_host((0, -1, 0)),
     r"device_coord\[1\] must lie in \[0, 512\)"),
    # -- stride maps ------------------------------------------------------------------------
    ("stride_map length", StrideMapError,
     lambda: stride_map_to_dim_map([512, 256], [4, 512, 64], [64, 1]),
     r"stride_map must have one entry per device dim \(3, .*\); got \[64, 1\]"),
    ("stride_map step of no dim", StrideMapError,
     lambda: stride_map_to_dim_map([512, 256], [4, 512, 64], [64, 256, 2]),
     r"stride_map\[2\] = 2 is not the next step of any torch dim .*dim 0: 256, dim 1: 1"),
    ("stride_map tiles left to right", StrideMapError,
     lambda: stride_map_to_dim_map([512, 256], [64, 512, 4], [1, 256, 64]),
     r"stride_map\[2\] = 64 is not the next step of any torch dim"),
    ("stride_map -1 with nowhere to go", StrideMapError,
     lambda: stride_map_to_dim_map([], [1, 64], [-1, -1]),
     r"stride_map\[0\] is -1 on device dim 0 \(size 1\), but the dim_map form has -1 only in "
     r"the last place and no torch dim of size 1"),
    # two valid dim_maps give this stride_map: a padding-only device dim's capped stride
    # (2 = stride 1 × size 2) equals the next step of dim 0
    ("stride_map ambiguous", StrideMapError,
     lambda: stride_map_to_dim_map([2, 2, 1], [2, 2, 1, 64], [2, 2, 2, 1]),
     r"stride_map=\[2, 2, 2, 1\] is ambiguous: dim_maps \[1, 0, 0, 1\] and \[0, 1, 0, 1\] both "
     r"give it, and they place elements differently"),
    ("stride_map strides collide", StrideMapError,
     lambda: stride_map_to_dim_map([4, 4], [4, 4, 64], [1, 1, 1], stride=[1, 1]),
     r"stride_map\[0\] = 1 is not the next step of any torch dim"),
    ("stride_map never covers", StrideMapError,
     lambda: stride_map_to_dim_map([512, 256], [2, 512, 64], [64, 256, 1]),
     r"has no dim_map equivalent: every reading leaves some torch dim .*too few device"),
    ("stride_map negative", StrideMapError,
     lambda: stride_map_to_dim_map([4], [1, 64], [1, -3]),
     r"stride_map\[1\] must be a nonnegative stride or -1 \(none\); got -3"),
    ("from_stride_map of a bad layout", StickSizeError,
     lambda: SpyreLayout.from_stride_map([512, 256], "float32", [4, 512, 64], [64, 256, 1]),
     r"128 // 4 = 32 elements of float32; got 64"),
    ("host_offset_map stride_map length", SpyreError, lambda: GOOD.host_offset_map([1, 1]),
     r"stride_map must have one entry per device dim \(3\); got \[1, 1\]"),
    # -- checks -------------------------------------------------------------------------------
    ("check_padding subject", SpyreError, lambda: check_padding("layout", 0),
     r"check_padding: subject must be a SpyreLayout or an IndexMap; got 'layout'"),
    ("check_stride_map subject", SpyreError, lambda: check_stride_map(GOOD.index_map()),
     r"check_stride_map: layout must be a SpyreLayout; got IndexMap"),
]


@pytest.mark.parametrize("label, error, call, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_names_the_rule(label, error, call, message):
    with pytest.raises(error) as info:
        call()
    assert re.search(message, str(info.value)), str(info.value)
    assert isinstance(info.value, la.LayoutError)


def test_unchecked_still_refuses_malformed_arguments():
    with pytest.raises(DimMapError, match=r"same length"):
        SpyreLayout.unchecked([4], "float16", [1, 64], [0])
    with pytest.raises(DimMapError, match=r"dim_map\[0\] must be in range\(-1, 1\)"):
        SpyreLayout.unchecked([4], "float16", [1, 64], [3, 0])
    broken = SpyreLayout.unchecked([4, 128], "float16", [2, 64], [1, 1])  # rules skipped
    assert broken.dim_map == (1, 1)


def test_unchecked_layouts_show_the_element_lost_or_doubled():
    lost = SpyreLayout.unchecked([100, 200, 500], "float16", [256, 7, 128, 64], [1, 2, 0, 2])
    verdict = la.check_in_bounds(lost.index_map())
    assert verdict.refuted and verdict.counterexample["h2"] >= 448
    doubled = SpyreLayout.unchecked([4, 128], "float16", [2, 64], [1, 1])
    verdict = la.check_injective(doubled.index_map())
    ce = verdict.counterexample
    assert verdict.refuted and ce["h0"] != ce["h0'"] and ce["h1"] == ce["h1'"]
    stick = SpyreLayout.unchecked([128, 256], "float16", [2, 128, 128], [1, 0, 1])
    verdict = la.check_injective(stick.device_offset_map())
    ce = verdict.counterexample
    a, b = (ce["h0"], ce["h1"]), (ce["h0'"], ce["h1'"])
    m = stick.device_offset_map()
    assert verdict.refuted and a != b and m(*a) == m(*b)


def test_every_error_class_documents_cause_and_fix():
    for cls in (SpyreError, StickSizeError, DimMapError, CoverageError, StrideMapError):
        assert issubclass(cls, la.LayoutError)
        assert "Fix" in (cls.__doc__ or ""), cls


def test_all_lists_the_public_names():
    public = {name for name, value in vars(spyre).items()
              if not name.startswith("_") and not inspect.ismodule(value)
              and name not in ("annotations",)}
    assert set(spyre.__all__) == public
    assert la.spyre is spyre
