"""The seed's MLP workload (§9), as PyFlame's memory design (seeds/000) builds it.

``seed_mlp`` lays out its weights by ``create_linear_layer`` and its activations
by the planner, with the seed's constants (32 KB planner budget,
``sizeof(float)``): a realistic graph for the memory planner. The seed's flawed
algorithms live in ``specs/_seed_algorithms.py``, refuted by the specs.
"""

from __future__ import annotations

import math
from itertools import pairwise

from layoutalg.core.tiling import ceil_div
from layoutalg.mesh.graph import OpGraph
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.planner import LayoutConstraints, plan_layout

SEED_FLOAT_BYTES = 4                 # the seed's sizeof(float), whatever the dtype
SEED_PLANNER_BYTES = 32 * 1024       # LayoutConstraints::max_memory_per_pe


def seed_linear_layer_layout(in_features: int, out_features: int) -> MeshLayout:
    """§9 ``create_linear_layer``: single PE up to 32 KB, else ~16 KB tiles on a
    ``int(sqrt(tiles)) × ceil(tiles / rows)`` grid."""
    weight_bytes = in_features * out_features * SEED_FLOAT_BYTES
    if weight_bytes <= SEED_PLANNER_BYTES:
        return MeshLayout.single_pe()
    num_tiles = ceil_div(in_features * out_features, 16 * 1024 // SEED_FLOAT_BYTES)
    rows = int(math.sqrt(num_tiles))
    return MeshLayout.grid(rows, ceil_div(num_tiles, rows))


def seed_mlp(batch: int = 32, sizes=(1024, 512, 256, 10), dtype: str = "float32", *,
             activation_bytes: int = SEED_PLANNER_BYTES) -> tuple[OpGraph, dict[str, MeshLayout]]:
    """§9's MLP, ``h = relu(x @ w + b)`` per layer: biases on one PE, activations by
    ``plan_layout`` within ``activation_bytes`` (the seed leaves them unspecified).

    >>> graph, layouts = seed_mlp()
    >>> str(layouts["w1"]), str(layouts["w2"]), str(layouts["w3"])
    ('Grid(11, 12)', 'Grid(5, 7)', 'SinglePE')
    """
    graph = OpGraph().input("x", (batch, sizes[0]), dtype)
    layouts = {"x": None}
    previous = "x"
    for k, (fan_in, fan_out) in enumerate(pairwise(sizes), start=1):
        graph = (graph.constant(f"w{k}", (fan_in, fan_out), dtype)
                 .constant(f"b{k}", (fan_out,), dtype)
                 .op("matmul", previous, f"w{k}", name=f"mm{k}")
                 .op("add", f"mm{k}", f"b{k}", name=f"z{k}")
                 .op("relu", f"z{k}", name=f"h{k}"))
        layouts[f"w{k}"] = seed_linear_layer_layout(fan_in, fan_out)
        layouts[f"b{k}"] = MeshLayout.single_pe()
        previous = f"h{k}"
    graph = graph.output(previous)
    limits = LayoutConstraints(data_bytes=activation_bytes)
    for tensor in graph.tensors:
        if layouts.get(tensor.name) is None:
            layouts[tensor.name] = plan_layout(tensor.shape, dtype, limits).layout
    return graph, layouts
