"""Mesh layouts for the executor's tests (placement round trips, transforms)."""

from __future__ import annotations

from hypothesis import strategies as st

from layoutalg.mesh.layout import MeshLayout as L


def mesh_layouts(side: int, block: int, parts: int, *, more: bool = False):
    """Grids up to ``side`` PEs a side, block-cyclic deals with blocks up to
    ``block``, row and column partitions into up to ``parts`` PEs, one PE;
    with ``more`` also replicated layouts and grids with the dims swapped."""
    found = [
        st.builds(L.grid, st.integers(1, side), st.integers(1, side)),
        st.builds(L.block_cyclic, st.integers(1, 3), st.integers(1, 3), st.integers(1, block),
                  st.integers(1, block)),
        st.builds(L.row_partition, st.integers(1, parts)),
        st.builds(L.col_partition, st.integers(1, parts)),
        st.just(L.single_pe()),
    ]
    if more:
        found += [st.builds(L.replicated, st.integers(1, 2), st.integers(1, 2)),
                  st.builds(lambda r, c: L.grid(r, c, dim_to_pe=(1, 0)), st.integers(1, side),
                            st.integers(1, side))]
    return st.one_of(*found)
