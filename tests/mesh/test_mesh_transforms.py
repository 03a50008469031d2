"""Layout transforms: every kind on uneven layouts, against a brute-force simulation.

Three independent judges must agree: the Z3 proof of the pattern's maps, the
enumeration twin of that proof, and ``simulate``, which runs the emitted
blocks on NumPy PE memories. Costs are checked against a per-element
reference written here (each element moves once, from its PE to its PE),
with the PEs taken from the definitions (``test_mesh_layout.holders``), not
from the layouts' own queries, so a placement bug that all three judges
share still changes the cost.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import mesh as mesh_brute
from seed_algorithms import seed_estimated_cost, seed_gather, seed_scatter
from test_mesh_layout import holders, view_index

import layoutalg as la
from layoutalg.mesh import MeshLayout, TransformKind, create_transform, needs_transform
from layoutalg.verify.result import Status

# Generous: the slowest query here takes well under a second on a quiet machine; a
# timeout turns PROVED into UNKNOWN (a failure), so leave room for a loaded one.
Z3_MS = 60_000


def pes(layout: MeshLayout, shape):
    """element → PEs holding it: from the definitions, or a custom layout's own list."""
    if layout.kind.name == "CUSTOM":
        return lambda index: layout.pes_for_element(index, shape)
    table = holders(layout, shape)
    return lambda index: sorted(table[view_index(index, shape)])


def element_moves(source: MeshLayout, target: MeshLayout, shape):
    """(source PE, destination PE) of every element copy, with the rule "read the
    copy on your PE, else the nearest"."""
    moves = []
    held, wanted = pes(source, shape), pes(target, shape)
    for index in np.ndindex(*shape):
        for dst in wanted(index):
            if source.is_replicated:
                src = (min(dst[0], source.pe_rows - 1), min(dst[1], source.pe_cols - 1))
            else:
                (src,) = held(index)
            moves.append((src, dst))
    return moves


def reference_cost(source, target, shape, size):
    hops = [abs(s[0] - d[0]) + abs(s[1] - d[1]) for s, d in element_moves(source, target, shape)]
    return sum(size for h in hops if h), sum(size * h for h in hops)


def judge(transform):
    """The three verdicts; Z3 UNKNOWN fails the test."""
    proved = transform.prove(timeout_ms=Z3_MS)
    assert proved.status is not Status.UNKNOWN, proved.reason
    return proved.status, mesh_brute.check_exactly_once(transform.model).status, \
        mesh_brute.simulate(transform).status


KINDS = [
    (MeshLayout.grid(4, 4), MeshLayout.block_cyclic(4, 4, 3, 3), (10, 10), TransformKind.IDENTITY),
    (MeshLayout.row_partition(4), MeshLayout.grid(1, 4).transposed(), (10, 3),
     TransformKind.REDISTRIBUTE),
    (MeshLayout.grid(2, 2), MeshLayout.replicated(2, 3), (5, 7), TransformKind.REPLICATE),
    (MeshLayout.grid(3, 3), MeshLayout.single_pe(), (10, 10), TransformKind.GATHER),
    (MeshLayout.single_pe(), MeshLayout.row_partition(4), (10, 4), TransformKind.SCATTER),
    (MeshLayout.grid(4, 2), MeshLayout.grid(4, 2).transposed(), (10, 7), TransformKind.TRANSPOSE),
    (MeshLayout.grid(3, 2), MeshLayout.block_cyclic(2, 3, 2, 1), (5, 2, 3), TransformKind.RESHARD),
    (MeshLayout.replicated(2, 3), MeshLayout.grid(3, 2), (5, 7), TransformKind.RESHARD),
    (MeshLayout.grid(3, 1), MeshLayout.col_partition(2), (7,), TransformKind.GATHER),
]


@pytest.mark.parametrize(("source", "target", "shape", "kind"), KINDS,
                         ids=[k[3].value + str(k[2]) for k in KINDS])
def test_every_kind_on_uneven_layouts(source, target, shape, kind):
    t = create_transform(source, target, shape, "float32")
    assert t.kind is kind
    assert judge(t) == (Status.PROVED,) * 3
    remote, byte_hops = reference_cost(source, target, shape, 4)
    assert (t.cost.bytes, t.cost.byte_hops) == (remote, byte_hops)
    copies = len(element_moves(source, target, shape))
    assert t.cost.bytes + t.cost.local_bytes == copies * 4


def test_large_uneven_reshard_against_simulation():
    t = create_transform(MeshLayout.grid(32, 30), MeshLayout.grid(7, 5), (1000, 900))
    assert t.kind is TransformKind.RESHARD
    assert t.prove(timeout_ms=Z3_MS).proved and mesh_brute.simulate(t).proved
    # Every block is the overlap of a 32×30 tile and a 143×180 tile.
    assert (t.blocks.rows <= 32).all() and (t.blocks.cols <= 30).all()
    assert int((t.blocks.rows * t.blocks.cols).sum()) == 1000 * 900


def test_gather_transfers_by_hand():
    """RowPartition(4) of [10, 4] fp32 → PE (0, 0): tiles of 3, 3, 3, 1 rows."""
    t = create_transform(MeshLayout.row_partition(4), MeshLayout.single_pe(), (10, 4))
    sent = [(x.source, x.dest, x.rows, x.dst_offset, x.size) for x in t.transfers()]
    assert sent == [((1, 0), (0, 0), (3, 6), 48, 48), ((2, 0), (0, 0), (6, 9), 96, 48),
                    ((3, 0), (0, 0), (9, 10), 144, 16)]
    assert [x.hops for x in t.transfers()] == [1, 2, 3]
    assert t.cost == la.mesh.TransferCost(bytes=112, local_bytes=48, messages=3, blocks=3,
                                          wavelets=28, byte_hops=192, wavelet_hops=48, max_hops=3)
    assert len(t.transfers(include_local=True)) == 4


def test_wavelets_round_up_to_32_bits():
    """fp16 [3, 3] on RowPartition(2): PE (1, 0) holds one row, 6 bytes = 2 wavelets."""
    t = create_transform(MeshLayout.row_partition(2), MeshLayout.single_pe(), (3, 3), "float16")
    assert (t.cost.bytes, t.cost.wavelets) == (6, 2)


def test_seed_cost_model_formulas():
    shape = (64, 64)
    data = 64 * 64 * 4
    grid, single = MeshLayout.grid(4, 4), MeshLayout.single_pe()
    assert seed_estimated_cost(TransformKind.GATHER, grid, single, shape) == data // 16 * 16 * 8
    assert seed_estimated_cost(TransformKind.SCATTER, single, grid, shape) == data * 8
    assert seed_estimated_cost(TransformKind.REPLICATE, single, MeshLayout.replicated(2, 2),
                               shape) == data * 3
    assert seed_estimated_cost(TransformKind.IDENTITY, grid, grid, shape) == 0
    # The seed charges a 4×4 gather 8 hops per byte; the exact pattern averages 3.
    exact = create_transform(grid, single, shape).cost
    assert exact.byte_hops == sum(4 * 16 * 16 * (r + c) for r in range(4) for c in range(4)
                                  if (r, c) != (0, 0))


def test_needs_transform_is_semantic():
    assert not needs_transform(MeshLayout.row_partition(4), MeshLayout.grid(4, 1), (1024, 512))
    assert needs_transform(MeshLayout.grid(2, 8), MeshLayout.grid(4, 1), (1024, 512))


# -- the seed's patterns ------------------------------------------------------------------

SEED = [
    (seed_gather, MeshLayout.row_partition(4), (8, 4), Status.PROVED),
    (seed_gather, MeshLayout.row_partition(4), (10, 4), Status.REFUTED),
    (seed_gather, MeshLayout.grid(2, 2), (4, 4), Status.REFUTED),
    (seed_gather, MeshLayout.grid(3, 3), (10, 10), Status.REFUTED),
    (seed_scatter, MeshLayout.row_partition(4), (8, 4), Status.PROVED),
    (seed_scatter, MeshLayout.row_partition(4), (10, 4), Status.REFUTED),
    (seed_scatter, MeshLayout.grid(2, 2), (4, 4), Status.REFUTED),
    (seed_scatter, MeshLayout.grid(3, 3), (10, 10), Status.REFUTED),
]


@pytest.mark.parametrize(("pattern", "layout", "shape", "verdict"), SEED,
                         ids=[f"{p.__name__}-{lay}-{s}" for p, lay, s, _ in SEED])
def test_seed_patterns_are_right_only_for_equal_row_tiles(pattern, layout, shape, verdict):
    t = pattern(layout, shape)
    assert judge(t) == (verdict,) * 3


def test_seed_gather_loses_elements_of_uneven_tiles():
    """[10, 10] on Grid(3, 3): tile_size = 400 // 9 = 44 bytes = 11 elements, but
    PE (0, 0) holds 16 and PE (2, 2) holds 4."""
    t = seed_gather(MeshLayout.grid(3, 3), (10, 10))
    verdict = t.prove()
    assert verdict.reason.startswith("an element lies past the bytes its message sends")
    assert t.blocks.cols.tolist() == [11] * 9


# -- Hypothesis: random layouts --------------------------------------------------------------


@st.composite
def layouts(draw):
    kind = draw(st.sampled_from(["single", "rows", "cols", "grid", "cyclic", "replicated"]))
    small = st.integers(1, 3)
    mapping = draw(st.sampled_from([(0, 1), (1, 0)]))
    if kind == "single":
        return MeshLayout.single_pe()
    if kind == "rows":
        return MeshLayout.row_partition(draw(st.integers(1, 4)), dim_to_pe=mapping)
    if kind == "cols":
        return MeshLayout.col_partition(draw(st.integers(1, 4)), dim_to_pe=mapping)
    if kind == "grid":
        return MeshLayout.grid(draw(small), draw(small), dim_to_pe=mapping)
    if kind == "cyclic":
        return MeshLayout.block_cyclic(draw(small), draw(small), draw(small), draw(small),
                                       dim_to_pe=mapping)
    return MeshLayout.replicated(draw(st.integers(1, 2)), draw(st.integers(1, 2)))


shapes = st.lists(st.integers(1, 7), min_size=1, max_size=3).filter(lambda s: math.prod(s) <= 42)


@given(layouts(), layouts(), shapes)
def test_proof_enumeration_and_simulation_agree(source, target, shape):
    t = create_transform(source, target, tuple(shape))
    assert judge(t) == (Status.PROVED,) * 3
    remote, byte_hops = reference_cost(source, target, tuple(shape), 4)
    assert (t.cost.bytes, t.cost.byte_hops) == (remote, byte_hops)


@given(layouts(), layouts(), shapes, st.data())
def test_broken_patterns_are_refuted_by_every_judge(source, target, shape, data):
    """Shift the destination offset of one message: proof and enumeration refute the
    model, the simulation refutes the blocks shifted the same way."""
    t = create_transform(source, target, tuple(shape))
    b = t.blocks
    k = data.draw(st.integers(0, len(b) - 1))
    size = b.element_size
    # Model: writes of the elements in block k's view rectangle move one element on.
    writes = t.model.writes
    lead = writes.domain.rank - 2
    i, j = writes.domain.symbols[lead:]
    import sympy

    inside = sympy.And(i >= int(b.row_start[k]), i < int(b.row_start[k] + b.rows[k]),
                       j >= int(b.col_start[k]), j < int(b.col_start[k] + b.cols[k]))
    if lead:
        inside = sympy.And(inside, sympy.Eq(writes.domain.symbols[0], int(b.dst_row[k])),
                           sympy.Eq(writes.domain.symbols[1], int(b.dst_col[k])))
    shifted = [*writes.exprs[:2], writes.exprs[2] + sympy.Piecewise((size, inside), (0, True))]
    model = dataclasses.replace(t.model, writes=la.IndexMap(writes.domain, writes.codomain,
                                                             shifted, name="shifted writes"))
    broken = dataclasses.replace(t, model=model, blocks=dataclasses.replace(
        b, dst_offset=b.dst_offset + size * (np.arange(len(b)) == k)))
    assert judge(broken) == (Status.REFUTED,) * 3


def test_custom_layouts_use_index_lists():
    dom = la.Space(i=6, j=4)
    i, j = dom.symbols
    cod = la.Space(pe_row=2, pe_col=3, offset=4)
    r, c, o = cod.symbols
    custom = MeshLayout.custom(la.IndexMap(dom, cod, [j // 2, i // 2, (i % 2) * 2 + j % 2],
                                           inverse=[c * 2 + o // 2, r * 2 + o % 2], name="swap"))
    for source, target in [(custom, MeshLayout.grid(3, 2)), (MeshLayout.grid(3, 2), custom),
                           (MeshLayout.replicated(2, 2), custom), (custom, MeshLayout.replicated(2, 1))]:
        t = create_transform(source, target, (6, 4))
        assert judge(t) == (Status.PROVED,) * 3
        assert (t.cost.bytes, t.cost.byte_hops) == reference_cost(source, target, (6, 4), 4)
    # Grid(3, 2) tiles are custom's tiles on swapped PEs: whole tiles move.
    assert create_transform(MeshLayout.grid(3, 2), custom, (6, 4)).kind is TransformKind.REDISTRIBUTE
