"""A toy family, to show that a new family is one short module (issue 12).

A vector of ``length`` elements of ``element_bytes`` each, dealt in blocks of
``block`` elements round-robin over ``banks`` memory banks, with byte
addresses inside each bank.
"""

from __future__ import annotations

from dataclasses import dataclass

import layoutalg as la
from layoutalg.errors import LayoutError
from layoutalg.validate import first_not_positive


@dataclass(frozen=True)
class BankedVector:
    length: int
    banks: int
    block: int
    element_bytes: int = 4

    def __post_init__(self) -> None:
        bad = first_not_positive((self.length, self.banks, self.block, self.element_bytes))
        if bad is not None:
            name = ("length", "banks", "block", "element_bytes")[bad[0]]
            raise LayoutError(f"{name} must be a positive integer; got {bad[1]!r}")

    def index_map(self) -> la.IndexMap:
        dealt = la.cyclic(la.Space(i=self.length), "i", self.banks, block=self.block,
                          names=("bank", "slot"))
        return la.compose(dealt, la.scale(dealt.codomain, "slot", self.element_bytes))
