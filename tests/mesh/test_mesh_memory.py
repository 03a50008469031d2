"""PE memory planning: liveness, linear scan vs the seed's bump allocator, the proof.

The MLP figures are derived here from the seed's layouts by hand formulas
(ceil-division tiles, every layout anchored at PE (0, 0)), not read from the
planner: bump = the sum of PE (0, 0)'s reservations; linear scan can do no
better than the largest sum of reservations live at one step, and on this
graph it reaches that bound. The proof and its painting twin read the same
regions, so the random-plan test also states the truth from the regions
with plain ints, and what any plan must give: every PE that holds part of a
tensor has a region for it, as large as its tile, live at every step that
reads or writes the tensor, and no two live regions share a byte.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_mesh_layout import reference

from layoutalg.mesh import (
    Interval, MeshLayout, OpGraph, PEMemoryError, compare_allocators, plan_memory,
)
from oracles.mesh import check_memory_safe
from layoutalg.mesh.seed import seed_mlp
from layoutalg.verify.result import Status


def ceil(a, b):
    return -(-a // b)


def chain():
    return (OpGraph().input("x", (64, 64)).constant("w", (64, 64))
            .op("matmul", "x", "w", name="y").op("relu", "y", name="z")
            .op("add", "z", "x", name="q").op("relu", "q", name="r").output("r"))


def test_liveness_rules():
    live = chain().liveness()
    assert live == {"x": Interval(0, 2), "w": Interval(0, 3), "y": Interval(0, 1),
                    "z": Interval(1, 2), "q": Interval(2, 3), "r": Interval(3, 3)}
    seed = chain().liveness("seed")  # the seed's analyze_liveness: first use to last read
    assert seed["w"] == Interval(0, 0) and seed["x"] == Interval(0, 2)


def test_linear_scan_reuses_dead_regions():
    layouts = {n: MeshLayout.grid(2, 2) for n in "xwyzqr"}   # 4096 bytes per PE each
    bump = plan_memory(chain(), layouts, strategy="bump")
    scan = plan_memory(chain(), layouts)
    assert [r.offset for r in bump.pe_plan((0, 0)).regions] == [0, 4096, 8192, 12288, 16384, 20480]
    assert bump.max_pe_memory_used == 6 * 4096
    # at most four tensors live at once (step 1: x, w, y, z; step 2: x, w, z, q)
    assert scan.max_pe_memory_used == 4 * 4096
    for plan in (bump, scan):
        assert plan.prove().proved and check_memory_safe(plan).proved
        assert len(plan.groups) == 1 and plan.groups[0].pes == ((0, 0), (0, 1), (1, 0), (1, 1))


def test_double_buffering_reserves_two_regions():
    layouts = {n: MeshLayout.grid(2, 2) for n in "xwyzqr"}
    plan = plan_memory(chain(), layouts, double_buffer=["x"])
    halves = [r for r in plan.pe_plan((1, 1)).regions if r.tensor == "x"]
    assert [r.buffer for r in halves] == [0, 1] and halves[0].offset != halves[1].offset
    assert [r.label for r in halves] == ["x", "x[1]"]
    assert plan.max_pe_memory_used == 5 * 4096
    assert plan.prove().proved


def test_regions_are_4_byte_aligned():
    graph = OpGraph().input("a", (3,), "float16").input("b", (5,), "float16").op(
        "relu", "a", name="c")
    layouts = {n: MeshLayout.single_pe() for n in "abc"}
    regions = plan_memory(graph, layouts, strategy="bump").pe_plan((0, 0)).regions
    assert [(r.offset, r.size) for r in regions] == [(0, 8), (8, 12), (20, 8)]


def mlp_reservations_at_origin(activation_layouts):
    """Bytes each MLP tensor reserves on PE (0, 0), by hand: tile (0, 0) of each layout."""
    sizes = {"w1": ceil(1024, 11) * ceil(512, 12) * 4,   # Grid(11, 12): [94, 43] tiles
             "w2": ceil(512, 5) * ceil(256, 7) * 4,      # Grid(5, 7): [103, 37] tiles
             "w3": 256 * 10 * 4, "b1": 512 * 4, "b2": 256 * 4, "b3": 40}
    for name, (rows, cols, pes) in activation_layouts.items():
        sizes[name] = rows * ceil(cols, pes) * 4
    return sizes


def test_mlp_saving_over_the_seeds_bump_allocator():
    """§9's MLP, activations tiled at ≤ 4 KB per PE, the seed's liveness."""
    graph, layouts = seed_mlp(activation_bytes=4096)
    acts = {"x": (32, 1024, 32), "mm1": (32, 512, 16), "z1": (32, 512, 16), "h1": (32, 512, 16),
            "mm2": (32, 256, 8), "z2": (32, 256, 8), "h2": (32, 256, 8),
            "mm3": (32, 10, 1), "z3": (32, 10, 1), "h3": (32, 10, 1)}
    assert {n: str(layouts[n]) for n in ("x", "mm1", "mm2", "mm3")} == {
        "x": "Grid(1, 32)", "mm1": "Grid(1, 16)", "mm2": "Grid(1, 8)", "mm3": "SinglePE"}
    sizes = mlp_reservations_at_origin(acts)
    live = graph.liveness("seed")
    peak = max(sum(s for n, s in sizes.items() if live[n].start <= t <= live[n].end)
               for t in range(len(graph.ops)))
    saving = compare_allocators(graph, layouts, liveness="seed")
    assert saving.bump_max == sum(sizes.values()) == 77276
    assert saving.linear_scan_max == peak == 24360
    assert saving.max_saving == pytest.approx(1 - 24360 / 77276)
    with pytest.raises(PEMemoryError, match=r"^PE \(0, 0\) exceeds memory: 77276 > 36864 bytes"):
        plan_memory(graph, layouts, strategy="bump", liveness="seed")
    plan = plan_memory(graph, layouts, liveness="seed")
    assert plan.fits and plan.prove().proved


def test_mlp_with_the_seeds_own_layouts_never_fits():
    """With resident weights PE (0, 0) alone holds w1..w3 and b1..b3 tiles: 44 764 bytes."""
    graph, layouts = seed_mlp()
    weights = sum(mlp_reservations_at_origin({}).values())
    assert weights == 44764
    plan = plan_memory(graph, layouts, strict=False)
    assert not plan.fits and plan.pe_plan((0, 0)).used >= weights
    assert plan.prove().refuted


# -- Hypothesis: the proof against painting, on random graphs and broken plans ---------------

KINDS = ["relu", "add", "matmul"]


@st.composite
def graphs(draw):
    n = draw(st.integers(2, 4))
    graph = OpGraph().input("t0", (n, n)).constant("c0", (n, n))
    names = ["t0", "c0"]
    for k in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(KINDS))
        args = [draw(st.sampled_from(names)) for _ in range(1 if kind == "relu" else 2)]
        graph = graph.op(kind, *args, name=f"t{k + 1}")
        names.append(f"t{k + 1}")
    graph = graph.output(names[-1])
    layouts = {t.name: draw(st.sampled_from([MeshLayout.single_pe(), MeshLayout.grid(2, 1),
                                              MeshLayout.grid(1, 2), MeshLayout.grid(2, 2)]))
               for t in graph.tensors}
    return graph, layouts


def share_a_byte(a, b) -> bool:
    """Two regions live at a common step that hold a common byte."""
    return (a.start <= b.end and b.start <= a.end
            and a.offset < b.offset + b.size and b.offset < a.offset + a.size)


def plan_is_safe(plan) -> bool:
    """The plan's own regions, judged with plain ints: no clash, all within budget."""
    return all(not any(share_a_byte(a, b) for a, b in itertools.combinations(g.regions, 2))
               and all(r.offset + r.size <= plan.budget for r in g.regions)
               for g in plan.groups)


def element_bytes(dtype) -> int:
    return {"float32": 4, "float16": 2}[dtype]


def assert_plan_holds_every_tensor(graph, layouts, plan):
    """What any plan owes the graph, from the graph and the layouts' definitions."""
    used_at = {t.name: set() for t in graph.tensors}
    for step, op in enumerate(graph.ops):
        for name in (op.name, *op.inputs):
            used_at[name].add(step)
    group_of = {pe: g for g in plan.groups for pe in g.pes}
    for t in graph.tensors:
        tiles: dict = {}
        for pe, _ in reference(layouts[t.name], t.shape).values():
            tiles[pe] = tiles.get(pe, 0) + 1
        for pe, elements in tiles.items():
            regions = [r for r in group_of[pe].regions if r.tensor == t.name]
            assert regions, (t.name, pe)
            assert all(r.size >= elements * element_bytes(t.dtype) for r in regions)
            for step in used_at[t.name]:
                assert any(r.start <= step <= r.end for r in regions), (t.name, pe, step)
    for g in plan.groups:
        assert not any(share_a_byte(a, b) for a, b in itertools.combinations(g.regions, 2))


@given(graphs(), st.sampled_from(["bump", "linear_scan"]), st.sampled_from(["resident", "seed"]),
       st.integers(16, 128), st.data())
def test_proof_and_painting_agree(problem, strategy, liveness, budget, data):
    graph, layouts = problem
    plan = plan_memory(graph, layouts, strategy=strategy, liveness=liveness, budget=budget,
                       strict=False)
    assert_plan_holds_every_tensor(graph, layouts, plan)
    if data.draw(st.booleans()):  # break it: move one region onto another
        group = data.draw(st.sampled_from(plan.groups))
        regions = list(group.regions)
        k = data.draw(st.integers(0, len(regions) - 1))
        regions[k] = dataclasses.replace(regions[k], offset=data.draw(st.integers(0, 64)))
        broken = dataclasses.replace(group, regions=tuple(regions))
        plan = dataclasses.replace(plan, groups=tuple(broken if g is group else g
                                                      for g in plan.groups))
    proved, painted = plan.prove(), check_memory_safe(plan)
    assert proved.status is not Status.UNKNOWN
    assert proved.status is painted.status, (proved, painted)
    assert proved.proved is plan_is_safe(plan), proved
    if strategy == "linear_scan":
        assert plan_memory(graph, layouts, liveness=liveness, strict=False).max_pe_memory_used \
            <= plan_memory(graph, layouts, strategy="bump", liveness=liveness,
                           strict=False).max_pe_memory_used


def test_index_map_of_a_plan_shows_the_busiest_moment():
    """Injective iff the held regions do not overlap; in bounds iff they fit the budget."""
    import layoutalg as la

    graph, layouts = seed_mlp(activation_bytes=4096)
    scan = plan_memory(graph, layouts, liveness="seed").index_map()
    assert scan.domain.extents == (24360,)            # w1 + x + mm1, live at step 0
    assert la.check_injective(scan).proved and la.check_in_bounds(scan).proved
    bump = plan_memory(graph, layouts, strategy="bump", liveness="seed", strict=False).index_map()
    assert bump.domain.extents == (77276,)            # the bump allocator holds everything
    assert la.check_injective(bump).proved and la.check_in_bounds(bump).refuted
