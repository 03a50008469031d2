"""``TensorSpec``: a TT-Metal tensor's shape, pages and where each page lives.

The 2D view, tile padding, pages and alignment are those of ``docs/tt.md``
("The model"): ``[3, 40, 50]`` → ``[3, 64, 64]`` → 2D ``[192, 64]``; pages are
numbered row-major over the 2D page grid and placed by the memory config.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from layoutalg.core.home import Home
from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import ceil_div, digits
from layoutalg.errors import MachineError, TTError, describe
from layoutalg.tt import maps
from layoutalg.tt.devices import Device, get_device
from layoutalg.tt.dtypes import DType, get_dtype
from layoutalg.tt.rules import build_placement, page_width
from layoutalg.tt.sharded import NdShardSpec, ShardSpec, check_choice, check_shape, cores_in_order
from layoutalg.tt.tiles import Tile
from layoutalg.validate import is_int, nonnegative_int

LAYOUTS = ("TILE", "ROW_MAJOR")
STORAGES = ("DRAM", "L1")

Location = int | tuple[int, int]


@dataclass(frozen=True, init=False)
class TensorSpec:
    """A tensor on a TT device: shape, dtype, page layout, memory config.

    Args:
        shape: logical shape, positive ints.
        dtype: a name in ``DTYPES`` (block-float ``bfloat8_b``, ``bfloat4_b``: TILE only).
        layout: "TILE" (pages are tiles) or "ROW_MAJOR" (pages are rows).
        tile: tile shape ``(height, width)``; see ``layoutalg.tt.tiles``.
        memory: "INTERLEAVED", a ``ShardSpec`` or an ``NdShardSpec``.
        storage: "DRAM" or "L1".
        device: a preset name or a ``Device``.
        base_address: the buffer's address in every bank or core (a
            multiple of the alignment); addresses below it are not the tensor's.

    >>> spec = TensorSpec((64, 64), "bfloat16", memory="INTERLEAVED", device="wormhole_b0")
    >>> spec.num_pages, spec.page_bytes, spec.page_location(3)
    (4, 2048, (3, 0))
    """

    shape: tuple[int, ...]
    dtype: DType
    layout: str
    tile: Tile
    memory: str | ShardSpec | NdShardSpec
    storage: str
    device: Device
    base_address: int

    def __init__(self, shape: object, dtype: str | DType, *, layout: str = "TILE",
                 tile: object = (32, 32), memory: object = "INTERLEAVED", storage: str = "DRAM",
                 device: str | Device = "wormhole_b0", base_address: int = 0) -> None:
        fields = {
            "shape": check_shape(shape, "shape"),
            "dtype": get_dtype(dtype),
            "layout": check_choice(layout, "layout", LAYOUTS),
            "tile": Tile.of(tile),
            "memory": _check_memory(memory),
            "storage": check_choice(storage, "storage", STORAGES),
            "device": get_device(device),
            "base_address": int(base_address) if is_int(base_address) else base_address,
        }
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        if self.layout == "ROW_MAJOR" and self.dtype.block_float:
            raise TTError(
                f"dtype: BFLOAT4_B and BFLOAT8_B data types are not supported for ROW_MAJOR layout "
                f"(block-float elements share exponents per tile face); got {self.dtype.name}")
        base = nonnegative_int(TTError, "base_address", self.base_address)
        if base % self.alignment:
            raise TTError(f"base_address must be a multiple of the {self.storage} alignment "
                          f"{self.alignment} B on {self.device.name}; got {base}")
        _ = self.placement  # validates the memory config against the tensor

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def leading(self) -> tuple[int, ...]:
        """The dims flattened into rows, above the last two."""
        return self.shape[:-2]

    @property
    def height(self) -> int:
        """The second-to-last dim (1 for a rank-1 tensor)."""
        return self.shape[-2] if self.rank >= 2 else 1

    @property
    def width(self) -> int:
        return self.shape[-1]

    @property
    def padded_height(self) -> int:
        return self._tiled(self.height, self.tile.height)

    @property
    def padded_width(self) -> int:
        return self._tiled(self.width, self.tile.width)

    def _tiled(self, extent: int, tile: int) -> int:
        return ceil_div(extent, tile) * tile if self.layout == "TILE" else extent

    @property
    def padded_shape(self) -> tuple[int, ...]:
        """The N-d shape, the last two dims padded to tiles (TILE layout).

        >>> TensorSpec((3, 40, 50), "bfloat16").padded_shape
        (3, 64, 64)
        """
        return self.leading + (self.padded_height,) * (self.rank > 1) + (self.padded_width,)

    @property
    def shape_2d(self) -> tuple[int, int]:
        """The logical 2D view ``[prod(shape[:-1]), shape[-1]]``."""
        return (math.prod(self.leading) * self.height, self.width)

    @property
    def physical_2d(self) -> tuple[int, int]:
        """The padded shape flattened to 2D: what the buffer holds.

        >>> TensorSpec((3, 40, 50), "bfloat16").physical_2d
        (192, 64)
        """
        return (math.prod(self.leading) * self.padded_height, self.padded_width)

    @property
    def page_shape(self) -> tuple[int, int]:
        """Elements per page: a tile, or ``(1, width)`` of a ROW_MAJOR page."""
        return self.tile.shape if self.layout == "TILE" else (1, page_width(self))

    @property
    def pages_2d(self) -> tuple[int, int]:
        """Pages down and across the 2D view."""
        (ph, pw), (height, width) = self.page_shape, self.physical_2d
        return (height // ph, ceil_div(width, pw))

    @property
    def pages_nd(self) -> tuple[int, ...]:
        """Pages along each dim of the padded N-d shape (N-d sharding's view)."""
        ph, pw = self.page_shape
        down = (self.padded_height // ph,) * (self.rank > 1)
        return self.leading + down + (ceil_div(self.padded_width, pw),)

    @property
    def num_pages(self) -> int:
        """Pages of the tensor.
        >>> TensorSpec((64, 64), "bfloat16", layout="ROW_MAJOR").num_pages
        64
        """
        return self.pages_2d[0] * self.pages_2d[1]

    @property
    def page_bytes(self) -> int:
        if self.layout == "TILE":
            return self.tile.tile_bytes(self.dtype)
        return self.page_shape[1] * self.dtype.element_bytes

    @property
    def alignment(self) -> int:
        return self.device.alignment(self.storage)

    @property
    def aligned_page_bytes(self) -> int:
        """The bytes one page occupies: its size rounded up to the alignment."""
        return ceil_div(self.page_bytes, self.alignment) * self.alignment

    @cached_property
    def placement(self):
        return build_placement(self)

    @property
    def is_sharded(self) -> bool:
        return self.memory != "INTERLEAVED"

    @property
    def slots_per_location(self) -> int:
        """Page slots each bank (interleaved) or core (sharded) reserves."""
        return self.placement.slots

    @property
    def bytes_per_location(self) -> int:
        """Bytes each bank or core reserves: slots × aligned page bytes."""
        return self.slots_per_location * self.aligned_page_bytes

    @property
    def capacity(self) -> int:
        """Bytes of one bank or core's memory for this storage."""
        return self.device.capacity(self.storage)

    def page_map(self) -> IndexMap:
        """Page id → (bank | core_x, core_y, address): a bijection onto real page slots."""
        return self._page_map

    def home(self) -> Home:
        """Where ``layoutalg run`` puts it: the device's DRAM banks or L1 cores,
        byte offsets. Block-float dtypes pack elements below a byte: refused."""
        if self.dtype.element_bytes is None:
            raise MachineError(f"run: block-float dtype {self.dtype.name} packs elements "
                               f"below a byte; the executor moves whole bytes")
        memory_dims = self.index_map().codomain.rank - 1
        memory = "bank" if memory_dims == 1 else "core"
        return Home("tt", self.dtype.element_bytes, True, memory_dims,
                    f"{self.device.name} {self.storage}, {self.capacity} B per {memory}",
                    self.capacity, memory)

    def index_map(self) -> IndexMap:
        """Element → (bank | core_x, core_y, byte address), with inverse and padding."""
        return self._element_map

    # Built once per instance (the maps are immutable). Not shared between equal
    # specs: a DType or Tile given floats compares equal to the int one but must
    # still be refused when its own maps are built.
    @cached_property
    def _page_map(self) -> IndexMap:
        return maps.page_map(self)

    @cached_property
    def _element_map(self) -> IndexMap:
        return maps.element_map(self)

    @cached_property
    def _steps(self) -> tuple[IndexMap, ...]:
        return maps.element_steps(self)

    def element_page_map(self, *, pages: int | None = None) -> IndexMap:
        """Element → (page, element offset inside the page); ``pages`` sets the
        codomain's page count (to test a claimed count)."""
        return maps.element_page_map(self, pages=pages)

    def layout_steps(self) -> tuple[IndexMap, ...]:
        """``index_map()`` as steps through named coordinates (``maps.element_steps``);
        the docs show each on its own line (``Stepped`` of ``layoutalg.docgen.pages``).

        >>> steps = TensorSpec((64, 64), "bfloat16", device="wormhole_b0").layout_steps()
        >>> [step.codomain.names for step in steps]
        [('page', 'offset'), ('bank', 'slot', 'offset'), ('bank', 'address')]
        >>> steps[1](3, 5)  # page 3 → bank 3, its first slot
        (3, 0, 5)
        """
        return self._steps

    def cell_numbering(self) -> tuple[str, IndexMap]:
        """Pictures number each element with its page (``layoutalg show``, the docs)."""
        return "page", self.element_page_map()

    def page_location(self, page: int) -> tuple[Location, int]:
        """``(bank, byte address)`` or ``((x, y), byte address)`` of one page."""
        if not is_int(page) or not 0 <= page < self.num_pages:
            raise TTError(f"page must be an int in [0, {self.num_pages}); got {describe(page)}")
        image = self.page_map()(int(page))
        return ((image[0], image[1]), image[2]) if self.is_sharded else (image[0], image[1])

    def _slots_table(self) -> dict[Location, list[int | None]]:
        pages = np.arange(self.num_pages, dtype=np.int64)
        image = [np.asarray(v) for v in self.page_map().apply(pages)]
        slots = digits(image[-1] - self.base_address, self.aligned_page_bytes)[0]
        if self.is_sharded:
            table = {core: [None] * self.slots_per_location
                     for core in cores_in_order(self.memory.grid, self.memory.orientation)}
            keys = zip(image[0].tolist(), image[1].tolist())
        else:
            table = {bank: [None] * self.slots_per_location for bank in range(self.placement.banks)}
            keys = image[0].tolist()
        for page, key, slot in zip(pages.tolist(), keys, slots.tolist()):
            table[key][slot] = page
        return table

    def pages_by_core(self) -> dict[tuple[int, int], list[int | None]]:
        """Each core's page slots in address order (None: padding), cores in
        orientation order; every core of the grid reserves the same slots."""
        if not self.is_sharded:
            raise TTError("pages_by_core: an INTERLEAVED tensor's pages live in banks, not on "
                          "named cores; use pages_by_bank()")
        return self._slots_table()

    def pages_by_bank(self) -> dict[int, list[int | None]]:
        """Each bank's page slots (INTERLEAVED); None past the last page.

        >>> TensorSpec((64, 64), "bfloat16", device=Device("seed", 3, 4096, (2, 2))).pages_by_bank()
        {0: [0, 3], 1: [1, None], 2: [2, None]}
        """
        if self.is_sharded:
            raise TTError("pages_by_bank: a sharded tensor's pages live on cores; "
                          "use pages_by_core()")
        return self._slots_table()


def _check_memory(memory: object):
    if isinstance(memory, (ShardSpec, NdShardSpec)):
        return memory
    if isinstance(memory, str) and memory.upper() == "INTERLEAVED":
        return "INTERLEAVED"
    raise TTError(
        f"memory must be 'INTERLEAVED', a ShardSpec or an NdShardSpec; got {describe(memory)}")


__all__ = ["LAYOUTS", "STORAGES", "TensorSpec"]
