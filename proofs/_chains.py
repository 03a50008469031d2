"""Helpers of the chain proofs (``block_cyclic.py``, ``mesh.py``); not a spec module
(the prover skips files whose name starts with ``_``)."""

from __future__ import annotations

import sympy

import layoutalg as la


def valid_slots(m: la.IndexMap, name: str) -> la.IndexMap:
    """Slot → 1 where ``m`` calls it valid, 0 where padding: two maps with
    equivalent ``valid_slots`` have the same valid slots."""
    flag = sympy.Piecewise((1, m.valid), (0, True))
    return la.IndexMap(m.codomain, la.Space(valid=2), [flag], name=name)


def same_codomain(chain: la.Chain, library: la.IndexMap) -> la.IndexMap:
    """The chain's composition, after checking its codomain is the library's."""
    whole = chain.index_map()
    if whole.codomain.names != library.codomain.names or any(
        sympy.simplify(sympy.sympify(a) - b) != 0
        for a, b in zip(whole.codomain.extents, library.codomain.extents)
    ):
        raise ValueError(f"the chain's codomain {whole.codomain} is not the library's "
                         f"{library.codomain}; the theorem would be about another map")
    return whole
