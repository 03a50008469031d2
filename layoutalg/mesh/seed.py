"""The seed document's algorithms, reproduced to compare against and to refute.

PyFlame's memory design (seeds/000) ships a planner (§3.4), a cost model
(§5.3), a linear-layer heuristic and an MLP (§9). They are here as written,
with the seed's constants (32 KB planner budget, ``sizeof(float)``), so
specs can show where they go wrong. The seed's GATHER and SCATTER patterns
are in ``seed_patterns``; its bump allocator is ``plan_memory(strategy="bump")``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from layoutalg.mesh.dtypes import element_size
from layoutalg.mesh.graph import OpGraph
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.planner import LayoutConstraints, plan_layout, seed_score
from layoutalg.mesh.shapes import check_shape
from layoutalg.mesh.transforms import TransformKind

SEED_FLOAT_BYTES = 4                 # the seed's sizeof(float), whatever the dtype
SEED_PLANNER_BYTES = 32 * 1024       # LayoutConstraints::max_memory_per_pe
SEED_MAX_PE_ROWS, SEED_MAX_PE_COLS = 750, 994   # swapped: the WSE-2 is 750 wide, 994 tall


@dataclass(frozen=True)
class SeedChoice:
    """What the seed's ``plan_layout`` returns: a layout name and a PE grid.

    ``layout()`` builds it, and raises when the seed's grid cannot exist
    (zero columns, or wider than the 750-PE wafer).
    """

    name: str
    pe_rows: int
    pe_cols: int

    def layout(self) -> MeshLayout:
        if self.name == "SinglePE":
            return MeshLayout.single_pe()
        if self.name == "RowPartition":
            return MeshLayout.row_partition(self.pe_rows)
        return MeshLayout.grid(self.pe_rows, self.pe_cols)

    def __str__(self) -> str:
        if self.name == "SinglePE":
            return "SinglePE"
        if self.name == "RowPartition":
            return f"RowPartition({self.pe_rows})"
        return f"Grid({self.pe_rows}, {self.pe_cols})"


def seed_plan_layout(shape, dtype: str = "float32") -> SeedChoice:
    """§3.4 ``LayoutPlanner::plan_layout`` as written (``min_pes_required`` assumed
    ``ceil(bytes / 32 KB)``, the seed does not show it).

    >>> str(seed_plan_layout((1000, 1000))), str(seed_plan_layout((8, 64, 64)))
    ('Grid(3, 41)', 'Grid(8, 0)')
    """
    shape = check_shape(shape)
    total = math.prod(shape) * element_size(dtype)
    if total <= SEED_PLANNER_BYTES:
        return SeedChoice("SinglePE", 1, 1)
    min_pes = -(-total // SEED_PLANNER_BYTES)
    if len(shape) == 2:
        best, best_score = (1, min_pes), math.inf
        rows = 1
        while rows <= math.sqrt(min_pes) + 1:
            if min_pes % rows == 0:
                cols = min_pes // rows
                tile = (-(-shape[0] // rows), -(-shape[1] // cols))
                score = float(seed_score(tile[0], tile[1], tile[0] * tile[1] * SEED_FLOAT_BYTES,
                                         SEED_PLANNER_BYTES))
                if score < best_score:
                    best, best_score = (rows, cols), score
            rows += 1
        return SeedChoice("Grid", *best)
    if len(shape) == 1:
        return SeedChoice("RowPartition", min_pes, 1)
    rows = min(shape[0], SEED_MAX_PE_ROWS)
    return SeedChoice("Grid", rows, min_pes // rows)


def seed_estimated_cost(kind: TransformKind, source: MeshLayout, target: MeshLayout,
                        shape) -> int:
    """§5.3 ``LayoutTransform::estimated_cost`` (bytes × hops, ``sizeof(float)``)."""
    data = math.prod(check_shape(shape)) * SEED_FLOAT_BYTES
    if kind is TransformKind.IDENTITY:
        return 0
    if kind is TransformKind.REDISTRIBUTE:
        return data * ((source.pe_rows + source.pe_cols) // 2)
    if kind is TransformKind.REPLICATE:
        return data * (target.total_pes - 1)
    if kind is TransformKind.GATHER:
        tile = data // source.total_pes
        return tile * source.total_pes * (source.pe_rows + source.pe_cols)
    if kind is TransformKind.SCATTER:
        return data * (target.pe_rows + target.pe_cols)
    return data * max(source.pe_rows + source.pe_cols, target.pe_rows + target.pe_cols)


def seed_linear_layer_layout(in_features: int, out_features: int) -> MeshLayout:
    """§9 ``create_linear_layer``: single PE up to 32 KB, else ~16 KB tiles on a
    ``int(sqrt(tiles)) × ceil(tiles / rows)`` grid."""
    weight_bytes = in_features * out_features * SEED_FLOAT_BYTES
    if weight_bytes <= SEED_PLANNER_BYTES:
        return MeshLayout.single_pe()
    num_tiles = -(-(in_features * out_features) // (16 * 1024 // SEED_FLOAT_BYTES))
    rows = int(math.sqrt(num_tiles))
    return MeshLayout.grid(rows, -(-num_tiles // rows))


def seed_mlp(batch: int = 32, sizes=(1024, 512, 256, 10), dtype: str = "float32", *,
             activation_bytes: int = SEED_PLANNER_BYTES) -> tuple[OpGraph, dict[str, MeshLayout]]:
    """§9's MLP: ``h = relu(x @ w + b)`` per layer. Weights as ``create_linear_layer``
    lays them out, biases on one PE, activations by ``plan_layout`` with
    ``activation_bytes`` per PE (default the seed's 32 KB; the seed leaves
    activation layouts unspecified).

    >>> graph, layouts = seed_mlp()
    >>> str(layouts["w1"]), str(layouts["w2"]), str(layouts["w3"])
    ('Grid(11, 12)', 'Grid(5, 7)', 'SinglePE')
    """
    graph = OpGraph().input("x", (batch, sizes[0]), dtype)
    layouts = {"x": None}
    previous = "x"
    for k, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:]), start=1):
        graph = (graph.constant(f"w{k}", (fan_in, fan_out), dtype)
                 .constant(f"b{k}", (fan_out,), dtype)
                 .op("matmul", previous, f"w{k}", name=f"mm{k}")
                 .op("add", f"mm{k}", f"b{k}", name=f"z{k}")
                 .op("relu", f"z{k}", name=f"h{k}"))
        layouts[f"w{k}"] = seed_linear_layer_layout(fan_in, fan_out)
        layouts[f"b{k}"] = MeshLayout.single_pe()
        previous = f"h{k}"
    graph = graph.output(previous)
    seed_limits = LayoutConstraints(data_bytes=activation_bytes)
    for tensor in graph.tensors:
        if layouts.get(tensor.name) is None:
            layouts[tensor.name] = plan_layout(tensor.shape, dtype, seed_limits).layout
    return graph, layouts
