"""Mesh transforms executed as messages: the tensor arrives intact and the
counters taken from the executed element moves equal the mesh cost model."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mesh_strategies import mesh_layouts

from layoutalg.execute import Machine, MachineError, execute_transform, run_transform

transforms = pytest.importorskip("layoutalg.mesh.transforms")
layout_module = pytest.importorskip("layoutalg.mesh.layout")
L = layout_module.MeshLayout

COST_FIELDS = ("bytes", "local_bytes", "messages", "wavelets", "byte_hops", "wavelet_hops",
               "max_hops")


def arrived(fetched: np.ndarray, data: np.ndarray) -> bool:
    """Every copy (a replicated target has two leading copy dims) equals the data."""
    return bool((fetched == data).all()) if fetched.ndim == data.ndim else bool(
        (fetched == data[None, None]).all())


@given(mesh_layouts(3, 2, 4, more=True), mesh_layouts(3, 2, 4, more=True),
       st.tuples(st.integers(1, 9), st.integers(1, 9)),
       st.sampled_from(["float32", "float16"]))
def test_every_transform_delivers_the_tensor_and_costs_what_the_model_says(
        source, target, shape, dtype):
    t = transforms.create_transform(source, target, shape, dtype)
    data = np.arange(1, math.prod(shape) + 1).astype(dtype).reshape(shape)
    fetched, counters, _ = run_transform(data, t)
    assert arrived(fetched, data)
    for name in COST_FIELDS:
        assert getattr(counters, name) == getattr(t.cost, name), name


def test_a_gather_worked_by_hand():
    """[10, 4] fp32 from RowPartition(4) (rows 3, 3, 3, 1) to PE (0, 0):
    PE rows 1, 2, 3 send 48, 48 and 16 bytes over 1, 2 and 3 hops."""
    t = transforms.create_transform(L.row_partition(4), L.single_pe(), (10, 4))
    data = np.arange(40, dtype=np.float32).reshape(10, 4)
    fetched, counters, target = run_transform(data, t)
    assert np.array_equal(fetched, data)
    assert (counters.messages, counters.bytes, counters.local_bytes) == (3, 112, 48)
    assert counters.wavelets == 12 + 12 + 4
    assert counters.byte_hops == 48 * 1 + 48 * 2 + 16 * 3
    assert counters.max_hops == 3
    assert target.shape == (1, 1)


def test_execute_transform_moves_what_the_source_machine_holds():
    t = transforms.create_transform(L.grid(2, 2), L.row_partition(2), (4, 4))
    source, target = Machine.wse(2, 2), Machine.wse(2, 1)
    from layoutalg.execute import fetch, place

    data = np.arange(16, dtype=np.float32).reshape(4, 4)
    place(data, L.grid(2, 2).index_map((4, 4)), source, offsets_in_bytes=True)
    execute_transform(t, source, target)
    got = fetch(L.row_partition(2).index_map((4, 4)), target, np.float32, offsets_in_bytes=True)
    assert np.array_equal(got, data)


@pytest.mark.parametrize("call, message", [
    (lambda t: execute_transform(t, Machine.wse(1, 2), Machine.wse(2, 1)),
     r"execute_transform: source must be a Machine of 2×2 PEs for Grid\(2, 2\)"),
    (lambda t: execute_transform(t, Machine.wse(2, 2), "mesh"),
     r"execute_transform: target must be a Machine of 2×1 PEs"),
    (lambda t: run_transform(np.zeros((3, 4), np.float32), t),
     r"run_transform: array shape \(3, 4\) must equal the transform's tensor shape \(4, 4\)"),
    (lambda t: run_transform(np.zeros((4, 4), np.float64), t),
     r"run_transform: array elements are 8 B but the transform moves 4 B elements"),
])
def test_bad_transform_runs_are_refused_with_the_rule(call, message):
    t = transforms.create_transform(L.grid(2, 2), L.row_partition(2), (4, 4))
    with pytest.raises(MachineError, match=message):
        call(t)
