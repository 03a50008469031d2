"""``IndexMap``: a function from a domain ``Space`` to a codomain ``Space``."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy

from layoutalg.core import evaluate as ev
from layoutalg.core.expr import Unsupported, as_condition, as_expr, divisors, integer_form
from layoutalg.core.printing import show
from layoutalg.core.space import Space, check_names_apart
from layoutalg.errors import MapError, UndefinedValueError, describe
from layoutalg.validate import first_out_of_range, index, integer, positive_int

Exprs = tuple[sympy.Expr, ...]


@dataclass(frozen=True, init=False)
class IndexMap:
    """One SymPy integer expression per codomain dimension, over the domain.

    Args:
        domain: the logical coordinates.
        codomain: the physical coordinates.
        exprs: one expression per codomain dim (a sequence, or a mapping by
            codomain name) over the domain's coordinate symbols.
        inverse: optional, one expression per domain dim over the codomain's
            symbols; it turns surjectivity into a quantifier-free query.
        valid: optional SymPy boolean over the codomain symbols, true where a
            slot holds a real element (the rest is padding).
        name: a label for messages and reports.
        assumptions: booleans over the extent parameters under which the map
            is meant (e.g. ``Eq(M % PR, 0)``); checks assume them.

    >>> dom, cod = Space(i=4, j=8), Space(o=32)
    >>> i, j = dom.symbols
    >>> m = IndexMap(dom, cod, [8 * i + j], name="row_major")
    >>> m(1, 2)
    (10,)
    >>> print(m)
    row_major: [i:4, j:8] → [o:32]; (i, j) ↦ (8*i + j)
    """

    domain: Space
    codomain: Space
    exprs: Exprs
    inverse: Exprs | None
    valid: sympy.Basic | None
    name: str | None
    assumptions: tuple[sympy.Basic, ...]

    def __init__(self, domain: Space, codomain: Space,
                 exprs: Sequence[object] | Mapping[str, object], *,
                 inverse: Sequence[object] | Mapping[str, object] | None = None,
                 valid: object = None, name: str | None = None,
                 assumptions: Sequence[object] = ()) -> None:
        if not isinstance(domain, Space):
            raise MapError(f"domain must be a Space; got {describe(domain)}")
        if not isinstance(codomain, Space):
            raise MapError(f"codomain must be a Space; got {describe(codomain)}")
        if name is not None and not isinstance(name, str):
            raise MapError(f"name must be a string; got {describe(name)}")
        params = domain.parameters | codomain.parameters
        dims = domain.names + codomain.names
        check_names_apart(dims, params, f"map {name or '<unnamed>'}", MapError)
        forward = _canonical_exprs(exprs, codomain, "exprs", domain, params)
        backward = (None if inverse is None
                    else _canonical_exprs(inverse, domain, "inverse", codomain, params))
        condition = None if valid is None else _canonical(
            as_condition(valid, "valid"), codomain, params, "valid")
        assumed = tuple(dict.fromkeys(
            _canonical(as_condition(a, "assumptions"), Space(), params, "assumptions")
            for a in assumptions))
        fields = {"domain": domain, "codomain": codomain, "exprs": forward, "inverse": backward,
                  "valid": None if condition is sympy.true else condition, "name": name,
                  "assumptions": assumed}
        for field, value in fields.items():
            object.__setattr__(self, field, value)
        check_names_apart(dims, self.parameters, f"map {self.label}", MapError)

    @functools.cached_property  # a frozen map's parameters never change
    def parameters(self) -> frozenset[sympy.Symbol]:
        """Positive integer symbols: the extents' and any other the map mentions."""
        parts = [*self._formulas(), *self.assumptions]
        mentioned = {s for part in parts for s in part.free_symbols if s.is_positive}
        return self.domain.parameters | self.codomain.parameters | mentioned

    def _formulas(self) -> list[sympy.Basic]:
        """The map's expressions: images, inverse and ``valid``."""
        return [*self.exprs, *(self.inverse or ()), *([] if self.valid is None else [self.valid])]

    @property
    def is_concrete(self) -> bool:
        return self.domain.is_concrete and self.codomain.is_concrete

    def __call__(self, *coord: int) -> tuple[int, ...]:
        """The image of one domain point."""
        point = _check_point(coord, self.domain, "coord")
        env = dict(zip(self.domain.symbols, point))
        return tuple(int(v) for v in self._eval(self.exprs, env))

    def preimage(self, *slot: int) -> tuple[int, ...] | None:
        """The domain point stored at a codomain slot (needs the inverse), or None for
        padding: a slot that ``valid`` marks so, or whose inverse falls outside the domain."""
        if self.inverse is None:
            raise MapError(f"preimage needs an inverse; map {self.label} has none")
        point = _check_point(slot, self.codomain, "slot")
        env = dict(zip(self.codomain.symbols, point))
        if self.valid is not None and not bool(self._eval((self.valid,), env)[0]):
            return None
        coord = tuple(int(v) for v in self._eval(self.inverse, env))
        return None if first_out_of_range(coord, self.domain.extents) else coord

    def apply(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        """Vectorized images of many domain points (one int64 array per dim)."""
        if len(arrays) != self.domain.rank:
            raise MapError(f"apply needs one array per domain dim ({self.domain.rank}); "
                           f"got {len(arrays)}")
        env = dict(zip(self.domain.symbols, arrays))
        shape = np.broadcast_shapes(*(np.shape(a) for a in arrays)) if arrays else ()
        return tuple(np.broadcast_to(v, shape) for v in self._eval(self.exprs, env))

    def _eval(self, exprs, env):
        if self.parameters:
            raise MapError(f"map {self.label} has symbolic extents "
                           f"{sorted(map(str, self.parameters))}; bind them to numbers first "
                           "with .bind(...)")
        try:
            return ev.evaluate_all(exprs, env)
        except Unsupported as exc:
            raise MapError(f"map {self.label} cannot be evaluated: {exc}") from None

    def bind(self, **values: int) -> IndexMap:
        """Substitute numbers for symbolic extents, by the symbols' names."""
        by_name = {str(p): p for p in self.parameters}
        subs = {}
        for key, value in values.items():
            if key not in by_name:
                raise MapError(f"bind: {key!r} is not a parameter of {self.label}; "
                               f"its parameters are {sorted(by_name)}")
            subs[by_name[key]] = positive_int(MapError, key, value, where="bind")
        for assumption in self.assumptions:
            if assumption.subs(subs) is sympy.false:
                raise MapError(f"bind: {values} breaks the assumption {assumption} of {self.label}")
        for divisor in dict.fromkeys(d for e in self._formulas() for d in divisors(e)):
            if divisor.subs(subs) == 0:  # SymPy's Mod(x, 0) raises a bare ZeroDivisionError
                raise UndefinedValueError(
                    f"bind: at {values} the divisor {divisor} of {self.label} is 0: "
                    "x mod 0 and x // 0 have no value")
        return IndexMap(
            self.domain.bind(subs), self.codomain.bind(subs), [e.subs(subs) for e in self.exprs],
            inverse=None if self.inverse is None else [e.subs(subs) for e in self.inverse],
            valid=None if self.valid is None else self.valid.subs(subs),
            name=self.name, assumptions=[a.subs(subs) for a in self.assumptions])

    def renamed(self, name: str) -> IndexMap:
        return dataclasses.replace(self, name=name)

    def assuming(self, *conditions: object) -> IndexMap:
        """A copy that states extra assumptions on the extent parameters."""
        return dataclasses.replace(self, assumptions=self.assumptions + tuple(conditions))

    @property
    def label(self) -> str:
        return self.name or "<unnamed>"

    def formula(self) -> str:
        args = ", ".join(self.domain.names)
        images = ", ".join(show(e) for e in self.exprs)
        return f"({args}) ↦ ({images})"

    def __str__(self) -> str:
        head = f"{self.name}: " if self.name else ""
        text = f"{head}{self.domain} → {self.codomain}; {self.formula()}"
        if self.valid is not None:
            text += f" where {show(self.valid)}"
        return text

    def __repr__(self) -> str:
        optional = {"inverse": None if self.inverse is None else list(self.inverse),
                    "valid": self.valid, "name": self.name,
                    "assumptions": list(self.assumptions) or None}
        parts = [repr(self.domain), repr(self.codomain), repr(list(self.exprs))]
        parts += [f"{key}={value!r}" for key, value in optional.items() if value is not None]
        return "IndexMap(" + ", ".join(parts) + ")"


def _canonical_exprs(values, target: Space, what: str, source: Space, params) -> Exprs:
    if isinstance(values, Mapping):
        missing = [n for n in target.names if n not in values]
        extra = [n for n in values if n not in target.names]
        if missing or extra:
            raise MapError(f"{what} must give one expression per dimension {target.names}; "
                           f"missing {missing}, unknown {extra}")
        values = [values[n] for n in target.names]
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise MapError(f"{what} must be a sequence of expressions; got {describe(values)}")
    if len(values) != target.rank:
        raise MapError(f"{what} must have one expression per dimension of {target} "
                       f"({target.rank}); got {len(values)}")
    return tuple(_canonical(as_expr(v, f"{what}[{k}]"), source, params, f"{what}[{k}]")
                 for k, v in enumerate(values))


def _canonical(expr: sympy.Basic, source: Space, params, what: str) -> sympy.Basic:
    """Rebind look-alike symbols to the canonical ones and reject strangers.

    A look-alike is rebound only when the canonical symbol has every
    property it was declared with: SymPy has already simplified ``expr``
    under those properties, and a stronger one (a coordinate declared
    positive, which is 0 at the origin) may have licensed a rewrite that is
    wrong for the canonical symbol. The result is in :func:`integer_form`.
    """
    by_name = {s.name: s for s in source.symbols}
    by_name.update({p.name: p for p in params})
    subs = {}
    for symbol in expr.free_symbols:
        canonical = by_name.get(symbol.name)
        if canonical is None and symbol.is_integer and symbol.is_positive:
            continue  # a parameter beyond the extents, such as a symbolic stride
        if canonical is None:
            raise MapError(f"{what} uses symbol {symbol}, which is neither a dimension of "
                           f"{source} nor a positive integer parameter (declare parameters "
                           f"with layoutalg.extents); got {describe(expr)}")
        if canonical != symbol:
            _check_look_alike(symbol, canonical, what)
            subs[symbol] = canonical
    rebound = expr.xreplace(subs) if subs else expr
    return integer_form(rebound)


def _check_look_alike(symbol: sympy.Symbol, canonical: sympy.Symbol, what: str) -> None:
    broken = [fact for fact, value in sorted(symbol.assumptions0.items())
              if getattr(canonical, f"is_{fact}") != value]
    if not broken:
        return
    # Name a property the user wrote (positive=True), not one SymPy derived.
    declared = getattr(symbol, "_assumptions_orig", {})
    fact = next((f for f in broken if f in declared), broken[0])
    kind = "parameter" if canonical.is_positive else "coordinate"
    own = "layoutalg.extents" if kind == "parameter" else "Space.symbols"
    raise MapError(f"{what} uses symbol {symbol} declared {fact}={symbol.assumptions0[fact]}, "
                   f"which the {kind} {canonical} of the same name is not known to be; use the "
                   f"{kind}'s own symbol ({own}) or a symbol declared with at most integer=True")


def _check_point(coord, space: Space, what: str) -> tuple[int, ...]:
    if len(coord) != space.rank:
        raise MapError(f"{what} must have {space.rank} values for {space}; got {coord}")
    return tuple(index(MapError, f"{what} {name}", value, extent) if isinstance(extent, int)
                 else integer(MapError, f"{what} {name}", value)
                 for name, value, extent in zip(space.names, coord, space.extents))


def substitute_exprs(exprs: Exprs, symbols, values) -> Exprs:
    """Substitute ``values`` for ``symbols`` simultaneously in every expression."""
    mapping = dict(zip(symbols, values))
    return tuple(substitute(sympy.sympify(e), mapping) for e in exprs)


def substitute(e: sympy.Basic, mapping: dict) -> sympy.Basic:
    """``e.xreplace(mapping)``, keeping each divisor not known positive that
    SymPy's evaluation cancels (``Mod(a, d) - Mod(b, d)`` at ``a = b`` is 0, but
    has no value where ``d = 0``): a number gets ``+ Mod(0, d)``, a condition
    ``& Eq(Mod(0, d), 0)`` (0 or true where ``d != 0``, no value where ``d = 0``).
    A symbol mapped to itself is left out: xreplace would rebuild, and so
    re-evaluate, every node above it."""
    mapping = {k: v for k, v in mapping.items() if k != v}
    if not mapping:
        return e
    result = e.xreplace(mapping)
    risky = [d.xreplace(mapping) for d in divisors(e) if not (d.is_integer and d.is_positive)]
    lost = [d for d in dict.fromkeys(risky) if d not in divisors(result)]
    if not lost:
        return result
    zeros = [sympy.Mod(0, d, evaluate=False) for d in lost]
    if not isinstance(result, sympy.Expr):  # a condition (a Symbol is both)
        return sympy.And(result, *(sympy.Eq(z, 0, evaluate=False) for z in zeros))
    return sympy.Add(result, *zeros)

