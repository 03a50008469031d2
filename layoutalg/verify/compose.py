"""``compose``: one index map after another, its proof obligations discharged.

``then ∘ first`` is defined only where every image of ``first`` lies in
``then``'s domain: that is proved (:mod:`layoutalg.verify.composition`),
never assumed. The formulas themselves are the core's algebra
(:mod:`layoutalg.core.compose`).
"""

from __future__ import annotations

import sympy

from layoutalg.core.compose import all_of, check_composable, composed, pulled_back, wider_dims
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import CompositionError
from layoutalg.verify import composition as facts


def compose(first: IndexMap, then: IndexMap, *, name: str | None = None) -> IndexMap:
    """``then ∘ first``: apply ``first``, feed its codomain to ``then`` by position.

    Ranks must agree; names may differ. Every image of ``first`` must lie in
    its own codomain and in ``then``'s domain, or the composition is
    undefined there: this is proved (once per map; maps the combinators
    build from a Space are in bounds by construction). A counterexample
    raises ``CompositionError`` naming it; so does a proof Z3 does not
    decide (UNKNOWN), with Z3's reason — compose never assumes it.

    A slot of the composition is real when ``then`` calls it real and sends
    a real point of ``first`` there: ``first``'s padding is pulled back
    through ``then``'s inverse once that inverse is shown right, else listed
    by enumeration, else (symbolic sizes) ``CompositionError`` — see
    :func:`_composed_valid`.

    >>> from layoutalg import Space, linearize, split
    >>> tiles = split(Space(x=10), "x", 4)
    >>> flat = compose(tiles, linearize(tiles.codomain))
    >>> flat(9), flat.preimage(10)
    ((9,), None)
    """
    check_composable(first, then)
    fit = facts.lands_in(first, then.domain, assumptions=then.assumptions)
    if not fit.proved:
        raise CompositionError(_unfit(first, then, fit))
    valid, then_inverse_wrong = _composed_valid(first, then)
    result = composed(first, then, valid, inverse_usable=not then_inverse_wrong, name=name)
    facts.note_composition(result, first, then)
    return result


def _unfit(first: IndexMap, then: IndexMap, fit) -> str:
    rule = (f"compose: every image of {first.label} must lie in its codomain {first.codomain} "
            f"and in the domain {then.domain} of {then.label}")
    if fit.refuted:
        return f"{rule}; {fit.reason}"
    return (f"{rule}, or the composition is undefined where one escapes; Z3 did not decide it "
            f"({fit.reason}), and compose does not assume it. Fix: state the sizes' "
            f"assumptions on the maps (IndexMap.assuming), or bind the sizes")


def _composed_valid(first: IndexMap, then: IndexMap) -> tuple[sympy.Basic | None, bool]:
    """The composition's valid slots, and whether ``then``'s inverse was found wrong.

    The rule: a slot is real when ``then`` calls it real and ``then`` sends a
    real point of ``first`` there (a point inside ``first``'s codomain that
    ``first.valid`` calls real). Written, in this order of preference:

    - through ``then``'s inverse ``g`` once it is right on ``then``'s valid
      slots and left on the points sent to them — by construction for the
      combinators, by enumeration for concrete sizes, else by two Z3 queries
      (kept per map; only when there is padding to pull back):
      ``then.valid(y)``, ``g(y)`` inside ``first``'s codomain and
      ``first.valid(g(y))`` — exact;
    - with concrete sizes, by enumerating ``then``'s domain: ``then.valid``
      minus the slots no real point reaches, as runs of flat indices (at
      most ``facts.RUN_LIMIT``) — exact;
    - with nothing of ``first``'s to pull back (no padding, its codomain
      holds ``then``'s domain) and no usable inverse: ``then.valid``, which
      is exact when ``then`` fills its valid slots (its own claim) and
      otherwise names too many slots real — so no check can be PROVED
      wrongly (every image lies among ``then``'s images, and filling every
      valid slot fills the real ones), though surjectivity may be REFUTED
      at a valid slot ``then`` itself leaves empty.

    Otherwise (padding to pull back, symbolic sizes, no usable inverse) the
    real slots need an existential the checks cannot state:
    ``CompositionError``. Dropping ``first``'s padding would call slots real
    that no element reaches; a wrong inverse would call the wrong slots real.
    """
    box = wider_dims(first, then)
    pull = first.valid is not None or bool(box)
    conditions = [] if then.valid is None else [then.valid]
    if facts.is_exact(then):
        return pulled_back(first, then, conditions, box), False
    unlisted = facts.not_enumerable(first, then)
    known = None
    if then.inverse is not None and (pull or unlisted is None):
        known = facts.inverse_exact(then)  # by enumeration when it can, else by Z3
        if known.proved:
            return pulled_back(first, then, conditions, box), False
    wrong = known is not None and known.refuted
    if unlisted is None:
        reached = facts.reached_condition(first, then)
        if not isinstance(reached, str):
            return all_of(conditions + ([] if reached is None else [reached])), wrong
        unlisted = reached
    if not pull:
        return all_of(conditions), wrong
    why = known.reason if known is not None else f"{then.label} has no inverse"
    raise CompositionError(
        f"compose: cannot say which slots of {then.codomain} hold real elements: the "
        f"padding of {first.label} must be pulled back through {then.label}, whose inverse "
        f"is not usable ({why}), and {unlisted}. Fix: give {then.label} an inverse that is "
        f"right on its valid slots, or bind the sizes")
