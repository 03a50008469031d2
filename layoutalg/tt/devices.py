"""Device presets: DRAM banks, L1 size, worker grid and alignment.

The numbers are those TT-Metal uses for each architecture (DRAM banks, L1
bytes per Tensix core, the worker grid as ``(x, y) = (columns, rows)``, the
allocator's alignment); ``docs/tt.md`` tabulates them. Real boards harvest
worker rows and reserve the bottom of L1: give a smaller grid or a ``base_address``.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.errors import TTError, describe
from layoutalg.validate import positive_int, power_of_two

GiB = 1 << 30


@dataclass(frozen=True)
class Device:
    """One chip's memory geometry.

    Attributes:
        name: a label ("wormhole_b0").
        dram_banks: DRAM banks that interleaved pages rotate over.
        l1_bytes: bytes of L1 per worker core.
        worker_grid: ``(x, y)``, columns × rows of Tensix workers.
        l1_alignment, dram_alignment: page alignment in bytes.
        dram_bank_bytes: nominal bytes per DRAM bank.

    >>> Device("toy", dram_banks=3, l1_bytes=4096, worker_grid=(2, 2)).l1_banks
    4
    """

    name: str
    dram_banks: int
    l1_bytes: int
    worker_grid: tuple[int, int]
    l1_alignment: int = 16
    dram_alignment: int = 32
    dram_bank_bytes: int = GiB

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TTError(f"device name must be a non-empty string; got {describe(self.name)}")
        for field in ("dram_banks", "l1_bytes", "dram_bank_bytes"):
            object.__setattr__(self, field, positive_int(TTError, field, getattr(self, field)))
        grid = self.worker_grid
        if not (isinstance(grid, tuple) and len(grid) == 2):
            raise TTError(f"worker_grid must be an (x, y) pair of positive ints; got {describe(grid)}")
        object.__setattr__(self, "worker_grid", (positive_int(TTError, "worker_grid x", grid[0]),
                                                 positive_int(TTError, "worker_grid y", grid[1])))
        for field in ("l1_alignment", "dram_alignment"):
            object.__setattr__(self, field, power_of_two(TTError, field, getattr(self, field)))

    @property
    def l1_banks(self) -> int:
        """L1 banks that L1-interleaved pages rotate over: one per worker core."""
        return self.worker_grid[0] * self.worker_grid[1]

    def banks(self, storage: str) -> int:
        return self.dram_banks if storage == "DRAM" else self.l1_banks

    def alignment(self, storage: str) -> int:
        return self.dram_alignment if storage == "DRAM" else self.l1_alignment

    def capacity(self, storage: str) -> int:
        """Bytes of one bank (DRAM) or one core's L1."""
        return self.dram_bank_bytes if storage == "DRAM" else self.l1_bytes

    def core_grid(self, storage: str) -> tuple[int, int]:
        """The grid shards may be placed on: workers for L1, ``(banks, 1)`` for DRAM."""
        return (self.dram_banks, 1) if storage == "DRAM" else self.worker_grid


GRAYSKULL = Device("grayskull", dram_banks=8, l1_bytes=1 << 20, worker_grid=(12, 10),
                   dram_alignment=32, dram_bank_bytes=GiB)
WORMHOLE_B0 = Device("wormhole_b0", dram_banks=12, l1_bytes=1_499_136, worker_grid=(8, 10),
                     dram_alignment=32, dram_bank_bytes=GiB)
BLACKHOLE = Device("blackhole", dram_banks=8, l1_bytes=1_572_864, worker_grid=(14, 10),
                   dram_alignment=64, dram_bank_bytes=4 * GiB)

PRESETS = {d.name: d for d in (GRAYSKULL, WORMHOLE_B0, BLACKHOLE)}


def get_device(device: str | Device) -> Device:
    """A preset by name, or the ``Device`` itself.

    >>> get_device("blackhole").dram_alignment
    64
    """
    if isinstance(device, Device):
        return device
    if isinstance(device, str) and device in PRESETS:
        return PRESETS[device]
    raise TTError(
        f"device must be one of {sorted(PRESETS)} or a layoutalg.tt.Device; got {describe(device)}")


__all__ = ["BLACKHOLE", "GRAYSKULL", "PRESETS", "WORMHOLE_B0", "Device", "get_device"]
