"""``DTensorLayout``: a tensor on a device mesh with one placement per mesh dim.

The plain form of PyTorch DTensor's (``DeviceMesh`` shape, placements,
global shape), pytorch/pytorch ``torch/distributed/tensor/_api.py`` and
``placement_types.py``. Sizes are ints or positive integer SymPy symbols
(``la.extents``); lookups of one element or rank need ints.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.dtensor.chunks import nested_chunk
from layoutalg.dtensor.maps import names, placement_map, sharding
from layoutalg.dtensor.placements import Placement, Shard
from layoutalg.dtensor.placements import placements as read_placements
from layoutalg.errors import DTensorError, describe
from layoutalg.validate import index, is_int, positive_size
from layoutalg.verify.combinators import linearize


@dataclass(frozen=True, init=False)
class DTensorLayout:
    """A tensor of ``shape`` on a mesh of ``mesh_shape`` ranks, placed by ``placements``.

    ``mesh_shape`` may be a DeviceMesh (its ``.shape`` is read), ``placements``
    torch's objects or their printed or dict forms (see ``placements``).

    >>> layout = DTensorLayout((2, 2), ["S(0)", "S(0)"], (5, 3))
    >>> layout.local_shape((0, 0)), layout.local_shape((1, 1))
    ((2, 3), (1, 3))
    >>> layout.owners((4, 0)), layout.local_index((4, 0))
    (((1, 1),), (0, 0))
    """

    mesh_shape: tuple
    placements: tuple[Placement, ...]
    shape: tuple

    def __init__(self, mesh_shape, placements, shape) -> None:
        mesh = _extents("mesh_shape", _mesh_shape(mesh_shape))
        tensor = _extents("shape", shape)
        chosen = read_placements(placements)
        if len(chosen) != len(mesh):
            raise DTensorError(f"placements: one per mesh dim ({len(mesh)} for mesh "
                               f"{mesh}); got {len(chosen)}: {describe(placements)}")
        rank = len(tensor)
        for k, p in enumerate(chosen):
            if isinstance(p, Shard) and not -rank <= p.dim < rank:
                raise DTensorError(f"placements[{k}]: Shard dim must lie in [{-rank}, {rank}) for "
                                   f"a rank-{rank} tensor; got {p}")
        # torch normalizes negative dims the same way
        normal = tuple(Shard(p.dim % rank) if isinstance(p, Shard) else p for p in chosen)
        for name, value in (("mesh_shape", mesh), ("placements", normal), ("shape", tensor)):
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, dtensor) -> DTensorLayout:
        """The layout of a torch ``DTensor`` (its mesh, placements and global shape)."""
        if not all(hasattr(dtensor, a) for a in ("device_mesh", "placements", "shape")):
            raise DTensorError(f"dtensor: must be a DTensor (with device_mesh, placements "
                               f"and shape); got {describe(dtensor)}")
        return cls(dtensor.device_mesh, dtensor.placements, tuple(dtensor.shape))

    def __str__(self) -> str:
        shown = ", ".join(str(p) for p in self.placements)
        return f"DTensor {self.shape} on mesh {self.mesh_shape} as [{shown}]"

    @property
    def is_concrete(self) -> bool:
        return all(isinstance(e, int) for e in self.mesh_shape + self.shape)

    def replaced(self, mesh_dim: int, placement: Placement) -> DTensorLayout:
        """The same tensor and mesh with mesh dim ``mesh_dim`` placed by ``placement``."""
        chosen = self.placements[:mesh_dim] + (placement,) + self.placements[mesh_dim + 1:]
        return DTensorLayout(self.mesh_shape, chosen, self.shape)

    def index_map(self, *, flat: bool = False) -> IndexMap:
        """Element (with its copy coordinates) → (``m0, m1, …``, ``l0, l1, …``).

        ``flat``: the local index as one row-major ``offset`` into the padded local
        buffer (the largest local shape, as the padded collectives send it).
        """
        return _index_map(self, flat)

    def shard_mesh_dims(self, dim: int) -> tuple[int, ...]:
        """The mesh dims that shard tensor dim ``dim``, in the order torch applies them."""
        return tuple(sharding(self.placements, dim))

    def _bounds(self, coord) -> list[tuple[int, int]]:
        point = _point("coord", coord, self._concrete("mesh_shape"))
        dims = [sharding(self.placements, i) for i in range(len(self.shape))]
        return [nested_chunk(size, [self.mesh_shape[k] for k in d], [point[k] for k in d])
                for size, d in zip(self.shape, dims)]

    def local_shape(self, coord) -> tuple[int, ...]:
        """The shape of the local tensor on the rank at mesh coordinate ``coord``."""
        return tuple(length for _, length in self._bounds(coord))

    def global_offset(self, coord) -> tuple[int, ...]:
        """Where that local tensor starts in the global one (torch's ``global_offset``)."""
        return tuple(start for start, _ in self._bounds(coord))

    def owners(self, index) -> tuple[tuple[int, ...], ...]:
        """The mesh coordinates of every rank holding element ``index`` (row-major)."""
        point = _point("index", index, self._concrete("shape"))
        return tuple(rank for rank in itertools.product(*(range(k) for k in self.mesh_shape))
                     if all(start <= x < start + length
                            for x, (start, length) in zip(point, self._bounds(rank))))

    def local_index(self, index) -> tuple[int, ...]:
        """Element ``index``'s position in the local tensor of each rank holding it."""
        rank = self.owners(index)[0]
        return tuple(x - start for x, (start, _) in zip(index, self._bounds(rank)))

    def _concrete(self, which: str) -> tuple[int, ...]:
        if not self.is_concrete:
            raise DTensorError(f"{self}: looking up one element or rank needs concrete sizes; "
                               f"got symbolic {which}")
        return getattr(self, which)


@functools.lru_cache(maxsize=256)
def _index_map(layout: DTensorLayout, flat: bool) -> IndexMap:
    m = placement_map(layout.mesh_shape, layout.placements, layout.shape, str(layout))
    if flat:
        m = linearize(m, names("l", len(layout.shape)), name="offset").renamed(f"{layout} (flat)")
    return m


def _mesh_shape(mesh) -> object:
    if hasattr(mesh, "shape") and not isinstance(mesh, (Sequence, sympy.Basic)):
        return tuple(mesh.shape)  # a torch DeviceMesh
    return (mesh,) if is_int(mesh) or isinstance(mesh, sympy.Basic) else mesh


def _extents(argument: str, values) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise DTensorError(f"{argument}: must be a non-empty sequence of positive ints or "
                           f"positive integer symbols; got {describe(values)}")
    return tuple(positive_size(DTensorError, f"{argument}[{k}]", value)
                 for k, value in enumerate(values))


def _point(argument: str, values, extents: tuple[int, ...]) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or (
            len(values) != len(extents)):
        raise DTensorError(f"{argument}: must be {len(extents)} ints; got {describe(values)}")
    return tuple(index(DTensorError, f"{argument}[{k}]", v, e)
                 for k, (v, e) in enumerate(zip(values, extents)))
