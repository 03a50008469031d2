"""The transform-insertion pass (seed §5.4) with semantic compatibility."""

from __future__ import annotations

from layoutalg.mesh import (
    MeshLayout, OpGraph, TransformKind, insert_transforms, required_input_layout,
)
from oracles import mesh as mesh_brute


def matmul_graph():
    return (OpGraph().input("a", (1024, 512)).input("b", (512, 256))
            .op("matmul", "a", "b", name="c").output("c"))


def test_required_layouts_follow_the_seed():
    grid, rows = MeshLayout.grid(4, 4), MeshLayout.row_partition(4)
    assert required_input_layout("matmul", 0, grid) == MeshLayout.grid(4, 1)
    assert required_input_layout("matmul", 1, grid) == MeshLayout.grid(1, 4)
    assert required_input_layout("matmul", 0, rows) == MeshLayout.row_partition(4)
    assert required_input_layout("matmul", 1, rows) == MeshLayout.col_partition(1)
    assert required_input_layout("add", 1, grid) == grid
    assert required_input_layout("add", 1, grid, broadcast=True) == MeshLayout.replicated(4, 4)


def test_seed_example_needs_no_transform_by_meaning():
    """§5.1: A on RowPartition(4), B on ColPartition(4), C on Grid(4, 4): the required
    Grid(4, 1) and Grid(1, 4) place every element where A and B already are."""
    done = insert_transforms(matmul_graph(), {"a": MeshLayout.row_partition(4),
                                              "b": MeshLayout.col_partition(4),
                                              "c": MeshLayout.grid(4, 4)})
    assert done.inserted == ()
    assert [op.inputs for op in done.graph.ops] == [("a", "b")]


def test_grid_2x8_operand_gets_a_reshard():
    """§7.1: "If a was Grid(2, 8), insert transformation"."""
    done = insert_transforms(matmul_graph(), {"a": MeshLayout.grid(2, 8),
                                              "b": MeshLayout.col_partition(4),
                                              "c": MeshLayout.grid(4, 4)})
    (moved,) = done.inserted
    assert (moved.name, moved.tensor, moved.consumer, moved.input_index) == ("a@c", "a", "c", 0)
    assert moved.transform.kind is TransformKind.RESHARD
    assert moved.transform.target == MeshLayout.grid(4, 1)
    assert [(op.kind, op.inputs) for op in done.graph.ops] == [
        ("layout_transform", ("a",)), ("matmul", ("a@c", "b"))]
    assert done.layouts["a@c"] == MeshLayout.grid(4, 1)
    assert done.graph.outputs == ("c",)
    assert moved.transform.prove().proved and mesh_brute.simulate(moved.transform).proved


def test_bias_is_replicated_for_a_broadcast_add():
    graph = (OpGraph().input("x", (8, 6)).constant("b", (6,))
             .op("add", "x", "b", name="y").output("y"))
    done = insert_transforms(graph, {"x": MeshLayout.grid(2, 2), "b": MeshLayout.single_pe(),
                                     "y": MeshLayout.grid(2, 2)})
    (moved,) = done.inserted
    assert moved.transform.kind is TransformKind.REPLICATE
    assert moved.transform.prove().proved
