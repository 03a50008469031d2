"""What the lanes of one step contend for: banks of words, or memory channels.

``Banks`` (shared-memory banks, same-word accesses broadcast) or an
``Interleave`` decoder (channels never broadcast). Both the Z3 check
(``banks``) and its enumeration twin (``bank_brute``) take these from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.channel.interleave import Interleave
from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import deal_part
from layoutalg.errors import SwizzleError, describe
from layoutalg.validate import positive_int


@dataclass(frozen=True)
class Banks:
    """``num_banks`` banks of ``bank_bytes`` bytes; same-word accesses broadcast.

    >>> Banks().bank(128 * 3 + 8)     # 32 banks × 4 B: row 3, word 2
    2
    """

    num_banks: int = 32
    bank_bytes: int = 4

    def __post_init__(self) -> None:
        positive_int(SwizzleError, "num_banks", self.num_banks, where="Banks")
        positive_int(SwizzleError, "bank_bytes", self.bank_bytes, where="Banks")

    def bank(self, addr):
        return deal_part(addr, self.num_banks, self.bank_bytes, lazy=True)

    def word(self, addr):
        return addr // self.bank_bytes

    def __str__(self) -> str:
        return f"Banks({self.num_banks} × {self.bank_bytes} B)"


def resource_of(resource, addr):
    """The bank or channel an address uses."""
    return resource.bank(addr) if isinstance(resource, Banks) else resource.channel(addr)


def validate(access, resource, lane: str, who: str) -> int:
    """Check the arguments; return the lane dim's position."""
    position = lane_of(access, lane, who)
    if not isinstance(resource, (Banks, Interleave)):
        raise SwizzleError(f"{who}: resource must be Banks(...) or an Interleave decoder; "
                           f"got {describe(resource)}")
    return position


def lane_of(access, lane: str, who: str) -> int:
    """Check an access map (to one byte address) and its lane dim; return the lane's position."""
    if not isinstance(access, IndexMap):
        raise SwizzleError(f"{who}: access must be an IndexMap; got {describe(access)}")
    if access.codomain.rank != 1:
        raise SwizzleError(f"{who}: access must map to one byte address; its codomain is "
                           f"{access.codomain}")
    if lane not in access.domain.names:
        raise SwizzleError(f"{who}: lane must name a dim of the access domain "
                           f"{access.domain.names}; got {lane!r}")
    return access.domain.index(lane)
