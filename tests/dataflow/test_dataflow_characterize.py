"""The characterizer: Pareto fronts, executors, the SVG plot, the table, the docs."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.dataflow.characterize import pareto_front

df = la.dataflow
ROOT = Path(__file__).resolve().parents[2]
SMALL = {"square": (48, 40, 56), "tall": (200, 16, 24)}
CAPS = df.Capacities(4096, 1024)


def dominated(points, k) -> bool:
    e, c = points[k]
    return any((e2 <= e and c2 <= c) and (e2 < e or c2 < c) for e2, c2 in points)


@given(st.lists(st.tuples(st.integers(1, 30), st.integers(1, 30)), min_size=1, max_size=40))
def test_pareto_front_keeps_exactly_the_undominated_points(points):
    energy = np.array([p[0] for p in points], dtype=float)
    cycles = np.array([p[1] for p in points], dtype=float)
    kept = pareto_front(energy, cycles)
    undominated = {points[k] for k in range(len(points)) if not dominated(points, k)}
    assert {points[k] for k in kept} == undominated
    assert len(kept) == len(undominated)          # one index per distinct point


@pytest.fixture(scope="module")
def small_run():
    return df.characterize(SMALL, capacities=CAPS, rows=4, cols=4)


def test_every_front_point_is_a_feasible_tiling_with_its_exact_energy(small_run):
    for e in small_run.evaluations:
        for energy, cycles, tiles in e.front:
            s = df.Schedule(e.dataflow, e.shape, tiles)
            assert df.check_tiles_fit(s, CAPS).proved
            assert df.energy(s).total == energy
            assert df.schedule_cycles(s, rows=4, cols=4) == cycles
        assert e.best.energy.total == min(p[0] for p in e.front)


def test_frontier_is_undominated_across_dataflows(small_run):
    for name in small_run.names:
        every = [(en, cy) for e in small_run.of(name) for en, cy, _ in e.front]
        frontier = small_run.frontier(name)
        for _, en, cy, _ in frontier:
            assert not any(e2 <= en and c2 <= cy and (e2 < en or c2 < cy) for e2, c2 in every)
        least = min(e.best.energy.total for e in small_run.of(name))
        assert least == min(p[1] for p in frontier)


def test_an_executor_gives_the_same_result(small_run):
    with ThreadPoolExecutor(2) as pool:
        parallel = df.characterize(SMALL, capacities=CAPS, rows=4, cols=4, executor=pool)
    assert [(e.name, e.dataflow, e.front) for e in parallel.evaluations] == \
        [(e.name, e.dataflow, e.front) for e in small_run.evaluations]


def test_svg_is_well_formed_with_a_panel_per_shape(small_run):
    root = ET.fromstring(small_run.svg())
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    panels = root.findall(f"{ns}g")
    assert len(panels) == len(SMALL)
    dots = sum(len(e.front) for e in small_run.evaluations)
    rings = len(small_run.evaluations)
    assert len(root.findall(f".//{ns}circle")) == dots + rings + 3   # + 3 legend marks


def test_table_has_a_row_per_shape_and_dataflow(small_run):
    rows = [line for line in small_run.table().splitlines() if line.startswith("| ")][1:]
    assert len(rows) == len(SMALL) * 3
    assert {r.split(" | ")[2] for r in rows} == {"OS", "WS", "IS"}


def test_shapes_may_be_a_plain_list():
    run = df.characterize([(8, 8, 8)], ["ws"], capacities=CAPS)
    assert run.names == ["8×8×8"]


def test_shipped_plot_and_table_are_in_the_docs():
    page = (ROOT / "docs" / "dataflow.md").read_text()
    assert "assets/dataflow_frontier.svg" in page
    plot = ROOT / "docs" / "assets" / "dataflow_frontier.svg"
    root = ET.fromstring(plot.read_text())
    assert len(root.findall("{http://www.w3.org/2000/svg}g")) == len(df.SHAPES)
    for name in df.SHAPES:
        assert f"| {name} |" in page


@pytest.mark.parametrize("call, message", [
    (lambda: df.characterize({}, capacities=CAPS),
     "characterize: shapes must not be empty; got no shapes"),
    (lambda: df.characterize("bert"),
     "characterize: shapes must map names to (M, N, K) or list them; got 'bert'"),
    (lambda: df.characterize({"x": (4, 4)}),
     "characterize: shape must be a tuple ('M', 'N', 'K'); got (4, 4)"),
    (lambda: df.characterize({"x": (4, 4, 4)}, "os"),
     "characterize: dataflows must be a non-empty list of ('os', 'ws', 'is'); got 'os'"),
    (lambda: df.characterize({"x": (4, 4, 4)}, ["os", "rs"]),
     "characterize: dataflows entry must be one of ('os', 'ws', 'is'); got 'rs'"),
    (lambda: df.characterize({"x": (4, 4, 4)}, executor=4),
     "characterize: executor must be a concurrent.futures.Executor or None; got 4"),
])
def test_bad_input(call, message):
    with pytest.raises(df.DataflowError) as info:
        call()
    assert str(info.value) == message
