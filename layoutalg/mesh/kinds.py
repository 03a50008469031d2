"""The vocabulary of mesh layouts: their kinds, PE counts and dimension mappings, the wafers."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from layoutalg.errors import MeshError, describe


@dataclass(frozen=True)
class Wafer:
    """The usable PE rectangle of a wafer: ``cols`` wide, ``rows`` tall."""

    name: str
    rows: int
    cols: int

    def __str__(self) -> str:
        return f"the {self.name} usable program rectangle is {self.cols} PEs wide × {self.rows} tall"


#: WSE-2: 750 PEs wide × 994 tall (the seed's constraints swap the two).
WSE2 = Wafer("WSE-2", rows=994, cols=750)


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
    """A positive PE count. Any grid can be described: a layout is not a
    machine (a WSE-3 user, a simulated fabric); whether it fits a wafer is
    the ``on_wafer`` claim's question (WSE-2 by default)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise MeshError(f"{factory}: {argument} must be a positive int; got {describe(value)}")
    return int(value)


def check_dim_to_pe(value: object, factory: str) -> tuple[int, int]:
    if not isinstance(value, (tuple, list)) or tuple(value) not in ((0, 1), (1, 0)):
        raise MeshError(f"{factory}: dim_to_pe must be (0, 1) (tensor rows down PE rows) or "
                        f"(1, 0) (tensor rows across PE columns); got {describe(value)}")
    return (int(value[0]), int(value[1]))
