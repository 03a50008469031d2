"""Combinators: small index maps that carry their inverses, and ``compose``.

Each combinator takes a ``Space`` (and returns the map out of it) or an
``IndexMap`` (and returns that map followed by the combinator applied to its
codomain), so layouts read as chains::

    tiles = split(split(Space(i=M, j=N), "i", TR), "j", TC)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sympy

from layoutalg.core.index_map import IndexMap, substitute_exprs
from layoutalg.core.space import Extent, Space, check_extent
from layoutalg.errors import CompositionError, MapError, describe
from layoutalg.validate import is_int
from layoutalg.verify import composition as facts

Source = Space | IndexMap


def identity(space: Space, *, name: str | None = None) -> IndexMap:
    """The identity map of a space."""
    if not isinstance(space, Space):
        raise MapError(f"identity: space must be a Space; got {describe(space)}")
    symbols = space.symbols
    # In bounds and its own inverse by construction: compose proves nothing about it.
    return facts.mark_exact(
        IndexMap(space, space, symbols, inverse=symbols, name=name or "identity"))


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

    >>> tiles = split(Space(x=10), "x", 4)
    >>> flat = compose(tiles, linearize(tiles.codomain))
    >>> flat(9), flat.preimage(10)
    ((9,), None)
    """
    for argument, value in (("first", first), ("then", then)):
        if not isinstance(value, IndexMap):
            raise CompositionError(f"compose: {argument} must be an IndexMap; got {describe(value)}")
    if first.codomain.rank != then.domain.rank:
        raise CompositionError(
            f"compose: first's codomain {first.codomain} and then's domain {then.domain} "
            f"must have the same rank; got {first.codomain.rank} and {then.domain.rank}"
        )
    fit = facts.lands_in(first, then.domain, assumptions=then.assumptions)
    if not fit.proved:
        raise CompositionError(_unfit(first, then, fit))
    exprs = substitute_exprs(then.exprs, then.domain.symbols, first.exprs)
    valid, then_inverse_wrong = _composed_valid(first, then)
    inverse = None
    if first.inverse is not None and then.inverse is not None and not then_inverse_wrong:
        inverse = substitute_exprs(first.inverse, first.codomain.symbols, then.inverse)
    composed = IndexMap(
        first.domain, then.codomain, exprs, inverse=inverse, valid=valid,
        name=name or _chain_name(first, then),
        assumptions=first.assumptions + then.assumptions,
    )
    facts.note_composition(composed, first, then)
    return composed


def _unfit(first: IndexMap, then: IndexMap, fit) -> str:
    rule = (f"compose: every image of {first.label} must lie in its codomain {first.codomain} "
            f"and in the domain {then.domain} of {then.label}")
    if fit.refuted:
        return f"{rule}; {fit.reason}"
    return (f"{rule}, or the composition is undefined where one escapes; Z3 did not decide it "
            f"({fit.reason}), and compose does not assume it. Fix: state the sizes' "
            f"assumptions on the maps (IndexMap.assuming), or bind the sizes")


def split(source: Source, dim: str, factor: Extent, *, names: Sequence[str] | None = None) -> IndexMap:
    """Split ``dim`` into ``(outer, inner)`` with ``inner`` of extent ``factor``.

    The outer extent is ``ceil(extent / factor)``; when ``factor`` does not
    divide the extent, the slots past it are padding.
    """
    def build(space: Space) -> IndexMap:
        k = space.index(dim)
        f = check_extent("factor", factor)
        outer, inner = _names(names, (f"{dim}_o", f"{dim}_i"), "names")
        extent = space.extents[k]
        new = space.replace(k, [(outer, _ceil(extent, f)), (inner, f)])
        d = space.symbols[k]
        o, i = new.symbols[k], new.symbols[k + 1]
        exprs = _replace(space.symbols, k, [d // f, d % f])
        inverse = _replace(new.symbols[:k] + (o,) + new.symbols[k + 2:], k, [o * f + i])
        valid = None if _divides(f, extent) else sympy.Lt(o * f + i, extent)
        return IndexMap(space, new, exprs, inverse=inverse, valid=valid, name=f"split({dim}, {f})")
    return _lift(source, build)


def fuse(source: Source, outer: str, inner: str, *, name: str | None = None) -> IndexMap:
    """Merge ``outer`` and ``inner`` row-major into one dim at ``outer``'s place."""
    def build(space: Space) -> IndexMap:
        ko, ki = space.index(outer), space.index(inner)
        if ko == ki:
            raise MapError(f"fuse: outer and inner must differ; got {outer!r} twice")
        eo, ei = space.extents[ko], space.extents[ki]
        fused = name or f"{outer}{inner}"
        dims = [(fused, eo * ei) if k == ko else pair for k, pair in enumerate(space.dims) if k != ki]
        new = Space(*dims)
        sym = dict(zip(space.names, space.symbols))
        f = new.symbols[new.index(fused)]
        exprs = [sym[outer] * ei + sym[inner] if n == fused else sym[n] for n in new.names]
        by_name = dict(zip(new.names, new.symbols))
        inverse = [
            f // ei if n == outer else f % ei if n == inner else by_name[n] for n in space.names
        ]
        return IndexMap(space, new, exprs, inverse=inverse, name=f"fuse({outer}, {inner})")
    return _lift(source, build)


def permute(source: Source, order: Sequence[str]) -> IndexMap:
    """Reorder the dims to ``order`` (a permutation of the names)."""
    def build(space: Space) -> IndexMap:
        if isinstance(order, str):  # "ji" is one name, not the order ("j", "i")
            raise MapError(f"permute: order must be a permutation of {space.names} given as a "
                           f"list, e.g. {list(reversed(space.names))}; got the single string "
                           f"{order!r}")
        if sorted(order) != sorted(space.names) or len(order) != space.rank:
            raise MapError(
                f"permute: order must be a permutation of {space.names}; got {tuple(order)}"
            )
        new = Space(*((n, space.extent(n)) for n in order))
        exprs = [space.symbols[space.index(n)] for n in order]
        inverse = [new.symbols[new.index(n)] for n in space.names]
        return IndexMap(space, new, exprs, inverse=inverse, name=f"permute{tuple(order)}")
    return _lift(source, build)


def pad(source: Source, dim: str, multiple: Extent | None = None, *, to: Extent | None = None) -> IndexMap:
    """Round ``dim``'s extent up to a ``multiple`` (or to exactly ``to``); new slots are padding."""
    def build(space: Space) -> IndexMap:
        k = space.index(dim)
        extent = space.extents[k]
        if (multiple is None) == (to is None):
            raise MapError(f"pad: give exactly one of multiple= and to=; got {multiple!r}, {to!r}")
        if multiple is not None:
            new_extent = _ceil(extent, check_extent("multiple", multiple)) * multiple
        else:
            new_extent = check_extent("to", to)
            if _known_negative(sympy.sympify(new_extent) - extent):
                raise MapError(f"pad: to must be at least the extent {extent} of {dim}; got {to}")
        new = space.replace(k, [(dim, new_extent)])
        d = new.symbols[k]
        valid = None if _equal(new_extent, extent) else sympy.Lt(d, extent)
        return IndexMap(space, new, space.symbols, inverse=new.symbols, valid=valid,
                        name=f"pad({dim})")
    return _lift(source, build)


def cyclic(
    source: Source, dim: str, parts: Extent, *, block: Extent = 1,
    names: Sequence[str] | None = None,
) -> IndexMap:
    """Deal ``dim`` in blocks of ``block`` round-robin over ``parts``.

    Index ``d`` goes to part ``(d // block) % parts`` at local position
    ``(d // (block·parts))·block + d % block``; local slots past the end are padding.
    """
    def build(space: Space) -> IndexMap:
        k = space.index(dim)
        p = check_extent("parts", parts)
        b = check_extent("block", block)
        part, local = _names(names, (f"{dim}_part", f"{dim}_local"), "names")
        extent = space.extents[k]
        local_extent = _ceil(_ceil(extent, b), p) * b
        new = space.replace(k, [(part, p), (local, local_extent)])
        d = space.symbols[k]
        pp, ll = new.symbols[k], new.symbols[k + 1]
        exprs = _replace(space.symbols, k, [(d // b) % p, (d // (b * p)) * b + d % b])
        back = ((ll // b) * p + pp) * b + ll % b
        inverse = _replace(new.symbols[:k] + (pp,) + new.symbols[k + 2:], k, [back])
        return IndexMap(space, new, exprs, inverse=inverse, valid=sympy.Lt(back, extent),
                        name=f"cyclic({dim}, parts={p}, block={b})")
    return _lift(source, build)


def linearize(source: Source, dims: Sequence[str] | None = None, *, name: str = "offset") -> IndexMap:
    """Merge ``dims`` (default: all) row-major into one dim at the first one's place."""
    def build(space: Space) -> IndexMap:
        if isinstance(dims, str):
            raise MapError(f"linearize: dims must be a list of names, e.g. [{dims!r}]; got the "
                           f"single string {dims!r}")
        chosen = list(space.names if dims is None else dims)
        if not chosen or len(set(chosen)) != len(chosen):
            raise MapError(f"linearize: dims must be distinct names of {space.names}; got {chosen}")
        positions = [space.index(n) for n in chosen]
        strides = _row_major_strides([space.extents[k] for k in positions])
        size = sympy.Mul(*[space.extents[k] for k in positions])
        size = int(size) if size.is_Integer else size
        dims_out = []
        for k, pair in enumerate(space.dims):
            if k == positions[0]:
                dims_out.append((name, size))
            elif k not in positions:
                dims_out.append(pair)
        new = Space(*dims_out)
        sym = space.symbols
        flat = sum((sym[k] * s for k, s in zip(positions, strides)), sympy.Integer(0))
        exprs = [flat if n == name else sym[space.index(n)] for n in new.names]
        o = new.symbols[new.index(name)]
        by_name = dict(zip(new.names, new.symbols))
        inverse = []
        for k, n in enumerate(space.names):
            if k in positions:
                j = positions.index(k)
                part = o // strides[j]
                inverse.append(part if j == 0 else part % space.extents[k])
            else:
                inverse.append(by_name[n])
        return IndexMap(space, new, exprs, inverse=inverse, name="linearize")
    return _lift(source, build)


def delinearize(source: Source, dim: str, **extents: Extent) -> IndexMap:
    """Unfold ``dim`` row-major into the named ``extents`` (product ≥ extent)."""
    def build(space: Space) -> IndexMap:
        if not extents:
            raise MapError("delinearize: give the new dims as name=extent keywords; got none")
        k = space.index(dim)
        extent = space.extents[k]
        sizes = [check_extent(n, e) for n, e in extents.items()]
        total = sympy.Mul(*sizes)
        if _known_negative(total - extent):
            raise MapError(
                f"delinearize: the new extents must hold all {extent} indices of {dim}; "
                f"got {dict(extents)} (product {total})"
            )
        new = space.replace(k, list(zip(extents, sizes)))
        strides = _row_major_strides(sizes)
        d = space.symbols[k]
        parts = [d // s if j == 0 else (d // s) % e for j, (s, e) in enumerate(zip(strides, sizes))]
        exprs = _replace(space.symbols, k, parts)
        pieces = new.symbols[k:k + len(sizes)]
        flat = sum((p * s for p, s in zip(pieces, strides)), sympy.Integer(0))
        inverse = list(new.symbols[:k]) + [flat] + list(new.symbols[k + len(sizes):])
        valid = None if _equal(total, extent) else sympy.Lt(flat, extent)
        m = IndexMap(space, new, exprs, inverse=inverse, valid=valid, name=f"delinearize({dim})")
        # In bounds by construction only when the new extents hold every index.
        return facts.mark_exact(m) if _fits(extent, total) else m
    return _lift(source, build, by_construction=False)


def offset(source: Source, dim: str, amount: Extent) -> IndexMap:
    """Shift ``dim`` by ``amount`` (a base address); the first slots are padding."""
    def _offset_amount() -> Extent:
        if is_int(amount):  # NumPy integers are as good as Python ints
            value = int(amount)
        elif isinstance(amount, sympy.Expr):
            value = amount
        else:
            value = None
        if value is None or _known_negative(sympy.sympify(value)):
            raise MapError(f"offset: amount must be a nonnegative integer; got {describe(amount)}")
        return value

    def build(space: Space) -> IndexMap:
        k = space.index(dim)
        amount = _offset_amount()
        if amount == 0:
            return identity(space, name=f"offset({dim}, 0)")
        new = space.replace(k, [(dim, space.extents[k] + amount)])
        d = new.symbols[k]
        exprs = _replace(space.symbols, k, [space.symbols[k] + amount])
        inverse = _replace(new.symbols, k, [d - amount])
        return IndexMap(space, new, exprs, inverse=inverse, valid=sympy.Ge(d, amount),
                        name=f"offset({dim}, {amount})")
    return _lift(source, build)


def scale(source: Source, dim: str, factor: Extent) -> IndexMap:
    """Multiply ``dim`` by ``factor`` (elements → bytes); slots between are padding."""
    def build(space: Space) -> IndexMap:
        k = space.index(dim)
        f = check_extent("factor", factor)
        new = space.replace(k, [(dim, space.extents[k] * f)])
        d = new.symbols[k]
        exprs = _replace(space.symbols, k, [space.symbols[k] * f])
        inverse = _replace(new.symbols, k, [d // f])
        valid = None if f == 1 else sympy.Eq(d % f, 0)
        return IndexMap(space, new, exprs, inverse=inverse, valid=valid, name=f"scale({dim}, {f})")
    return _lift(source, build)


# -- helpers -------------------------------------------------------------------


def _lift(source: Source, build: Callable[[Space], IndexMap], *,
          by_construction: bool = True) -> IndexMap:
    """``build`` on a Space, or on an IndexMap's codomain composed after it.

    A combinator's own map from a Space is exact by construction (in bounds,
    a bijection onto its valid slots, its inverse right on them and left
    everywhere: its formulas say so for every size), so it is recorded as
    such and compose proves nothing about it; ``by_construction=False`` for
    a build that records only the cases it can vouch for.
    """
    def built(space: Space) -> IndexMap:
        step = build(space)
        return facts.mark_exact(step) if by_construction else step

    if isinstance(source, Space):
        return built(source)
    if isinstance(source, IndexMap):
        step = built(source.codomain)
        return compose(source, step, name=f"{source.label} ▷ {step.label}")
    raise MapError(f"source must be a Space or an IndexMap; got {describe(source)}")


def _names(given, default, argument):
    if given is None:
        return default
    if isinstance(given, str):  # "ab" is one name, not the pair ("a", "b")
        raise MapError(f"{argument} must be {len(default)} distinct names given as a tuple, "
                       f"e.g. {default}; got the single string {given!r}")
    if len(given) != len(default) or len(set(given)) != len(given):
        raise MapError(f"{argument} must be {len(default)} distinct names; got {describe(given)}")
    return tuple(given)


def _replace(seq, k, new) -> list:
    items = list(seq)
    items[k:k + 1] = new
    return items


def _ceil(a: Extent, b: Extent) -> Extent:
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return sympy.ceiling(sympy.sympify(a) / b)


def _row_major_strides(sizes) -> list:
    strides = []
    running = sympy.Integer(1)
    for size in reversed(sizes):
        strides.append(running)
        running = running * size
    return [int(s) if s.is_Integer else s for s in reversed(strides)]


def _divides(f: Extent, extent: Extent) -> bool:
    return sympy.Mod(extent, f) == 0


def _equal(a: Extent, b: Extent) -> bool:
    return sympy.simplify(sympy.sympify(a) - b) == 0


def _known_negative(value: sympy.Expr) -> bool:
    return bool(sympy.sympify(value).is_negative)


def _fits(inner: Extent, outer: Extent) -> bool:
    difference = sympy.simplify(sympy.sympify(outer) - inner)
    return bool(difference.is_nonnegative)


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
    box = [k for k, (inner, outer) in enumerate(zip(first.codomain.extents, then.domain.extents))
           if not _fits(outer, inner)]
    pull = first.valid is not None or bool(box)
    conditions = [] if then.valid is None else [then.valid]
    if facts.is_exact(then):
        return _pulled_back(first, then, conditions, box), False
    unlisted = facts.not_enumerable(first, then)
    known = None
    if then.inverse is not None and (pull or unlisted is None):
        known = facts.inverse_exact(then)  # by enumeration when it can, else by Z3
        if known.proved:
            return _pulled_back(first, then, conditions, box), False
    wrong = known is not None and known.refuted
    if unlisted is None:
        reached = facts.reached_condition(first, then)
        if not isinstance(reached, str):
            return _all(conditions + ([] if reached is None else [reached])), wrong
        unlisted = reached
    if not pull:
        return _all(conditions), wrong
    why = known.reason if known is not None else f"{then.label} has no inverse"
    raise CompositionError(
        f"compose: cannot say which slots of {then.codomain} hold real elements: the "
        f"padding of {first.label} must be pulled back through {then.label}, whose inverse "
        f"is not usable ({why}), and {unlisted}. Fix: give {then.label} an inverse that is "
        f"right on its valid slots, or bind the sizes")


def _pulled_back(first: IndexMap, then: IndexMap, conditions: list, box: list):
    """``then.valid`` and first's padding pulled back through ``then``'s (right) inverse."""
    back = then.inverse
    conditions = conditions + [sympy.Lt(back[k], first.codomain.extents[k]) for k in box]
    if first.valid is not None:
        conditions.append(first.valid.xreplace(dict(zip(first.codomain.symbols, back))))
    return _all(conditions)


def _all(conditions):
    return sympy.And(*conditions) if conditions else None


def _chain_name(first: IndexMap, then: IndexMap) -> str:
    return f"{then.label} ∘ {first.label}"
