"""Index maps as a small written AST, evaluated with plain Python ints.

The oracle of ``test_soundness.py``. It shares no code with layoutalg's own
evaluators (``core/evaluate.py``, ``verify/brute.py``) nor with
``IndexMap.__call__``: an expression is a tuple tree that this module both
prints as the Python source a user would write (``(2 * (x % 4)) % 4``,
``sympy.Min(x, 3)``) and evaluates with Python's own ``//`` and ``%``, so a
layoutalg verdict is judged against the formula as written, not against the
formula layoutalg holds.

Expressions::

    ("c", 7)            an int constant         ("v", "x")   a coordinate
    ("p", "M")          an extent parameter     ("neg", a)
    ("+", a, b)  ("-", a, b)  ("*", a, b)  ("//", a, b)  ("%", a, b)
    ("min", a, b)  ("max", a, b)  ("ceil", a, b)   ceiling(a / b), b > 0
    ("pw", ((e1, c1), ..., (en, TRUE)))           sympy.Piecewise

Conditions::

    ("<", a, b)  ("<=", a, b)  (">", a, b)  (">=", a, b)  ("==", a, b)  ("!=", a, b)
    ("and", c, d)  ("or", c, d)  ("not", c)  ("true",)  ("false",)
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence

TRUE = ("true",)
FALSE = ("false",)
RELATIONS = ("<", "<=", ">", ">=", "==", "!=")
BINARY = ("+", "-", "*", "//", "%")
#: Python's own integer operators (``ceil`` as ``-((-a) // b)``).
ARITHMETIC = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "min": min, "max": max,
    "ceil": lambda a, b: -((-a) // b),
}


# -- evaluation ----------------------------------------------------------------------


def value(e: tuple, env: Mapping[str, int], params: Mapping[str, int]) -> int:
    """The value of expression ``e``: coordinates from ``env``, parameters from ``params``."""
    op = e[0]
    if op == "c":
        return e[1]
    if op == "v":
        return env[e[1]]
    if op == "p":
        return params[e[1]]
    if op == "neg":
        return -value(e[1], env, params)
    if op == "pw":
        for branch, cond in e[1]:
            if holds(cond, env, params):
                return value(branch, env, params)
        raise ValueError(f"Piecewise without a true branch: {e}")
    if op not in ARITHMETIC:
        raise ValueError(f"unknown operator {op!r}")
    return ARITHMETIC[op](value(e[1], env, params), value(e[2], env, params))


def holds(c: tuple, env: Mapping[str, int], params: Mapping[str, int]) -> bool:
    """The truth of condition ``c``."""
    op = c[0]
    if op == "true":
        return True
    if op == "false":
        return False
    if op == "not":
        return not holds(c[1], env, params)
    if op == "and":
        return holds(c[1], env, params) and holds(c[2], env, params)
    if op == "or":
        return holds(c[1], env, params) or holds(c[2], env, params)
    a, b = value(c[1], env, params), value(c[2], env, params)
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
            "!=": a != b}[op]


def largest(e: tuple, env: Mapping[str, int], params: Mapping[str, int]) -> int:
    """The largest magnitude of a value that layoutalg computes for ``e``: every
    subexpression holding a symbol, and its operands (a constant subtree reaches
    layoutalg already folded by Python, as one number)."""
    found = 0
    for node in walk(e):
        if node[0] in CONDITIONS or not symbolic(node):
            continue
        operands = [node] + [x for x in node[1:] if isinstance(x, tuple) and x
                             and isinstance(x[0], str) and x[0] not in CONDITIONS]
        for x in operands:
            try:
                found = max(found, abs(value(x, env, params)))
            except (ValueError, ZeroDivisionError):
                pass
    return found


CONDITIONS = set(RELATIONS) | {"and", "or", "not", "true", "false"}


def symbolic(e: tuple) -> bool:
    """Does ``e`` mention a coordinate or a parameter?"""
    return any(node[0] in ("v", "p") for node in walk(e))


def walk(e: tuple):
    """Every node of an expression or condition, ``e`` first."""
    yield e
    if e[0] in ("c", "v", "p", "true", "false"):
        return
    if e[0] == "pw":
        for branch, cond in e[1]:
            yield from walk(branch)
            yield from walk(cond)
        return
    for child in e[1:]:
        yield from walk(child)


# -- the source a user writes ----------------------------------------------------------


def source(e: tuple, idents: Mapping[str, str], params: Mapping[str, str] | None = None) -> str:
    """Python source for ``e``: coordinates and parameters named by ``idents``/``params``."""
    params = params or {}
    op = e[0]
    if op == "c":
        return str(e[1]) if e[1] >= 0 else f"({e[1]})"
    if op == "v":
        return idents.get(e[1], e[1])
    if op == "p":
        return params.get(e[1], e[1])
    if op == "true":
        return "True"
    if op == "false":
        return "False"

    def s(x):
        return source(x, idents, params)

    if op == "neg":
        return f"(-{s(e[1])})"
    if op in BINARY or op in ("<", "<=", ">", ">="):
        return f"({s(e[1])} {op} {s(e[2])})"
    names = {"min": "sympy.Min", "max": "sympy.Max", "==": "sympy.Eq", "!=": "sympy.Ne",
             "and": "sympy.And", "or": "sympy.Or"}
    if op in names:
        return f"{names[op]}({s(e[1])}, {s(e[2])})"
    if op == "not":
        return f"sympy.Not({s(e[1])})"
    if op == "ceil":
        return f"sympy.ceiling({s(e[1])} / {s(e[2])})"
    if op == "pw":
        branches = ", ".join(f"({s(b)}, {s(c)})" for b, c in e[1])
        return f"sympy.Piecewise({branches})"
    raise ValueError(f"unknown operator {op!r}")


def substitute(e: tuple, by: Mapping[str, tuple]) -> tuple:
    """``e`` with coordinates replaced by expressions (composition by hand)."""
    op = e[0]
    if op == "v":
        return by.get(e[1], e)
    if op in ("c", "p", "true", "false"):
        return e
    if op == "pw":
        return ("pw", tuple((substitute(b, by), substitute(c, by)) for b, c in e[1]))
    return (op, *(substitute(child, by) for child in e[1:]))


# -- truth by enumeration ----------------------------------------------------------------


ENUMERATION_LIMIT = 1 << 16


class TooLarge(Exception):
    """A size too large to enumerate: the verdict at it is not judged."""


class Instance:
    """One map at one size: every domain point and its image, in Python ints.

    Args:
        dom: (name, extent) pairs of the domain, extents already ints.
        cod: (name, extent) pairs of the codomain.
        exprs: one expression per codomain dim over the domain names.
        valid: a condition over the codomain names, or None.
        params: the parameter values of this size.
    """

    def __init__(self, dom, cod, exprs, valid, params) -> None:
        self.dom_names = tuple(n for n, _ in dom)
        self.dom_ext = tuple(e for _, e in dom)
        self.cod_names = tuple(n for n, _ in cod)
        self.cod_ext = tuple(e for _, e in cod)
        self.exprs = tuple(exprs)
        self.valid = valid
        self.params = dict(params)

    @functools.cached_property
    def points(self) -> list[tuple[int, ...]]:
        if math.prod(self.dom_ext) > ENUMERATION_LIMIT:
            raise TooLarge(f"a domain of {math.prod(self.dom_ext)} points")
        return list(itertools.product(*(range(e) for e in self.dom_ext)))

    @functools.cached_property
    def images(self) -> list[tuple[int, ...]]:
        return [self.image(x) for x in self.points]

    def image(self, point: Sequence[int]) -> tuple[int, ...]:
        env = dict(zip(self.dom_names, point))
        return tuple(value(e, env, self.params) for e in self.exprs)

    def inside(self, slot: Sequence[int]) -> bool:
        return all(0 <= v < e for v, e in zip(slot, self.cod_ext))

    def is_valid(self, slot: Sequence[int]) -> bool:
        if self.valid is None:
            return True
        if callable(self.valid):  # a set of slots given by a rule, not a written condition
            return self.valid(tuple(slot))
        return holds(self.valid, dict(zip(self.cod_names, slot)), self.params)

    @property
    def cod_size(self) -> int:
        return math.prod(self.cod_ext)

    def slots(self):
        if self.cod_size > ENUMERATION_LIMIT:
            raise TooLarge(f"a codomain of {self.cod_size} slots")
        return itertools.product(*(range(e) for e in self.cod_ext))

    def in_bounds(self) -> bool:
        return all(self.inside(y) for y in self.images)

    def injective(self) -> bool:
        return len(set(self.images)) == len(self.images)

    def images_valid(self) -> bool:
        return all(self.is_valid(y) for y in self.images if self.inside(y))

    def occupied(self) -> set[tuple[int, ...]]:
        return {y for y in self.images if self.inside(y)}

    def surjective(self) -> bool:
        """Every valid slot is some image."""
        filled = self.occupied()
        if self.valid is None:
            return len(filled) == self.cod_size
        return all(slot in filled for slot in self.slots() if self.is_valid(slot))

    def bijective(self) -> bool:
        return (self.in_bounds() and self.injective() and self.images_valid()
                and self.surjective())

    def padding(self) -> int:
        """Slots no element occupies (``valid`` does not enter)."""
        return self.cod_size - len(self.occupied())

    def need(self, point, per: Sequence[str], element_bytes: int, in_bytes: bool) -> int:
        """The bytes ``check_fits`` says an element needs: its in-memory offset, row-major."""
        image = self.image(point)
        flat = 0
        for name, v, e in zip(self.cod_names, image, self.cod_ext):
            if name not in per:
                flat = flat * e + v
        return flat + element_bytes if in_bytes else (flat + 1) * element_bytes
