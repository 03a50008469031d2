"""The slots a separable pattern reads and writes, against plain integer formulas.

``pattern_maps`` writes a ``split`` axis (ceil-division tiles) in its one-round
form (part = block, local = position, one block reserved per part) and a
one-block axis without a division; a ``cyclic`` axis keeps the full deal. The
executor evaluates these same expressions (``separable_blocks``), so each is
pinned here, element by element, to the layouts' placement written out in
Python ints below (not taken from the package), and a ``split`` axis that
breaks the one-round premise must be refuted by the obligations, not trusted.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.mesh import MeshLayout, create_transform
from layoutalg.mesh.axes import Axis
from layoutalg.mesh.maps import separable_map
from layoutalg.mesh.pattern_maps import (
    block_digits,
    pattern_from_axes,
    prove_exactly_once,
    reserved,
    separable_pattern,
)
from layoutalg.mesh.shapes import view
from layoutalg.verify.result import Status

SIZE = 4  # fp32


def ceil(a: int, b: int) -> int:
    return (a + b - 1) // b


def placement(kind: str, x: int, extent: int, parts: int, block: int) -> tuple[int, int, int]:
    """(part, local index, local indices reserved per part) of index ``x``, by hand."""
    if kind == "whole":
        return 0, x, extent
    if kind == "tiles":
        tile = ceil(extent, parts)
        return x // tile, x % tile, tile
    rounds = ceil(ceil(extent, block), parts)
    return (x // block) % parts, (x // (block * parts)) * block + x % block, rounds * block


def layout(kind: str, parts: tuple[int, int], block: tuple[int, int]) -> MeshLayout:
    if kind == "whole":
        return MeshLayout.single_pe()
    if kind == "tiles":
        return MeshLayout.grid(*parts)
    return MeshLayout.block_cyclic(*parts, *block)


def expected_slot(kind, parts, block, shape, i, j) -> tuple[int, int, int]:
    rows = placement(kind, i, shape[0], parts[0], block[0])
    cols = placement(kind, j, shape[1], parts[1], block[1])
    pe = (0, 0) if kind == "whole" else (rows[0], cols[0])
    return (*pe, (rows[1] * cols[2] + cols[1]) * SIZE)


kinds = st.sampled_from(["whole", "tiles", "cyclic"])
grids = st.tuples(st.integers(1, 4), st.integers(1, 4))


@settings(max_examples=60, deadline=None)
@given(kinds, kinds, grids, grids, st.tuples(st.integers(1, 3), st.integers(1, 3)),
       st.tuples(st.integers(1, 9), st.integers(1, 9)))
def test_reads_and_writes_are_the_layouts_slots(src, dst, src_pes, dst_pes, block, shape):
    source, target = layout(src, src_pes, block), layout(dst, dst_pes, block)
    pattern = separable_pattern(source, target, shape, SIZE, "t")
    for i, j in np.ndindex(*shape):
        assert tuple(pattern.model.reads(i, j)) == expected_slot(src, src_pes, block, shape, i, j)
        assert tuple(pattern.model.writes(i, j)) == expected_slot(dst, dst_pes, block, shape, i, j)


@settings(max_examples=60, deadline=None)
@given(kinds, st.integers(1, 5), st.integers(1, 3), st.integers(1, 20))
def test_reserved_slots_and_block_digits(kind, parts, block, extent):
    lay = layout(kind, (parts, 1), (block, 1))
    axis = lay.axes((extent, 1))[0]
    assert reserved(axis) == placement(kind, 0, extent, parts, block)[2]
    for x in range(extent):
        assert tuple(block_digits(x, axis)) == (x // axis.block, x % axis.block)


def test_one_block_axis_has_no_division():
    """A whole axis (block = extent) gives block 0 and the index itself."""
    pattern = separable_pattern(MeshLayout.single_pe(), MeshLayout.grid(2, 2), (5, 3), SIZE, "t")
    exprs = pattern.model.messages.exprs
    assert exprs[0] == 0 and exprs[2] == 0  # row and column source blocks
    assert set(exprs[4:]) == set(pattern.model.messages.domain.symbols)


def test_split_axis_past_its_parts_is_refuted():
    """A non-cyclic axis dealing 5 blocks over 3 parts breaks the one-round form
    (block 3 would be PE 3); the reads obligation refutes it instead of trusting it."""
    shape = (10, 1)
    rows = Axis(10, 2, 3, 0)  # 5 blocks of 2 over 3 PE rows: not one round
    cols = Axis(1, 1, 1, 1)
    truth = (Axis(10, 2, 3, 0, cyclic=True), cols)
    true_map = separable_map(view(shape), truth, SIZE, "cyclic rows")
    pattern = pattern_from_axes((rows, cols), truth, true_map, true_map, SIZE, "bad")
    verdict = prove_exactly_once(pattern.model)
    assert verdict.status is Status.REFUTED
    assert "outside the source PEs" in verdict.reason


@pytest.mark.parametrize("kind", ["tiles", "cyclic"])
def test_the_executor_stride_is_the_reserved_extent(kind):
    """The block table's row stride is the reserved local extent, in bytes."""
    shape = (7, 10)
    source = layout(kind, (2, 3), (2, 3))
    t = create_transform(source, MeshLayout.single_pe(), shape)
    stride = placement(kind, 0, shape[1], 3, 3)[2] * SIZE
    assert set(t.blocks.src_stride.tolist()) == {stride}
