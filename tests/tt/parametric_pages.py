"""Page maps with symbolic sizes, built from the family's own placement.

A question about the interleaved placement "for every page count N and bank
count B" is asked of the map ``layoutalg.tt.placement.Interleaved`` builds
(``bank = p mod B``, ``slot = p // B``, back ``slot·B + bank``), not of a
copy of its formula. ``tests/tt/test_tt_checks.py`` proves it bijective;
``bench/isl.py`` can ask ISL and Z3 the same question of it.
"""

from __future__ import annotations

import layoutalg as la
from layoutalg.tt.placement import Interleaved


def interleaved_pages(pages, banks) -> la.IndexMap:
    """Page id → (bank, slot) of pages dealt round-robin over ``banks`` (ints or symbols),
    with its inverse and the valid slots (those below ``pages``)."""
    placement = Interleaved(pages, banks)
    domain = la.Space(page=pages)
    (p,) = domain.symbols
    (bank,), slot = placement.forward_id(p)
    codomain = la.Space(*placement.location, ("slot", placement.slots))
    where, slot_back = codomain.symbols
    (page,), valid = placement.inverse((where,), slot_back, (pages,))
    return la.IndexMap(domain, codomain, [bank, slot], inverse=[page], valid=valid,
                       name=f"interleaved({pages}, {banks})")
