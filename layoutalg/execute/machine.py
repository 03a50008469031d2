"""``Machine``: memories addressed by placement coordinates, each a byte array."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from layoutalg.core.tiling import ceil_div
from layoutalg.errors import MachineError, describe
from layoutalg.tt.devices import get_device
from layoutalg.validate import is_int, positive_int

WSE_SRAM_BYTES = 48 * 1024
#: Storage grows in steps of this many bytes per memory (never past the capacity).
GRANULE = 64
# What the emulated memories may hold in all, so a sparse layout is refused in
# one line instead of asking NumPy for terabytes (the build machine has 24 GB).
EMULATED_BYTES_LIMIT = 8 * 2**30


def _bytes_text(n: int) -> str:
    """``48.0 TiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024


class _Store:
    """The bytes a machine has touched so far: ``(memories, allocated)`` uint8."""

    def __init__(self, memories: int) -> None:
        self.array = np.zeros((memories, 0), dtype=np.uint8)


@dataclass(frozen=True)
class Machine:
    """Equal memories of ``capacity`` bytes on a grid of placement coordinates:
    ``dims`` pick a memory, in order (``(("pe_row", 16), ("pe_col", 16))``,
    ``(("bank", 12),)``, or ``()`` for one memory); ``name`` is what one memory
    is called in messages ("PE", "bank", "core").

    A layout placed on the machine names the memory with its first ``rank``
    codomain coordinates; the rest address inside the memory, row-major. The
    contents are one ``uint8`` array ``(memories, allocated)``, allocated
    lazily up to the highest byte in use (at most ``capacity``), so a preset
    with GiB-sized DRAM banks costs only what is used.

    >>> m = Machine.wse(2, 2)
    >>> m.memories, m.capacity, m.memory_label(3)
    (4, 49152, 'PE (1, 1)')
    """

    dims: tuple[tuple[str, int], ...]
    capacity: int
    name: str = "memory"
    _store: _Store = field(default=None, compare=False, repr=False)
    shape: tuple[int, ...] = field(default=(), init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.dims, tuple):
            raise MachineError(f"Machine: dims must be a tuple of (name, positive int) pairs; "
                               f"got {describe(self.dims)}")
        for dim in self.dims:
            if not (isinstance(dim, tuple) and len(dim) == 2 and isinstance(dim[0], str)
                    and is_int(dim[1]) and dim[1] >= 1):
                raise MachineError(
                    f"Machine: each dim must be (name, positive int); got {describe(dim)}")
        object.__setattr__(self, "dims", tuple((name, int(n)) for name, n in self.dims))
        object.__setattr__(self, "shape", tuple(n for _, n in self.dims))
        object.__setattr__(self, "capacity", positive_int(
            MachineError, "capacity", self.capacity, where="Machine", unit="bytes"))
        if not isinstance(self.name, str) or not self.name:
            raise MachineError(f"Machine: name must be a non-empty string; "
                               f"got {describe(self.name)}")
        if self._store is None:
            object.__setattr__(self, "_store", _Store(self.memories))

    @classmethod
    def wse(cls, rows: int, cols: int, *, sram_bytes: int = WSE_SRAM_BYTES) -> Machine:
        """A Cerebras PE mesh: ``rows × cols`` PEs with 48 KB SRAM each."""
        sram_bytes = positive_int(MachineError, "sram_bytes", sram_bytes, where="Machine.wse",
                                  unit="bytes")
        return cls((("pe_row", rows), ("pe_col", cols)), sram_bytes, name="PE")

    @classmethod
    def banks(cls, count: int, bank_bytes: int, *, name: str = "bank") -> Machine:
        """``count`` interleaved banks (DRAM banks, memory channels)."""
        bank_bytes = positive_int(MachineError, "bank_bytes", bank_bytes, where="Machine.banks",
                                  unit="bytes")
        return cls(((name, count),), bank_bytes, name=name)

    @classmethod
    def cores(cls, x: int, y: int, l1_bytes: int) -> Machine:
        """A Tenstorrent worker grid: cores (x, y) with ``l1_bytes`` of L1 each."""
        l1_bytes = positive_int(MachineError, "l1_bytes", l1_bytes, where="Machine.cores",
                                unit="bytes")
        return cls((("x", x), ("y", y)), l1_bytes, name="core")

    @classmethod
    def single(cls, capacity: int, *, name: str = "memory") -> Machine:
        """One memory of ``capacity`` bytes (a CuTe offset space, a Spyre device)."""
        return cls((), capacity, name=name)

    @classmethod
    def tenstorrent(cls, device: str = "wormhole_b0", storage: str = "DRAM") -> Machine:
        """A Tenstorrent device: its DRAM banks, or its worker cores' L1.

        >>> Machine.tenstorrent("wormhole_b0", "L1").shape
        (8, 10)
        >>> Machine.tenstorrent("blackhole", "DRAM").shape
        (8,)
        """
        chip = get_device(device)
        if storage == "DRAM":
            return cls.banks(chip.dram_banks, chip.dram_bank_bytes, name="DRAM bank")
        if storage == "L1":
            x, y = chip.worker_grid
            return cls.cores(x, y, chip.l1_bytes)
        raise MachineError(f"Machine.tenstorrent: storage must be 'DRAM' or 'L1'; "
                           f"got {describe(storage)}")

    @classmethod
    def for_layout(cls, layout, *, capacity: int, memory_dims: int | None = None,
                   name: str = "memory") -> Machine:
        """A machine whose memories are the layout's first ``memory_dims``
        codomain dims (default: all but the last), ``capacity`` bytes each.

        >>> import layoutalg as la
        >>> grid = la.split(la.Space(i=8), "i", 4, names=("pe", "offset"))
        >>> Machine.for_layout(grid, capacity=16, name="PE").dims
        (('pe', 2),)
        """
        rank = layout.codomain.rank
        count = rank - 1 if memory_dims is None else memory_dims
        if not is_int(count) or not 0 <= count < rank:
            raise MachineError(f"Machine.for_layout: memory_dims must be an int in [0, {rank}) "
                               f"(at least one codomain dim addresses inside a memory); "
                               f"got {describe(memory_dims)}")
        extents = layout.codomain.extents[:count]
        if not all(isinstance(e, int) for e in extents):
            raise MachineError(f"Machine.for_layout: layout {layout.label} has symbolic memory "
                               f"dims {layout.codomain}; bind them first")
        return cls(tuple(zip(layout.codomain.names[:count], extents)), capacity, name=name)

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def plural(self) -> str:
        """The name of several memories: "PEs", "banks", "memories"."""
        if self.name.endswith("y") and self.name[-2:-1] not in tuple("aeiou"):
            return self.name[:-1] + "ies"
        return self.name + "s"

    @property
    def memories(self) -> int:
        return math.prod(self.shape)

    def memory_label(self, flat: int) -> str:
        """``PE (3, 7)``, ``bank 5``, or the name of a machine's only memory."""
        if not self.dims:
            return self.name
        text = ", ".join(str(int(c)) for c in np.unravel_index(int(flat), self.shape))
        return f"{self.name} ({text})" if self.rank > 1 else f"{self.name} {text}"

    @property
    def storage(self) -> np.ndarray:
        """The bytes in use: ``(memories, allocated)`` uint8, allocated ≤ capacity."""
        return self._store.array

    def reserve(self, nbytes: int) -> np.ndarray:
        """Grow every memory's storage to at least ``nbytes`` (≤ capacity), new
        bytes zero and written ones kept; returns it."""
        if nbytes > self.capacity:
            raise MachineError(f"reserve: {nbytes} bytes exceed the capacity {self.capacity}")
        old = self._store.array
        if nbytes <= old.shape[1]:
            return old
        size = min(self.capacity, ceil_div(nbytes, GRANULE) * GRANULE)
        if size * self.memories > EMULATED_BYTES_LIMIT:
            raise MachineError(
                f"reserve: emulating {self.memories} {self.plural} of {size} bytes each needs "
                f"{_bytes_text(size * self.memories)}, past the emulator's limit of "
                f"{_bytes_text(EMULATED_BYTES_LIMIT)}; the layout's offsets are too sparse to "
                "emulate (bind smaller sizes, or check the offsets)")
        new = np.zeros((self.memories, size), dtype=np.uint8)
        new[:, :old.shape[1]] = old
        self._store.array = new
        return new

    def read(self, memory: int | tuple[int, ...], start: int, nbytes: int) -> bytes:
        """Raw bytes ``[start, start + nbytes)`` of one memory (unwritten bytes are 0)."""
        data = self.storage[self._flat(memory), start:start + nbytes].tobytes()
        return data + bytes(max(0, nbytes - len(data)))

    def overflow(self, flat: int, need: int) -> str:
        """``PE (0, 0) exceeds memory: 4194304 > 49152 bytes`` (the text of a
        CapacityError; "the layout" when the machine has one memory, as
        ``check_fits`` says it)."""
        owner = self.memory_label(flat) if self.dims else "the layout"
        return f"{owner} exceeds memory: {need} > {self.capacity} bytes"

    def _flat(self, memory) -> int:
        if not self.dims and memory in (0, ()):
            return 0
        coord = (memory,) if isinstance(memory, (int, np.integer)) else tuple(memory)
        if len(coord) != self.rank or any(not 0 <= c < e for c, e in zip(coord, self.shape)):
            raise MachineError(f"memory must be a coordinate inside {dict(self.dims)}; "
                               f"got {describe(memory)}")
        return int(np.ravel_multi_index(coord, self.shape)) if coord else 0

    def clear(self) -> None:
        """Zero every byte in use."""
        self.storage[...] = 0

    def __str__(self) -> str:
        if not self.dims:
            return f"one {self.name} of {self.capacity} B"
        return f"{'×'.join(map(str, self.shape))} {self.plural} of {self.capacity} B each"
