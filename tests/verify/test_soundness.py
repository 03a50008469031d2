"""Soundness: every check's verdict against the written formula, in Python ints.

Each example is one random *written* map (``int_oracle``: an expression tree
printed as the Python source a user writes, ``(2*(x % 4)) % 4`` on
``dom.symbols``, and evaluated by its own Python-int interpreter), built into
a layoutalg ``IndexMap`` by running that source, then put through every core
check: ``check_in_bounds``, ``check_injective``, ``check_surjective``,
``check_images_valid``, ``check_bijective``, ``padding(m).count``,
``check_fits``, ``check_equivalent`` (against a rewritten equal map and
against a second random map), ``check_conflict_free``, and for concrete maps
``compose`` / ``Chain`` with a second part (the composition's checks,
``check_equivalent`` against composing by hand, ``check_bijective_by_parts``).
The truth comes from enumeration with the interpreter, never from
``core/evaluate.py``, ``verify/brute.py`` or ``IndexMap.__call__``:

- PROVED must hold (parametric maps: at every size in a small range that
  meets the assumptions; contradictory assumptions must never give PROVED);
- REFUTED must carry a counterexample that is one, re-evaluated by the
  interpreter, at sizes that meet the assumptions;
- ``padding(m).count`` must equal the count exactly;
- UNKNOWN is not a pass but not a failure: counted, and its rate bounded by
  ``UNKNOWN_BOUND``.

Every disagreement is classified (by the issue-11 item it matches, when it
matches one), the smallest instance of each class is shrunk, and the failure
message prints, per class, its count per check, the seeds that re-run it and
its reproducer as a standalone script.

Size and time. A map through every check costs ~0.3 s (concrete) to ~1.5 s
(parametric, where Z3 may use its whole timeout) on a loaded 2-core machine.
CI (``CI`` set) runs ``profiles.SOUNDNESS_EXAMPLES`` (2,000) maps, each judged
on ``profiles.SOUNDNESS_CHECKS`` (3) of the checks in turn, in two processes:
a few minutes. The full run judges every map on every check, by hand::

    LAYOUTALG_SOUNDNESS_EXAMPLES=10000 LAYOUTALG_SOUNDNESS_CHECKS=0 \
        LAYOUTALG_SOUNDNESS_WORKERS=2 pytest tests/verify/test_soundness.py

Environment:

- ``LAYOUTALG_SOUNDNESS_EXAMPLES``: maps per run, a quarter of them parametric
  (default 2,000 in CI, 200 elsewhere).
- ``LAYOUTALG_SOUNDNESS_CHECKS``: checks per map, taken in turn by seed; 0 is
  every check (default 3 in CI, 0 elsewhere).
- ``LAYOUTALG_SOUNDNESS_WORKERS``: processes sharing the maps (default 2 in CI,
  1 elsewhere).
- ``LAYOUTALG_SOUNDNESS_SEED``: the first seed (default 0). Concrete example k
  has seed SEED + k, parametric ones SEED + 10,000,000 + k;
  ``LAYOUTALG_SOUNDNESS_SEEDS=17,10000004`` re-runs single examples.
- ``LAYOUTALG_SOUNDNESS_SHRINK``: shrink attempts per class (default 300).
- ``LAYOUTALG_SOUNDNESS_REPORT``: a path to write the summary as JSON.

No assertion is about time; Z3 keeps layoutalg's default (generous) timeout.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace

import int_oracle as io
import pytest
import sympy
from int_oracle import TRUE, Instance, holds, substitute, value
import profiles

import layoutalg as la

EXAMPLES = int(os.environ.get("LAYOUTALG_SOUNDNESS_EXAMPLES",
                              profiles.SOUNDNESS_EXAMPLES if profiles.IN_CI else 200))
CHECKS_PER_MAP = int(os.environ.get("LAYOUTALG_SOUNDNESS_CHECKS",
                                    profiles.SOUNDNESS_CHECKS if profiles.IN_CI else 0))
WORKERS = int(os.environ.get("LAYOUTALG_SOUNDNESS_WORKERS", 2 if profiles.IN_CI else 1))
FIRST_SEED = int(os.environ.get("LAYOUTALG_SOUNDNESS_SEED", "0"))
SEEDS = [int(s) for s in os.environ.get("LAYOUTALG_SOUNDNESS_SEEDS", "").split(",") if s]
SHRINK_BUDGET = int(os.environ.get("LAYOUTALG_SOUNDNESS_SHRINK", "300"))
PARAMETRIC_SHARE = 0.25  # of the examples; the rest are concrete
UNKNOWN_BOUND = 0.02  # of the verdicts
REFUSED_BOUND = 0.10  # of the maps: built source that layoutalg refuses with a LayoutError
ENUMERATION_LIMIT = 1 << 16
LARGE = (2**62, -(2**62), 2**61 + 1, 2**63 - 1, 2**63 + 1, 2**64, 3 * 2**62, 10**19)
LARGE_DIVISORS = (2**61 + 1, 2**62, 2**63 + 1, 10**19)
DOM_NAMES = ("x", "y", "z")


def c(v: int) -> tuple:
    return ("c", v)


def v(name: str) -> tuple:
    return ("v", name)


# -- scenarios: what one example writes --------------------------------------------------


@dataclass(frozen=True)
class Map:
    """One written map: Python name, codomain (name, extent expr) pairs, expressions."""

    var: str
    space: str  # Python name of its codomain Space
    cod: tuple
    exprs: tuple
    inverse: tuple | None = None
    valid: tuple | None = None
    over: str = "dom"  # Python name of its domain Space
    assuming: tuple = ()


@dataclass(frozen=True)
class Scenario:
    """One example: a domain, its maps, and how checks are asked."""

    seed: int
    kind: str
    params: tuple = ()
    dom: tuple = ()  # (name, extent expr) pairs
    maps: tuple = ()
    assume: tuple = ()  # conditions passed as assume=
    contradictory: bool = False
    lookalike: bool = False  # assumptions written with Symbol("M", integer=True)
    idents: tuple = ()  # (dim name, Python name) where they differ
    fits: tuple | None = None  # (capacity expr, per, element_bytes, offsets_in_bytes)
    tags: frozenset = frozenset()

    def map(self, var: str) -> Map | None:
        return next((m for m in self.maps if m.var == var), None)

    def with_map(self, new: Map) -> Scenario:
        return replace(self, maps=tuple(new if m.var == new.var else m for m in self.maps))

    @property
    def all_assumptions(self) -> tuple:
        m = self.map("m")
        return self.assume + (m.assuming if m else ())


# -- writing the source ------------------------------------------------------------------


def source(sc: Scenario, needed: tuple[str, ...]) -> str:
    """The script a user writes for the maps ``needed`` (and what they stand on)."""
    idents = dict(sc.idents)
    params = {p: f"{p}_" for p in sc.params} if sc.lookalike else {}
    lines = ["import sympy", "import layoutalg as la"]
    if sc.params:
        lines.append(f"{unpack(sc.params)} = la.extents({' '.join(sc.params)!r})")
        for p in sc.params if sc.lookalike else ():
            lines.append(f"{p}_ = sympy.Symbol({p!r}, integer=True)  # a look-alike of {p}")
    closure = _closure(sc, needed)
    spaces = [("dom", sc.dom)] + [(m.space, m.cod) for m in sc.maps if m.var in closure]
    seen = set()
    for var, dims in spaces:
        if var in seen:
            continue
        seen.add(var)
        args = ", ".join(f"{n}={io.source(e, {}, {})}" for n, e in dims)
        lines.append(f"{var} = la.Space({args})")
        lines.append(f"{unpack([idents.get(n, n) for n, _ in dims])} = {var}.symbols")
    for m in sc.maps:
        if m.var not in closure:
            continue
        exprs = ", ".join(io.source(e, idents, {}) for e in m.exprs)
        text = f"{m.var} = la.IndexMap({m.over}, {m.space}, [{exprs}]"
        if m.inverse is not None:
            text += f", inverse=[{', '.join(io.source(e, idents, {}) for e in m.inverse)}]"
        if m.valid is not None:
            text += f", valid={io.source(m.valid, idents, {})}"
        text += ")"
        if m.assuming:
            text += f".assuming({', '.join(io.source(a, idents, params) for a in m.assuming)})"
        lines.append(text)
    return "\n".join(lines) + "\n"


def _closure(sc: Scenario, needed) -> set[str]:
    """``needed`` and, for a map over another map's codomain, that map."""
    found = set(needed)
    for m in sc.maps:
        if m.var in found and m.over != "dom":
            found.add(next(n.var for n in sc.maps if n.space == m.over))
    return found


def unpack(names) -> str:
    return f"({names[0]},)" if len(names) == 1 else ", ".join(names)


def assume_text(sc: Scenario) -> str:
    if not sc.assume:
        return ""
    params = {p: f"{p}_" for p in sc.params} if sc.lookalike else {}
    conds = ", ".join(io.source(a, dict(sc.idents), params) for a in sc.assume)
    return f", assume=[{conds}]"


# -- drawing expressions ------------------------------------------------------------------


class Draw:
    """Random written expressions, conditions and maps from one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def const(self, large: float = 0.08) -> tuple:
        if self.chance(large):
            return c(self.rng.choice(LARGE))
        return c(self.rng.randint(-6, 8))

    def divisor(self, params=(), positive: bool = False) -> tuple:
        r = self.rng.random()
        if params and r < 0.15:
            return ("p", self.rng.choice(params))
        if not positive and 0.15 <= r < 0.16:  # rare: outside layoutalg's vocabulary
            return c(-self.rng.randint(1, 5))
        if r < 0.22:
            return c(self.rng.choice(LARGE_DIVISORS))
        return c(self.rng.randint(1, 9))

    def leaf(self, coords, params) -> tuple:
        r = self.rng.random()
        if coords and r < 0.6:
            return v(self.rng.choice(coords))
        if params and r < 0.75:
            return ("p", self.rng.choice(params))
        return self.const()

    def expr(self, coords, params=(), depth: int = 3) -> tuple:
        if depth <= 0 or self.chance(0.2):
            return self.leaf(coords, params)
        ops = ["+", "-", "*", "//", "%", "neg", "min", "max", "pw", "ceil", "template"]
        op = self.rng.choices(ops, weights=[14, 10, 12, 10, 14, 3, 6, 6, 6, 3, 10])[0]

        def sub():
            return self.expr(coords, params, depth - 1)

        if op in ("+", "-", "min", "max"):
            return (op, sub(), sub())
        if op == "*":
            if self.chance(0.8):
                k = self.const(large=0.15)
                return ("*", k, sub()) if self.chance(0.5) else ("*", sub(), k)
            return ("*", sub(), sub())
        if op in ("//", "%"):
            return (op, sub(), self.divisor(params))
        if op == "neg":
            return ("neg", sub())
        if op == "ceil":
            inner = sub()
            if not any(n[0] in ("v", "p") for n in io.walk(inner)):
                inner = ("+", inner, self.leaf(coords, params) if coords else ("p", params[0]))
            if not any(n[0] in ("v", "p") for n in io.walk(inner)):
                return inner
            return ("ceil", inner, self.divisor(params, positive=True))
        if op == "pw":
            branches = [(sub(), self.cond(coords, params)) for _ in range(self.rng.randint(1, 2))]
            return ("pw", (*branches, (sub(), TRUE)))
        return self.template(coords, params, depth)

    def template(self, coords, params, depth: int) -> tuple:
        """Mod of products and sums holding Mods: where SymPy's rules went wrong."""
        e = self.expr(coords, params, depth - 2)
        f = self.expr(coords, params, depth - 2)
        m = self.divisor(params)
        n = m if self.chance(0.5) else self.divisor(params)
        k = self.const(large=0.1)
        shape = self.rng.randrange(7)
        inner = ("%", e, m)
        if shape == 0:
            return ("%", ("*", k, inner), n)
        if shape == 1:
            return ("%", ("+", ("*", k, inner), self.const()), n)
        if shape == 2:
            return ("%", ("*", inner, ("%", f, self.divisor(params))), n)
        if shape == 3:
            return ("%", ("+", inner, f), n)
        if shape == 4:
            return ("//", ("*", k, inner), n)
        if shape == 5:
            return ("%", ("*", k, ("+", inner, self.const())), n)
        return ("%", inner, n)

    def cond(self, coords, params=(), depth: int = 1) -> tuple:
        r = self.rng.random()
        if depth > 0 and r < 0.2:
            return (self.rng.choice(["and", "or"]), self.cond(coords, params, depth - 1),
                    self.cond(coords, params, depth - 1))
        if depth > 0 and r < 0.25:
            return ("not", self.cond(coords, params, depth - 1))
        rel = self.rng.choice(io.RELATIONS)
        a = self.expr(coords, params, 1)
        b = self.const(large=0.0) if self.chance(0.7) else self.expr(coords, params, 1)
        return (rel, a, b)

    # -- value-preserving and plausible rewrites --------------------------------------

    def rewrite(self, e: tuple, coords, times: int = 2) -> tuple:
        """``e`` written another way with the same value at every point."""
        for _ in range(times):
            path = self.rng.choice(rewritable(e))
            e = replace_at(e, path, self.equal_form(get_at(e, path), coords))
        return e

    def equal_form(self, e: tuple, coords) -> tuple:
        op = e[0]
        k = self.rng.choice([1, 2, 3, 5, 7, 2**62, 2**61 + 1])
        if op == "%" and self.chance(0.5):
            a, m = e[1], e[2]
            if m[0] == "c" and self.chance(0.5):
                return ("%", ("+", a, c(self.rng.randint(-3, 3) * m[1])), m)
            if a[0] in ("+", "-", "*") and a[1][0] == "%" and a[1][2] == m:
                return ("%", (a[0], a[1][1], a[2]), m)  # (a%m + b) % m == (a + b) % m
            if a[0] == "*" and a[1][0] == "c" and m[0] == "c":
                return ("%", ("*", c(a[1][1] % m[1]), a[2]), m)
            return ("%", ("%", a, m), m)
        if op == "//" and self.chance(0.4):
            return ("//", ("-", e[1], ("%", e[1], e[2])), e[2])
        if op == "min" and self.chance(0.5):
            return ("pw", ((e[1], ("<=", e[1], e[2])), (e[2], TRUE)))
        if op == "max" and self.chance(0.5):
            return ("neg", ("min", ("neg", e[1]), ("neg", e[2])))
        if op in ("+", "*") and self.chance(0.4):
            return (op, e[2], e[1])
        if op == "-" and self.chance(0.4):
            return ("+", e[1], ("*", c(-1), e[2]))
        if op == "ceil" and self.chance(0.5):
            return ("neg", ("//", ("neg", e[1]), e[2]))
        shape = self.rng.randrange(7)
        if shape == 0:
            return ("+", ("%", e, c(k)), ("*", ("//", e, c(k)), c(k)))
        if shape == 1:
            return ("-", ("+", e, c(k)), c(k))
        if shape == 2:
            return ("max", e, ("-", e, c(abs(k))))
        if shape == 3:
            return ("min", e, ("+", e, c(abs(k))))
        if shape == 4:
            return ("pw", ((e, self.cond(coords)), (e, TRUE)))
        if shape == 5:
            return ("//", ("*", e, c(k)), c(k))
        return ("neg", ("neg", e))

    def mutate(self, e: tuple, coords) -> tuple:
        """A plausible rewrite that may or may not keep the value (SymPy's wrong
        rule for Mod of a product among them)."""
        path = self.rng.choice(rewritable(e))
        node = get_at(e, path)
        op = node[0]
        if op == "%" and node[1][0] == "*" and node[1][1][0] == "c" and node[2][0] == "c":
            # (k*(a % m)) % n -> (k % n)*(a % m): SymPy 24215's rule
            new = ("*", c(node[1][1][1] % node[2][1]), node[1][2])
        elif op == "%" and self.chance(0.5):
            new = node[1]
        elif op == "c":
            step = self.rng.choice([-1, 1])
            new = c(node[1] + (step if node[1] + step != 0 else -step))  # never a zero divisor
        elif op in ("//", "%"):
            new = ("%" if op == "//" else "//", node[1], node[2])
        elif op in ("min", "max"):
            new = ("max" if op == "min" else "min", node[1], node[2])
        else:
            new = ("+", node, c(self.rng.choice([-1, 1])))
        return replace_at(e, path, new)


CONDITION_OPS = set(io.RELATIONS) | {"and", "or", "not", "true", "false"}


def nodes(e: tuple, path: tuple = ()):
    """(path, node) for every node of a written tree."""
    yield path, e
    if e[0] == "pw":
        for i, (branch, cond) in enumerate(e[1]):
            yield from nodes(branch, path + (1, i, 0))
            yield from nodes(cond, path + (1, i, 1))
    elif e[0] not in ("c", "v", "p", "true", "false"):
        for i, child in enumerate(e[1:], start=1):
            yield from nodes(child, path + (i,))


def rewritable(e: tuple) -> list[tuple]:
    """Paths of the expression nodes of ``e`` that are not divisors (a divisor stays
    the constant or parameter it was drawn as, so no rewrite can make it 0)."""
    return [p for p, n in nodes(e) if n[0] not in CONDITION_OPS
            and not (p and p[-1] == 2 and get_at(e, p[:-1])[0] in ("//", "%", "ceil"))]


def get_at(e, path):
    for i in path:
        e = e[i]
    return e


def replace_at(e, path, new):
    if not path:
        return new
    i = path[0]
    return e[:i] + (replace_at(e[i], path[1:], new),) + e[i + 1:]


# -- structured layouts: bijections built step by step, with their inverses ----------------


def fold(op, a, b):
    if a[0] == "c" and b[0] == "c":
        return c(value((op, a, b), {}, {}))
    return (op, a, b)


def ceil_of(a, f: int):
    return c(-((-a[1]) // f)) if a[0] == "c" else ("ceil", a, c(f))


class Steps:
    """exprs over the domain, inverse and valid over placeholder slots ``_k``."""

    def __init__(self, coords, extents) -> None:
        self.exprs = [v(n) for n in coords]
        self.exts = list(extents)
        self.inverse = [v(f"_{k}") for k in range(len(coords))]
        self.valid = None

    def apply(self, fwd, exts, bwd, valid=None) -> None:
        old = {f"_{k}": e for k, e in enumerate(self.exprs)}
        self.exprs = [substitute(f, old) for f in fwd]
        back = {f"_{k}": e for k, e in enumerate(bwd)}
        self.inverse = [substitute(e, back) for e in self.inverse]
        pulled = None if self.valid is None else substitute(self.valid, back)
        both = [x for x in (pulled, valid) if x is not None]
        self.valid = None if not both else both[0] if len(both) == 1 else ("and", *both)
        # bwd and valid name the new slots ~k; they become the current _k
        rename = {f"~{k}": v(f"_{k}") for k in range(len(exts))}
        self.inverse = [substitute(e, rename) for e in self.inverse]
        self.valid = None if self.valid is None else substitute(self.valid, rename)
        self.exts = list(exts)

    def step(self, d: Draw, max_size: int | None) -> None:
        r, E = len(self.exts), self.exts
        old = [v(f"_{k}") for k in range(r)]
        new = [v(f"~{k}") for k in range(r)]
        k = d.rng.randrange(r)
        kinds = ["reverse", "shift", "split", "pad", "offset", "scale"]
        kinds += ["permute", "fuse"] if r >= 2 else []
        kinds += ["affine", "affine"] if E[k][0] == "c" else []
        kind = d.rng.choice(kinds)
        if kind == "split" and r >= 3:
            kind = "reverse"
        if kind == "permute":
            order = list(range(r))
            d.rng.shuffle(order)
            inv = [order.index(j) for j in range(r)]
            self.apply([old[j] for j in order], [E[j] for j in order], [new[j] for j in inv])
        elif kind == "reverse":
            last = fold("-", E[k], c(1))
            self.apply(_put(old, k, ("-", last, old[k])), E,
                       _put(new, k, ("-", last, new[k])))
        elif kind == "shift":
            s = d.rng.choice([1, 2, 3, -1, -5, 2**62])
            self.apply(_put(old, k, ("%", ("+", old[k], c(s)), E[k])), E,
                       _put(new, k, ("%", ("-", new[k], c(s)), E[k])))
        elif kind == "affine":
            n = E[k][1]
            a = d.rng.choice([a for a in (1, 3, 5, 7, -1, -3, 2**62 + 1, 2**61 + 3)
                              if math.gcd(a, n) == 1] or [1])
            b = d.rng.randint(-4, 6)
            ainv = pow(a, -1, n) if n > 1 else 0
            self.apply(_put(old, k, ("%", ("+", ("*", c(a), old[k]), c(b)), E[k])), E,
                       _put(new, k, ("%", ("*", c(ainv), ("-", new[k], c(b))), E[k])))
        elif kind == "split":
            f = d.rng.randint(1, E[k][1] if E[k][0] == "c" else 6)
            exts = E[:k] + [ceil_of(E[k], f), c(f)] + E[k + 1:]
            fwd = old[:k] + [("//", old[k], c(f)), ("%", old[k], c(f))] + old[k + 1:]
            whole = ("+", ("*", new[k], c(f)), v(f"~{k + 1}"))
            bwd = new[:k] + [whole] + [v(f"~{j + 1}") for j in range(k + 1, r)]
            exact = E[k][0] == "c" and E[k][1] % f == 0
            self.apply(fwd, exts, bwd, None if exact else ("<", whole, E[k]))
        elif kind == "fuse":
            k = min(k, r - 2)
            inner = E[k + 1]
            exts = E[:k] + [fold("*", E[k], inner)] + E[k + 2:]
            fwd = old[:k] + [("+", ("*", old[k], inner), old[k + 1])] + old[k + 2:]
            bwd = new[:k] + [("//", new[k], inner), ("%", new[k], inner)] + [
                v(f"~{j - 1}") for j in range(k + 2, r)]
            self.apply(fwd, exts, bwd)
        elif kind == "pad":
            p = d.rng.randint(1, 3)
            self.apply(old, _put(E, k, fold("+", E[k], c(p))), new, ("<", new[k], E[k]))
        elif kind == "offset":
            s = d.rng.randint(1, 3)
            self.apply(_put(old, k, ("+", old[k], c(s))), _put(E, k, fold("+", E[k], c(s))),
                       _put(new, k, ("-", new[k], c(s))), (">=", new[k], c(s)))
        else:
            s = d.rng.randint(2, 3)
            self.apply(_put(old, k, ("*", old[k], c(s))), _put(E, k, fold("*", E[k], c(s))),
                       _put(new, k, ("//", new[k], c(s))), ("==", ("%", new[k], c(s)), c(0)))
        if max_size is not None and all(e[0] == "c" for e in self.exts):
            if math.prod(e[1] for e in self.exts) > max_size:
                raise OverflowError("too large")


def _put(seq, k, item):
    return list(seq[:k]) + [item] + list(seq[k + 1:])


def structured(d: Draw, coords, extents, max_size=4096, steps=None):
    """A layout built from bijective steps: (exprs, codomain extents, inverse, valid)."""
    for _ in range(20):
        built = Steps(coords, extents)
        try:
            for _ in range(steps or d.rng.randint(1, 3)):
                built.step(d, max_size)
        except OverflowError:
            continue
        if len(built.exts) <= 3:
            return built
    return Steps(coords, extents)


# -- drawing whole examples ---------------------------------------------------------------


def ranges(inst_images, rank):
    lo = [min((y[k] for y in inst_images), default=0) for k in range(rank)]
    hi = [max((y[k] for y in inst_images), default=0) for k in range(rank)]
    return lo, hi


def extents_for(d: Draw, images, rank) -> list[int]:
    """Codomain extents near the image range: most hold it, some are one short."""
    _, hi = ranges(images, rank)
    out = []
    for h in hi:
        if h < 0:
            out.append(d.rng.randint(1, 4))
        elif d.chance(0.15):
            out.append(max(1, h))
        else:
            out.append(h + 1 + d.rng.choice([0, 0, 0, 1, 2]))
    return out


def images_of(dom, exprs, params=None):
    names = [n for n, _ in dom]
    exts = [value(e, {}, params or {}) for _, e in dom]
    inst = Instance(list(zip(names, exts)), [(f"_{k}", 1) for k in range(len(exprs))],
                    exprs, None, params or {})
    return inst.images


def concrete(seed: int) -> Scenario:
    d = Draw(seed)
    rank = d.rng.randint(1, 3)
    names = DOM_NAMES[:rank]
    dom = tuple((n, c(d.rng.randint(1, 8))) for n in names)
    tags = set()
    kind = d.rng.choices(["random", "structured", "template"], weights=[3, 4, 2])[0]
    inverse = valid = None
    if kind == "structured":
        built = structured(d, names, [e for _, e in dom])
        exprs = [d.rewrite(e, names, d.rng.randint(0, 3)) for e in built.exprs]
        exts = [e[1] for e in built.exts]
        cod_names = ("o", "p", "q")[:len(exts)]
        ren = {f"_{k}": v(n) for k, n in enumerate(cod_names)}
        inverse = [substitute(e, ren) for e in built.inverse]
        valid = None if built.valid is None else substitute(built.valid, ren)
        if d.chance(0.3):
            inverse = None
        elif d.chance(0.2):
            k = d.rng.randrange(len(inverse))
            inverse[k] = d.mutate(inverse[k], cod_names)
            tags.add("wrong inverse")
        elif d.chance(0.3):
            inverse = [d.rewrite(e, cod_names, 1) for e in inverse]
        if valid is not None and d.chance(0.2):
            valid = None if d.chance(0.5) else d.mutate(valid, cod_names)
        if d.chance(0.1):
            k = d.rng.randrange(len(exprs))
            exprs[k] = d.mutate(exprs[k], names)
        if d.chance(0.1):
            k = d.rng.randrange(len(exts))
            exts[k] = max(1, exts[k] + d.rng.choice([-1, 1]))
    else:
        out = d.rng.randint(1, 3)
        if kind == "template":
            exprs = [d.template(names, (), 4) for _ in range(out)]
        else:
            exprs = [d.expr(names) for _ in range(out)]
        exts = extents_for(d, images_of(dom, exprs), out)
        cod_names = ("o", "p", "q")[:out]
        if d.chance(0.15):
            inverse = [d.expr(cod_names, (), 2) for _ in names]
    small_cod = math.prod(exts) <= 4096
    if small_cod and valid is None and d.chance(0.2):
        valid = d.cond(cod_names, (), 1)
    if not small_cod:
        valid = None
    cod = tuple((n, c(e)) for n, e in zip(cod_names, exts))
    m = Map("m", "cod", cod, tuple(exprs), None if inverse is None else tuple(inverse), valid)
    maps = [m] + others(d, dom, m, names, ())
    maps += chain_parts(d, dom, m) if small_cod and math.prod(exts) <= 512 else []
    fits = draw_fits(d, dom, m, ())
    return Scenario(seed, kind, (), dom, tuple(maps), fits=fits, tags=frozenset(tags))


def others(d: Draw, dom, m: Map, names, params) -> list[Map]:
    """meq (m rewritten, equal), m2 (another map: m mutated, or new) and res (a resource map)."""
    meq = Map("meq", "cod", m.cod, tuple(d.rewrite(e, names, d.rng.randint(1, 3))
                                         for e in m.exprs))
    r = d.rng.random()
    if r < 0.4:
        exprs2 = tuple(d.mutate(e, names) if d.chance(0.7) else e for e in m.exprs)
    elif r < 0.55:
        exprs2 = tuple(d.rewrite(e, names) for e in m.exprs)
    else:
        exprs2 = tuple(d.expr(names, params) for _ in m.exprs)
    cod2_names = ("r", "s", "t")[:len(m.exprs)]
    if params:
        cod2 = tuple((n, e) for n, (_, e) in zip(cod2_names, m.cod))
    else:
        exts2 = extents_for(d, images_of(dom, exprs2), len(exprs2))
        cod2 = tuple((n, c(e)) for n, e in zip(cod2_names, exts2))
    maps = [meq, Map("m2", "cod2", cod2, exprs2)]
    if d.chance(0.5):
        cod_names = [n for n, _ in m.cod]
        maps.append(Map("res", "rcod", (("h", c(8)),), (d.expr(cod_names, params, 2),),
                        over="cod"))
    return maps


def chain_parts(d: Draw, dom, m: Map) -> list[Map]:
    """g on m's codomain (a later part of a chain) and ``hand``: g ∘ m composed by hand."""
    cod_names = [n for n, _ in m.cod]
    if d.chance(0.75):
        built = structured(d, cod_names, [e for _, e in m.cod], max_size=4096)
        exprs = [d.rewrite(e, cod_names, d.rng.randint(0, 2)) for e in built.exprs]
        gnames = ("u", "w", "k")[:len(built.exts)]
        ren = {f"_{k}": v(n) for k, n in enumerate(gnames)}
        inverse = [substitute(e, ren) for e in built.inverse]
        valid = None if built.valid is None else substitute(built.valid, ren)
        exts = [e[1] for e in built.exts]
        if d.chance(0.3):
            inverse = None
        elif d.chance(0.2):
            k = d.rng.randrange(len(inverse))
            inverse[k] = d.mutate(inverse[k], gnames)
        if d.chance(0.2):
            valid = d.cond(gnames, (), 1)
    else:
        exprs = [d.expr(cod_names, (), 2) for _ in range(d.rng.randint(1, 2))]
        gnames = ("u", "w", "k")[:len(exprs)]
        src = [(n, e) for n, (_, e) in zip(cod_names, m.cod)]
        exts = extents_for(d, images_of(src, exprs), len(exprs))
        inverse = [d.expr(gnames, (), 1) for _ in cod_names] if d.chance(0.3) else None
        valid = d.cond(gnames, (), 1) if d.chance(0.3) else None
    if math.prod(exts) > 4096:
        valid = None
    gcod = tuple((n, c(e)) for n, e in zip(gnames, exts))
    g = Map("g", "gcod", gcod, tuple(exprs), None if inverse is None else tuple(inverse),
            valid, over="cod")
    by = {n: e for n, e in zip(cod_names, m.exprs)}
    hand = Map("hand", "gcod", gcod, tuple(substitute(e, by) for e in exprs))
    return [g, hand]


def draw_fits(d: Draw, dom, m: Map, params) -> tuple:
    names = [n for n, _ in m.cod]
    per = None if d.chance(0.4) or len(names) == 1 else tuple(
        d.rng.sample(names[:-1], d.rng.randint(0, len(names) - 1)))
    element_bytes = d.rng.choice([1, 2, 4, 8])
    in_bytes = d.chance(0.3)
    if params:
        p = d.rng.choice(params)
        capacity = ("*", ("p", p), c(d.rng.choice([1, 2, 4, 8, 16])))
        if d.chance(0.3):
            capacity = ("+", capacity, c(d.rng.randint(0, 8)))
        return (capacity, per, element_bytes, in_bytes)
    inst = Instance([(n, e[1]) for n, e in dom], [(n, e[1]) for n, e in m.cod],
                    m.exprs, None, {})
    chosen = per if per is not None else tuple(names[:-1])
    worst = max(inst.need(x, chosen, element_bytes, in_bytes) for x in inst.points)
    capacity = max(1, worst + d.rng.choice([-2, -1, 0, 0, 1, 5]))
    return (c(capacity), per, element_bytes, in_bytes)


ASSUMPTIONS = (
    lambda d, P: ("==", ("%", ("p", P[0]), c(d.rng.randint(2, 4))), c(0)),
    lambda d, P: ("<", ("p", P[0]), c(d.rng.randint(2, 9))),
    lambda d, P: (">=", ("p", P[0]), c(d.rng.randint(2, 5))),
    lambda d, P: ("!=", ("p", P[0]), c(d.rng.randint(1, 5))),
    lambda d, P: ("<=", ("p", P[-1]), ("p", P[0])),
    lambda d, P: ("or", ("<", ("p", P[0]), c(3)), ("==", ("%", ("p", P[-1]), c(2)), c(0))),
    lambda d, P: ("not", ("==", ("p", P[-1]), c(1))),
    lambda d, P: ("==", ("p", P[0]), ("*", c(2), ("p", P[-1]))),
)
CONTRADICTIONS = (
    lambda P: [("==", ("%", ("p", P[0]), c(4)), c(0)), ("<", ("p", P[0]), c(3))],
    lambda P: [(">", ("p", P[0]), c(6)), ("<", ("p", P[0]), c(5))],
    lambda P: [("<", ("p", P[0]), ("p", P[-1])), ("<", ("p", P[-1]), ("p", P[0]))],
    lambda P: [("==", ("%", ("p", P[0]), c(3)), c(0)), ("==", ("%", ("p", P[0]), c(3)), c(1))],
    lambda P: [("==", ("p", P[0]), ("+", ("*", c(2), ("p", P[-1])), c(1))),
               ("==", ("%", ("p", P[0]), c(2)), c(0))],
)


def parametric(seed: int) -> Scenario:
    d = Draw(seed)
    params = ("M",) if d.chance(0.6) else ("M", "N")
    kind = d.rng.choices(["structured", "random", "param_dim", "coord_assume"],
                         weights=[55, 39, 3, 3])[0]
    shapes = [[("p", "M")], [("p", "M"), c(3)], [c(2), ("p", "M")]]
    if len(params) == 2:
        shapes += [[("p", "M"), ("p", "N")], [("p", "N")]]
    exts = d.rng.choice(shapes)
    names = DOM_NAMES[:len(exts)]
    idents = ()
    if kind == "param_dim":  # a dimension named like an extent parameter (item 7)
        exts, names, idents = [("p", "M")], ("M",), (("M", "cM"),)
    dom = tuple(zip(names, exts))
    inverse = valid = None
    if kind == "structured":
        built = structured(d, names, exts, max_size=None)
        exprs = [d.rewrite(e, names, d.rng.randint(0, 2)) for e in built.exprs]
        cod_exts = built.exts
        cod_names = ("o", "p", "q")[:len(cod_exts)]
        ren = {f"_{k}": v(n) for k, n in enumerate(cod_names)}
        # Without an inverse, surjectivity for every size is a quantified query that
        # Z3 often cannot decide in time (an honest UNKNOWN): a few keep that path busy.
        inverse = None if d.chance(0.15) else [substitute(e, ren) for e in built.inverse]
        valid = None if built.valid is None else substitute(built.valid, ren)
        if d.chance(0.1):
            k = d.rng.randrange(len(exprs))
            exprs[k] = d.mutate(exprs[k], names)
    else:
        exprs = [d.expr(names, params, 2) for _ in range(d.rng.randint(1, 2))]
        cod_names = ("o", "p", "q")[:len(exprs)]
        M = ("p", "M")
        choices = [M, fold("+", M, c(1)), ("*", c(2), M), ("ceil", M, c(4)), c(8),
                   ("+", ("p", params[-1]), c(2)), ("*", M, ("p", params[-1]))]
        if d.chance(0.1):  # nested ceilings (item 3)
            choices = [("ceil", ("ceil", M, c(8)), c(3))]
        cod_exts = [d.rng.choice(choices) for _ in exprs]
        if d.chance(0.2):
            valid = d.cond(cod_names, params, 1)
    cod = tuple(zip(cod_names, cod_exts))
    written = [e for _, e in dom + cod] + list(exprs) + list(inverse or ()) + (
        [valid] if valid is not None else [])
    params = tuple(p for p in params if any(("p", p) in io.walk(e) for e in written))
    if kind == "coord_assume":  # assume= on a coordinate must be refused (item 8)
        assume = [(d.rng.choice(["<", ">="]), v(names[0]), c(d.rng.randint(1, 4)))]
    elif d.chance(0.15):
        assume = CONTRADICTIONS[d.rng.randrange(len(CONTRADICTIONS))](params)
    else:
        assume = [ASSUMPTIONS[d.rng.randrange(len(ASSUMPTIONS))](d, params)
                  for _ in range(d.rng.randint(0, 2))]
    split = d.rng.random()
    on_map = [] if split < 0.5 or kind == "coord_assume" else (
        assume if split < 0.8 else assume[:1])
    passed = [a for a in assume if a not in on_map]
    m = Map("m", "cod", cod, tuple(exprs), None if inverse is None else tuple(inverse), valid,
            assuming=tuple(on_map))
    maps = [m] + others(d, dom, m, names, params)
    sc = Scenario(seed, kind, params, dom, tuple(maps), tuple(passed),
                  lookalike=d.chance(0.15), idents=idents,
                  fits=draw_fits(d, dom, m, params),
                  tags=frozenset({"nested ceiling"} if any(
                      e[0] == "ceil" and e[1][0] == "ceil" for e in cod_exts) else ()))
    return replace(sc, contradictory=kind != "coord_assume" and contradictory(sc))


def contradictory(sc: Scenario) -> bool:
    """No sizes meet the assumptions. Every satisfiable assumption drawn here has a
    witness below 60 (residues up to 4, thresholds up to 9), so a search decides."""
    return not any(assumptions_hold(sc, dict(zip(sc.params, values)))
                   for values in itertools.product(range(1, 61), repeat=len(sc.params)))


PARAMETRIC_SEEDS = 10_000_000  # seeds from here on draw parametric examples


def example(seed: int) -> Scenario:
    return parametric(seed) if seed >= PARAMETRIC_SEEDS else concrete(seed)


# -- truth at one size ----------------------------------------------------------------------


class Sized:
    """A scenario at one size (parameter values): enumerated maps, built lazily."""

    def __init__(self, sc: Scenario, params: dict) -> None:
        self.sc, self.params = sc, params
        self.dom = [(n, value(e, {}, params)) for n, e in sc.dom]
        self._cache = {}

    def space(self, var: str):
        if var == "dom":
            return self.dom
        owner = next(m for m in self.sc.maps if m.space == var)
        return [(n, value(e, {}, self.params)) for n, e in owner.cod]

    def inst(self, var: str) -> Instance:
        if var not in self._cache:
            if var == "composite":
                self._cache[var] = self._composite()
            else:
                m = self.sc.map(var)
                self._cache[var] = Instance(self.space(m.over), self.space(m.space), m.exprs,
                                            m.valid, self.params)
        return self._cache[var]

    def _composite(self) -> Instance:
        """g ∘ m as composed by hand (``hand``); its real slots are :meth:`real_slots`."""
        g = self.inst("g")
        return Instance(self.dom, list(zip(g.cod_names, g.cod_ext)), self.sc.map("hand").exprs,
                        None, self.params)

    def real_slots(self):
        """(surely, maybe): which slots of g's codomain are real in the composition.

        A slot of g's codomain is real when g's ``valid`` holds and it comes from
        m's real slots; where g is not a bijection onto its valid slots, readings
        differ (a slot no point of m's codomain reaches; one reached from both a
        real and a padding slot). ``surely`` holds under every reading (g valid,
        reached, and only from real slots), ``maybe`` under some (g valid, and
        reached from a real slot or from no padding slot): a verdict is wrong
        only if it is wrong under every reading."""
        if "real" not in self._cache:
            m, g = self.inst("m"), self.inst("g")
            reached: dict = {}
            for slot in m.slots():
                reached.setdefault(g.image(slot), []).append(m.is_valid(slot))
            surely = {y for y, real in reached.items() if all(real) and g.inside(y)
                      and g.is_valid(y)}

            def maybe(y):
                return g.is_valid(y) and (y not in reached or any(reached[y]))
            self._cache["real"] = (surely, maybe)
        return self._cache["real"]

    def resource(self, access: Instance, point) -> tuple:
        image = access.image(point)
        res = self.sc.map("res")
        if res is None:
            return image
        env = dict(zip([n for n, _ in self.sc.map("m").cod], image))
        return tuple(value(e, env, self.params) for e in res.exprs)


def assumptions_hold(sc: Scenario, params: dict, partial: bool = False) -> bool:
    """Do ``params`` meet the assumptions? (``partial``: those that name only given
    parameters.)"""
    return all(holds(a, {}, params) for a in sc.all_assumptions
               if not any(node[0] == "v" for node in io.walk(a))  # item 8's: refused
               and (not partial or mentioned(a) <= set(params)))


def mentioned(e: tuple) -> set[str]:
    return {node[1] for node in io.walk(e) if node[0] == "p"}


def sizes(sc: Scenario):
    """Every size in the small range that meets the assumptions."""
    if not sc.params:
        yield {}
        return
    top = 12 if len(sc.params) == 1 else 8
    for values in itertools.product(range(1, top + 1), repeat=len(sc.params)):
        params = dict(zip(sc.params, values))
        if assumptions_hold(sc, params):
            yield params


def text(point) -> str:
    return "(" + ", ".join(map(str, point)) + ")"


# truth(sized) -> None when the claim holds there, else a witness sentence


def t_in_bounds(inst: Instance):
    for x, y in zip(inst.points, inst.images):
        if not inst.inside(y):
            return f"{text(x)} maps to {text(y)}, outside {text(inst.cod_ext)}"
    return None


def t_injective(inst: Instance):
    seen = {}
    for x, y in zip(inst.points, inst.images):
        if y in seen:
            return f"{text(seen[y])} and {text(x)} both map to {text(y)}"
        seen[y] = x
    return None


def t_images_valid(inst: Instance):
    for x, y in zip(inst.points, inst.images):
        if inst.inside(y) and not inst.is_valid(y):
            return f"{text(x)} lands on padding slot {text(y)}"
    return None


def t_surjective(inst: Instance):
    filled = inst.occupied()
    if inst.valid is None:
        if len(filled) == inst.cod_size:
            return None
        if inst.cod_size > ENUMERATION_LIMIT:
            return f"only {len(filled)} of {inst.cod_size} slots are filled"
    for slot in inst.slots():
        if inst.is_valid(slot) and slot not in filled:
            return f"valid slot {text(slot)} holds no element"
    return None


def t_bijective(inst: Instance):
    for part in (t_in_bounds, t_injective, t_images_valid, t_surjective):
        found = part(inst)
        if found:
            return found
    return None


def on(var, truth):
    return lambda sized: truth(sized.inst(var))


def point_of(ce: dict, names, suffix="") -> tuple | None:
    try:
        return tuple(int(ce[f"{n}{suffix}"]) for n in names)
    except KeyError:
        return None


# genuine(ce, sized, var) -> is the counterexample one?


def g_in_bounds(ce, inst: Instance) -> bool:
    x = point_of(ce, inst.dom_names)
    return x is not None and _in_domain(x, inst) and not inst.inside(inst.image(x))


def g_injective(ce, inst: Instance) -> bool:
    x, y = point_of(ce, inst.dom_names), point_of(ce, inst.dom_names, "'")
    return (x is not None and y is not None and x != y and _in_domain(x, inst)
            and _in_domain(y, inst) and inst.image(x) == inst.image(y))


def g_images_valid(ce, inst: Instance) -> bool:
    x = point_of(ce, inst.dom_names)
    if x is None or not _in_domain(x, inst):
        return False
    y = inst.image(x)
    return inst.inside(y) and not inst.is_valid(y)


def g_surjective(ce, inst: Instance) -> bool:
    slot = point_of(ce, inst.cod_names)
    if slot is None or not inst.inside(slot) or not inst.is_valid(slot):
        return False
    return slot not in inst.occupied()


def g_bijective(ce, inst: Instance) -> bool:
    return any(g(ce, inst) for g in (g_in_bounds, g_injective, g_images_valid, g_surjective))


def _in_domain(x, inst: Instance) -> bool:
    return all(0 <= a < e for a, e in zip(x, inst.dom_ext))


# -- the checks --------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """One check: the call a user writes, the maps it needs, truth and counterexample tests."""

    name: str
    needs: tuple
    call: object  # (Scenario) -> str
    truth: object  # (Sized) -> str | None
    genuine: object = None  # (ce, Sized) -> bool
    applies: object = lambda sc: True


def _a(sc):
    return assume_text(sc)


def _fits_call(sc):
    capacity, per, element_bytes, in_bytes = sc.fits
    args = [io.source(capacity, {}, {})]
    if per is not None:
        args.append(f"per={per!r}")
    if element_bytes != 1:
        args.append(f"element_bytes={element_bytes}")
    if in_bytes:
        args.append("offsets_in_bytes=True")
    return f"la.check_fits(m, {', '.join(args)}{_a(sc)})"


def _fits_args(sized):
    capacity, per, element_bytes, in_bytes = sized.sc.fits
    inst = sized.inst("m")
    chosen = per if per is not None else inst.cod_names[:-1]
    return value(capacity, {}, sized.params), chosen, element_bytes, in_bytes, inst


def t_fits(sized):
    cap, per, eb, ib, inst = _fits_args(sized)
    for x in inst.points:
        need = inst.need(x, per, eb, ib)
        if need > cap:
            return f"{text(x)} needs {need} > {cap} bytes"
    return None


def g_fits(ce, sized):
    cap, per, eb, ib, inst = _fits_args(sized)
    x = point_of(ce, inst.dom_names)
    if x is None or not _in_domain(x, inst):
        return False
    need = inst.need(x, per, eb, ib)
    return need > cap and ce.get("bytes") == need


def t_equal(other):
    def truth(sized):
        a, b = sized.inst("m"), sized.inst(other)
        for x, y1, y2 in zip(a.points, a.images, b.images):
            if y1 != y2:
                return f"at {text(x)}: {text(y1)} vs {text(y2)}"
        return None
    return truth


def g_equal(other):
    def genuine(ce, sized):
        a, b = sized.inst("m"), sized.inst(other)
        x = point_of(ce, a.dom_names)
        return x is not None and _in_domain(x, a) and a.image(x) != b.image(x)
    return genuine


def t_conflict(sized):
    a, b = sized.inst("m"), sized.inst("m2")
    for x in a.points:
        if sized.resource(a, x) == sized.resource(b, x):
            return f"at {text(x)} both use {text(sized.resource(a, x))}"
    return None


def g_conflict(ce, sized):
    a, b = sized.inst("m"), sized.inst("m2")
    x = point_of(ce, a.dom_names)
    return x is not None and _in_domain(x, a) and sized.resource(a, x) == sized.resource(b, x)


def _conflict_call(sc):
    res = ", res" if sc.map("res") else ""
    return f"la.check_conflict_free(dom, {{'a': m, 'b': m2}}{res}{_a(sc)})"


def tc_images_valid(sized):
    """Some element lands on a slot that is padding under every reading."""
    h = sized.inst("composite")
    _, maybe = sized.real_slots()
    for x, y in zip(h.points, h.images):
        if h.inside(y) and not maybe(y):
            return f"{text(x)} lands on padding slot {text(y)}"
    return None


def tc_surjective(sized):
    """Some slot that is real under every reading holds no element."""
    h = sized.inst("composite")
    surely, _ = sized.real_slots()
    empty = sorted(surely - h.occupied())
    return f"real slot {text(empty[0])} holds no element" if empty else None


def tc_bijective(sized):
    h = sized.inst("composite")
    return (t_in_bounds(h) or t_injective(h) or tc_images_valid(sized)
            or tc_surjective(sized))


def gc_images_valid(ce, sized):
    h = sized.inst("composite")
    x = point_of(ce, h.dom_names)
    if x is None or not _in_domain(x, h):
        return False
    y = h.image(x)
    return h.inside(y) and y not in sized.real_slots()[0]


def gc_surjective(ce, sized):
    h = sized.inst("composite")
    y = point_of(ce, h.cod_names)
    return (y is not None and h.inside(y) and sized.real_slots()[1](y)
            and y not in h.occupied())


def gc_bijective(ce, sized):
    h = sized.inst("composite")
    return (g_in_bounds(ce, h) or g_injective(ce, h) or gc_images_valid(ce, sized)
            or gc_surjective(ce, sized))


def t_by_parts(sized):
    return t_in_bounds(sized.inst("m")) or tc_bijective(sized)


def has(var):
    return lambda sc: sc.map(var) is not None


CHECKS = (
    Check("in_bounds", ("m",), lambda sc: f"la.check_in_bounds(m{_a(sc)})",
          on("m", t_in_bounds), lambda ce, s: g_in_bounds(ce, s.inst("m"))),
    Check("injective", ("m",), lambda sc: f"la.check_injective(m{_a(sc)})",
          on("m", t_injective), lambda ce, s: g_injective(ce, s.inst("m"))),
    Check("surjective", ("m",), lambda sc: f"la.check_surjective(m{_a(sc)})",
          on("m", t_surjective), lambda ce, s: g_surjective(ce, s.inst("m"))),
    Check("images_valid", ("m",), lambda sc: f"la.check_images_valid(m{_a(sc)})",
          on("m", t_images_valid), lambda ce, s: g_images_valid(ce, s.inst("m"))),
    Check("bijective", ("m",), lambda sc: f"la.check_bijective(m{_a(sc)})",
          on("m", t_bijective), lambda ce, s: g_bijective(ce, s.inst("m"))),
    Check("padding", ("m",), lambda sc: f"la.padding(m{_a(sc)})", None),
    Check("fits", ("m",), _fits_call, t_fits, g_fits),
    Check("equivalent(rewritten)", ("m", "meq"), lambda sc: f"la.check_equivalent(m, meq{_a(sc)})",
          t_equal("meq"), g_equal("meq")),
    Check("equivalent(other)", ("m", "m2"), lambda sc: f"la.check_equivalent(m, m2{_a(sc)})",
          t_equal("m2"), g_equal("m2")),
    Check("conflict_free", ("m", "m2", "res"), _conflict_call, t_conflict, g_conflict),
    Check("compose", ("m", "g"), lambda sc: "la.compose(m, g)", None, applies=has("g")),
    Check("compose.in_bounds", ("m", "g"), lambda sc: "la.check_in_bounds(la.compose(m, g))",
          on("composite", t_in_bounds), lambda ce, s: g_in_bounds(ce, s.inst("composite")),
          has("g")),
    Check("compose.injective", ("m", "g"), lambda sc: "la.check_injective(la.compose(m, g))",
          on("composite", t_injective), lambda ce, s: g_injective(ce, s.inst("composite")),
          has("g")),
    Check("compose.images_valid", ("m", "g"),
          lambda sc: "la.check_images_valid(la.compose(m, g))", tc_images_valid,
          gc_images_valid, has("g")),
    Check("compose.bijective", ("m", "g"), lambda sc: "la.check_bijective(la.compose(m, g))",
          tc_bijective, gc_bijective, has("g")),
    Check("compose.equivalent", ("m", "g", "hand"),
          lambda sc: "la.check_equivalent(la.compose(m, g), hand)",
          lambda s: None, lambda ce, s: False, has("g")),
    Check("bijective_by_parts", ("m", "g"),
          lambda sc: "la.check_bijective_by_parts(la.Chain((m, g)))",
          t_by_parts, lambda ce, s: g_in_bounds(ce, s.inst("m")) or gc_bijective(ce, s),
          has("g")),
)


# -- judging one verdict -------------------------------------------------------------------


@dataclass
class Finding:
    """A disagreement: the check, what is wrong, and the script that shows it."""

    check: str
    what: str
    detail: str
    scenario: Scenario
    klass: str = ""
    script: str = ""


def judge(check: Check, sc: Scenario, result) -> tuple[str, str] | None:
    """None when the verdict is sound; else (what is wrong, detail). ("unjudged", why)
    when the oracle cannot tell (a size too large to enumerate)."""
    if check.name == "padding":
        return judge_padding(sc, result)
    if check.name == "compose":
        return judge_compose(sc, result)
    status = result.status
    if status is la.Status.UNKNOWN:
        return None
    if status is la.Status.PROVED:
        if sc.contradictory:
            return ("PROVED under contradictory assumptions", result.reason)
        for params in sizes(sc):
            try:
                witness = check.truth(Sized(sc, params))
            except io.TooLarge:
                continue
            if witness:
                at = f" with {params}" if params else ""
                return ("false PROVED", f"truth{at}: {witness}")
        return None
    ce = result.counterexample
    if ce is None:
        return ("REFUTED without a counterexample", result.reason)
    given = {p: ce[p] for p in sc.params if isinstance(ce.get(p), int)}
    if not assumptions_hold(sc, given, partial=True):
        return ("counterexample breaks the assumptions", f"{ce}: {result.reason}")
    # A parameter the counterexample leaves out is one layoutalg's map does not
    # mention (SymPy dropped it, e.g. 0*N): then the counterexample must be one at
    # every value of it that meets the assumptions.
    missing = [p for p in sc.params if p not in given]
    top = 12 if len(sc.params) == 1 else 8
    completions = [given | dict(zip(missing, values))
                   for values in itertools.product(range(1, top + 1), repeat=len(missing))]
    completions = [p for p in completions if assumptions_hold(sc, p)]
    if not completions:
        return ("counterexample without sizes", f"{ce}: {result.reason}")
    try:
        for params in completions:
            if not check.genuine(ce, Sized(sc, params)):
                at = f" (at {params})" if missing else ""
                return ("false counterexample", f"{ce}{at}: {result.reason}")
    except io.TooLarge as exc:
        return ("unjudged", f"{exc}: {ce}")
    return None


def judge_padding(sc: Scenario, result) -> tuple[str, str] | None:
    if sc.contradictory:
        return ("padding counted under contradictory assumptions", f"count {result.count}")
    for params in sizes(sc):
        inst = Sized(sc, params).inst("m")
        try:
            truth = inst.padding()
        except io.TooLarge:
            continue
        count, total = (at_size(x, params) for x in (result.count, result.total))
        at = f" with {params}" if params else ""
        if count != truth:
            return ("wrong padding count", f"count {result.count}, truth {truth}{at}")
        if total != inst.cod_size:
            return ("wrong padding total", f"total {result.total}, truth {inst.cod_size}{at}")
    return None


def at_size(x, params: dict):
    """A count layoutalg gives (an int, or a formula in the parameters) at one size."""
    if isinstance(x, int):
        return x
    x = sympy.sympify(x)
    return x.xreplace({s: sympy.Integer(params[s.name]) for s in x.free_symbols
                       if s.name in params})


def judge_compose(sc: Scenario, result) -> tuple[str, str] | None:
    witness = t_in_bounds(Sized(sc, {}).inst("m"))
    if witness:
        return ("compose accepts a first part that leaves then's domain", witness)
    return None


# -- running one example -------------------------------------------------------------------


@dataclass
class Tally:
    maps: int = 0
    refused: int = 0
    verdicts: Counter = field(default_factory=Counter)  # (check, status)
    unknown: Counter = field(default_factory=Counter)
    expected_unknown: int = 0  # contradictory assumptions: UNKNOWN is the right answer
    check_refused: Counter = field(default_factory=Counter)
    findings: list = field(default_factory=list)
    seconds: float = 0.0
    reasons: Counter = field(default_factory=Counter)
    check_seconds: Counter = field(default_factory=Counter)
    unjudged: Counter = field(default_factory=Counter)  # REFUTED at a size too large to enumerate


def build(sc: Scenario, needed) -> dict:
    namespace: dict = {}
    exec(compile(source(sc, needed), f"<soundness seed {sc.seed}>", "exec"), namespace)
    return namespace


def ask(check: Check, sc: Scenario, namespace: dict):
    return eval(check.call(sc), namespace)


def chosen_checks(sc: Scenario) -> list[Check]:
    """Every check that applies, or ``CHECKS_PER_MAP`` of them in turn by seed."""
    applicable = [check for check in CHECKS if check.applies(sc)]
    if not CHECKS_PER_MAP or CHECKS_PER_MAP >= len(applicable):
        return applicable
    first = sc.seed * CHECKS_PER_MAP
    return [applicable[(first + j) % len(applicable)] for j in range(CHECKS_PER_MAP)]


def run_example(sc: Scenario, tally: Tally) -> None:
    tally.maps += 1
    checks = chosen_checks(sc)
    try:
        namespace = build(sc, tuple({var for check in checks for var in check.needs}))
    except la.LayoutError as exc:
        tally.refused += 1
        tally.reasons[f"refused: {str(exc)[:70]}"] += 1
        return
    except Exception as exc:  # noqa: BLE001 - every crash is a finding
        culprit = next((m.var for m in sc.maps if _crashes(sc, m.var)), "m")
        tally.findings.append(Finding(f"construction({culprit})", f"crash {type(exc).__name__}",
                                      _crash_text(exc), sc))
        return
    for check in checks:
        found = run_check(check, sc, namespace, tally)
        if found:
            tally.findings.append(Finding(check.name, found[0], found[1], sc))


def _crashes(sc: Scenario, var: str) -> bool:
    try:
        build(sc, (var,))
    except la.LayoutError:
        return False
    except Exception:  # noqa: BLE001
        return True
    return False


def run_check(check: Check, sc: Scenario, namespace: dict, tally: Tally | None):
    start = time.perf_counter()
    try:
        result = ask(check, sc, namespace)
    except la.LayoutError as exc:
        if sc.kind == "coord_assume":
            return None
        if check.name.startswith(("compose", "bijective_by_parts")) and t_in_bounds(
                Sized(sc, {}).inst("m")):
            return None  # m leaves g's domain: refusing to compose is the right answer
        if tally is not None:
            tally.check_refused[check.name] += 1
            tally.reasons[f"{check.name} refused: {str(exc)[:70]}"] += 1
        return None
    except Exception as exc:  # noqa: BLE001
        return (f"crash {type(exc).__name__}", _crash_text(exc))
    if sc.kind == "coord_assume" and check.call(sc).find("assume=") >= 0:
        return ("an assumption on a coordinate is accepted", str(result)[:200])
    if tally is not None:
        tally.check_seconds[check.name] += time.perf_counter() - start
    found = judge(check, sc, result)
    if found and found[0] == "unjudged":
        if tally is not None:
            tally.unjudged[check.name] += 1
        found = None
    if tally is not None and hasattr(result, "status"):
        tally.verdicts[(check.name, str(result.status))] += 1
        if result.status is la.Status.UNKNOWN:
            if sc.contradictory:
                tally.expected_unknown += 1
            else:
                tally.unknown[check.name] += 1
                tally.reasons[f"{check.name} UNKNOWN: {result.reason[:70]}"] += 1
    return found


def _crash_text(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = next((f"{f.filename.split('layoutalg/')[-1]}:{f.lineno}" for f in reversed(frames)
                  if "layoutalg/" in f.filename), "?")
    return f"{type(exc).__name__}: {str(exc)[:160]} (at {where})"


# -- classes of findings -------------------------------------------------------------------


def classify(f: Finding, namespace: dict | None) -> str:
    """Which issue-11 item a finding matches, by what can be seen of its mechanism
    (the scenario's kind, the kind of wrong answer, then the maps layoutalg holds)."""
    sc = f.scenario
    composing = f.check.startswith(("compose", "bijective_by_parts"))
    if sc.kind == "param_dim":
        return "item 7: a dimension named like an extent parameter"
    if sc.kind == "coord_assume":
        return "item 8: assume= names a coordinate"
    if "contradictory" in f.what:
        return "item 4: contradictory assumptions"
    if f.what == "crash OverflowError":
        return "item 5: values past int64"
    if f.what.startswith("crash"):
        return "new"
    if f.what.startswith("compose accepts"):
        return "item 6: a part escapes its own codomain"
    if f.what == "counterexample breaks the assumptions" and sc.lookalike:
        return "item 8: look-alike symbol in assume="
    if namespace is not None and held_changed(sc, namespace, CHECK_BY_NAME[f.check].needs):
        return "item 1: the held expression differs from the written one"
    if composing and namespace is not None and composite_changed(sc, namespace):
        return "item 2: compose builds a wrong map"
    if composing and t_in_bounds(Sized(sc, {}).inst("m")):
        return "item 6: a part escapes its own codomain"
    if composing and sc.map("m").valid is not None:
        if sc.map("g").inverse is None:
            return "item 9: compose without then's inverse drops first's padding"
        return "item 9: compose pulls valid back through then's inverse"
    if large_values(sc, CHECK_BY_NAME[f.check].needs):  # int64 evaluation: padding, m(...)
        return "item 5: values past int64"
    if "nested ceiling" in sc.tags:
        return "item 3: nested ceilings"
    return "new"


CHECK_BY_NAME = {ch.name: ch for ch in CHECKS} | {
    f"construction({var})": Check(f"construction({var})", (var,), lambda sc: "", None)
    for var in ("m", "meq", "m2", "res", "g", "hand")}


def held_changed(sc: Scenario, namespace: dict, needed) -> bool:
    """Does some map hold an expression whose value differs from the written one?
    (SymPy's own exact number arithmetic on the held expression, at the first size.)"""
    params = next(iter(sizes(sc)), None)
    if params is None:
        return False
    sized = Sized(sc, params)
    for var in needed:
        spec, obj = sc.map(var), namespace.get(var)
        if spec is None or obj is None:
            continue
        inst = sized.inst(var)
        symbols = {s.name: s for s in obj.domain.symbols}
        env_params = {p: sympy.Integer(params[p.name]) for p in obj.parameters
                      if p.name in params}
        for x in inst.points[:64]:
            subs = {symbols[n]: sympy.Integer(a) for n, a in zip(inst.dom_names, x)}
            subs.update(env_params)
            for held, written in zip(obj.exprs, inst.image(x)):
                got = sympy.sympify(held).xreplace(subs)
                if got != written:
                    return True
    return False


def composite_changed(sc: Scenario, namespace: dict) -> bool:
    """Does ``compose(m, g)`` hold a formula whose value differs from g ∘ m?"""
    try:
        composite = la.compose(namespace["m"], namespace["g"])
    except la.LayoutError:
        return False
    inst = Sized(sc, {}).inst("composite")
    symbols = {s.name: s for s in composite.domain.symbols}
    for x, image in zip(inst.points, inst.images):
        subs = {symbols[n]: sympy.Integer(a) for n, a in zip(inst.dom_names, x)}
        if any(sympy.sympify(e).xreplace(subs) != y for e, y in zip(composite.exprs, image)):
            return True
    return False


def large_values(sc: Scenario, needed) -> bool:
    params = next(iter(sizes(sc)), {})
    sized = Sized(sc, params)
    for var in needed:
        spec = sc.map(var)
        if spec is None:
            continue
        inst = sized.inst(var)
        env_names = inst.dom_names
        for x in inst.points:
            env = dict(zip(env_names, x))
            if any(io.largest(e, env, params) >= 2**63 for e in spec.exprs):
                return True
    return False


# -- shrinking a finding -------------------------------------------------------------------


def reproduces(f: Finding, sc: Scenario) -> bool:
    check = CHECK_BY_NAME[f.check]
    if f.check.startswith("construction"):
        try:
            build(sc, check.needs)
        except la.LayoutError:
            return False
        except Exception as exc:  # noqa: BLE001
            return f"crash {type(exc).__name__}" == f.what
        return False
    try:
        namespace = build(sc, check.needs)
        for params in sizes(sc):  # the oracle must be able to read the candidate
            sized = Sized(sc, params)
            for var in ("m",) + tuple(n for n in check.needs if sc.map(n)):
                sized.inst(var)
            break
        found = run_check(check, sc, namespace, None)
        if not found or found[0] != f.what:
            return False
        return classify(Finding(f.check, found[0], found[1], sc), namespace) == f.klass
    except Exception:  # noqa: BLE001 - a candidate the oracle cannot read is no smaller case
        return False


def candidates(sc: Scenario, needed):
    """Smaller scenarios (``hand`` kept equal to g ∘ m composed by hand)."""
    for candidate in _candidates(sc, needed):
        if candidate.params and candidate.kind != "coord_assume":
            candidate = replace(candidate, contradictory=contradictory(candidate))
        m, g, hand = candidate.map("m"), candidate.map("g"), candidate.map("hand")
        if g is not None and hand is not None:
            by = {n: e for (n, _), e in zip(m.cod, m.exprs)}
            candidate = candidate.with_map(
                replace(hand, exprs=tuple(substitute(e, by) for e in g.exprs)))
        yield candidate


def _candidates(sc: Scenario, needed):
    """Smaller scenarios: subtrees replaced, constants and extents made small."""
    for k, (n, e) in enumerate(sc.dom):
        if e[0] == "c" and e[1] > 1:
            for smaller in sorted({1, 2, e[1] // 2, e[1] - 1} - {e[1]}):
                dom = sc.dom[:k] + ((n, c(smaller)),) + sc.dom[k + 1:]
                yield replace(sc, dom=dom)
    if sc.assume:
        for k in range(len(sc.assume)):
            yield replace(sc, assume=sc.assume[:k] + sc.assume[k + 1:])
    if sc.lookalike:
        yield replace(sc, lookalike=False)
    if sc.fits is not None:
        capacity, per, eb, ib = sc.fits
        if per is not None:
            yield replace(sc, fits=(capacity, None, eb, ib))
        if eb != 1:
            yield replace(sc, fits=(capacity, per, 1, ib))
        if ib:
            yield replace(sc, fits=(capacity, per, eb, False))
    for m in sc.maps:
        if m.var not in needed:
            continue
        if m.inverse is not None:
            yield sc.with_map(replace(m, inverse=None))
        if m.valid is not None:
            yield sc.with_map(replace(m, valid=None))
        if m.assuming:
            yield sc.with_map(replace(m, assuming=()))
        for k, (n, e) in enumerate(m.cod):
            if e[0] == "c" and e[1] > 1:
                for smaller in sorted({1, 2, 8, e[1] // 2, e[1] - 1} - {e[1]}):
                    if smaller < e[1]:
                        cod = m.cod[:k] + ((n, c(smaller)),) + m.cod[k + 1:]
                        yield sc.with_map(replace(m, cod=cod))
        fields = [("exprs", k) for k in range(len(m.exprs))]
        fields += [("inverse", k) for k in range(len(m.inverse or ()))]
        fields += [("valid", None)] if m.valid is not None else []
        for name, k in fields:
            tree = getattr(m, name) if k is None else getattr(m, name)[k]
            for path, node in nodes(tree):
                for smaller in smaller_nodes(node):
                    new = replace_at(tree, path, smaller)
                    if k is None:
                        yield sc.with_map(replace(m, valid=new))
                    else:
                        seq = list(getattr(m, name))
                        seq[k] = new
                        yield sc.with_map(replace(m, **{name: tuple(seq)}))


def smaller_nodes(node):
    op = node[0]
    if op in CONDITION_OPS:
        if op in ("and", "or"):
            yield node[1]
            yield node[2]
        elif op == "not":
            yield node[1]
        return
    if op == "c":
        for x in (0, 1, 2, node[1] // 2):
            if abs(x) < abs(node[1]):
                yield c(x)
        return
    if op in ("v", "p"):
        yield c(0)
        return
    yield c(0)
    yield c(1)
    if op == "pw":
        for branch, _ in node[1]:
            yield branch
        for k in range(len(node[1]) - 1):  # drop a branch, never the last (True) one
            yield ("pw", node[1][:k] + node[1][k + 1:])
        return
    for child in node[1:]:
        if child[0] not in CONDITION_OPS:
            yield child


def shrink(f: Finding, budget: int) -> Finding:
    best = f.scenario
    needed = CHECK_BY_NAME[f.check].needs
    size = len(source(best, needed))
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for candidate in candidates(best, needed):
            text_ = len(source(candidate, needed))
            if text_ >= size:
                continue
            tries += 1
            if reproduces(f, candidate):
                best, size, improved = candidate, text_, True
                break
            if tries >= budget:
                break
    if f.check.startswith("construction"):
        return replace(f, scenario=best)
    namespace = build(best, needed)
    found = run_check(CHECK_BY_NAME[f.check], best, namespace, None)
    return replace(f, scenario=best, detail=found[1] if found else f.detail)


def script(f: Finding) -> str:
    check = CHECK_BY_NAME[f.check]
    body = source(f.scenario, check.needs)
    call = check.call(f.scenario)
    return (f"# seed {f.scenario.seed} ({f.scenario.kind}): {f.check}: {f.what}\n"
            f"# {f.detail}\n{body}" + (f"print({call})\n" if call else ""))


# -- the tests ------------------------------------------------------------------------------


def run_all(seeds) -> Tally:
    """Run the examples of ``seeds``, in ``WORKERS`` processes when more than one."""
    start = time.perf_counter()
    workers = min(WORKERS, max(1, len(seeds) // 20))
    if workers <= 1:
        tally = Tally()
        for seed in seeds:
            run_example(example(seed), tally)
    else:
        tally = _run_in_processes(seeds, workers)
    tally.seconds = time.perf_counter() - start
    return tally


def _run_in_processes(seeds, workers: int) -> Tally:
    """Each process runs every ``workers``-th seed and writes its tally as JSON;
    findings come back as seeds and are drawn again here (drawing is deterministic)."""
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for k in range(workers):
            out = os.path.join(tmp, f"tally{k}.json")
            chunk = ",".join(map(str, seeds[k::workers]))
            helpers = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                [helpers, os.environ.get("PYTHONPATH", "")])}  # int_oracle, profiles
            procs.append((out, subprocess.Popen([sys.executable, __file__, out, chunk], env=env)))
        tally = Tally()
        for out, proc in procs:
            if proc.wait() != 0:
                raise RuntimeError(f"soundness worker exited with {proc.returncode}")
            with open(out) as fh:
                merge(tally, json.load(fh))
    return tally


COUNTERS = ("verdicts", "unknown", "check_refused", "reasons", "check_seconds", "unjudged")


def tally_json(tally: Tally) -> dict:
    data = {name: [[list(k) if isinstance(k, tuple) else k, n]
                   for k, n in getattr(tally, name).items()] for name in COUNTERS}
    data.update(maps=tally.maps, refused=tally.refused, expected_unknown=tally.expected_unknown,
                findings=[[f.scenario.seed, f.check, f.what, f.detail] for f in tally.findings])
    return data


def merge(tally: Tally, data: dict) -> None:
    for name in COUNTERS:
        for key, n in data[name]:
            getattr(tally, name)[tuple(key) if isinstance(key, list) else key] += n
    tally.maps += data["maps"]
    tally.refused += data["refused"]
    tally.expected_unknown += data["expected_unknown"]
    tally.findings += [Finding(check, what, detail, example(seed))
                       for seed, check, what, detail in data["findings"]]


def summary(tally: Tally, title: str) -> str:
    n_verdicts = sum(tally.verdicts.values())
    unknown = sum(tally.unknown.values())
    lines = [
        f"{title}: {tally.maps} maps in {tally.seconds:.0f} s; refused at construction "
        f"{tally.refused}; {n_verdicts} verdicts, UNKNOWN {unknown} "
        f"({unknown / max(1, n_verdicts):.2%}) plus {tally.expected_unknown} right UNKNOWNs "
        f"under contradictory assumptions; checks refused {sum(tally.check_refused.values())}; "
        f"counterexamples too large to judge {sum(tally.unjudged.values())}",
    ]
    by_check = Counter()
    for (name, status), count in tally.verdicts.items():
        by_check[name] += count
    for name in by_check:
        statuses = {s: tally.verdicts[(name, s)] for s in ("PROVED", "REFUTED", "UNKNOWN")}
        lines.append(f"  {name}: {statuses}, refused {tally.check_refused[name]}, "
                     f"{tally.check_seconds[name]:.0f} s")
    for reason, count in tally.reasons.most_common(12):
        lines.append(f"  {count} x {reason}")
    return "\n".join(lines)


def report(tally: Tally, title: str) -> str:
    """Findings by class (issue item and kind of wrong answer) with counts per check,
    and each class's smallest instance, shrunk, as a script."""
    if not tally.findings:
        return ""
    classes: dict[str, list[Finding]] = {}
    for f in tally.findings:
        try:
            namespace = build(f.scenario, tuple(m.var for m in f.scenario.maps))
        except Exception:  # noqa: BLE001
            namespace = None
        f.klass = classify(f, namespace)
        classes.setdefault(f"{f.klass} — {f.what}", []).append(f)
    lines = [f"{title}: {len(tally.findings)} disagreements in {len(classes)} classes"]
    for key, found in sorted(classes.items()):
        per_check = Counter(f.check for f in found)
        lines.append(f"  {len(found):5d}  {key}: " + ", ".join(
            f"{name} {n}" for name, n in sorted(per_check.items())))
    for key, found in sorted(classes.items()):
        smallest = min(found, key=lambda f: len(source(f.scenario, CHECK_BY_NAME[f.check].needs)))
        shrunk = shrink(smallest, SHRINK_BUDGET)
        shrunk.script = script(shrunk)
        found[0].script = shrunk.script
        seeds = sorted({f.scenario.seed for f in found})
        more = " ..." if len(seeds) > 12 else ""
        lines.append(f"\n== {key} ({len(found)}); re-run: LAYOUTALG_SOUNDNESS_SEEDS="
                     f"{','.join(map(str, seeds[:12]))}{more}")
        lines.append(shrunk.script)
    write_report(tally, title, classes)
    return "\n".join(lines)


def write_report(tally: Tally, title: str, classes: dict) -> None:
    path = os.environ.get("LAYOUTALG_SOUNDNESS_REPORT")
    if not path:
        return
    entry = {
        "maps": tally.maps, "seconds": round(tally.seconds, 1), "refused": tally.refused,
        "verdicts": {f"{k[0]}:{k[1]}": n for k, n in tally.verdicts.items()},
        "unknown": dict(tally.unknown), "check_refused": dict(tally.check_refused),
        "expected_unknown": tally.expected_unknown,
        "classes": {key: {"count": len(found), "seeds": sorted({f.scenario.seed for f in found}),
                          "checks": dict(Counter(f.check for f in found)),
                          "reproducer": found[0].script} for key, found in classes.items()},
    }
    existing = {}
    if os.path.exists(path):
        with open(path) as fh:
            existing = json.load(fh)
    existing[title] = entry
    with open(path, "w") as fh:
        json.dump(existing, fh, indent=1)


def seeds_for(share: float, offset: int) -> list[int]:
    count = max(1, round(EXAMPLES * share))
    return list(range(FIRST_SEED + offset, FIRST_SEED + offset + count))


def assert_sound(tally: Tally, title: str) -> None:
    text_ = summary(tally, title)
    print(text_)
    problems = report(tally, title)
    if not problems:
        write_report(tally, title, {})
    n_verdicts = sum(tally.verdicts.values())
    unknown_rate = sum(tally.unknown.values()) / max(1, n_verdicts)
    assert not problems, f"{text_}\n\n{problems}"
    assert unknown_rate < UNKNOWN_BOUND, f"UNKNOWN rate {unknown_rate:.2%}\n{text_}"
    assert tally.refused / max(1, tally.maps) < REFUSED_BOUND, (
        f"layoutalg refused {tally.refused} of {tally.maps} written maps\n{text_}")


def test_concrete_maps_agree_with_enumeration():
    if SEEDS:
        tally = run_all(SEEDS)
        assert_sound(tally, "seeds")
        return
    tally = run_all(seeds_for(1 - PARAMETRIC_SHARE, 0))
    assert_sound(tally, "concrete")


def test_parametric_maps_agree_with_enumeration_at_every_size():
    if SEEDS:
        pytest.skip("LAYOUTALG_SOUNDNESS_SEEDS re-runs single examples in the concrete test")
    tally = run_all(seeds_for(PARAMETRIC_SHARE, PARAMETRIC_SEEDS))
    assert_sound(tally, "parametric")


def test_the_oracle_reads_the_source_as_sympy_does_on_numbers():
    """The printer and the interpreter agree: the written source, run on SymPy
    Integers (exact number arithmetic, no symbols), gives the interpreter's value."""
    d = Draw(12345)
    for _ in range(300):
        e = d.expr(("x", "y"), ("M",), 3)
        env = {"x": d.rng.randint(0, 7), "y": d.rng.randint(0, 7)}
        params = {"M": d.rng.randint(1, 9)}
        namespace = {"sympy": sympy, "x": sympy.Integer(env["x"]),
                     "y": sympy.Integer(env["y"]), "M": sympy.Integer(params["M"])}
        got = eval(io.source(e, {"x": "x", "y": "y"}, {}), namespace)
        assert got == value(e, env, params), io.source(e, {"x": "x", "y": "y"}, {})


if __name__ == "__main__":  # a worker of run_all: python test_soundness.py OUT SEED,SEED,...
    worker = Tally()
    for seed in map(int, sys.argv[2].split(",")):
        run_example(example(seed), worker)
    with open(sys.argv[1], "w") as fh:
        json.dump(tally_json(worker), fh)
