"""The seed's reuse factors (document 004), as a model the checks can judge.

The seed gives each operand a reuse factor per dataflow (OS: A ``⌈N/Tj⌉``,
B ``⌈M/Ti⌉``, C ``⌈K/Tk⌉``; WS: A ``⌈Tj/array_cols⌉``, B ``⌈M/Ti⌉·⌈K/Tk⌉``,
C ``⌈K/Tk⌉``). A factor r implies ``uses × tile elements / r`` elements of
traffic, one use of each operand tile per step. For WS's B that is
``⌈N/Tj⌉·Tk·Tj``, less than the ``K·N`` that must cross DRAM whenever
``Tk < K`` (B tiles at different ``tk`` are different data):
``check_meets_compulsory`` refutes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from layoutalg.core.tiling import ceil_div
from layoutalg.dataflow.schedule import OPERANDS, Schedule
from layoutalg.errors import DataflowError
from layoutalg.validate import instance_of, one_of, positive_size


@dataclass(frozen=True)
class SeedReuse:
    """The seed's reuse model of a schedule (OS or WS; the seed has no IS model).

    >>> from layoutalg.dataflow.schedule import Schedule
    >>> seed = SeedReuse(Schedule("ws", (256, 64, 64), (64, 64, 16)))
    >>> seed.reuse("B"), seed.implied_dram("B")   # 4·4 reuse; 1024 < 64·64 elements
    (16, 1024)
    """

    schedule: Schedule
    array_cols: int | sympy.Expr = field(default=16, kw_only=True)

    def __post_init__(self) -> None:
        instance_of(DataflowError, "schedule", self.schedule, Schedule, where="SeedReuse")
        if self.schedule.dataflow == "is":
            raise DataflowError("SeedReuse: the seed gives reuse factors for 'os' and 'ws' only; "
                                "got dataflow 'is'")
        cols = positive_size(DataflowError, "array_cols", self.array_cols, where="SeedReuse")
        object.__setattr__(self, "array_cols", cols)

    def reuse(self, operand: str):
        """The seed's reuse factor of ``operand`` under this schedule's dataflow."""
        one_of(DataflowError, "operand", operand, OPERANDS, where="SeedReuse.reuse")
        s, (mt, nt, kt) = self.schedule, self.schedule.trips
        if s.dataflow == "os":
            return {"A": nt, "B": mt, "C": kt}[operand]
        return {"A": ceil_div(s.tiles[1], self.array_cols), "B": mt * kt, "C": kt}[operand]

    def uses(self, operand: str):
        """Elements the loop nest hands to the array: one tile per step."""
        mt, nt, kt = self.schedule.trips
        return mt * nt * kt * self.schedule.tile_elements(operand)

    def implied_dram(self, operand: str):
        """DRAM elements the reuse factor implies: ``uses / reuse`` (may be a fraction)."""
        value = sympy.Rational(1, 1) * self.uses(operand) / self.reuse(operand)
        return int(value) if value.is_Integer else value

    def dram_claims(self) -> dict[str, tuple[object, object, object]]:
        """Per operand ``(numerator, denominator, compulsory)``: the model reports
        ``numerator / denominator`` elements of DRAM traffic."""
        return {x: (self.uses(x), self.reuse(x), self.schedule.size(x)) for x in OPERANDS}

    def index_map(self):
        """The schedule's loop nest (so a spec may return this model)."""
        return self.schedule.index_map()

    @property
    def label(self) -> str:
        return f"seed reuse model of {self.schedule.label}"

    def __str__(self) -> str:
        return self.label
