"""``Capacities``: the bytes of L2 and of the PE registers a tiling must fit (its own
module so that the tile search and the checks both take it from below)."""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from layoutalg.errors import DataflowError
from layoutalg.validate import positive_size


@dataclass(frozen=True)
class Capacities:
    """Bytes of the L2 buffer and of the whole PE array's registers (default 256 KiB,
    and 16×16 PEs × 256 B = 64 KiB); positive integer symbols for parametric proofs."""

    l2_bytes: int | sympy.Expr = 256 * 1024
    register_bytes: int | sympy.Expr = 16 * 16 * 256

    def __post_init__(self) -> None:
        for name in ("l2_bytes", "register_bytes"):
            object.__setattr__(self, name, positive_size(DataflowError, name, getattr(self, name),
                                                         where="Capacities"))

    def of(self, level: str):
        return self.l2_bytes if level == "l2" else self.register_bytes

    @property
    def label(self) -> str:
        """``L2 262144 B, registers 65536 B``."""
        return f"L2 {self.l2_bytes} B, registers {self.register_bytes} B"
