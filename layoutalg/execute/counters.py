"""What an execution counted: accesses per level, bytes per channel, messages.

``Tally`` is the executor's mutable accumulator, ``Counters`` the frozen
record it hands back. Accesses are in elements, keyed ``(level, operand,
kind)`` like :class:`layoutalg.dataflow.Traffic` (levels "dram", "l2",
"array", "register" on the KPU hierarchy; "sram" on a PE mesh).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import astuple, dataclass, field

import numpy as np

from layoutalg.core.tiling import ceil_div
from layoutalg.dataflow.traffic import Traffic
from layoutalg.errors import MachineError

WAVELET_BYTES = 4


@dataclass(frozen=True)
class Messages:
    """Messages between PEs: how many, bytes, 32-bit wavelets, the sum of their
    Manhattan distances (``hops``), and bytes (wavelets) × distance summed.

    >>> Messages.of(bytes_=10, hops=3)
    Messages(count=1, bytes=10, wavelets=3, hops=3, byte_hops=30, wavelet_hops=9)
    """

    count: int = 0
    bytes: int = 0
    wavelets: int = 0
    hops: int = 0
    byte_hops: int = 0
    wavelet_hops: int = 0

    @classmethod
    def of(cls, bytes_: int, hops: int) -> Messages:
        """One message of ``bytes_`` bytes over ``hops`` links."""
        wavelets = ceil_div(bytes_, WAVELET_BYTES)
        return cls(1, bytes_, wavelets, hops, bytes_ * hops, wavelets * hops)

    def __add__(self, other: Messages) -> Messages:
        return Messages(*(a + b for a, b in zip(astuple(self), astuple(other))))


class Tally:
    """Mutable counters an execution adds to (see :class:`Counters`)."""

    def __init__(self, element_bytes: int, channels: int = 0) -> None:
        self.element_bytes = element_bytes
        self.channels = channels
        self.accesses: Counter = Counter()
        self.channel_bytes: dict[tuple[str, str], np.ndarray] = {}
        self.messages: dict[str, Messages] = {}
        self.macs = 0

    def add(self, level: str, operand: str, kind: str, elements: int) -> None:
        self.accesses[level, operand, kind] += int(elements)

    def add_channels(self, operand: str, kind: str, per_channel: np.ndarray) -> None:
        """Add bytes per channel (an int array, one entry per channel)."""
        total = self.channel_bytes.setdefault((operand, kind), np.zeros(self.channels, np.int64))
        total += per_channel

    def send(self, operand: str, messages: Messages) -> None:
        self.messages[operand] = self.messages.get(operand, Messages()) + messages

    def freeze(self, **extra) -> Counters:
        return Counters(
            element_bytes=self.element_bytes,
            channels=self.channels,
            accesses=tuple(sorted(self.accesses.items())),
            channel_bytes=tuple(sorted(
                ((channel, operand, kind), int(n))
                for (operand, kind), totals in self.channel_bytes.items()
                for channel, n in enumerate(totals) if n)),
            messages=tuple(sorted(self.messages.items())),
            macs=self.macs,
            **extra,
        )


@dataclass(frozen=True)
class Counters:
    """Counts of one execution: ``accesses`` as ``((level, operand, kind),
    elements)`` pairs, DRAM ``channel_bytes`` as ``((channel, operand, kind),
    bytes)`` pairs (``channels`` is 0 when the machine has none), PE-mesh
    ``messages`` as ``(operand, Messages)`` pairs, ``macs``, loop ``steps`` run
    (tile or SUMMA steps), the ``schedule`` run (KPU, else None) and ``notes``,
    one line each about the machine used."""

    element_bytes: int
    channels: int = 0
    accesses: tuple = ()
    channel_bytes: tuple = ()
    messages: tuple = ()
    macs: int = 0
    steps: int = 0
    schedule: object = field(default=None, compare=False)
    notes: tuple[str, ...] = field(default=(), compare=False)

    def get(self, level: str, operand: str, kind: str) -> int:
        """Elements accessed at one level by one operand, e.g. ``get("dram", "A", "read")``."""
        return dict(self.accesses).get((level, operand, kind), 0)

    def elements(self, level: str | None = None, operand: str | None = None,
                 kind: str | None = None) -> int:
        """Sum of the accesses matching level, operand and kind (None = any)."""
        return sum(n for (lv, op, kd), n in self.accesses
                   if level in (None, lv) and operand in (None, op) and kind in (None, kd))

    def bytes(self, level: str | None = None, operand: str | None = None,
              kind: str | None = None) -> int:
        """:meth:`elements` times the element size."""
        return self.elements(level, operand, kind) * self.element_bytes

    def per_channel(self, operand: str | None = None, kind: str | None = None) -> tuple[int, ...]:
        """DRAM bytes on each channel, for one operand / kind or all."""
        totals = [0] * self.channels
        for (channel, op, kd), n in self.channel_bytes:
            if operand in (None, op) and kind in (None, kd):
                totals[channel] += n
        return tuple(totals)

    def message(self, operand: str | None = None) -> Messages:
        """Messages of one operand (or all)."""
        return sum((m for op, m in self.messages if operand in (None, op)), Messages())

    def traffic(self, schedule=None):
        """These counts as a :class:`layoutalg.dataflow.Traffic` of ``schedule``
        (default: the schedule run): equal (``==``) to
        ``la.dataflow.traffic(schedule)`` when the run and the model agree."""
        schedule = self.schedule if schedule is None else schedule
        if schedule is None:
            raise MachineError("traffic: these counters come from no schedule; pass one")
        counts = dict(self.accesses)
        counts["mac", "-", "op"] = self.macs
        unknown = [k for k in counts if k[0] not in ("dram", "l2", "array", "register", "mac")]
        if unknown:
            raise MachineError(f"traffic: these counters are not a KPU hierarchy's "
                               f"(levels {sorted({k[0] for k in unknown})})")
        return Traffic.from_mapping(schedule, counts)

    def rows(self) -> list[tuple[str, str, str, int]]:
        """``(level, operand, kind, elements)`` for every nonzero access count."""
        return [(lv, op, kd, n) for (lv, op, kd), n in self.accesses if n]
