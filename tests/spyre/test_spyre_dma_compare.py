"""``check_dma_reading``'s comparison of the copy's moves with the layout's, both ways.

``spyre.dma._compare`` finds the first fault of a copy plan by one of two procedures:
arrays indexed by device slot (``_scatter_finding``, dense and stick-padded layouts) or
the moves sorted by slot (``_sorted_finding``, any span). Both must give the same finding
as a plain-Python replay of the copy, one iteration at a time, on correct and on broken
loop nests; the broken nests below are built by hand and their findings worked out by hand
from the copy's loops (``spyre_mem.cpp``: iteration ``idx`` moves host offset
``dot(idx, stride_map)`` to device slot ``idx``, row-major over ``device_size``).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from row_major_steps import row_major_steps

import layoutalg as la
from layoutalg.spyre import default_layout, dma
from layoutalg.spyre.dma import CopyPlan, _compare, copy_plan


def _finding_by_replay(layout, plan):
    """The finding ``_compare`` must report, from dicts filled one iteration at a time:
    the first read outside the tensor (loop order), else the lowest slot written twice,
    else the lowest written slot holding no element, else the first host element
    (row-major) not moved to its slot. None when the copy is exact."""
    steps = [1 if s == -1 else s for s in layout.stride_map]
    extent = layout.torch_layout.extent()
    moves = []
    for sizes, host_off, dev_off in plan.boxes:
        for idx in itertools.product(*(range(n) for n in sizes)):
            slot = dev_off + sum(i * s for i, s in
                                 zip(idx, row_major_steps(layout.device_size)))
            moves.append((host_off + sum(i * s for i, s in zip(idx, steps)), slot))
    for src, slot in moves:
        if not 0 <= src < extent:
            return "outside", {"host_offset": src, "device_offset": slot}
    writers: dict[int, list[int]] = {}
    for src, slot in moves:
        writers.setdefault(slot, []).append(src)
    twice = sorted(slot for slot, srcs in writers.items() if len(srcs) > 1)
    if twice:
        return "twice", {"device_offset": twice[0]}
    home = {}
    for host in itertools.product(*(range(n) for n in layout.size)):
        coords = layout.host_to_device(host)
        home[host] = sum(c * s for c, s in zip(coords, row_major_steps(layout.device_size)))
    stray = sorted(set(writers) - set(home.values()))
    if stray:
        return "stray", {"host_offset": writers[stray[0]][0], "device_offset": stray[0]}
    for host, slot in home.items():
        want = sum(h * s for h, s in zip(host, layout.stride))
        if writers.get(slot, [None])[0] != want:
            return "wrong", {f"h{k}": v for k, v in enumerate(host)}
    return None


def _both_ways(layout, plan, monkeypatch):
    """``_compare`` by slot-indexed arrays and by sorting (``DENSE_SPAN`` 0 forces sorting)."""
    by_scatter = _compare(layout, plan)
    with monkeypatch.context() as patch:
        patch.setattr(dma, "DENSE_SPAN", 0)
        by_sorting = _compare(layout, plan)
    assert by_scatter == by_sorting
    return by_scatter


@st.composite
def layouts_and_plans(draw):
    """A small default layout (any dim order, dense or sparse) and its copy plan, the plan
    kept or broken: a nest dropped or repeated, or one nest's host or device offset shifted."""
    size = draw(st.lists(st.integers(1, 40), min_size=1, max_size=3))
    order = list(draw(st.permutations(range(len(size)))))
    sparse = draw(st.booleans())
    layout = default_layout(size, draw(st.sampled_from(["float16", "float32", "int8"])),
                            order + [-1] if sparse else order)
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    boxes = list(plan.boxes)
    how = draw(st.sampled_from(["keep", "drop", "repeat", "host", "device"]))
    if boxes and how != "keep":
        k = draw(st.integers(0, len(boxes) - 1))
        sizes, host_off, dev_off = boxes[k]
        shift = draw(st.integers(-3, 70))
        if how == "drop":
            del boxes[k]
        elif how == "repeat":
            boxes.append(boxes[k])
        elif how == "host":
            boxes[k] = (sizes, host_off + shift, dev_off)
        else:
            boxes[k] = (sizes, host_off, max(0, dev_off + shift))
    return layout, CopyPlan(plan.dim_map, plan.divisors, tuple(boxes), plan.failure)


@settings(max_examples=120, deadline=None)
@given(layouts_and_plans())
def test_both_procedures_report_what_replaying_the_copy_finds(case):
    layout, plan = case
    if plan.failure is not None or not plan.boxes:
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        found = _both_ways(layout, plan, monkeypatch)
    truth = _finding_by_replay(layout, plan)
    assert (found is None) == (truth is None)
    if truth is not None:
        assert found[0] == truth[1]


# (3, 70) fp16: device [2, 3, 64] by [1, 0, 1]; slot a·192 + b·64 + c holds host
# (b, 64a + c) when 64a + c < 70. The copy runs nest (1, 3, 64) at host 0 / device 0 and
# nest (1, 3, 6) at host 64 / device 192 (host strides 64, 70, 1).
FIRST, SECOND = ((1, 3, 64), 0, 0), ((1, 3, 6), 64, 192)


@pytest.mark.parametrize("boxes, counterexample", [
    ((FIRST, SECOND), None),
    # seven columns in the second nest, two rows: slot 198 = (a 1, b 0, c 6) is column 70,
    # padding, and receives host offset 64 + 6 = 70 (element (1, 0))
    ((FIRST, ((1, 2, 7), 64, 192)), {"host_offset": 70, "device_offset": 198}),
    # the first nest one host element late: slot 0 (element (0, 0)) gets host offset 1
    ((((1, 3, 64), 1, 0), SECOND), {"h0": 0, "h1": 0}),
    # the second nest written twice: slot 192 is the lowest slot written twice
    ((FIRST, SECOND, SECOND), {"device_offset": 192}),
    # no second nest: element (0, 64) at slot 192 is never written
    ((FIRST,), {"h0": 0, "h1": 64}),
], ids=["exact", "padding_slot", "shifted_source", "twice", "missing"])
def test_hand_worked_findings_on_3_by_70(boxes, counterexample, monkeypatch):
    layout = default_layout([3, 70])
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    assert plan.boxes == (FIRST, SECOND)
    found = _both_ways(layout, CopyPlan(plan.dim_map, plan.divisors, boxes, None), monkeypatch)
    assert (found and found[0]) == counterexample
    if counterexample and "device_offset" in counterexample and len(counterexample) == 2:
        assert "holds no element" in found[1]


def test_the_issue_3401_layouts_take_the_slot_indexed_way_and_sparse_ones_sort(monkeypatch):
    """(1, 4, 4096, 128) fp16 fills its 2,097,152 slots exactly (dense: slot-indexed); a
    sparse layout puts one element per 64-slot stick (span 64x the moves: sorted)."""
    taken = []
    for name in ("_scatter_finding", "_sorted_finding"):
        real = getattr(dma, name)
        monkeypatch.setattr(dma, name, lambda *a, _real=real, _name=name: (
            taken.append(_name), _real(*a))[1])
    for order in ([0, 1, 3, 2], None):
        layout = default_layout([1, 4, 4096, 128], "float16", order)
        assert layout.device_bytes // layout.itemsize == layout.numel == 1 << 21
        assert dma.check_dma_reading(layout).proved
    assert taken == ["_scatter_finding"] * 2
    sparse = default_layout([5, 30], "float16", [0, 1, -1])
    assert sparse.device_bytes // sparse.itemsize == 64 * sparse.numel
    # the copy reads dim_map (-1, 0, -1): one nest of 5 iterations, column 0 only, so
    # element (0, 1) (slot 64 * 5 * 1 = 320 of device [30, 5, 64]) is never written
    verdict = dma.check_dma_reading(sparse)
    assert verdict.refuted and verdict.counterexample == {"h0": 0, "h1": 1}
    assert taken[2:] == ["_sorted_finding"]


def test_a_copy_too_long_to_replay_counts_its_iterations_exactly():
    """[2**26, 2**32, 64] device slots are 2**64 copy iterations: past the replay
    limit (UNKNOWN), and counted exactly (an int64 product wraps to 0)."""
    assert 2**26 * 2**32 * 64 == 18_446_744_073_709_551_616
    huge = la.spyre.SpyreLayout.unchecked([2**32, 2**32], "float16", [2**26, 2**32, 64], [1, 0, 1])
    verdict = dma.check_dma_reading(huge)
    assert verdict.status is la.Status.UNKNOWN
    assert verdict.reason.startswith("18,446,744,073,709,551,616 copy iterations, past the")


def test_contradictory_assumptions_leave_the_copy_unknown():
    """The copy of a concrete layout is decided by running it, but a spec whose
    assumptions contradict each other proves nothing (it was PROVED: ``assume``
    was unused)."""
    import sympy

    layout = default_layout([5, 100, 150])
    assert dma.check_dma_reading(layout).status is la.Status.PROVED
    assert dma.check_dma_reading(layout, assume=[sympy.true]).status is la.Status.PROVED
    assert dma.check_dma_reading(layout, assume=[sympy.false]).status is la.Status.UNKNOWN
