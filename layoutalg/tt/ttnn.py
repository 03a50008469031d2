"""TTNN's ``MemoryConfig`` / ``ShardSpec`` / ``NdShardSpec``, in TTNN's field names.

TT-Metal keeps a tensor's placement as a ``MemoryConfig`` (tenstorrent/tt-metal
``ttnn/cpp/ttnn/tensor/types.hpp``): ``memory_layout`` (a
``TensorMemoryLayout``: INTERLEAVED, HEIGHT_SHARDED, WIDTH_SHARDED,
BLOCK_SHARDED), ``buffer_type`` (DRAM or L1), and a ``shard_spec``
(``tt_metal/api/tt-metalium/buffer.hpp``: ``grid`` a CoreRangeSet, ``shape``
``[rows, cols]`` in elements, ``orientation``) or an ``nd_shard_spec``
(``shard_shape`` over every dim, ``grid``, ``orientation``,
``shard_distribution_strategy``). ``MemoryConfig.of`` reads TTNN's objects by
those fields, or a dict of them; ``tensor_spec`` pairs one with a shape and
dtype into the family's ``TensorSpec``. ``ttnn`` (a CPython 3.10 wheel) is never
imported (``docs/bridges.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from layoutalg.core.laid_out import bridge as declare_bridge
from layoutalg.errors import ShardSpecError, TTError, describe
from layoutalg.tt.sharded import ORIENTATIONS, NdShardSpec, ShardSpec
from layoutalg.tt.tensor import LAYOUTS, TensorSpec
from layoutalg.tt.ttnn_text import parse_memory_config
from layoutalg.validate import first_not_positive

MEMORY_LAYOUTS = {"INTERLEAVED": None, "HEIGHT_SHARDED": "HEIGHT", "WIDTH_SHARDED": "WIDTH",
                  "BLOCK_SHARDED": "BLOCK"}
BUFFER_TYPES = ("DRAM", "L1")
# ttnn/cpp/ttnn/tensor/types.hpp NdShardSpec: shard s goes to core s % ncores (ROUND_ROBIN_1D),
# the only distribution this family models
DISTRIBUTIONS = ("ROUND_ROBIN_1D",)


@dataclass(frozen=True, init=False)
class MemoryConfig:
    """``ttnn.MemoryConfig``: where a tensor's pages live.

    >>> config = MemoryConfig("BLOCK_SHARDED", "L1",
    ...                       shard_spec={"grid": ((0, 0), (1, 1)), "shape": (64, 128),
    ...                                   "orientation": "COL_MAJOR"})
    >>> config.memory
    ShardSpec(strategy='BLOCK', grid=(2, 2), shard_shape=(64, 128), orientation='COL_MAJOR')
    """

    memory_layout: str
    buffer_type: str
    shard_spec: ShardSpec | None
    nd_shard_spec: NdShardSpec | None

    def __init__(self, memory_layout="INTERLEAVED", buffer_type="DRAM", shard_spec=None,
                 nd_shard_spec=None) -> None:
        layout = enum_name(memory_layout, "memory_layout", tuple(MEMORY_LAYOUTS))
        buffer = enum_name(buffer_type, "buffer_type", BUFFER_TYPES)
        shard = None if shard_spec is None else read_shard_spec(shard_spec, layout)
        nd = None if nd_shard_spec is None else read_nd_shard_spec(nd_shard_spec)
        if layout == "INTERLEAVED" and shard is not None:
            raise ShardSpecError(f"shard_spec: an INTERLEAVED memory config has no shard spec; "
                                 f"got {describe(shard_spec)}")
        if layout != "INTERLEAVED" and shard is None and nd is None:
            raise ShardSpecError(f"shard_spec: a {layout} memory config needs a shard_spec (or "
                                 f"an nd_shard_spec); got neither")
        for name, value in zip(("memory_layout", "buffer_type", "shard_spec", "nd_shard_spec"),
                               (layout, buffer, shard, nd)):
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, value: object) -> MemoryConfig:
        """Read a ``ttnn.MemoryConfig`` (by its fields), its printed form or a dict."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):  # its printed form
            return cls.of(parse_memory_config(value))
        if isinstance(value, Mapping):
            fields = dict(value)
            unknown = sorted(set(map(str, fields)) - set(FIELDS))
            if unknown:
                raise TTError(f"memory_config: unknown field {unknown[0]!r}; TTNN's fields are "
                              f"{', '.join(FIELDS)}")
            _created_with_nd(fields.pop("created_with_nd_shard_spec", False),
                             fields.get("nd_shard_spec"))
            return cls(**fields)
        if hasattr(value, "memory_layout") and hasattr(value, "buffer_type"):
            fields = [_field(value, name) for name in FIELDS[:4]]
            _created_with_nd(_field(value, FIELDS[4]) or False, fields[3])
            return cls(*fields)
        raise TTError(f"memory_config must be a ttnn.MemoryConfig, its printed form or a dict of "
                      f"its fields ({', '.join(FIELDS[:4])}); got {describe(value)}")

    @property
    def memory(self):
        """The family's memory argument: "INTERLEAVED", a ShardSpec or an NdShardSpec."""
        if self.memory_layout == "INTERLEAVED" and self.nd_shard_spec is None:
            return "INTERLEAVED"
        return self.shard_spec if self.shard_spec is not None else self.nd_shard_spec

    @property
    def storage(self) -> str:
        return self.buffer_type


FIELDS = ("memory_layout", "buffer_type", "shard_spec", "nd_shard_spec",
          "created_with_nd_shard_spec")


def tensor_spec(shape, dtype, memory_config, *, layout="TILE", tile=(32, 32),
                device="wormhole_b0", base_address=0) -> TensorSpec:
    """The ``TensorSpec`` of a tensor placed by a TTNN memory config.

    >>> spec = tensor_spec((1, 1, 100, 256), "BFLOAT16", {"memory_layout": "BLOCK_SHARDED",
    ...     "buffer_type": "L1", "shard_spec": {"grid": ((0, 0), (1, 1)), "shape": (64, 128),
    ...     "orientation": "COL_MAJOR"}})
    >>> spec.physical_2d, spec.memory.strategy
    ((128, 256), 'BLOCK')
    """
    config, shape = MemoryConfig.of(memory_config), tuple(shape)
    name = getattr(dtype, "name", dtype)  # a ttnn.DataType, or its name
    if not isinstance(name, str):
        raise TTError(f"dtype must be a ttnn.DataType or its name; got {describe(dtype)}")
    name = name.replace("::", ".").rsplit(".", 1)[-1].lower()
    return TensorSpec(shape, name, layout=enum_name(layout, "layout", LAYOUTS),
                      tile=tile, memory=config.memory, storage=config.storage, device=device,
                      base_address=base_address)


def as_layout(value: object, *, device="wormhole_b0") -> TensorSpec:
    """A ``TensorSpec`` from what a spec may return: a TensorSpec, or a ``ttnn.Tensor``
    (read by ``shape``, ``dtype``, ``layout``, ``memory_config()`` and, if it has one,
    ``tile``)."""
    if isinstance(value, TensorSpec):
        return value
    if all(hasattr(value, name) for name in ("shape", "dtype", "layout", "memory_config")):
        config = value.memory_config
        config = config() if callable(config) else config
        shape = getattr(getattr(value, "tile", None), "tile_shape", None) or (32, 32)
        return tensor_spec(tuple(value.shape), value.dtype, config, layout=value.layout,
                           tile=tuple(shape), device=device)
    raise TTError(f"as_layout: value must be a layoutalg.tt.TensorSpec or a ttnn.Tensor "
                  f"(shape, dtype, layout, memory_config()); got {describe(value)}")


def read_shard_spec(value: object, memory_layout: str) -> ShardSpec:
    """TTNN's ``ShardSpec(grid, shape, orientation)``, its strategy from the memory layout."""
    if isinstance(value, ShardSpec):
        return value
    strategy = MEMORY_LAYOUTS[memory_layout]
    if strategy is None:
        raise ShardSpecError(f"shard_spec: an INTERLEAVED memory config has no shard spec; got "
                             f"{describe(value)}")
    grid, shape, orientation = (_field(value, name) for name in ("grid", "shape", "orientation"))
    return ShardSpec(strategy, core_grid(grid), _pair(shape, "shard_spec.shape"),
                     enum_name(orientation or "ROW_MAJOR", "shard_spec.orientation", ORIENTATIONS))


def read_nd_shard_spec(value: object) -> NdShardSpec:
    if isinstance(value, NdShardSpec):
        return value
    strategy = _field(value, "shard_distribution_strategy") or "ROUND_ROBIN_1D"
    enum_name(strategy, "nd_shard_spec.shard_distribution_strategy", DISTRIBUTIONS)
    shard_shape = _field(value, "shard_shape")
    if isinstance(shard_shape, (str, bytes)) or not isinstance(shard_shape, Sequence):
        raise ShardSpecError(f"nd_shard_spec.shard_shape must list the shard's extent on every "
                             f"dim; got {describe(shard_shape)} in {describe(value)}")
    grid = core_grid(_field(value, "grid"))
    orientation = _field(value, "orientation") or "ROW_MAJOR"
    return NdShardSpec(tuple(shard_shape), grid,
                       enum_name(orientation, "nd_shard_spec.orientation", ORIENTATIONS))


def core_grid(value: object) -> tuple[int, int]:
    """``(x, y)`` of a grid given as a CoreRangeSet of one range from core (0, 0): a ttnn
    object (``ranges()`` of ``start``/``end`` with ``x``/``y``), ``((0, 0), (x1, y1))``,
    ``{"start": {"x": 0, "y": 0}, "end": {...}}``, a list of one such range, or ``(x, y)``."""
    ranges = value.ranges() if callable(getattr(value, "ranges", None)) else value
    if (isinstance(ranges, Sequence) and len(ranges) == 2
            and all(isinstance(v, int) for v in ranges)):
        return _grid_size(ranges[0], ranges[1], value)
    if hasattr(value, "x") and hasattr(value, "y") and not hasattr(value, "start"):
        return _grid_size(value.x, value.y, value)  # ttnn.CoreGrid
    if isinstance(ranges, (Sequence, set, frozenset)) and not _is_range(ranges):
        ranges = list(ranges)
        if len(ranges) != 1:
            raise ShardSpecError(f"grid: this model places shards on one rectangle of cores from "
                                 f"core (0, 0); got {len(ranges)} core ranges: {describe(value)}")
        ranges = ranges[0]
    start, end = _corner(ranges, "start", 0), _corner(ranges, "end", 1)
    if start != (0, 0):
        raise ShardSpecError(f"grid: this model places shards on a grid from core (0, 0); the "
                             f"core range starts at (x={start[0]}, y={start[1]})")
    if end[0] < 0 or end[1] < 0:
        raise ShardSpecError(f"grid: the core range end must be at or after its start; got "
                             f"(x={end[0]}, y={end[1]})")
    return (end[0] + 1, end[1] + 1)


# the TTNN enum each argument holds (ttnn/cpp/ttnn/tensor/types.hpp, tt-metalium buffer_types.hpp)
ENUM_TYPES = {"memory_layout": "TensorMemoryLayout", "buffer_type": "BufferType",
              "orientation": "ShardOrientation", "layout": "Layout",
              "shard_distribution_strategy": "ShardDistributionStrategy"}


def enum_name(value: object, name: str, choices: tuple[str, ...]) -> str:
    """A TTNN enum given as a member (``.name``), ``"Enum.NAME"``, ``"Enum::NAME"`` or
    ``"NAME"`` (case-insensitive). A prefix must name the argument's enum type:
    ``"TensorMemoryLayout::L1"`` is no ``buffer_type``.

    >>> enum_name("BufferType::L1", "buffer_type", ("DRAM", "L1"))
    'L1'
    """
    expected = ENUM_TYPES.get(name.rsplit(".", 1)[-1])
    text = getattr(value, "name", value)
    if isinstance(text, str):
        prefix, _, key = text.replace("::", ".").rpartition(".")
        # a string names its enum in its prefix; a ttnn member by its type
        kind = (prefix.rsplit(".", 1)[-1] if isinstance(value, str) else
                type(value).__name__ if type(value).__name__ in ENUM_TYPES.values() else "")
        if expected and kind and kind.lower() not in (expected.lower(), "ttnn"):
            raise TTError(f"{name} must be a {expected} ({', '.join(choices)}); got "
                          f"{describe(value)}, a {kind}")
        if key.upper() in choices:
            return key.upper()
    raise TTError(f"{name} must be one of {choices}; got {describe(value)}")


def _grid_size(x, y, value) -> tuple[int, int]:
    if first_not_positive((x, y)) is not None:
        raise ShardSpecError(f"grid: a grid size (x, y) must be two ints >= 1 (cores across, "
                             f"cores down); got {describe(value)}")
    return (int(x), int(y))


def _created_with_nd(flag, nd_shard_spec) -> None:
    if flag not in (True, False, 0, 1):
        raise TTError(f"created_with_nd_shard_spec must be True or False (0 or 1); got "
                      f"{describe(flag)}")
    if flag and nd_shard_spec is None:
        raise ShardSpecError("created_with_nd_shard_spec: the memory config says it was created "
                             "with an nd_shard_spec but gives none (nd_shard_spec is None)")


def _is_range(value) -> bool:
    return isinstance(value, Mapping) or hasattr(value, "start") or (
        isinstance(value, Sequence) and len(value) == 2
        and all(isinstance(c, Sequence) and len(c) == 2 for c in value)
        and all(isinstance(v, int) for c in value for v in c))


def _corner(value, key: str, index: int) -> tuple[int, int]:
    if isinstance(value, Mapping):
        corner = value.get(key)
    elif hasattr(value, key):
        corner = getattr(value, key)
    else:
        corner = value[index] if isinstance(value, Sequence) and len(value) == 2 else None
    if isinstance(corner, Mapping):
        corner = (corner.get("x"), corner.get("y"))
    elif hasattr(corner, "x"):
        corner = (corner.x, corner.y)
    if not (isinstance(corner, Sequence) and len(corner) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in corner)):
        raise ShardSpecError(f"grid: a core range needs {key} = (x, y) ints; got {describe(value)}")
    return (int(corner[0]), int(corner[1]))


def _pair(value, name: str) -> tuple[int, int]:
    if isinstance(value, Sequence) and len(value) == 2:
        return (value[0], value[1])
    raise ShardSpecError(f"{name} must be [rows, cols] in elements; got {describe(value)}")


def _field(value: object, name: str):
    if isinstance(value, Mapping):
        return value.get(name)
    attribute = getattr(value, name, None)
    return attribute() if callable(attribute) and name != "grid" else attribute


# a spec may return a ttnn.Tensor: the runner converts it here (ttnn is never imported)
declare_bridge("ttnn Tensor", "ttnn", "Tensor", as_layout)

__all__ = ["BUFFER_TYPES", "MEMORY_LAYOUTS", "MemoryConfig", "as_layout", "core_grid",
           "enum_name", "read_nd_shard_spec", "read_shard_spec", "tensor_spec"]
