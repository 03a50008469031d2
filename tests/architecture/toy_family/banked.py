"""A toy family in one short module (docs/architecture.md, "a new family").

``BankedVector(length, banks)`` deals a vector's elements round-robin over
``banks`` memories: element e lives in bank ``e mod banks`` at row
``e div banks``. The map is a composition of core combinators only; the
claim ``spread_evenly`` is defined beside its check. Everything else (the Z3
checks, counterexamples, the prover, pictures) comes from the core.
"""

from __future__ import annotations

from dataclasses import dataclass

import layoutalg as la
from layoutalg.errors import MapError
from layoutalg.validate import positive_int
from layoutalg.verify.claims import claim
from layoutalg.verify.result import CheckResult, Status


@dataclass(frozen=True)
class BankedVector:
    length: int
    banks: int

    def __post_init__(self):
        for argument in ("length", "banks"):
            positive_int(MapError, argument, getattr(self, argument), where="BankedVector")

    def index_map(self) -> la.IndexMap:
        return la.cyclic(la.Space(e=self.length), "e", self.banks, names=("bank", "row"))


def check_spread_evenly(vector: BankedVector, **_options) -> CheckResult:
    """Every bank holds the same number of elements (length a multiple of banks)."""
    subject = f"BankedVector({vector.length}, {vector.banks})"
    if vector.length % vector.banks == 0:
        return CheckResult(Status.PROVED, "spread_evenly", subject, method="arithmetic",
                           reason=f"{vector.length} = {vector.banks} × "
                                  f"{vector.length // vector.banks}")
    last = vector.length - 1
    return CheckResult(Status.REFUTED, "spread_evenly", subject, counterexample={"e": last},
                       method="arithmetic", reason=f"bank {last % vector.banks} holds one more "
                                                   f"element than bank {vector.banks - 1}")


SPREAD_EVENLY = claim("toy_spread_evenly", check_spread_evenly, index_map=False)
