"""Energy of a schedule from per-access costs (Eyeriss-normalized by default).

Eyeriss (Chen et al., ISCA 2016) normalizes the energy of one access to
each level by a MAC: DRAM 200×, global buffer (our L2) 6×, inter-PE array
2×, register file 1×, MAC 1×. Energy here is the sum over levels of
accesses × cost (one access per element), plus MACs × the MAC cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy

from layoutalg.dataflow.schedule import LEVELS, Schedule
from layoutalg.dataflow.traffic import Traffic, _tidy, traffic
from layoutalg.errors import DataflowError, describe
from layoutalg.validate import instance_of


@dataclass(frozen=True)
class AccessCosts:
    """Energy of one element access at each level and of one MAC.

    >>> AccessCosts().dram, AccessCosts(dram=100).l2
    (200, 6)
    """

    dram: float = 200
    l2: float = 6
    array: float = 2
    register: float = 1
    mac: float = 1

    def __post_init__(self) -> None:
        for name in (*LEVELS, "mac"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value) or value < 0):
                raise DataflowError(
                    f"AccessCosts: {name} must be a finite number ≥ 0; got {describe(value)}")

    def of(self, level: str) -> float:
        return getattr(self, level)


EYERISS = AccessCosts()


@dataclass(frozen=True)
class Energy:
    """Energy per level (and MACs) and the total, in units of one MAC."""

    by_level: tuple[tuple[str, object], ...]
    mac: object
    total: object

    def level(self, name: str):
        return dict(self.by_level)[name]

    def __str__(self) -> str:
        parts = "".join(f"{lv} {value}, " for lv, value in self.by_level)
        return f"energy {self.total} ({parts}mac {self.mac})"


def energy(subject: Schedule | Traffic, costs: AccessCosts = EYERISS) -> Energy:
    """Energy of a schedule (or of its traffic) under ``costs``.

    >>> from layoutalg.dataflow.schedule import Schedule
    >>> energy(Schedule("os", (1, 1, 1), (1, 1, 1))).total   # 3·200 + 6·6 + 3·2 + 2·1 + 1
    645
    """
    if isinstance(subject, Schedule):
        subject = traffic(subject)
    if not isinstance(subject, Traffic):
        raise DataflowError(
            f"energy: subject must be a Schedule or a Traffic; got {describe(subject)}")
    instance_of(DataflowError, "costs", costs, AccessCosts, where="energy")
    by_level = tuple((lv, _tidy(subject.accesses(lv) * costs.of(lv))) for lv in LEVELS)
    mac = _tidy(subject.macs * costs.mac)
    return Energy(by_level, mac, _tidy(sum((v for _, v in by_level), sympy.Integer(0)) + mac))
