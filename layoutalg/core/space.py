"""``Space``: named dimensions with extents, the domain or codomain of a map."""

from __future__ import annotations

import keyword
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import sympy

import layoutalg.core.sympy_fixes  # noqa: F401 - every expression is built on fixed rules
from layoutalg.errors import SpaceError, describe
from layoutalg.validate import identifier, is_int

Extent = int | sympy.Expr


def extents(names: str) -> tuple[sympy.Symbol, ...]:
    """Positive integer symbols for parametric extents.

    >>> M, N = extents("M N")
    >>> M.is_positive and M.is_integer
    True
    """
    if not isinstance(names, str) or not names.replace(",", " ").split():
        raise SpaceError(f"extents: names must be a string naming at least one size, e.g. "
                         f"extents('M N'); got {describe(names)}")
    for name in names.replace(",", " ").split():
        if not name.isidentifier() or keyword.iskeyword(name):
            raise SpaceError(f"extents: each size must be named by a Python identifier; got "
                             f"{name!r} in {names!r}")
    return tuple(sympy.symbols(names, integer=True, positive=True, seq=True))


def coordinate(name: str) -> sympy.Symbol:
    """The coordinate symbol of a dimension: a nonnegative integer."""
    return sympy.Symbol(name, integer=True, nonnegative=True)


def check_extent(name: str, value: object) -> Extent:
    """Return ``value`` as an extent, or raise naming the rule it breaks."""
    if isinstance(value, (np.integer, sympy.Integer)):  # as good as Python ints
        value = int(value)
    if (is_int(value) and value >= 1) or (
            isinstance(value, sympy.Expr) and value.is_integer and value.is_positive):
        return value
    hint = " (declare it with layoutalg.extents('...'))" if isinstance(value, sympy.Expr) else ""
    raise SpaceError(f"extent {name} must be a positive integer or a positive integer symbol"
                     f"{hint}; got {describe(value)}")


def check_names_apart(names: tuple[str, ...], parameters, where: str,
                      error: type[Exception]) -> None:
    """Refuse a dimension named like a parameter: one name, two meanings.

    Expressions are rebound to canonical symbols by name, so a dimension
    ``K`` beside a parameter ``K`` would turn the coordinate into the size.
    """
    clash = sorted(set(names) & {p.name for p in parameters})
    if clash:
        raise error(f"dimension {clash[0]!r} of {where} has the name of the parameter "
                    f"{clash[0]}; a coordinate and a parameter must have different names: "
                    "rename one of them")


@dataclass(frozen=True)
class Space:
    """Named dimensions with extents, in order (outermost first).

    >>> s = Space(i=4, j=8)
    >>> s.names, s.extents, s.size
    (('i', 'j'), (4, 8), 32)
    >>> str(s)
    '[i:4, j:8]'
    """

    dims: tuple[tuple[str, Extent], ...]

    def __init__(self, *dims: tuple[str, Extent], **named: Extent) -> None:
        seen: set[str] = set()
        checked = []
        for pair in [*dims, *named.items()]:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise SpaceError(f"dimension must be a (name, extent) pair; got {describe(pair)}")
            name = identifier(SpaceError, "dimension name", pair[0])
            if name in seen:
                raise SpaceError(f"dimension names must be unique; got {name!r} twice")
            seen.add(name)
            checked.append((name, check_extent(name, pair[1])))
        object.__setattr__(self, "dims", tuple(checked))
        check_names_apart(self.names, self.parameters, repr(self), SpaceError)

    @classmethod
    def of(cls, names: tuple[str, ...], extents_: tuple[Extent, ...]) -> Space:
        """Build from parallel name and extent tuples."""
        if len(names) != len(extents_):
            raise SpaceError(f"names and extents must have the same length; got {len(names)} "
                             f"names and {len(extents_)} extents")
        return cls(*zip(names, extents_))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.dims)

    @property
    def extents(self) -> tuple[Extent, ...]:
        return tuple(extent for _, extent in self.dims)

    @property
    def rank(self) -> int:
        return len(self.dims)

    @cached_property
    def symbols(self) -> tuple[sympy.Symbol, ...]:
        """The coordinate symbols, one per dimension."""
        return tuple(coordinate(name) for name in self.names)

    @property
    def size(self) -> Extent:
        """The number of points: an int, or a SymPy expression."""
        return math.prod(self.extents) if self.is_concrete else sympy.Mul(*self.extents)

    @property
    def is_concrete(self) -> bool:
        return all(isinstance(extent, int) for extent in self.extents)

    @cached_property
    def parameters(self) -> frozenset[sympy.Symbol]:
        """Symbols that appear in the extents (parametric sizes)."""
        return frozenset().union(
            *(extent.free_symbols for extent in self.extents if isinstance(extent, sympy.Expr)))

    def extent(self, name: str) -> Extent:
        return self.extents[self.index(name)]

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise SpaceError(f"dimension {name!r} is not in the space; its dimensions are "
                             f"{self.names}") from None

    def replace(self, position: int, new: list[tuple[str, Extent]]) -> Space:
        """A copy with the dimension at ``position`` replaced by ``new`` dims."""
        dims = list(self.dims)
        dims[position : position + 1] = new
        return Space(*dims)

    def bind(self, values: dict[sympy.Symbol, int]) -> Space:
        """Substitute numbers for parametric extents."""
        return Space(*((n, e if isinstance(e, int) else e.subs(values)) for n, e in self.dims))

    def __str__(self) -> str:
        return "[" + ", ".join(f"{name}:{extent}" for name, extent in self.dims) + "]"

    def __repr__(self) -> str:
        return "Space(" + ", ".join(f"{name}={extent}" for name, extent in self.dims) + ")"
