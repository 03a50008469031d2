"""Shared-memory banks as GPUs serve them: bank width, access width, phases, reads and writes.

NVIDIA shared memory has 32 banks of 4 bytes; successive 4-byte words go to
successive banks (byte ``a`` is in bank ``(a // 4) % 32``), and lanes that
read bytes of one word share it (CUDA C++ Programming Guide, "Shared Memory"
in the compute-capability sections,
https://docs.nvidia.com/cuda/cuda-c-programming-guide/; the byte-to-bank map
worked through at https://forums.developer.nvidia.com/t/41356). A wider
access is served in phases: a warp's 64-bit accesses in two phases of 16
lanes, its 128-bit accesses in four phases of 8 lanes (each phase moves the
banks' 128 bytes once; worked through for ``float4`` stores of a GEMM tile at
https://github.com/xlite-dev/LeetCUDA/issues/399), and only lanes of one
phase can conflict. Writes of one word by several lanes are merged (one lane
writes), as reads are broadcast.

An aligned access of ``V >= W`` bytes covers ``V / W`` adjacent banks, so it
behaves as one bank of ``V`` bytes out of ``num_banks·W / V``: that many lanes
form a phase.

>>> m = BankModel(access_bytes=16)
>>> m.lanes_per_phase, m.groups, m.unit
(8, 8, 16)
>>> BankModel(access_bytes=8).lanes_per_phase, BankModel().lanes_per_phase
(16, 32)
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.core.tiling import ceil_div, deal_part
from layoutalg.errors import SwizzleError
from layoutalg.validate import boolean, one_of, positive_int, power_of_two

OPS = ("read", "write")


@dataclass(frozen=True)
class BankModel:
    """``num_banks`` banks of W = ``bank_bytes`` serving aligned accesses of V =
    ``access_bytes`` (a power of two at most ``num_banks·W``) in phases; ``warp``
    lanes (a multiple of the phase size) issue one request; ``broadcast``: lanes
    reading one word make one access; ``merge_writes``: likewise for writes (one
    wins). An accelerator SRAM without either says False."""

    num_banks: int = 32
    bank_bytes: int = 4
    access_bytes: int = 4
    warp: int = 32
    broadcast: bool = True
    merge_writes: bool = True

    def __post_init__(self) -> None:
        for name, rule in (("num_banks", power_of_two), ("bank_bytes", power_of_two),
                           ("access_bytes", power_of_two), ("warp", positive_int),
                           ("broadcast", boolean), ("merge_writes", boolean)):
            object.__setattr__(self, name, rule(SwizzleError, name, getattr(self, name),
                                                where="BankModel"))
        row = self.num_banks * self.bank_bytes
        if self.access_bytes > row:
            raise SwizzleError(f"BankModel: access_bytes must be at most num_banks * bank_bytes "
                               f"= {row}; got {self.access_bytes}")
        if self.warp % self.lanes_per_phase:
            raise SwizzleError(f"BankModel: warp must be a multiple of the {self.lanes_per_phase}"
                               f" lanes of a phase; got {self.warp}")

    @property
    def unit(self) -> int:
        """Bytes of one bank access: a word, or an aligned group of words."""
        return max(self.bank_bytes, self.access_bytes)

    @property
    def groups(self) -> int:
        """Independent bank groups one phase can use."""
        return self.num_banks * self.bank_bytes // self.unit

    @property
    def lanes_per_phase(self) -> int:
        return min(self.warp, self.groups)

    @property
    def phases(self) -> int:
        """Phases of one warp's request."""
        return ceil_div(self.warp, self.lanes_per_phase)

    def bank(self, addr):
        """The (first) bank an access at ``addr`` uses, in units of a group."""
        return deal_part(addr, self.groups, self.unit, lazy=True)

    def word(self, addr):
        """Which bank word (or group of words) an access at ``addr`` reads."""
        return addr // self.unit

    def phase(self, lane):
        return lane // self.lanes_per_phase

    def shares(self, op: str) -> bool:
        """Whether lanes touching one word make one access for ``op``."""
        return self.broadcast if check_op(op) == "read" else self.merge_writes

    def __str__(self) -> str:
        return (f"{self.num_banks} banks × {self.bank_bytes} B, {self.access_bytes} B accesses, "
                f"{self.lanes_per_phase} lanes per phase")


def check_op(op: object) -> str:
    return one_of(SwizzleError, "op", op, OPS)


# Vendor configurations (see the module docstring for the sources).
NVIDIA_32BIT = BankModel()
NVIDIA_64BIT = BankModel(access_bytes=8)
NVIDIA_128BIT = BankModel(access_bytes=16)

__all__ = ["NVIDIA_32BIT", "NVIDIA_64BIT", "NVIDIA_128BIT", "OPS", "BankModel", "check_op"]
