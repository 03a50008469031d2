"""A small op graph: inputs, constants, intermediates, ops in topological order.

Enough of the seed's ``ir::Graph`` to plan PE memory and insert layout
transforms. Each builder call returns a new graph, so ops read only tensors
that already exist (topological by construction).

Liveness (op steps 0 … T−1, both ends inclusive):

- inputs are staged before the first op: live from step 0 to their last use;
- constants (weights) stay resident for the whole program: steps 0 … T−1;
- an intermediate lives from the op producing it to its last use;
- graph outputs live to the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from layoutalg.errors import MeshError, describe
from layoutalg.mesh.dtypes import element_size
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.shapes import check_shape
from layoutalg.validate import one_of

ELEMENTWISE = ("add", "sub", "mul", "div")
UNARY = ("relu", "layout_transform")
OPS = ("matmul",) + ELEMENTWISE + UNARY
LIVENESS = ("resident", "seed")


@dataclass(frozen=True)
class Tensor:
    """A value of the graph: ``role`` is "input", "constant" or "intermediate"."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    role: str


@dataclass(frozen=True)
class Op:
    """``name = kind(*inputs)``; the op's output tensor has the op's name."""

    name: str
    kind: str
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class Interval:
    """Steps during which a tensor must stay in memory (inclusive)."""

    start: int
    end: int


@dataclass(frozen=True)
class OpGraph:
    """Tensors and ops in topological order.

    >>> g = (OpGraph().input("x", (32, 1024)).constant("w", (1024, 512))
    ...      .op("matmul", "x", "w", name="y").output("y"))
    >>> g.tensor("y").shape, g.liveness()["x"]
    ((32, 512), Interval(start=0, end=0))
    """

    tensors: tuple[Tensor, ...] = ()
    ops: tuple[Op, ...] = ()
    outputs: tuple[str, ...] = ()

    def _add(self, name: str, shape, dtype: str, role: str) -> OpGraph:
        if not isinstance(name, str) or not name:
            raise MeshError(f"graph: a tensor name must be a non-empty string; got {describe(name)}")
        if any(t.name == name for t in self.tensors):
            raise MeshError(f"graph: tensor names must be unique; got {name!r} twice")
        element_size(dtype)
        return replace(self, tensors=self.tensors + (Tensor(name, check_shape(shape), dtype, role),))

    def input(self, name: str, shape, dtype: str = "float32") -> OpGraph:
        return self._add(name, shape, dtype, "input")

    def constant(self, name: str, shape, dtype: str = "float32") -> OpGraph:
        return self._add(name, shape, dtype, "constant")

    def op(self, kind: str, *inputs: str, name: str) -> OpGraph:
        """Append ``name = kind(*inputs)``; the output shape is inferred."""
        one_of(MeshError, "op kind", kind, OPS, where="graph")
        args = tuple(self.tensor(n) for n in inputs)
        shape = _result_shape(kind, args, name)
        graph = self._add(name, shape, args[0].dtype, "intermediate")
        return replace(graph, ops=graph.ops + (Op(name, kind, tuple(inputs)),))

    def output(self, *names: str) -> OpGraph:
        for n in names:
            self.tensor(n)
        return replace(self, outputs=self.outputs + tuple(names))

    def tensor(self, name: str) -> Tensor:
        for t in self.tensors:
            if t.name == name:
                return t
        raise MeshError(f"graph: no tensor named {name!r}; tensors are "
                        f"{[t.name for t in self.tensors]}")

    def liveness(self, policy: str = "resident") -> dict[str, Interval]:
        """Each tensor's live interval: ``"resident"`` by the module docstring's rules;
        ``"seed"`` is the seed's ``analyze_liveness``: from its first use (producing
        op, or first reader) to its last reader, outputs to the end (weights come
        and go, streamed in as with the seed's double buffering)."""
        one_of(MeshError, "policy", policy, LIVENESS, where="liveness")
        last = max(len(self.ops) - 1, 0)
        start: dict[str, int] = {}
        end = {t.name: 0 for t in self.tensors}
        for step, op in enumerate(self.ops):
            start[op.name] = end[op.name] = step
            for name in op.inputs:
                start.setdefault(name, step)
                end[name] = max(end[name], step)
        for t in self.tensors:
            if policy == "resident" and t.role != "intermediate":
                start[t.name] = 0
            if t.name in self.outputs or (policy == "resident" and t.role == "constant"):
                end[t.name] = last
        return {t.name: Interval(start.get(t.name, 0), end[t.name]) for t in self.tensors}


def require_layouts(graph: object, layouts: object, who: str) -> None:
    """``graph`` is an OpGraph and ``layouts`` maps each of its tensors to a MeshLayout."""
    if not isinstance(graph, OpGraph):
        raise MeshError(f"{who}: graph must be an OpGraph; got {describe(graph)}")
    if not isinstance(layouts, Mapping):
        raise MeshError(f"{who}: layouts must map tensor names to MeshLayouts; "
                        f"got {describe(layouts)}")
    missing = [t.name for t in graph.tensors if not isinstance(layouts.get(t.name), MeshLayout)]
    if missing:
        raise MeshError(f"{who}: layouts must give a MeshLayout for every tensor; "
                        f"missing or not a layout: {missing}")


def _result_shape(kind: str, args: tuple[Tensor, ...], name: str) -> tuple[int, ...]:
    wanted = 2 if kind == "matmul" or kind in ELEMENTWISE else 1
    if len(args) != wanted:
        raise MeshError(f"graph: {kind} {name!r} takes {wanted} input(s); got {len(args)}")
    if kind == "matmul":
        a, b = args
        if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
            raise MeshError(f"graph: matmul {name!r} needs [M, K] @ [K, N]; got {a.shape} @ {b.shape}")
        return (a.shape[0], b.shape[1])
    if kind in ELEMENTWISE:
        a, b = args
        if a.shape != b.shape and a.shape[-len(b.shape):] != b.shape:
            raise MeshError(f"graph: {kind} {name!r} needs equal shapes or a trailing broadcast; "
                            f"got {a.shape} and {b.shape}")
        return a.shape
    return args[0].shape
