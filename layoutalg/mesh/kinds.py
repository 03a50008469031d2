"""The vocabulary of mesh layouts: their kinds, PE counts and dimension mappings, the wafers."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from layoutalg.errors import MeshError, describe
from layoutalg.validate import positive_int

#: The SDK's memcpy support around a kernel: a halo of one PE on every side,
#: plus three columns on the West and two on the East, so a fabric ``W`` wide
#: and ``H`` tall leaves a program rectangle ``W - 7`` wide and ``H - 2`` tall
#: (https://sdk.cerebras.net/tensor-streaming: "In addition to a halo around
#: the kernel, the additional support PEs consume three columns on the West of
#: the kernel and two columns on the East"; the SDK's --fabric-offsets=4,1).
MEMCPY_COLUMNS, MEMCPY_ROWS = 1 + 3 + 2 + 1, 1 + 1


@dataclass(frozen=True)
class Wafer:
    """A wafer preset: its usable PE rectangle (``cols`` wide, ``rows`` tall) and each
    PE's SRAM; the ``on_wafer`` claim and the planner ask whether a grid fits it."""

    name: str
    rows: int
    cols: int
    pe_sram_bytes: int = 48 * 1024

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise MeshError(f"Wafer: name must be a non-empty str; got {describe(self.name)}")
        for argument in ("rows", "cols", "pe_sram_bytes"):
            positive_int(MeshError, argument, getattr(self, argument), where="Wafer")

    @classmethod
    def from_fabric(cls, name: str, width: int, height: int, pe_sram_bytes: int = 48 * 1024) -> Wafer:
        """The program rectangle the SDK's memcpy leaves on a ``width`` × ``height`` fabric.

        >>> Wafer.from_fabric("WSE-2", 757, 996)
        Wafer(name='WSE-2', rows=994, cols=750, pe_sram_bytes=49152)
        """
        for argument, value, least in (("width", width, MEMCPY_COLUMNS + 1),
                                       ("height", height, MEMCPY_ROWS + 1)):
            if positive_int(MeshError, argument, value, where="Wafer.from_fabric") < least:
                raise MeshError(f"Wafer.from_fabric: {argument} must be at least {least} (the "
                                f"memcpy halo and support PEs take {least - 1}); got {value}")
        return cls(name, rows=height - MEMCPY_ROWS, cols=width - MEMCPY_COLUMNS,
                   pe_sram_bytes=pe_sram_bytes)

    def __str__(self) -> str:
        return f"the {self.name} usable program rectangle is {self.cols} PEs wide × {self.rows} tall"


#: WSE-2 (CS-2): fabric 757 × 996, so 750 PEs wide × 994 tall (the seed's
#: constraints swap the two); 48 KB of SRAM per PE. Fabric: "Most CS-2s will
#: have a fabric dimension of 757 x 996" (sdk.cerebras.net/csl/tutorials/
#: gemv-01-complete-program/running-system.html).
WSE2 = Wafer.from_fabric("WSE-2", 757, 996)
#: WSE-3 (CS-3): "the CS-3, which has a fabric dimension of 762 x 1176" (same
#: SDK page), so 755 PEs wide × 1174 tall. 48 KB per PE: 44 GB of on-chip SRAM
#: over 900,000 cores (Argonne's SC24 Cerebras tutorial).
WSE3 = Wafer.from_fabric("WSE-3", 762, 1176)
WAFERS = (WSE2, WSE3)


class LayoutKind(enum.Enum):
    """The seed's ``LayoutType`` plus ``REPLICATED`` (every PE holds a copy)."""

    SINGLE_PE = "SinglePE"
    ROW_PARTITION = "RowPartition"
    COL_PARTITION = "ColPartition"
    GRID = "Grid"
    BLOCK_CYCLIC = "BlockCyclic"
    REPLICATED = "Replicated"
    CUSTOM = "Custom"


def pe_count(value: object, factory: str, argument: str) -> int:
    """A positive PE count: any grid can be described (a layout is not a machine);
    whether it fits a wafer is the ``on_wafer`` claim's question."""
    return positive_int(MeshError, argument, value, where=factory)


def check_dim_to_pe(value: object, factory: str) -> tuple[int, int]:
    if not isinstance(value, (tuple, list)) or tuple(value) not in ((0, 1), (1, 0)):
        raise MeshError(f"{factory}: dim_to_pe must be (0, 1) (tensor rows down PE rows) or "
                        f"(1, 0) (tensor rows across PE columns); got {describe(value)}")
    return (int(value[0]), int(value[1]))
