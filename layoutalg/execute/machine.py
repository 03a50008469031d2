"""``Machine``: memories addressed by placement coordinates, each a byte array."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from layoutalg.errors import describe
from layoutalg.execute.errors import MachineError

WSE_SRAM_BYTES = 48 * 1024


@dataclass(frozen=True)
class Machine:
    """Equal memories on a grid of placement coordinates.

    Args:
        dims: the placement coordinates that pick a memory, in order, e.g.
            ``(("pe_row", 16), ("pe_col", 16))`` or ``(("bank", 12),)``.
        capacity: bytes per memory.
        name: what one memory is called in messages ("PE", "bank", "core").

    The contents live in one ``uint8`` array of shape ``(memories, capacity)``
    so that placing and fetching are single vectorized NumPy operations.

    >>> m = Machine.wse(2, 2)
    >>> m.memories, m.capacity
    (4, 49152)
    """

    dims: tuple[tuple[str, int], ...]
    capacity: int
    name: str = "memory"
    storage: np.ndarray = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.dims:
            raise MachineError("Machine: dims must name at least one placement coordinate; got ()")
        for dim in self.dims:
            if not (isinstance(dim, tuple) and len(dim) == 2 and isinstance(dim[0], str)
                    and isinstance(dim[1], int) and not isinstance(dim[1], bool) and dim[1] >= 1):
                raise MachineError(
                    f"Machine: each dim must be (name, positive int); got {describe(dim)}")
        if isinstance(self.capacity, bool) or not isinstance(self.capacity, int) or self.capacity < 1:
            raise MachineError(f"Machine: capacity must be a positive int of bytes; "
                               f"got {describe(self.capacity)}")
        if self.storage is None:
            object.__setattr__(self, "storage",
                               np.zeros((self.memories, self.capacity), dtype=np.uint8))

    @classmethod
    def wse(cls, rows: int, cols: int, *, sram_bytes: int = WSE_SRAM_BYTES) -> Machine:
        """A Cerebras PE mesh: ``rows × cols`` PEs with 48 KB SRAM each."""
        return cls((("pe_row", rows), ("pe_col", cols)), sram_bytes, name="PE")

    @classmethod
    def banks(cls, count: int, bank_bytes: int, *, name: str = "bank") -> Machine:
        """``count`` interleaved banks (DRAM banks, memory channels)."""
        return cls(((name, count),), bank_bytes, name=name)

    @classmethod
    def cores(cls, x: int, y: int, l1_bytes: int) -> Machine:
        """A Tenstorrent worker grid: cores (x, y) with ``l1_bytes`` of L1 each."""
        return cls((("x", x), ("y", y)), l1_bytes, name="core")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.dims)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(e for _, e in self.dims)

    @property
    def memories(self) -> int:
        return math.prod(self.shape)

    def memory_label(self, flat: int) -> str:
        coord = np.unravel_index(int(flat), self.shape)
        text = ", ".join(str(int(c)) for c in coord)
        return f"{self.name} ({text})" if len(coord) > 1 else f"{self.name} {text}"

    def clear(self) -> None:
        self.storage[...] = 0
