"""The algebra of one index map after another: formulas, inverse, pulled-back padding.

``then ∘ first`` substitutes ``first``'s formulas into ``then``'s, and
``first``'s inverse into ``then``'s the other way round; ``first``'s padding
is pulled back through ``then``'s inverse. These are rewrites, and right
only under facts about the parts (every image of ``first`` inside ``then``'s
domain, ``then``'s inverse right on its valid slots) that this module does
not prove: :func:`layoutalg.verify.compose.compose` (``la.compose``) proves
them first and then builds the map with :func:`composed`.

>>> from layoutalg.core.index_map import IndexMap
>>> from layoutalg.core.space import Space
>>> a, b = Space(x=4), Space(y=4)
>>> twice = IndexMap(a, b, [2 * a.symbols[0] % 4])
>>> composed(twice, IndexMap(b, a, [3 - b.symbols[0]]), None, inverse_usable=False)(1)
(1,)
"""

from __future__ import annotations

import sympy

from layoutalg.core.index_map import IndexMap, substitute, substitute_exprs
from layoutalg.core.space import Extent
from layoutalg.errors import CompositionError, describe


def check_composable(first: object, then: object) -> None:
    """Two IndexMaps whose ranks meet (``first``'s codomain, ``then``'s domain), or
    ``CompositionError`` naming the argument."""
    for argument, value in (("first", first), ("then", then)):
        if not isinstance(value, IndexMap):
            raise CompositionError(f"compose: {argument} must be an IndexMap; got {describe(value)}")
    if first.codomain.rank != then.domain.rank:
        raise CompositionError(
            f"compose: first's codomain {first.codomain} and then's domain {then.domain} "
            f"must have the same rank; got {first.codomain.rank} and {then.domain.rank}")


def composed(first: IndexMap, then: IndexMap, valid: sympy.Basic | None, *,
             inverse_usable: bool, name: str | None = None) -> IndexMap:
    """``then ∘ first`` with the given ``valid`` slots: ``then``'s formulas over
    ``first``'s, and the inverse ``first⁻¹ ∘ then⁻¹`` when both parts have one
    and ``inverse_usable`` (``then``'s inverse not found wrong)."""
    exprs = substitute_exprs(then.exprs, then.domain.symbols, first.exprs)
    inverse = None
    if first.inverse is not None and then.inverse is not None and inverse_usable:
        inverse = substitute_exprs(first.inverse, first.codomain.symbols, then.inverse)
    return IndexMap(first.domain, then.codomain, exprs, inverse=inverse, valid=valid,
                    name=name or f"{then.label} ∘ {first.label}",
                    assumptions=first.assumptions + then.assumptions)


def extent_fits(inner: Extent, outer: Extent) -> bool:
    """``inner ≤ outer`` as far as SymPy can tell (False when it cannot)."""
    return bool(sympy.simplify(sympy.sympify(outer) - inner).is_nonnegative)


def wider_dims(first: IndexMap, then: IndexMap) -> list[int]:
    """The dims where ``then``'s domain is not seen to fit in ``first``'s codomain:
    there a slot's preimage under ``then`` may lie outside ``first``'s codomain."""
    return [k for k, (inner, outer) in enumerate(zip(first.codomain.extents, then.domain.extents))
            if not extent_fits(outer, inner)]


def pulled_back(first: IndexMap, then: IndexMap, conditions: list, box: list[int]):
    """``conditions`` and ``first``'s padding pulled back through ``then``'s inverse:
    ``g(y)`` inside ``first``'s codomain on the dims ``box``, and ``first.valid(g(y))``.
    Exact only when ``g`` is right on ``then``'s valid slots and left on the points
    sent to them (the caller's proof)."""
    back = then.inverse
    conditions = conditions + [sympy.Lt(back[k], first.codomain.extents[k]) for k in box]
    if first.valid is not None:
        conditions.append(substitute(first.valid, dict(zip(first.codomain.symbols, back))))
    return all_of(conditions)


def all_of(conditions: list):
    """The conjunction of ``conditions``, or None (every slot) when there are none."""
    return sympy.And(*conditions) if conditions else None

