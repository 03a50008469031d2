"""Combinators: small index maps out of a ``Space`` that carry their inverses.

Each combinator returns the map out of a ``Space``: pure algebra, exact by
construction (in bounds, a bijection onto its valid slots, its inverse right
on them and left everywhere — recorded in :mod:`layoutalg.core.exact`, so a
proof asks nothing about it) whenever SymPy shows its sizes fit for every
size. A size wrong at some sizes is refused; one SymPy cannot decide
(``offset`` by an amount, ``pad`` to an extent, ``delinearize`` into
extents) leaves the map unrecorded, and the verify layer proves it. On an
``IndexMap`` a combinator follows that map, the composition proved
(:mod:`layoutalg.verify.combinators`, which ``la.split`` & co. are)::

    tiles = la.split(la.split(la.Space(i=M, j=N), "i", TR), "j", TC)

Their divisions are the digit arithmetic of ``core/tiling.py``, shared with the families.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence

import sympy

from layoutalg.core.compose import extent_fits
from layoutalg.core.exact import mark_exact
from layoutalg.core.expr import same_for_every_size
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Extent, Space, check_extent
from layoutalg.core.tiling import ceil_div, deal, digits, dot, row_major_strides, undeal, unflatten
from layoutalg.errors import MapError, describe
from layoutalg.validate import is_int


def _combinator(*, exact: bool = True):
    """Decorate a combinator's build: the map out of a Space, recorded exact by
    construction (``exact=False``: the build records only what it can vouch for)."""
    def wrap(build: Callable[..., IndexMap]) -> Callable[..., IndexMap]:
        @functools.wraps(build)
        def run(space: Space, /, *args, **kwargs) -> IndexMap:
            if not isinstance(space, Space):
                follows = (" (to follow an IndexMap, use layoutalg's combinators, e.g. la.split, "
                           "which compose it with the map and prove the composition)"
                           if isinstance(space, IndexMap) else "")
                raise MapError(f"space must be a Space{follows}; got {describe(space)}")
            step = build(space, *args, **kwargs)
            return mark_exact(step) if exact else step
        return run
    return wrap


def identity(space: Space, *, name: str | None = None) -> IndexMap:
    """The identity map of a space."""
    if not isinstance(space, Space):
        raise MapError(f"identity: space must be a Space; got {describe(space)}")
    symbols = space.symbols
    # In bounds and its own inverse by construction: compose proves nothing about it.
    return mark_exact(
        IndexMap(space, space, symbols, inverse=symbols, name=name or "identity"))


@_combinator()
def split(space: Space, /, dim: str, factor: Extent, *,
          names: Sequence[str] | None = None) -> IndexMap:
    """Split ``dim`` into ``(outer, inner)`` with ``inner`` of extent ``factor``.

    The outer extent is ``ceil(extent / factor)``; when ``factor`` does not
    divide the extent, the slots past it are padding.
    """
    k = space.index(dim)
    f = check_extent("factor", factor)
    outer, inner = _names(names, (f"{dim}_o", f"{dim}_i"), "names")
    extent = space.extents[k]
    new = space.replace(k, [(outer, ceil_div(extent, f)), (inner, f)])
    o, i = new.symbols[k], new.symbols[k + 1]
    exprs = _replace(space.symbols, k, list(digits(space.symbols[k], f, lazy=True)))
    inverse = _replace(new.symbols[:k] + (o,) + new.symbols[k + 2:], k, [dot((o, i), (f, 1))])
    valid = None if sympy.Mod(extent, f) == 0 else sympy.Lt(o * f + i, extent)
    return IndexMap(space, new, exprs, inverse=inverse, valid=valid, name=f"split({dim}, {f})")


@_combinator()
def fuse(space: Space, /, outer: str, inner: str, *, name: str | None = None) -> IndexMap:
    """Merge ``outer`` and ``inner`` row-major into one dim at ``outer``'s place."""
    ko, ki = space.index(outer), space.index(inner)
    if ko == ki:
        raise MapError(f"fuse: outer and inner must differ; got {outer!r} twice")
    eo, ei = space.extents[ko], space.extents[ki]
    fused = name or f"{outer}{inner}"
    new = Space(*((fused, eo * ei) if k == ko else pair
                  for k, pair in enumerate(space.dims) if k != ki))
    sym = dict(zip(space.names, space.symbols))
    f = new.symbols[new.index(fused)]
    exprs = [sym[outer] * ei + sym[inner] if n == fused else sym[n] for n in new.names]
    by_name = dict(zip(new.names, new.symbols))
    high, low = digits(f, ei, lazy=True)
    inverse = [high if n == outer else low if n == inner else by_name[n] for n in space.names]
    return IndexMap(space, new, exprs, inverse=inverse, name=f"fuse({outer}, {inner})")


@_combinator()
def permute(space: Space, /, order: Sequence[str]) -> IndexMap:
    """Reorder the dims to ``order`` (a permutation of the names)."""
    if isinstance(order, str):  # "ji" is one name, not the order ("j", "i")
        raise MapError(f"permute: order must be a permutation of {space.names} given as a "
                       f"list, e.g. {list(reversed(space.names))}; got the single string "
                       f"{order!r}")
    if sorted(order) != sorted(space.names) or len(order) != space.rank:
        raise MapError(f"permute: order must be a permutation of {space.names}; "
                       f"got {tuple(order)}")
    new = Space(*((n, space.extent(n)) for n in order))
    exprs = [space.symbols[space.index(n)] for n in order]
    inverse = [new.symbols[new.index(n)] for n in space.names]
    return IndexMap(space, new, exprs, inverse=inverse, name=f"permute{tuple(order)}")


@_combinator()
def rename(space: Space, /, **names: str) -> IndexMap:
    """Rename dims (``old=new`` keywords); extents and order stay.

    >>> rename(Space(x=4, y=3), x="row").codomain
    Space(row=4, y=3)
    """
    for old, new in names.items():
        space.index(old)
        if not isinstance(new, str) or not new.isidentifier():
            raise MapError(f"rename: the new name of {old!r} must be an identifier; "
                           f"got {describe(new)}")
    new_space = Space(*((names.get(n, n), e) for n, e in space.dims))
    return IndexMap(space, new_space, space.symbols, inverse=new_space.symbols,
                    name=f"rename({', '.join(f'{o}={n}' for o, n in names.items())})")


@_combinator(exact=False)
def pad(space: Space, /, dim: str, multiple: Extent | None = None, *,
        to: Extent | None = None) -> IndexMap:
    """Round ``dim``'s extent up to a ``multiple`` (or to exactly ``to``); new slots are padding.

    ``to`` must be at least the extent for every size. A ``to`` below it at
    some sizes is refused; one SymPy cannot compare with it (``PR`` over
    ``ceiling(M/ceiling(M/PR))``) is built but not recorded exact, so the
    verify layer proves it in bounds.
    """
    k = space.index(dim)
    extent = space.extents[k]
    if (multiple is None) == (to is None):
        raise MapError(f"pad: give exactly one of multiple= and to=; got {multiple!r}, {to!r}")
    if multiple is not None:  # ceil(extent / multiple)·multiple ≥ extent for every size
        new_extent = ceil_div(extent, check_extent("multiple", multiple)) * multiple
        fits = True
    else:
        new_extent = check_extent("to", to)
        room = sympy.sympify(new_extent) - extent
        if _known_negative(room):
            raise MapError(f"pad: to must be at least the extent {extent} of {dim}; got {to}")
        below = _negative_at(room)
        if below is not None:
            raise MapError(f"pad: to must be at least the extent {extent} of {dim} for every "
                           f"size; got {to}, which is below it at {_sizes(below)} "
                           f"({room} = {room.xreplace(below)})")
        fits = room.is_nonnegative is True
    new = space.replace(k, [(dim, new_extent)])
    valid = None if same_for_every_size(new_extent, extent) else sympy.Lt(new.symbols[k], extent)
    m = IndexMap(space, new, space.symbols, inverse=new.symbols, valid=valid, name=f"pad({dim})")
    return mark_exact(m) if fits else m


@_combinator()
def cyclic(space: Space, /, dim: str, parts: Extent, *, block: Extent = 1,
           names: Sequence[str] | None = None) -> IndexMap:
    """Deal ``dim`` in blocks of ``block`` round-robin over ``parts``.

    Index ``d`` goes to part ``(d // block) % parts`` at local position
    ``(d // (block·parts))·block + d % block``; local slots past the end are padding.
    """
    k = space.index(dim)
    p = check_extent("parts", parts)
    b = check_extent("block", block)
    part, local = _names(names, (f"{dim}_part", f"{dim}_local"), "names")
    extent = space.extents[k]
    local_extent = ceil_div(ceil_div(extent, b), p) * b
    new = space.replace(k, [(part, p), (local, local_extent)])
    pp, ll = new.symbols[k], new.symbols[k + 1]
    exprs = _replace(space.symbols, k, list(deal(space.symbols[k], p, b, lazy=True)))
    back = undeal(pp, ll, p, b, lazy=True)
    inverse = _replace(new.symbols[:k] + (pp,) + new.symbols[k + 2:], k, [back])
    return IndexMap(space, new, exprs, inverse=inverse, valid=sympy.Lt(back, extent),
                    name=f"cyclic({dim}, parts={p}, block={b})")


@_combinator()
def linearize(space: Space, /, dims: Sequence[str] | None = None, *,
              name: str = "offset") -> IndexMap:
    """Merge ``dims`` (default: all) row-major into one dim at the first one's place."""
    if isinstance(dims, str):
        raise MapError(f"linearize: dims must be a list of names, e.g. [{dims!r}]; got the "
                       f"single string {dims!r}")
    chosen = list(space.names if dims is None else dims)
    if not chosen or len(set(chosen)) != len(chosen):
        raise MapError(f"linearize: dims must be distinct names of {space.names}; got {chosen}")
    positions = [space.index(n) for n in chosen]
    sizes = [space.extents[k] for k in positions]
    size = sympy.Mul(*sizes)  # a Space holds a SymPy integer as an int
    first = positions[0]
    new = Space(*((name, size) if k == first else pair
                  for k, pair in enumerate(space.dims) if k == first or k not in positions))
    sym = space.symbols
    flat = dot([sym[k] for k in positions], row_major_strides(sizes))
    exprs = [flat if n == name else sym[space.index(n)] for n in new.names]
    by_name = dict(zip(new.names, new.symbols))
    coords = dict(zip(positions, unflatten(by_name[name], sizes, lazy=True)))
    inverse = [coords[k] if k in coords else by_name[n] for k, n in enumerate(space.names)]
    return IndexMap(space, new, exprs, inverse=inverse, name="linearize")


@_combinator(exact=False)
def delinearize(space: Space, /, dim: str, **extents: Extent) -> IndexMap:
    """Unfold ``dim`` row-major into the named ``extents`` (product ≥ extent)."""
    if not extents:
        raise MapError("delinearize: give the new dims as name=extent keywords; got none")
    k = space.index(dim)
    extent = space.extents[k]
    sizes = [check_extent(n, e) for n, e in extents.items()]
    total = sympy.Mul(*sizes)
    if _known_negative(total - extent):
        raise MapError(f"delinearize: the new extents must hold all {extent} indices of "
                       f"{dim}; got {dict(extents)} (product {total})")
    new = space.replace(k, list(zip(extents, sizes)))
    exprs = _replace(space.symbols, k, unflatten(space.symbols[k], sizes, lazy=True))
    flat = dot(new.symbols[k:k + len(sizes)], row_major_strides(sizes))
    inverse = list(new.symbols[:k]) + [flat] + list(new.symbols[k + len(sizes):])
    valid = None if same_for_every_size(total, extent) else sympy.Lt(flat, extent)
    m = IndexMap(space, new, exprs, inverse=inverse, valid=valid, name=f"delinearize({dim})")
    # In bounds by construction only when the new extents hold every index.
    return mark_exact(m) if extent_fits(extent, total) else m


@_combinator(exact=False)
def offset(space: Space, /, dim: str, amount: Extent) -> IndexMap:
    """Shift ``dim`` by ``amount`` (a base address); the first slots are padding.

    ``amount`` must be an integer that is nonnegative for every size. One
    negative at some sizes (``M - 5`` at ``M = 1``) is refused; one SymPy
    cannot sign is built but not recorded exact, so the verify layer proves
    its images in bounds (or refutes them).
    """
    k = space.index(dim)
    if not (is_int(amount) or (isinstance(amount, sympy.Expr) and amount.is_integer)) \
            or _known_negative(amount):
        raise MapError(f"offset: amount must be a nonnegative integer; got {describe(amount)}")
    below = None if is_int(amount) else _negative_at(amount)
    if below is not None:
        raise MapError(f"offset: amount must be a nonnegative integer for every size; got "
                       f"{amount}, which is {amount.xreplace(below)} at {_sizes(below)}")
    # NumPy integers are as good as Python ints.
    shift = int(amount) if is_int(amount) else amount
    if shift == 0:
        return identity(space, name=f"offset({dim}, 0)")
    new = space.replace(k, [(dim, space.extents[k] + shift)])
    d = new.symbols[k]
    exprs = _replace(space.symbols, k, [space.symbols[k] + shift])
    inverse = _replace(new.symbols, k, [d - shift])
    m = IndexMap(space, new, exprs, inverse=inverse, valid=sympy.Ge(d, shift),
                 name=f"offset({dim}, {shift})")
    # Exact by construction only when the shift is nonnegative for every size.
    return mark_exact(m) if is_int(shift) or shift.is_nonnegative is True else m


@_combinator()
def scale(space: Space, /, dim: str, factor: Extent) -> IndexMap:
    """Multiply ``dim`` by ``factor`` (elements → bytes); slots between are padding."""
    k = space.index(dim)
    f = check_extent("factor", factor)
    new = space.replace(k, [(dim, space.extents[k] * f)])
    exprs = _replace(space.symbols, k, [space.symbols[k] * f])
    whole, rest = digits(new.symbols[k], f, lazy=True)
    inverse = _replace(new.symbols, k, [whole])
    valid = None if f == 1 else sympy.Eq(rest, 0)
    return IndexMap(space, new, exprs, inverse=inverse, valid=valid, name=f"scale({dim}, {f})")


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


def _known_negative(value: sympy.Expr) -> bool:
    return bool(sympy.sympify(value).is_negative)


#: sizes tried for a symbolic amount SymPy cannot sign (exact integer evaluation)
_TRIAL_SIZES = (1, 2, 3, 4, 5, 7, 8, 16)
_TRIAL_LIMIT = 512


def _negative_at(value) -> dict | None:
    """Positive sizes at which ``value`` is a negative integer, or None when
    SymPy shows it nonnegative or none of the trial sizes makes it negative.
    Only the extents' positive integer symbols are tried (another symbol: None)."""
    value = sympy.sympify(value)
    symbols = sorted(value.free_symbols, key=lambda s: s.name)
    if value.is_nonnegative is True or not all(s.is_integer and s.is_positive for s in symbols):
        return None
    for sizes in itertools.islice(itertools.product(_TRIAL_SIZES, repeat=len(symbols)),
                                  _TRIAL_LIMIT):
        at = dict(zip(symbols, sizes))
        number = value.xreplace(at)
        if number.is_Integer and number < 0:
            return at
    return None


def _sizes(at: dict) -> str:
    return ", ".join(f"{s} = {v}" for s, v in at.items())
