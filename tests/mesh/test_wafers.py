"""Issue 12 item 7: a layout describes any grid; wafers are presets checked by
``on_wafer`` and used by the planner.

The truths are the vendor's figures, worked by hand: the Cerebras SDK's
memcpy leaves ``W - 7`` columns and ``H - 2`` rows of a ``W × H`` fabric
(a halo of one PE, three support columns West and two East). CS-2's fabric
757 × 996 gives WSE-2's documented 750 × 994 program rectangle; CS-3's
762 × 1176 gives 755 × 1174.
"""

from __future__ import annotations

import pytest
from oracles import mesh as mesh_brute

import layoutalg as la
from layoutalg.errors import MeshError, PlanError
from layoutalg.mesh import (
    WAFERS,
    WSE2,
    WSE3,
    LayoutConstraints,
    MeshLayout,
    Wafer,
    check_on_wafer,
    plan_layout,
)


def test_the_presets_are_the_vendor_figures():
    assert (WSE2.cols, WSE2.rows) == (750, 994)
    assert (WSE3.cols, WSE3.rows) == (755, 1174)
    assert WSE2.pe_sram_bytes == WSE3.pe_sram_bytes == 48 * 1024
    assert WAFERS == (WSE2, WSE3)
    assert str(WSE3) == "the WSE-3 usable program rectangle is 755 PEs wide × 1174 tall"


@pytest.mark.parametrize("width, height, cols, rows", [(757, 996, 750, 994), (762, 1176, 755, 1174),
                                                       (8, 3, 1, 1), (100, 10, 93, 8)])
def test_from_fabric_takes_off_the_memcpy_columns_and_rows(width, height, cols, rows):
    wafer = Wafer.from_fabric("w", width, height)
    assert (wafer.cols, wafer.rows) == (cols, rows)


@pytest.mark.parametrize("call, message", [
    (lambda: Wafer.from_fabric("w", 7, 100), "width must be at least 8"),
    (lambda: Wafer.from_fabric("w", 100, 2), "height must be at least 3"),
    (lambda: Wafer.from_fabric("w", True, 100), "width must be a positive int; got True"),
    (lambda: Wafer("w", 0, 5), "Wafer: rows must be a positive int; got 0"),
    (lambda: Wafer("", 5, 5), "Wafer: name must be a non-empty str"),
    (lambda: Wafer("w", 5, 5, pe_sram_bytes=-1), "pe_sram_bytes must be a positive int; got -1"),
])
def test_a_bad_wafer_is_refused(call, message):
    with pytest.raises(MeshError, match=message.replace("(", r"\(")):
        call()


def test_a_layout_taller_than_wse2_fits_wse3_and_the_twin_agrees():
    tall = MeshLayout.row_partition(1000).on((1000, 8))
    on3, on2 = check_on_wafer(tall, WSE3), check_on_wafer(tall)
    assert on3.status is la.Status.PROVED
    assert on2.status is la.Status.REFUTED
    # row i of a 1000-way row partition lives on PE row i: rows 994..999 are off WSE-2
    assert 994 <= on2.counterexample["i"] <= 999
    assert f"pe_row={on2.counterexample['i']} not in [0, 994)" in on2.reason
    assert mesh_brute.check_on_wafer(tall, WSE3.rows, WSE3.cols).status is la.Status.PROVED
    assert mesh_brute.check_on_wafer(tall, WSE2.rows, WSE2.cols).status is la.Status.REFUTED
    # the wafer and its numbers ask the same question
    assert check_on_wafer(tall, 1174, 755).status is la.Status.PROVED
    assert check_on_wafer(tall, 999, 1).status is la.Status.REFUTED


def test_a_wafer_and_a_width_together_are_refused():
    tall = MeshLayout.row_partition(4).on((4, 4))
    with pytest.raises(MeshError, match="cols must be left out .*WSE-3.*got cols=5"):
        check_on_wafer(tall, WSE3, 5)


def test_the_planner_uses_the_wafer_it_is_given():
    limits = LayoutConstraints(wafer=WSE3)
    assert (limits.max_pe_rows, limits.max_pe_cols, limits.sram_bytes) == (1174, 755, 48 * 1024)
    # 10,137,600 fp32 need ceil(10137600 / 9216) = 1100 PEs of 36 KB: WSE-3 is tall enough
    vector = (1100 * 9216,)
    plan = plan_layout(vector, "float32", limits)
    assert plan.layout == MeshLayout.row_partition(1100) and plan.proved
    with pytest.raises(PlanError, match="994×750"):
        plan_layout(vector, "float32", LayoutConstraints())


@pytest.mark.parametrize("kwargs, message", [
    ({"wafer": "WSE-3"}, "wafer must be a Wafer"),
    ({"wafer": WSE3, "max_pe_rows": 1175}, r"max_pe_rows must lie in \[1, 1174\] \(the WSE-3"),
    ({"max_pe_rows": 995}, r"max_pe_rows must lie in \[1, 994\] \(the WSE-2"),
])
def test_planner_limits_are_checked_against_the_wafer(kwargs, message):
    with pytest.raises(MeshError, match=message):
        LayoutConstraints(**kwargs)
