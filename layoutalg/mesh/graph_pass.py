"""Insert the layout transforms an op graph needs (the seed's §5.4 pass).

Each input's layout is compared with the one its op wants by proof (same
element → same PEs), not by field equality; only a refuted comparison inserts
a ``layout_transform`` op with its exact pattern.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from layoutalg.errors import MeshError
from layoutalg.mesh.graph import ELEMENTWISE, OpGraph, require_layouts
from layoutalg.mesh.layout import LayoutKind, MeshLayout
from layoutalg.mesh.transforms import LayoutTransform, create_transform
from layoutalg.validate import instance_of


def required_input_layout(kind: str, input_index: int, output: MeshLayout, *,
                          broadcast: bool = False) -> MeshLayout:
    """The seed's ``get_required_input_layout``: matmul wants A by rows, B by columns
    (``Grid(R, 1)`` / ``Grid(1, C)`` for a ``Grid(R, C)`` output, else
    ``RowPartition(R)`` / ``ColPartition(C)``); others the output's layout, and a
    broadcast operand (a bias) on every PE of the output's grid.

    >>> str(required_input_layout("matmul", 0, MeshLayout.grid(4, 4)))
    'Grid(4, 1)'
    """
    instance_of(MeshError, "output", output, MeshLayout, where="required_input_layout")
    if kind == "matmul":
        if input_index not in (0, 1):
            raise MeshError(f"required_input_layout: matmul has inputs 0 and 1; got {input_index}")
        if output.kind is LayoutKind.GRID:
            return (MeshLayout.grid(output.pe_rows, 1) if input_index == 0
                    else MeshLayout.grid(1, output.pe_cols))
        return (MeshLayout.row_partition(output.pe_rows) if input_index == 0
                else MeshLayout.col_partition(output.pe_cols))
    if broadcast and kind in ELEMENTWISE:
        return MeshLayout.replicated(output.pe_rows, output.pe_cols)
    return output


@dataclass(frozen=True)
class InsertedTransform:
    """``consumer``'s input ``input_index`` now reads ``name``, made from ``tensor``."""

    name: str
    tensor: str
    consumer: str
    input_index: int
    transform: LayoutTransform


@dataclass(frozen=True, eq=False)
class TransformPass:
    """The rewritten graph, every tensor's layout, and what was inserted."""

    graph: OpGraph
    layouts: dict[str, MeshLayout]
    inserted: tuple[InsertedTransform, ...]


def insert_transforms(graph: OpGraph, layouts: Mapping[str, MeshLayout]) -> TransformPass:
    """Rewrite ``graph`` so every op reads its inputs in the layout it requires.

    >>> g = (OpGraph().input("a", (1024, 512)).input("b", (512, 256))
    ...      .op("matmul", "a", "b", name="c"))
    >>> done = insert_transforms(g, {"a": MeshLayout.grid(2, 8),
    ...                              "b": MeshLayout.col_partition(4), "c": MeshLayout.grid(4, 4)})
    >>> [(t.name, t.transform.kind.value) for t in done.inserted]
    [('a@c', 'RESHARD')]
    """
    require_layouts(graph, layouts, "insert_transforms")
    result = OpGraph(tuple(t for t in graph.tensors if t.role != "intermediate"))
    placed, inserted = dict(layouts), []
    for op in graph.ops:
        inputs = list(op.inputs)
        out_rank = len(graph.tensor(op.name).shape)
        for k, name in enumerate(op.inputs):
            tensor = graph.tensor(name)
            wanted = required_input_layout(op.kind, k, layouts[op.name],
                                           broadcast=len(tensor.shape) < out_rank)
            if placed[name].compatible_with(wanted, tensor.shape).proved:
                continue
            moved = f"{name}@{op.name}"
            transform = create_transform(placed[name], wanted, tensor.shape, tensor.dtype)
            result = result.op("layout_transform", name, name=moved)
            placed[moved] = wanted
            inputs[k] = moved
            inserted.append(InsertedTransform(moved, name, op.name, k, transform))
        result = result.op(op.kind, *inputs, name=op.name)
    return TransformPass(result.output(*graph.outputs), placed, tuple(inserted))
