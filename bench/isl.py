"""layoutalg vs ISL (islpy) on one shared question set, in one process.

Each question is an ``IndexMap`` (or two, for equivalence) and a check:
injective, in bounds, bijective onto the valid slots, or equivalent. It is
asked of layoutalg (``la.check_*``) and of ISL, with the ISL map written
automatically from the same SymPy formula (``to_isl`` below: floor, ceiling
and Mod by integer constants, sums, products by constants, relations and
connectives; anything else is refused, so a question ISL cannot state is
listed as layoutalg's alone). ISL decides:

    injective    M.is_injective()
    in_bounds    range(M) ⊆ box(codomain)
    bijective    M injective and range(M) = box(codomain) ∩ valid
    equivalent   M1 = M2 (both over the same domain box)

Symbolic extents become ISL parameters (each ≥ 1, with the map's
assumptions), so parametric questions with constant divisors are decided
for all sizes by both sides; division by a parameter is layoutalg's alone.

Every question runs ``--repeat`` times, alternating which side goes first
(the first round is reported separately as the cold time: SymPy caches make
later rounds cheaper for layoutalg). Printed: the verdicts (any disagreement
where both decide is a soundness bug: printed in red, exit code 1), the
per-question median times, medians per family and overall, and the ratio
layoutalg/ISL. ISL gets a fresh ``isl.Context`` per question (layoutalg
a fresh ``z3.Solver`` per query, in its thread's context) with ``--isl-max-ops`` as its budget;
ISL's time includes parsing the map text (layoutalg's map is built before
its clock starts; the SymPy→ISL translation is not timed).

    python bench/isl.py [--quick] [--repeat 3] [--json FILE] [--profile N]
                        [--profile-only] [--brute] [--family NAME] [--timeout-ms 20000]

``--brute`` adds a third answer on the concrete questions: layoutalg's own
enumeration twins (``layoutalg.verify.brute``), timed and compared alike.

layoutalg answers as ``layoutalg prove`` runs its checks: inside
``query.shortcuts(reuse=False)`` (no answer remembered between questions),
so a concrete map of at most ``query.ENUMERATE_UP_TO`` points is decided by
exhaustive evaluation (``layoutalg.verify.exhaustive``, ``method ==
"enumeration"``) and everything else by Z3. The medians are printed apart
for the questions each method decided, so neither hides the other;
``--z3-only`` asks Z3 for every question (the public checks' default).

``--profile N`` runs the layoutalg side once more under cProfile (SymPy's
cache cleared first) and prints the N functions with the most cumulative
time, the time by package, and the wall time inside ``z3.Solver.check``
(which runs in a helper thread cProfile does not see).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import math
import pstats
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import islpy as isl
import sympy
from rich.console import Console
from rich.table import Table

import layoutalg as la
from layoutalg.verify import query
from layoutalg.spyre.defaults import parametric_default_map
from layoutalg.tt.tiles import Tile

SEED = 17
KINDS = ("injective", "in_bounds", "bijective", "equivalent")


# -- the SymPy → ISL translator --------------------------------------------------------------


class Refused(Exception):
    """The formula is not quasi-affine with constant divisors: ISL cannot state it."""


@dataclass
class Names:
    """SymPy symbols → ISL identifiers (all renamed: ISL keywords cannot collide)."""

    table: dict[sympy.Symbol, str] = field(default_factory=dict)
    params: dict[sympy.Symbol, str] = field(default_factory=dict)

    def name(self, symbol: sympy.Symbol) -> str:
        if symbol in self.table:
            return self.table[symbol]
        if symbol in self.params:
            return self.params[symbol]
        raise Refused(f"symbol {symbol} is neither a coordinate nor an extent parameter")


def _terms(expr: sympy.Expr) -> list[tuple[sympy.Rational, sympy.Expr]]:
    """``expr`` as (rational coefficient, non-numeric factor) pairs; 1 for the constant."""
    out = []
    for term in sympy.Add.make_args(sympy.sympify(expr)):
        coeff, rest = term.as_coeff_Mul()
        if not coeff.is_Rational:
            raise Refused(f"non-rational coefficient {coeff} in {expr}")
        out.append((coeff, rest))
    return out


def _linear(pairs, names: Names, scale: int = 1) -> str:
    """Σ coeff·scale·atom as ISL text; every coeff·scale must be an integer."""
    parts = []
    for coeff, rest in pairs:
        c = coeff * scale
        if not c.is_Integer:
            raise Refused(f"fractional coefficient {coeff} outside a floor")
        if rest == 1:
            parts.append(str(int(c)))
        else:  # ISL reads "-3*x" but not "(-3)*x"
            parts.append(f"{int(c)}*{_atom(rest, names)}")
    return " + ".join(parts) if parts else "0"


def _denominator(pairs) -> int:
    return math.lcm(*(int(c.q) for c, _ in pairs)) if pairs else 1


def _atom(expr: sympy.Expr, names: Names) -> str:
    """One non-numeric factor: a symbol, floor, ceiling or Mod by a constant."""
    if isinstance(expr, sympy.Symbol):
        return names.name(expr)
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        pairs = _terms(expr.args[0])
        den = _denominator(pairs)
        if isinstance(expr, sympy.floor):
            return f"floor(({_linear(pairs, names, den)})/{den})"
        negated = [(-c, r) for c, r in pairs]
        return f"(-floor(({_linear(negated, names, den)})/{den}))"
    if isinstance(expr, sympy.Mod):
        left, right = expr.args
        if not (right.is_Integer and right > 0):
            raise Refused(f"Mod by {right}, not a positive integer constant")
        return f"(({_linear(_terms(left), names)}) mod {int(right)})"
    if isinstance(expr, sympy.Add):
        return f"({_linear(_terms(expr), names)})"
    if isinstance(expr, sympy.Mul):
        if any(f.is_Pow and f.exp.is_negative for f in expr.args):
            raise Refused(f"division by a parameter in {expr}")
        raise Refused(f"product of unknowns {expr} (not affine)")
    if isinstance(expr, sympy.Pow):
        raise Refused(f"power {expr} (division by a parameter, or not affine)")
    raise Refused(f"operator {type(expr).__name__} in {expr}")


def isl_expr(expr: sympy.Expr, names: Names) -> str:
    """An integer-valued quasi-affine SymPy expression as ISL text, or Refused."""
    return f"({_linear(_terms(expr), names)})"


_OPS = {sympy.Eq: "=", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">",
        sympy.Ge: ">="}


def isl_condition(cond: sympy.Basic, names: Names) -> str:
    """A SymPy boolean as ISL text; relations are scaled to integer coefficients."""
    if cond is sympy.true:
        return "(0 = 0)"
    if cond is sympy.false:
        return "(1 = 0)"
    if type(cond) in _OPS:
        pairs = _terms(cond.lhs - cond.rhs)
        den = _denominator(pairs)  # positive: the relation keeps its direction
        return f"({_linear(pairs, names, den)} {_OPS[type(cond)]} 0)"
    if isinstance(cond, sympy.And):
        return "(" + " and ".join(isl_condition(a, names) for a in cond.args) + ")"
    if isinstance(cond, sympy.Or):
        return "(" + " or ".join(isl_condition(a, names) for a in cond.args) + ")"
    if isinstance(cond, sympy.Not):
        return f"(not {isl_condition(cond.args[0], names)})"
    raise Refused(f"condition {type(cond).__name__} in {cond}")


@dataclass
class IslText:
    """One map's ISL texts: the map over its domain box, its codomain box and valid set."""

    map: str
    box: str
    valid: str


def to_isl(m: la.IndexMap, domain_of: la.IndexMap | None = None) -> IslText:
    """``m`` as ISL text; ``domain_of`` names the domain (equivalence: both maps
    must share the first map's coordinate names and extents)."""
    source = domain_of or m
    names = Names()
    params = sorted(source.parameters | m.parameters, key=str)
    names.params = {p: f"p_{k}" for k, p in enumerate(params)}
    ins = [f"x{k}" for k in range(m.domain.rank)]
    outs = [f"y{k}" for k in range(m.codomain.rank)]
    names.table = dict(zip(m.domain.symbols, ins))
    prefix = f"[{', '.join(names.params.values())}] -> " if params else ""
    context = [f"{n} >= 1" for n in names.params.values()]
    context += [isl_condition(a, names) for a in source.assumptions + m.assumptions]
    dom = [f"0 <= {x} < {isl_expr(e, names)}" for x, e in zip(ins, source.domain.extents)]
    exprs = [isl_expr(e, names) for e in m.exprs]
    cod_names = Names(dict(zip(m.codomain.symbols, outs)), names.params)
    box = [f"0 <= {y} < {isl_expr(e, cod_names)}" for y, e in zip(outs, m.codomain.extents)]
    valid = [isl_condition(m.valid, cod_names)] if m.valid is not None else []
    where = " and ".join(context + dom) or "0 = 0"
    box_where = " and ".join(context + box) or "0 = 0"
    return IslText(
        map=f"{prefix}{{ [{', '.join(ins)}] -> [{', '.join(exprs)}] : {where} }}",
        box=f"{prefix}{{ [{', '.join(outs)}] : {box_where} }}",
        valid=f"{prefix}{{ [{', '.join(outs)}] : {' and '.join([box_where] + valid)} }}",
    )


# -- the questions --------------------------------------------------------------------------


@dataclass
class Question:
    family: str
    name: str
    kind: str
    maps: tuple[la.IndexMap, ...]
    quick: bool = False
    texts: tuple[IslText, ...] | None = None
    refused: str = ""


def q(family, name, kind, *maps, quick=False) -> Question:
    return Question(family, name, kind, tuple(maps), quick)


def _ceil(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return sympy.ceiling(sympy.sympify(a) / b)


def grid_tiles(m, n, tile_rows, tile_cols) -> la.IndexMap:
    """[i:m, j:n] → [pe_row, pe_col, offset], tiles of tile_rows × tile_cols (constants)."""
    tiles = la.split(la.Space(i=m, j=n), "i", tile_rows, names=("pe_row", "row"))
    tiles = la.split(tiles, "j", tile_cols, names=("pe_col", "col"))
    placed = la.linearize(la.permute(tiles, ["pe_row", "pe_col", "row", "col"]), ["row", "col"])
    return placed.renamed(f"grid tiles {tile_rows}x{tile_cols} of [{m}, {n}]")


def bad_grid(m, n, tr, tc) -> la.IndexMap:
    """A hand-written grid whose offset uses row stride tc - 1: two elements share a slot."""
    dom = la.Space(i=m, j=n)
    i, j = dom.symbols
    cod = la.Space(pe_row=_ceil(m, tr), pe_col=_ceil(n, tc), offset=tr * tc)
    return la.IndexMap(dom, cod, [i // tr, j // tc, (i % tr) * (tc - 1) + j % tc],
                       name=f"grid row stride {tc - 1} (bug)")


def grid_questions() -> list[Question]:
    M, N = la.extents("M N")
    mesh = la.mesh.MeshLayout
    out = [
        q("grid", "Grid(4,4) of [30,30]", "bijective", mesh.grid(4, 4).index_map((30, 30)),
          quick=True),
        q("grid", "Grid(4,4) of [30,30]", "injective", mesh.grid(4, 4).index_map((30, 30))),
        q("grid", "Grid(32,32) of [1024,1024]", "bijective",
          mesh.grid(32, 32).index_map((1024, 1024))),
        q("grid", "Grid(3,5) of [100,77]", "in_bounds", mesh.grid(3, 5).index_map((100, 77))),
        q("grid", "tiles 8x16 of [M,N]", "injective", grid_tiles(M, N, 8, 16), quick=True),
        q("grid", "tiles 8x16 of [M,N]", "bijective", grid_tiles(M, N, 8, 16)),
        q("grid", "tiles 7x5 of [M,N]", "in_bounds", grid_tiles(M, N, 7, 5)),
        q("grid", "row stride 15 of [64,64] (bug)", "injective", bad_grid(64, 64, 16, 16),
          quick=True),
        q("grid", "row stride 15 of [M,N] (bug)", "injective", bad_grid(M, N, 16, 16)),
    ]
    return out


def deal(n, levels) -> la.IndexMap:
    """A multi-level cyclic deal of [i:n]: each level deals the previous local index."""
    m = la.cyclic(la.Space(i=n), "i", levels[0][0], block=levels[0][1], names=("p0", "l0"))
    for k, (parts, block) in enumerate(levels[1:], start=1):
        m = la.cyclic(m, f"l{k - 1}", parts, block=block, names=(f"p{k}", f"l{k}"))
    return m.renamed(f"deal {levels} of {n}")


def block_cyclic_questions() -> list[Question]:
    (N,) = la.extents("N")
    mesh = la.mesh.MeshLayout
    return [
        q("block_cyclic", "BlockCyclic(2,2,4,4) of [30,30]", "bijective",
          mesh.block_cyclic(2, 2, 4, 4).index_map((30, 30)), quick=True),
        q("block_cyclic", "BlockCyclic(4,2,8,3) of [100,50]", "injective",
          mesh.block_cyclic(4, 2, 8, 3).index_map((100, 50))),
        q("block_cyclic", "BlockCyclic(3,3,2,5) of [64,64]", "in_bounds",
          mesh.block_cyclic(3, 3, 2, 5).index_map((64, 64))),
        q("block_cyclic", "deal 4 parts, block 8 of N", "bijective", deal(N, [(4, 8)]),
          quick=True),
        q("block_cyclic", "deal 3 parts, block 5 of N", "injective", deal(N, [(3, 5)])),
        q("block_cyclic", "3-level deal of N", "injective", deal(N, [(2, 1), (3, 2), (4, 1)])),
        q("block_cyclic", "3-level deal of N", "bijective", deal(N, [(2, 1), (3, 2), (4, 1)])),
        q("block_cyclic", "3-level deal (2,3),(2,5),(3,1) of N", "bijective",
          deal(N, [(2, 3), (2, 5), (3, 1)])),
        q("block_cyclic", "3-level deal of 1000", "bijective",
          deal(1000, [(2, 1), (3, 2), (4, 1)])),
    ]


def padded_questions() -> list[Question]:
    (N, K) = la.extents("N K")
    no_valid = la.IndexMap(la.Space(i=100), la.Space(t=4, e=32),
                           [sympy.floor(la.Space(i=100).symbols[0] / 32),
                            sympy.Mod(la.Space(i=100).symbols[0], 32)],
                           name="split 100 by 32, padding not declared")
    padded = la.pad(la.split(la.Space(i=N, k=K), "i", 32), "k", 16)
    return [
        q("padded", "split 100 by 32", "bijective", la.split(la.Space(i=100), "i", 32),
          quick=True),
        q("padded", "split 100 by 32, padding not declared", "bijective", no_valid, quick=True),
        q("padded", "pad [N,K] i by 32, k to 16s", "bijective", padded),
        q("padded", "pad+linearize [50,70] to 64s", "bijective",
          la.linearize(la.pad(la.pad(la.Space(r=50, c=70), "r", 64), "c", 64))),
        q("padded", "split [N] by 128, linearize", "injective",
          la.linearize(la.split(la.Space(i=N), "i", 128))),
        q("padded", "split [N] by 128, linearize", "in_bounds",
          la.linearize(la.split(la.Space(i=N), "i", 128))),
    ]


def spyre_questions() -> list[Question]:
    S0, S1, S2 = la.extents("S0 S1 S2")
    spyre = la.spyre
    seed = spyre.SpyreLayout((128, 256, 512), "float16", (256, 8, 128, 64), (1, 2, 0, 2))
    return [
        q("spyre", "seed [128,256,512] (c, a, 64b+d)", "bijective", seed.index_map(), quick=True),
        q("spyre", "default [512,256] fp16", "bijective",
          spyre.default_layout((512, 256)).index_map()),
        q("spyre", "default [100,200] fp16", "bijective",
          spyre.default_layout((100, 200)).index_map()),
        q("spyre", "default [3,50,70] fp32", "bijective",
          spyre.default_layout((3, 50, 70), "float32").index_map()),
        q("spyre", "default [7,300] int8 order (1,0)", "bijective",
          spyre.default_layout((7, 300), "int8", (1, 0)).index_map()),
        q("spyre", "default [S0,S1] E=64", "bijective", parametric_default_map((S0, S1), 64),
          quick=True),
        q("spyre", "default [S0,S1,S2] E=32 order (2,0,1)", "bijective",
          parametric_default_map((S0, S1, S2), 32, (2, 0, 1))),
    ]


def face_map(tile) -> la.IndexMap:
    t = Tile(*tile)
    dom = la.Space(row=t.height, col=t.width)
    cod = la.Space(offset=t.hw)
    r, c = dom.symbols
    (o,) = cod.symbols
    return la.IndexMap(dom, cod, [t.offset(r, c)], inverse=list(t.position(o)),
                       name=f"faces of tile {tile}")


def interleaved_pages(banks: int) -> la.IndexMap:
    (N,) = la.extents("N")
    dom = la.Space(page=N)
    (p,) = dom.symbols
    cod = la.Space(bank=banks, slot=sympy.ceiling(N / banks))
    bank, slot = cod.symbols
    return la.IndexMap(dom, cod, [p % banks, p // banks], inverse=[slot * banks + bank],
                       valid=sympy.Lt(slot * banks + bank, N), name=f"interleaved(N, {banks})")


def tt_questions() -> list[Question]:
    tt = la.tt
    out = [
        q("tt", f"faces {tile}", "bijective", face_map(tile), quick=tile == (32, 32))
        for tile in ((32, 32), (16, 32), (32, 16), (16, 16))
    ]
    out += [
        q("tt", "interleaved pages N on 12 banks", "bijective", interleaved_pages(12),
          quick=True),
        q("tt", "[3,40,50] bf16 TILE interleaved", "bijective",
          tt.TensorSpec((3, 40, 50), "bfloat16").index_map()),
        q("tt", "[64,128] fp32 ROW_MAJOR interleaved", "bijective",
          tt.TensorSpec((64, 128), "float32", layout="ROW_MAJOR").index_map()),
        q("tt", "[128,100] bf16 BLOCK 2x2 of 64x64", "bijective",
          tt.TensorSpec((128, 100), "bfloat16", storage="L1",
                        memory=tt.ShardSpec("BLOCK", (2, 2), (64, 64))).index_map()),
        q("tt", "[256,64] bf16 HEIGHT 4 of 64x64", "bijective",
          tt.TensorSpec((256, 64), "bfloat16", storage="L1",
                        memory=tt.ShardSpec("HEIGHT", (4, 1), (64, 64))).index_map()),
        q("tt", "[64,256] bf16 WIDTH 4 of 64x64", "injective",
          tt.TensorSpec((64, 256), "bfloat16", storage="L1",
                        memory=tt.ShardSpec("WIDTH", (4, 1), (64, 64))).index_map()),
    ]
    return out


def cute_questions() -> list[Question]:
    s = la.strided

    def composed(a, b):
        return la.compose(b, a)

    return [
        q("cute", "((2,4),(3,2)):((1,6),(2,24))", "bijective",
          s(((2, 4), (3, 2)), ((1, 6), (2, 24))), quick=True),
        q("cute", "(8,4,1,5):(12,1,192,192)", "injective", s((8, 4, 1, 5), (12, 1, 192, 192))),
        q("cute", "(4,8):(8,1) (row-major)", "bijective", s((4, 8), (8, 1))),
        q("cute", "(4,2):(0,1) (broadcast)", "injective", s((4, 2), (0, 1))),
        q("cute", "(4,3):(3,2) (not compact)", "injective", s((4, 3), (3, 2))),
        q("cute", "(4,3):(2,3) (overlap)", "injective", s((4, 3), (2, 3))),
        q("cute", "(6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8)", "equivalent",
          composed(s((6, 2), (8, 2)), s((4, 3), (3, 1))), s(((2, 2), 3), ((24, 2), 8)),
          quick=True),
        q("cute", "20:2 o (5,4):(4,1) = (5,4):(8,2)", "equivalent",
          composed(s(20, 2), s((5, 4), (4, 1))), s((5, 4), (8, 2))),
        q("cute", "(10,2):(16,4) o (5,4):(1,5) = (5,(2,2)):(16,(80,4))", "equivalent",
          composed(s((10, 2), (16, 4)), s((5, 4), (1, 5))), s((5, (2, 2)), (16, (80, 4)))),
        q("cute", "(2,4):(1,2) = 8:1 (coalesce)", "equivalent", s((2, 4), (1, 2)), s(8, 1)),
        q("cute", "(2,4):(4,1) = 8:1 (wrong)", "equivalent", s((2, 4), (4, 1)), s(8, 1)),
    ]


# -- random combinator chains (seeded) --------------------------------------------------------


def random_chain(rng: random.Random, k: int) -> la.IndexMap:
    """2–5 random combinators on a random concrete space of rank 1–3."""
    names = ["a", "b", "c"][:rng.randint(1, 3)]
    m = la.Space(**{n: rng.randint(3, 40) for n in names})
    counter = 0
    for _ in range(rng.randint(2, 5)):
        space = m.codomain if isinstance(m, la.IndexMap) else m
        dim = rng.choice(space.names)
        op = rng.choice(["split", "pad", "cyclic", "permute", "fuse", "linearize"])
        counter += 1
        if op == "split":
            m = la.split(m, dim, rng.randint(2, 8), names=(f"o{counter}", f"n{counter}"))
        elif op == "pad":
            m = la.pad(m, dim, rng.randint(2, 8))
        elif op == "cyclic":
            m = la.cyclic(m, dim, rng.randint(2, 4), block=rng.randint(1, 4),
                          names=(f"p{counter}", f"l{counter}"))
        elif op == "permute" and space.rank > 1:
            order = list(space.names)
            rng.shuffle(order)
            m = la.permute(m, order)
        elif op in ("fuse", "linearize") and space.rank > 1:
            a, b = rng.sample(list(space.names), 2)
            if op == "fuse":
                m = la.fuse(m, a, b, name=f"f{counter}")
            else:
                m = la.linearize(m, [a, b], name=f"f{counter}")
        else:
            m = la.split(m, dim, rng.randint(2, 8), names=(f"o{counter}", f"n{counter}"))
    if isinstance(m, la.Space):
        m = la.identity(m)
    return m.renamed(f"chain {k}")


def rewritten(m: la.IndexMap, *, break_it: bool) -> la.IndexMap:
    """``m`` with every Mod(e, c) written e - c·floor(e/c) (the same map), or with
    the first floor divisor c changed to c + 1 (``break_it``: usually another map)."""
    def rewrite(expr):
        if break_it:
            for f in sorted(expr.atoms(sympy.floor), key=sympy.default_sort_key):
                num, den = sympy.fraction(sympy.together(f.args[0]))
                if den.is_Integer:
                    return expr.xreplace({f: sympy.floor(num / (den + 1))}), True
            return expr, False
        mods = {a: a.args[0] - a.args[1] * sympy.floor(a.args[0] / a.args[1])
                for a in expr.atoms(sympy.Mod)}
        return expr.xreplace(mods), False

    exprs, changed = [], False
    for e in m.exprs:
        if changed:
            exprs.append(e)
            continue
        new, changed = rewrite(e)
        exprs.append(new)
    if break_it and not changed:  # no floor: shift the first coordinate instead
        exprs[0] = exprs[0] + 1
    label = "broken" if break_it else "mods rewritten"
    return la.IndexMap(m.domain, m.codomain, exprs, name=f"{m.label}, {label}")


def chain_questions(seed: int, count: int = 6) -> list[Question]:
    rng = random.Random(seed)
    out = []
    for k in range(count):
        m = random_chain(rng, k)
        out.append(q("chains", f"chain {k}", "bijective", m, quick=k == 0))
        if k % 2 == 0:
            out.append(q("chains", f"chain {k}", "injective", m))
        out.append(q("chains", f"chain {k} = mods rewritten", "equivalent", m,
                     rewritten(m, break_it=False)))
        out.append(q("chains", f"chain {k} = broken", "equivalent", m,
                     rewritten(m, break_it=True), quick=k == 1))
    return out


def symbolic_divisor_questions() -> list[Question]:
    """Division by a parameter: ISL cannot state these (layoutalg's alone)."""
    M, N, PR, PC, B = la.extents("M N PR PC B")
    tr, tc = sympy.ceiling(M / PR), sympy.ceiling(N / PC)
    dom, cod = la.Space(i=M, j=N), la.Space(pe_row=PR, pe_col=PC, offset=tr * tc)
    i, j = dom.symbols
    r, c, o = cod.symbols
    grid = la.IndexMap(dom, cod, [i // tr, j // tc, (i % tr) * tc + j % tc],
                       inverse=[r * tr + o // tc, c * tc + o % tc],
                       valid=sympy.And(r * tr + o // tc < M, c * tc + o % tc < N),
                       name="grid(M, N, PR, PC)")
    (E,) = la.extents("E")
    dom1 = la.Space(page=N)
    (p,) = dom1.symbols
    cod1 = la.Space(bank=B, slot=sympy.ceiling(N / B))
    bank, slot = cod1.symbols
    pages = la.IndexMap(dom1, cod1, [p % B, p // B], inverse=[slot * B + bank],
                        valid=sympy.Lt(slot * B + bank, N), name="interleaved(N, B)")
    return [
        q("symbolic_divisor", "grid(M,N,PR,PC)", "bijective", grid, quick=True),
        q("symbolic_divisor", "grid(M,N,PR,PC)", "injective", grid),
        q("symbolic_divisor", "interleaved(N,B)", "bijective", pages),
        q("symbolic_divisor", "spyre default [S0,S1], all E", "bijective",
          parametric_default_map(la.extents("S0 S1"), E)),
        q("symbolic_divisor", "deal P parts of N", "injective",
          la.cyclic(la.Space(i=N), "i", PR).renamed("deal PR parts of N")),
    ]


def questions(seed: int) -> list[Question]:
    out = (grid_questions() + block_cyclic_questions() + padded_questions() + spyre_questions()
           + tt_questions() + cute_questions() + chain_questions(seed)
           + symbolic_divisor_questions())
    for question in out:
        try:
            first = question.maps[0]
            question.texts = tuple(to_isl(m, first) for m in question.maps)
        except Refused as exc:
            question.refused = str(exc)
    return out


# -- asking both sides ------------------------------------------------------------------------


@dataclass
class Answer:
    verdict: bool | None  # True proved, False refuted, None undecided
    seconds: float  # wall
    note: str = ""
    cpu: float = 0.0  # process CPU, every thread (Z3 runs in helper threads): steadier under load
    method: str = ""  # layoutalg's: "z3" or "enumeration"


def timed(ask: Callable[[], Answer]) -> Answer:
    """``ask()`` with its process CPU time recorded beside its own wall time."""
    cpu = time.process_time()
    answer = ask()
    answer.cpu = time.process_time() - cpu
    return answer


LA_CHECKS: dict[str, Callable] = {
    "injective": la.check_injective, "in_bounds": la.check_in_bounds,
    "bijective": la.check_bijective, "equivalent": la.check_equivalent,
}


ENUMERATE = [True]  # False with --z3-only


def ask_layoutalg(question: Question, timeout_ms: int) -> Answer:
    """The check as ``layoutalg prove`` runs it (``query.shortcuts``, no memo of
    answers: small concrete maps enumerated), or Z3 only with ``--z3-only``."""
    check = LA_CHECKS[question.kind]
    limit = query.ENUMERATE_UP_TO if ENUMERATE[0] else 0
    start = time.perf_counter()
    with query.shortcuts(reuse=False, enumerate_up_to=limit):
        result = check(*question.maps, timeout_ms=timeout_ms)
    seconds = time.perf_counter() - start
    verdict = {la.Status.PROVED: True, la.Status.REFUTED: False}.get(result.status)
    return Answer(verdict, seconds, "" if verdict is not None else result.reason[:120],
                  method=result.method)


BRUTE_MAX_POINTS = 1 << 20


def brute_eligible(question: Question) -> bool:
    """Concrete sizes, few enough points for layoutalg's enumeration twins."""
    return not parametric(question) and all(
        m.domain.size <= BRUTE_MAX_POINTS and m.codomain.size <= BRUTE_MAX_POINTS
        for m in question.maps)


def ask_brute(question: Question) -> Answer:
    """layoutalg's brute twin (``layoutalg.verify.brute``, NumPy enumeration)."""
    from layoutalg.verify import brute

    check = {"injective": brute.check_injective, "in_bounds": brute.check_in_bounds,
             "bijective": brute.check_bijective, "equivalent": brute.check_equivalent}
    start = time.perf_counter()
    result = check[question.kind](*question.maps)
    seconds = time.perf_counter() - start
    verdict = {la.Status.PROVED: True, la.Status.REFUTED: False}.get(result.status)
    return Answer(verdict, seconds, "" if verdict is not None else result.reason[:120])


def ask_isl(question: Question, max_ops: int) -> Answer:
    if question.texts is None:
        return Answer(None, 0.0, f"not quasi-affine: {question.refused}")
    start = time.perf_counter()
    ctx = isl.Context()
    ctx.set_max_operations(max_ops)
    try:
        verdict = _isl_decide(question, ctx)
        note = ""
    except isl.Error as exc:
        verdict, note = None, f"isl: {str(exc)[:100]}"
    seconds = time.perf_counter() - start
    return Answer(verdict, seconds, note)


def _isl_decide(question: Question, ctx: isl.Context) -> bool:
    text = question.texts[0]
    m = isl.Map(text.map, context=ctx)
    if question.kind == "injective":
        return bool(m.is_injective())
    if question.kind == "in_bounds":
        return bool(m.range().is_subset(isl.Set(text.box, context=ctx)))
    if question.kind == "bijective":
        image, slots = m.range(), isl.Set(text.valid, context=ctx)
        return bool(image.is_subset(slots) and m.is_injective() and slots.is_subset(image))
    other = isl.Map(question.texts[1].map, context=ctx)
    return bool(m.is_equal(other))


@dataclass
class Row:
    question: Question
    isl: list[Answer] = field(default_factory=list)
    la: list[Answer] = field(default_factory=list)
    brute: list[Answer] = field(default_factory=list)

    @property
    def isl_verdict(self):
        return self.isl[0].verdict

    @property
    def la_verdict(self):
        return self.la[0].verdict

    def median(self, side: str) -> float:
        return statistics.median(a.seconds for a in getattr(self, side))

    def median_cpu(self, side: str) -> float:
        return statistics.median(a.cpu for a in getattr(self, side))

    @property
    def both(self) -> bool:
        return self.isl_verdict is not None and self.la_verdict is not None

    @property
    def disagree(self) -> bool:
        return self.both and self.isl_verdict != self.la_verdict


def run(selected: list[Question], repeat: int, timeout_ms: int, max_ops: int,
        console: Console, *, with_brute: bool = False) -> list[Row]:
    rows = [Row(question) for question in selected]
    for round_ in range(repeat):
        for k, row in enumerate(rows):
            sides = [("isl", lambda r=row: ask_isl(r.question, max_ops)),
                     ("la", lambda r=row: ask_layoutalg(r.question, timeout_ms))]
            if with_brute and brute_eligible(row.question):
                sides.append(("brute", lambda r=row: ask_brute(r.question)))
            if (round_ + k) % 2:
                sides.reverse()
            for side, ask in sides:
                getattr(row, side).append(timed(ask))
        console.print(f"  round {round_ + 1}/{repeat} done", style="dim")
    return rows


# -- reporting --------------------------------------------------------------------------------


def verdict_text(answer: Answer) -> str:
    return {True: "PROVED", False: "REFUTED", None: "—"}[answer.verdict]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def per_question_table(rows: list[Row]) -> Table:
    out = Table(title="per question (median ms over the rounds; cold = round 1)",
                header_style="bold")
    for column in ("family", "question", "check", "ISL", "ISL ms", "layoutalg", "by",
                   "la ms", "la cold ms", "la/ISL", "CPU ratio"):
        out.add_column(column, justify="left" if column in ("family", "question", "check")
                       else "right")
    for row in rows:
        qn = row.question
        ratio = f"{row.median('la') / row.median('isl'):.2f}" if row.both else ""
        cpu = (f"{row.median_cpu('la') / max(row.median_cpu('isl'), 1e-6):.2f}"
               if row.both else "")
        isl_ms = ms(row.median("isl")) if row.question.texts is not None else ""
        style = "bold red" if row.disagree else None
        out.add_row(qn.family, qn.name, qn.kind, verdict_text(row.isl[0]), isl_ms,
                    verdict_text(row.la[0]), row.la[0].method, ms(row.median("la")), ms(row.la[0].seconds),
                    ratio, cpu, style=style)
    return out


def summary(rows: list[Row]) -> dict:
    both = [r for r in rows if r.both]
    families: dict[str, dict] = {}
    for family in dict.fromkeys(r.question.family for r in rows):
        mine = [r for r in rows if r.question.family == family]
        shared = [r for r in mine if r.both]
        entry = {"questions": len(mine), "both": len(shared)}
        if shared:
            isl_med = statistics.median(r.median("isl") for r in shared)
            la_med = statistics.median(r.median("la") for r in shared)
            entry.update(isl_median_s=isl_med, la_median_s=la_med,
                         ratio_of_medians=la_med / isl_med,
                         median_ratio=statistics.median(r.median("la") / r.median("isl")
                                                        for r in shared))
        families[family] = entry
    out = {"questions": len(rows), "both": len(both), "families": families,
           "disagreements": [f"{r.question.family}: {r.question.name} ({r.question.kind})"
                             for r in rows if r.disagree],
           "isl_only": [f"{r.question.name} ({r.question.kind}): layoutalg {r.la[0].note}"
                        for r in rows if r.isl_verdict is not None and r.la_verdict is None],
           "la_only": [f"{r.question.name} ({r.question.kind}): ISL {r.isl[0].note}"
                       for r in rows if r.la_verdict is not None and r.isl_verdict is None]}
    groups = {f"check {kind}": [r for r in both if r.question.kind == kind] for kind in KINDS}
    groups["concrete sizes"] = [r for r in both if not parametric(r.question)]
    groups["decided by z3"] = [r for r in both if r.la[0].method == "z3"]
    groups["decided by enumeration"] = [r for r in both if r.la[0].method == "enumeration"]
    groups["symbolic sizes"] = [r for r in both if parametric(r.question)]
    out["groups"] = {
        name: {"both": len(mine),
               "isl_median_s": statistics.median(r.median("isl") for r in mine),
               "la_median_s": statistics.median(r.median("la") for r in mine),
               "median_ratio": statistics.median(r.median("la") / r.median("isl") for r in mine),
               "cpu_median_ratio": statistics.median(
                   r.median_cpu("la") / max(r.median_cpu("isl"), 1e-6) for r in mine)}
        for name, mine in groups.items() if mine}
    if both:
        isl_med = statistics.median(r.median("isl") for r in both)
        la_med = statistics.median(r.median("la") for r in both)
        ratios = [r.median("la") / r.median("isl") for r in both]
        out.update(isl_median_s=isl_med, la_median_s=la_med, ratio_of_medians=la_med / isl_med,
                   median_ratio=statistics.median(ratios),
                   geomean_ratio=math.exp(statistics.fmean(math.log(x) for x in ratios)),
                   la_faster=sum(x < 1 for x in ratios),
                   la_cold_median_s=statistics.median(r.la[0].seconds for r in both),
                   isl_cpu_median_s=statistics.median(r.median_cpu("isl") for r in both),
                   la_cpu_median_s=statistics.median(r.median_cpu("la") for r in both),
                   cpu_median_ratio=statistics.median(
                       r.median_cpu("la") / max(r.median_cpu("isl"), 1e-6) for r in both))
    return out


def parametric(question: Question) -> bool:
    return any(m.parameters for m in question.maps)


def group_table(stats: dict) -> Table:
    out = Table(title="the same questions grouped by check and by sizes", header_style="bold")
    for column in ("group", "both", "ISL ms", "layoutalg ms", "median ratio", "CPU ratio"):
        out.add_column(column, justify="left" if column == "group" else "right")
    for name, e in stats["groups"].items():
        out.add_row(name, str(e["both"]), ms(e["isl_median_s"]), ms(e["la_median_s"]),
                    f"{e['median_ratio']:.2f}", f"{e['cpu_median_ratio']:.2f}")
    return out


def family_table(stats: dict) -> Table:
    out = Table(title="medians over the questions both sides answer", header_style="bold")
    for column in ("family", "questions", "both", "ISL ms", "layoutalg ms", "ratio of medians",
                   "median ratio"):
        out.add_column(column, justify="left" if column == "family" else "right")
    for family, e in stats["families"].items():
        if e["both"]:
            out.add_row(family, str(e["questions"]), str(e["both"]), ms(e["isl_median_s"]),
                        ms(e["la_median_s"]), f"{e['ratio_of_medians']:.1f}",
                        f"{e['median_ratio']:.1f}")
        else:
            out.add_row(family, str(e["questions"]), "0", "", "", "", "")
    if stats["both"]:
        out.add_row("all", str(stats["questions"]), str(stats["both"]),
                    ms(stats["isl_median_s"]), ms(stats["la_median_s"]),
                    f"{stats['ratio_of_medians']:.1f}", f"{stats['median_ratio']:.1f}",
                    style="bold")
    return out


def brute_report(rows: list[Row], console: Console) -> dict:
    """layoutalg's enumeration twins beside both, on the concrete questions (``--brute``)."""
    mine = [r for r in rows if r.brute]
    if not mine:
        return {}
    wrong = [r for r in mine if r.brute[0].verdict is not None and any(
        v is not None and v != r.brute[0].verdict for v in (r.isl_verdict, r.la_verdict))]
    timed = [r for r in mine if r.brute[0].verdict is not None and r.isl_verdict is not None]
    out = {"questions": len(mine), "disagreements": [r.question.name for r in wrong]}
    if timed:
        out.update(
            brute_median_s=statistics.median(r.median("brute") for r in timed),
            brute_cold_median_s=statistics.median(r.brute[0].seconds for r in timed),
            isl_median_s=statistics.median(r.median("isl") for r in timed),
            la_median_s=statistics.median(r.median("la") for r in timed),
            brute_faster_than_isl=sum(r.median("brute") < r.median("isl") for r in timed),
            compared=len(timed))
        console.print(
            f"\n[bold]enumeration[/] (layoutalg.verify.brute, concrete questions with at most "
            f"{BRUTE_MAX_POINTS} points, {len(timed)} also answered by ISL): median "
            f"{ms(out['brute_median_s'])} ms (cold round {ms(out['brute_cold_median_s'])} ms) vs "
            f"ISL {ms(out['isl_median_s'])} ms and layoutalg {ms(out['la_median_s'])} ms on the same "
            f"questions; faster than ISL on {out['brute_faster_than_isl']} of {len(timed)}")
    for r in wrong:
        console.print(f"[bold red]  enumeration disagrees: {r.question.name} ({r.question.kind}): "
                      f"enumeration {verdict_text(r.brute[0])}, ISL {verdict_text(r.isl[0])}, "
                      f"layoutalg {verdict_text(r.la[0])}[/]")
    return out


def report(rows: list[Row], console: Console) -> dict:
    console.print(per_question_table(rows))
    stats = summary(rows)
    console.print(family_table(stats))
    console.print(group_table(stats))
    if stats["both"]:
        console.print(
            f"overall on {stats['both']} questions both answer: ISL median "
            f"{ms(stats['isl_median_s'])} ms, layoutalg median {ms(stats['la_median_s'])} ms "
            f"(cold round {ms(stats['la_cold_median_s'])} ms); ratio layoutalg/ISL "
            f"{stats['ratio_of_medians']:.1f} (of medians), {stats['median_ratio']:.1f} "
            f"(median of ratios), {stats['geomean_ratio']:.1f} (geometric mean); layoutalg "
            f"faster on {stats['la_faster']}")
        console.print(
            f"in process CPU time (all threads; steadier under load): ISL median "
            f"{ms(stats['isl_cpu_median_s'])} ms, layoutalg {ms(stats['la_cpu_median_s'])} ms; "
            f"median ratio {stats['cpu_median_ratio']:.1f}")
    console.print(f"\n[bold]only ISL answers[/] ({len(stats['isl_only'])}):")
    for line in stats["isl_only"]:
        console.print(f"  {line}")
    console.print(f"[bold]only layoutalg answers[/] ({len(stats['la_only'])}):")
    for line in stats["la_only"]:
        console.print(f"  {line}")
    if stats["disagreements"]:
        console.print(f"\n[bold red]DISAGREEMENTS ({len(stats['disagreements'])}): "
                      f"a soundness bug on one side[/]")
        for row in (r for r in rows if r.disagree):
            console.print(f"[red]  {row.question.family}: {row.question.name} "
                          f"({row.question.kind}): ISL {verdict_text(row.isl[0])}, layoutalg "
                          f"{verdict_text(row.la[0])}[/]")
            for m, text in zip(row.question.maps, row.question.texts):
                console.print(f"[red]    {m}\n    ISL: {text.map}[/]")
    else:
        console.print("\nno disagreement where both decide")
    return stats


def as_json(rows: list[Row], stats: dict, args) -> dict:
    return {
        "seed": args.seed, "repeat": args.repeat, "quick": args.quick, "summary": stats,
        "questions": [{
            "family": r.question.family, "name": r.question.name, "kind": r.question.kind,
            "isl_verdict": r.isl_verdict, "la_verdict": r.la_verdict,
            "isl_seconds": [a.seconds for a in r.isl], "la_seconds": [a.seconds for a in r.la],
            "isl_cpu_seconds": [a.cpu for a in r.isl], "la_cpu_seconds": [a.cpu for a in r.la],
            "isl_note": r.isl[0].note, "la_note": r.la[0].note, "la_method": r.la[0].method,
            "brute_verdict": r.brute[0].verdict if r.brute else None,
            "brute_seconds": [a.seconds for a in r.brute],
            "isl_map": r.question.texts[0].map if r.question.texts else None,
        } for r in rows],
    }


# -- profile of the layoutalg side --------------------------------------------------------------


class Clock:
    """CPU and wall seconds spent inside some functions of the layoutalg side.

    Each component is a function wrapped here (the library is not changed):
    its calls, the CPU time of the thread that ran it (``time.thread_time``)
    and its wall time. Z3's ``Solver.check`` runs in helper threads, so its
    CPU is that thread's; checks made by the vacuity test (``_unless_vacuous``)
    are counted apart.
    """

    def __init__(self) -> None:
        self.totals: dict[str, list[float]] = {}
        self.lock = threading.Lock()
        self.in_vacuity = False

    def add(self, name: str, cpu: float, wall: float) -> None:
        with self.lock:
            entry = self.totals.setdefault(name, [0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += cpu
            entry[2] += wall

    def wrap(self, name: str | Callable[[], str], function: Callable) -> Callable:
        def timed(*args, **kwargs):
            cpu, wall = time.thread_time(), time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                label = name() if callable(name) else name
                self.add(label, time.thread_time() - cpu, time.perf_counter() - wall)
        return timed


@contextlib.contextmanager
def component_clock(clock: Clock):
    """Wrap the functions the layoutalg side spends its time in (see ``Clock``)."""
    import importlib

    import z3

    solver = importlib.import_module("layoutalg.verify.z3_backend.solver")
    query = importlib.import_module("layoutalg.verify.query")
    vacuous = solver._unless_vacuous

    def vacuity(*args, **kwargs):
        clock.in_vacuity = True
        try:
            return vacuous(*args, **kwargs)
        finally:
            clock.in_vacuity = False

    def check_label():
        return "z3 Solver.check (vacuity test)" if clock.in_vacuity else "z3 Solver.check (query)"

    patches = [
        (query, "substitute", "substitution (verify.rewrite: compose f, g; primed copies)"),
        (solver, "_build", "translate SymPy → Z3 (incl. context)"),
        (z3.Context, "__init__", "z3.Context()"),
        (z3.Solver, "check", check_label),
        (threading.Thread, "start", "thread start"),
    ]
    saved = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in patches]
    saved.append((solver, "_unless_vacuous", vacuous))
    try:
        for owner, attr, label in patches:
            setattr(owner, attr, clock.wrap(label, getattr(owner, attr)))
        solver._unless_vacuous = clock.wrap("vacuity test (main thread only)", vacuity)
        yield
    finally:
        for owner, attr, original in saved:
            setattr(owner, attr, original)


def package_of(filename: str) -> str:
    for key in ("sympy", "z3", "layoutalg", "threading", "queue", "islpy"):
        if f"/{key}/" in filename or filename.endswith(f"/{key}.py"):
            return key
    return "python/builtins" if filename.startswith("~") or "python3" in filename else "other"


def profile(selected: list[Question], timeout_ms: int, top: int, console: Console) -> dict:
    """Two cold passes of the layoutalg side: one timed by components, one under cProfile."""
    sympy.core.cache.clear_cache()
    clock = Clock()
    wall, cpu = time.perf_counter(), time.process_time()
    with component_clock(clock):
        for question in selected:
            ask_layoutalg(question, timeout_ms)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    table = Table(title=f"layoutalg side, one cold pass over {len(selected)} questions: "
                  f"{wall:.2f} s wall, {cpu:.2f} s CPU (all threads)", header_style="bold")
    for column in ("component", "calls", "CPU s", "CPU %", "wall s"):
        table.add_column(column, justify="left" if column == "component" else "right")
    for name, (calls, seconds, elapsed) in sorted(clock.totals.items(), key=lambda kv: -kv[1][1]):
        table.add_row(name, str(calls), f"{seconds:.2f}", f"{100 * seconds / cpu:.0f}",
                      f"{elapsed:.2f}")
    console.print(table)
    console.print("(nested: translation includes z3.Context(); the vacuity test's Z3 checks run "
                  "in helper threads and are counted apart; CPU % is of the whole pass)",
                  style="dim")

    sympy.core.cache.clear_cache()
    profiler = cProfile.Profile()
    profiler.enable()
    for question in selected:
        ask_layoutalg(question, timeout_ms)
    profiler.disable()
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("cumulative").print_stats("layoutalg", top)
    console.print(stream.getvalue(), markup=False, highlight=False)
    by_package: dict[str, float] = {}
    for (filename, _, function), (_, _, tottime, _, _) in stats.stats.items():
        key = package_of(filename)
        if "acquire" in function:
            key = "waiting on a thread (lock.acquire)"
        by_package[key] = by_package.get(key, 0.0) + tottime
    console.print("cProfile (main thread, wall, inflated by profiling): self time by package")
    for name, seconds in sorted(by_package.items(), key=lambda kv: -kv[1]):
        console.print(f"  {name:36} {seconds:7.2f} s")
    return {"wall_s": wall, "cpu_s": cpu,
            "components": {k: dict(zip(("calls", "cpu_s", "wall_s"), v))
                           for k, v in clock.totals.items()},
            "cprofile_self_by_package_s": by_package}


# -- main -----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a subset of the questions, one round (< 30 s)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per question (default 3)")
    parser.add_argument("--json", metavar="FILE", help="write every time and verdict as JSON")
    parser.add_argument("--profile", type=int, metavar="N", default=0,
                        help="also profile the layoutalg side, print the top N functions")
    parser.add_argument("--family", action="append", help="only these families (repeatable)")
    parser.add_argument("--brute", action="store_true",
                        help="also time layoutalg's enumeration twins on the concrete questions")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random chains (default {SEED})")
    parser.add_argument("--timeout-ms", type=int, default=20_000,
                        help="layoutalg's timeout per query (default 20000, the library's)")
    parser.add_argument("--isl-max-ops", type=int, default=20_000_000,
                        help="ISL's operation budget per question (default 2e7, 10-30 s here)")
    parser.add_argument("--z3-only", action="store_true",
                        help="layoutalg asks Z3 for every question (no enumeration of small maps)")
    parser.add_argument("--profile-only", action="store_true",
                        help="skip the comparison: only the layoutalg profile (with --profile)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1; got {args.repeat}")
    if args.quick:
        args.repeat = 1
    ENUMERATE[0] = not args.z3_only
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    everything = questions(args.seed)
    selected = [x for x in everything if (x.quick or not args.quick)
                and (not args.family or x.family in args.family)]
    console.print(f"{len(selected)} questions (of {len(everything)}), {args.repeat} round(s), "
                  f"seed {args.seed}; machine shared, times are medians and noisy", style="dim")
    if args.profile_only:
        ask_layoutalg(selected[0], args.timeout_ms)  # warm-up: imports, Z3's first context
        stats = {"profile": profile(selected, args.timeout_ms, args.profile or 25, console)}
        if args.json:
            with open(args.json, "w") as handle:
                json.dump(stats, handle, indent=1, default=str)
        return 0
    # Warm-up, untimed: imports, Z3's and ISL's first contexts.
    warm = selected[0]
    ask_isl(warm, args.isl_max_ops)
    ask_layoutalg(warm, args.timeout_ms)
    rows = run(selected, args.repeat, args.timeout_ms, args.isl_max_ops, console,
               with_brute=args.brute)
    stats = report(rows, console)
    stats["brute"] = brute_report(rows, console)
    failed = bool(stats["disagreements"] or stats["brute"].get("disagreements"))
    if args.profile:
        # A question layoutalg leaves UNKNOWN costs its timeout and would swamp the profile.
        decided = [r.question for r in rows if r.la_verdict is not None]
        console.print(f"\nprofile over the {len(decided)} questions layoutalg decides",
                      style="dim")
        stats["profile"] = profile(decided, args.timeout_ms, args.profile, console)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(as_json(rows, stats, args), handle, indent=1, default=str)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
