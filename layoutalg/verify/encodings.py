"""Which Z3 encoding a query gets: Int theory, or bit-vectors of a proved width.

``"auto"`` takes bit-vectors when the query has a bit operation and concrete
sizes and interval bounds fit every value in at most 64 bits; Int theory
(with only the touched bits blasted, :mod:`layoutalg.verify.z3_backend.bits`)
otherwise. ``use_encoding`` forces one, for measurements and tests.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator

import sympy

from layoutalg.core.bits import BitOp, bounds_kernel
from layoutalg.core.bounds import Escapes
from layoutalg.core.expr import Unsupported
from layoutalg.errors import MapError, describe

ENCODINGS = ("auto", "int", "bitvector")
BV_WIDTHS = (16, 24, 32, 48, 64, 96, 128)
_ENCODING: contextvars.ContextVar[str] = contextvars.ContextVar("encoding", default="auto")


def current_encoding() -> str:
    """The encoding forced for queries now (``"auto"`` unless ``use_encoding`` set one)."""
    return _ENCODING.get()


@contextlib.contextmanager
def use_encoding(name: str) -> Iterator[None]:
    """Within the block, queries use encoding ``name`` (``"auto"``, ``"int"`` or
    ``"bitvector"``; a forced ``"bitvector"`` that does not apply is unknown).
    For measurements and tests; checks leave the choice to ``"auto"``."""
    if name not in ENCODINGS:
        raise MapError(f"encoding must be one of {ENCODINGS}; got {describe(name)}")
    token = _ENCODING.set(name)
    try:
        yield
    finally:
        _ENCODING.reset(token)


def choose_encoding(unknowns, constraints, parameters, forall) -> tuple[str, int]:
    """The encoding of one query and, for bit-vectors, their width.

    ``"auto"`` as the module says (concrete sizes: no parameters, no
    quantifier, constant ranges). bench/bitvector.py: bit-vectors were faster
    on 27 of 34 concrete swizzle claims (0.32–0.97×), Int theory on queries
    without bit operations (1.5–2.9×), and only Int theory handles symbolic sizes.
    """
    wanted = _ENCODING.get()
    if wanted == "int":
        return "int", 0
    if wanted == "auto" and not any(isinstance(c, sympy.Basic) and _has_bits(c)
                                    for c in constraints):
        return "int", 0
    width = _bitvector_width(unknowns, constraints, parameters, forall)
    if wanted == "auto" and (width is None or width > 64):
        return "int", 0
    return "bitvector", width or 0


@functools.lru_cache(maxsize=4096)
def _has_bits(constraint: sympy.Basic) -> bool:
    """Does ``constraint`` hold a bit operation? (Remembered by structure.)"""
    return bool(constraint.atoms(BitOp))


def _bitvector_width(unknowns, constraints, parameters, forall) -> int | None:
    """The least width of ``BV_WIDTHS`` in which interval bounds prove every
    value of the query fits (one spare bit for floor division); None when the
    query has parameters, a quantifier or an unbounded value."""
    if parameters or forall is not None:
        return None
    ranges = {}
    for unknown in unknowns:
        low, high = sympy.sympify(unknown.low), sympy.sympify(unknown.high)
        if not (low.is_Integer and high.is_Integer):
            return None
        ranges[unknown.symbol] = (int(low), max(int(low), int(high) - 1))
    for width in BV_WIDTHS:
        limit = 2 ** (width - 2) - 1
        try:
            for constraint in constraints:
                bounds_kernel(constraint)(ranges, limit)
            for low, high in ranges.values():
                if max(abs(low), abs(high)) > limit:
                    raise Escapes
        except Escapes:
            continue
        except Unsupported:
            return None
        return width
    return None
