"""``Capacities``: the bytes of L2 and of the PE registers a tiling must fit.

Its own module so that both the tile search (``tiling``) and the checks
(``checks``) take it from below; ``tiling.optimize`` proves its choice with
``checks.check_tiles_fit``.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from layoutalg.errors import DataflowError
from layoutalg.validate import positive_size


@dataclass(frozen=True)
class Capacities:
    """Bytes of the L2 buffer and of the whole PE array's registers.

    Defaults: 256 KiB of L2 and 16×16 PEs × 256 B of registers (64 KiB).
    Sizes may be positive integer symbols for parametric proofs.
    """

    l2_bytes: int | sympy.Expr = 256 * 1024
    register_bytes: int | sympy.Expr = 16 * 16 * 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "l2_bytes", positive_size(DataflowError, "l2_bytes",
                                                           self.l2_bytes, where="Capacities"))
        object.__setattr__(self, "register_bytes",
                           positive_size(DataflowError, "register_bytes", self.register_bytes,
                                         where="Capacities"))

    def of(self, level: str):
        return self.l2_bytes if level == "l2" else self.register_bytes

    @property
    def label(self) -> str:
        """``L2 262144 B, registers 65536 B``."""
        return f"L2 {self.l2_bytes} B, registers {self.register_bytes} B"
