"""A formula written with Python operators is held as written (issue 11, items 1 and 2).

SymPy evaluates while it builds, and some of its rules are wrong for
integers (``layoutalg/core/sympy_fixes.py``). These tests hold every map to
the formula the user wrote: a random expression is kept as a small tree of
our own, built once with Python operators on layoutalg symbols (or on plain
SymPy symbols passed in) and evaluated once by the interpreter below, with
Python ints. That interpreter shares nothing with ``core/evaluate.py``,
``verify/brute.py`` or SymPy, so a rewrite SymPy makes cannot hide in both.

``LAYOUTALG_SOUNDNESS_EXAMPLES`` sets the number of written expressions
(default 2,000 in CI, where ``CI`` is set, 1,000 elsewhere; the full run is
``=10000``, about 3 minutes of one core, as SymPy builds each expression);
substituted and parametric ones are a quarter of that each, and Z3 bounds
are checked on a fixed 200. Example k of each test uses its own seed, so a
failure names the seed and the Python source that reproduce it.
"""

from __future__ import annotations

import itertools
import os
import random

import pytest
import sympy
from profiles import IN_CI

import layoutalg as la
from layoutalg.core import sympy_fixes
from layoutalg.core.index_map import substitute_exprs
from layoutalg.errors import LayoutError

EXAMPLES = int(os.environ.get("LAYOUTALG_SOUNDNESS_EXAMPLES", "2000" if IN_CI else "1000"))
Z3_EXAMPLES = 200
SHOWN = 5  # failures printed in full

# -- the written expression: a tree, its Python source, its value ----------------------

RELATIONS = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def value(t: tuple, env: dict[str, int]) -> int | bool:
    """The tree's value in Python ints (conditions give bools)."""
    op = t[0]
    if op == "c":
        return t[1]
    if op == "v":
        return env[t[1]]
    if op == "neg":
        return -value(t[1], env)
    if op == "pw":
        return value(t[2], env) if value(t[1], env) else value(t[3], env)
    if op == "and":
        return value(t[1], env) and value(t[2], env)
    if op == "or":
        return value(t[1], env) or value(t[2], env)
    a, b = value(t[1], env), value(t[2], env)
    if op in RELATIONS:
        return RELATIONS[op](a, b)
    if op == "ceil":
        return -(-a // b)
    return {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b,
        "%": lambda: a % b, "min": lambda: min(a, b), "max": lambda: max(a, b),
    }[op]()


def build(t: tuple, env: dict[str, sympy.Expr]) -> sympy.Basic:
    """The tree written as a user writes it: Python operators, ``sympy.Min`` …"""
    op = t[0]
    if op == "c":
        return sympy.Integer(t[1])
    if op == "v":
        return env[t[1]]
    if op == "neg":
        return -build(t[1], env)
    if op == "pw":
        return sympy.Piecewise((build(t[2], env), build(t[1], env)), (build(t[3], env), True))
    a, b = build(t[1], env), build(t[2], env)
    if op == "==":
        return sympy.Eq(a, b)
    if op == "!=":
        return sympy.Ne(a, b)
    if op in RELATIONS:
        return RELATIONS[op](a, b)
    if op == "ceil":
        return sympy.ceiling(a / b)
    return {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b,
        "%": lambda: a % b, "min": lambda: sympy.Min(a, b), "max": lambda: sympy.Max(a, b),
        "and": lambda: a & b, "or": lambda: a | b,
    }[op]()


def source(t: tuple) -> str:
    """The Python source that :func:`build` runs, for failure messages."""
    op = t[0]
    if op == "c":
        return str(t[1]) if t[1] >= 0 else f"({t[1]})"
    if op == "v":
        return t[1]
    if op == "neg":
        return f"-({source(t[1])})"
    if op == "pw":
        return f"Piecewise(({source(t[2])}, {source(t[1])}), ({source(t[3])}, True))"
    a, b = source(t[1]), source(t[2])
    named = {"min": "Min", "max": "Max", "==": "Eq", "!=": "Ne", "and": "And", "or": "Or"}
    if op in named:
        return f"{named[op]}({a}, {b})"
    if op == "ceil":
        return f"ceiling({a} / {b})"
    return f"({a} {op} {b})"


# -- random trees ------------------------------------------------------------------------

DIVISORS = (2, 3, 4, 5, 6, 7, 8, -2, -3, -4)
SMALL = (-3, -2, -1, 2, 3, 5, 7)


def expression(rng: random.Random, depth: int, names, *, z3: bool = False) -> tuple:
    """A random integer expression over ``names``; ``z3`` keeps it linear, moduli positive."""
    if depth <= 0 or rng.random() < 0.2:
        if rng.random() < 0.65:
            return ("v", rng.choice(names))
        return ("c", rng.randint(-9, 9))
    below = depth - 1
    kinds = ["+", "-", "*c", "//", "%", "min", "max", "pw", "neg", "mod_product",
             "mod_sum", "ceil"]
    if not z3:
        kinds += ["*", "%", "//"]
    kind = rng.choice(kinds)
    divisors = [d for d in DIVISORS if d > 0 or not z3]
    if kind in ("+", "-", "*", "min", "max"):
        return (kind, expression(rng, below, names, z3=z3), expression(rng, below, names, z3=z3))
    if kind == "*c":
        return ("*", ("c", rng.choice(SMALL)), expression(rng, below, names, z3=z3))
    if kind in ("//", "%"):
        return (kind, expression(rng, below, names, z3=z3), ("c", rng.choice(divisors)))
    if kind == "ceil":
        return ("ceil", expression(rng, below, names, z3=z3), ("c", rng.choice((2, 3, 4, 6))))
    if kind == "neg":
        return ("neg", expression(rng, below, names, z3=z3))
    if kind == "mod_product":  # the shape SymPy's Mod rule broke: Mod(c*Mod(a, m), q)
        q = rng.choice((2, 3, 4, 5, 6))
        inner = ("%", expression(rng, below, names, z3=z3), ("c", rng.choice((q, 2 * q, q + 1, 3))))
        return ("%", ("*", ("c", rng.choice(SMALL)), inner), ("c", q))
    if kind == "mod_sum":
        q = rng.choice((2, 3, 4, 6))
        left = ("%", expression(rng, below, names, z3=z3), ("c", q))
        right = ("%", expression(rng, below, names, z3=z3), ("c", rng.choice((q, 2 * q, 5))))
        return ("%", ("+", left, ("*", ("c", rng.choice(SMALL)), right)), ("c", q))
    return ("pw", condition(rng, below, names, z3=z3),
            expression(rng, below, names, z3=z3), expression(rng, below, names, z3=z3))


def condition(rng: random.Random, depth: int, names, *, z3: bool) -> tuple:
    if depth > 1 and rng.random() < 0.2:
        join = rng.choice(("and", "or"))
        return (join, condition(rng, depth - 1, names, z3=z3),
                condition(rng, depth - 1, names, z3=z3))
    below = max(depth - 1, 0)
    return (rng.choice(list(RELATIONS)), expression(rng, below, names, z3=z3),
            expression(rng, below, names, z3=z3))


def domain(rng: random.Random) -> la.Space:
    rank = rng.choice((1, 2, 2, 3))
    top = {1: 9, 2: 5, 3: 3}[rank]
    return la.Space(*((n, rng.randint(1, top)) for n in ("x", "y", "z")[:rank]))


def symbols(rng: random.Random, space: la.Space) -> dict[str, sympy.Symbol]:
    """The symbols a user writes with: the space's own, or plain SymPy ones passed in."""
    flavour = rng.choice(("own", "own", "plain", "integer"))
    if flavour == "own":
        return dict(zip(space.names, space.symbols))
    extra = {"integer": True} if flavour == "integer" else {}
    return {n: sympy.Symbol(n, **extra) for n in space.names}


def points(space: la.Space):
    return itertools.product(*(range(e) for e in space.extents))


# -- the differential tests -------------------------------------------------------------


def disagreement(m: la.IndexMap, truth) -> str | None:
    """Where ``m`` differs from the written tree (``truth(point)``), or None."""
    for point in points(m.domain):
        want = truth(point)
        try:
            got = m(*point)[0]
        except LayoutError as exc:
            return f"refused at {point}: {exc}"
        if got != want:
            return f"at {dict(zip(m.domain.names, point))}: holds {got}, written {want}"
    return None


def report(failures: list[str], total: int) -> str:
    shown = "\n\n".join(failures[:SHOWN])
    return f"{len(failures)} of {total} written expressions were not held as written:\n{shown}"


def test_written_expressions_are_held_as_written():
    failures = []
    for seed in range(EXAMPLES):
        rng = random.Random(seed)
        space = domain(rng)
        t = expression(rng, rng.choice((2, 3, 3, 4)), space.names)
        try:
            m = la.IndexMap(space, la.Space(o=1), [build(t, symbols(rng, space))])
        except LayoutError as exc:
            failures.append(f"seed {seed}: {source(t)} on {space}: refused: {exc}")
            continue
        where = disagreement(m, lambda p: value(t, dict(zip(space.names, p))))
        if where:
            failures.append(f"seed {seed}: {source(t)} on {space}\n  held {m.exprs[0]}; {where}")
    assert not failures, report(failures, EXAMPLES)


def test_substituted_expressions_are_held_as_composed():
    """``compose``'s substitution (``substitute_exprs``) of written images into a written map."""
    failures = []
    count = max(1, EXAMPLES // 4)
    for seed in range(count):
        rng = random.Random(10**6 + seed)
        space = domain(rng)
        inner = [expression(rng, 2, space.names) for _ in range(2)]
        table = {p: [value(t, dict(zip(space.names, p))) for t in inner] for p in points(space)}
        lows = [min(v[k] for v in table.values()) for k in range(2)]
        highs = [max(v[k] for v in table.values()) for k in range(2)]
        middle = la.Space(u=highs[0] - lows[0] + 1, v=highs[1] - lows[1] + 1)
        outer = expression(rng, 3, middle.names)
        own = dict(zip(space.names, space.symbols))
        images = [build(t, own) - low for t, low in zip(inner, lows)]
        written = build(outer, dict(zip(middle.names, middle.symbols)))
        held = substitute_exprs((written,), middle.symbols, images)
        m = la.IndexMap(space, la.Space(o=1), list(held))

        def truth(point):
            u, v = (w - low for w, low in zip(table[point], lows))
            return value(outer, {"u": u, "v": v})

        where = disagreement(m, truth)
        if where:
            failures.append(
                f"seed {seed}: {source(outer)} at u = {source(inner[0])} - ({lows[0]}), "
                f"v = {source(inner[1])} - ({lows[1]}) on {space}\n  held {m.exprs[0]}; {where}"
            )
    assert not failures, report(failures, count)


def test_parametric_expressions_are_held_as_written_at_every_size():
    """Moduli and divisors that are extent parameters, then ``bind``."""
    failures = []
    count = max(1, EXAMPLES // 4)
    M, N = la.extents("M N")
    for seed in range(count):
        rng = random.Random(2 * 10**6 + seed)
        space = la.Space(x=M, y=rng.randint(1, 4))
        t = parametric(rng, 3)
        own = {"x": space.symbols[0], "y": space.symbols[1], "M": M, "N": N}
        m = la.IndexMap(space, la.Space(o=N), [build(t, own)])
        sizes = {"M": rng.randint(1, 6), "N": rng.randint(1, 6)}
        bound = m.bind(**sizes)
        where = disagreement(bound, lambda p: value(t, {"x": p[0], "y": p[1], **sizes}))
        if where:
            failures.append(f"seed {seed}: {source(t)} at {sizes}\n  held {m.exprs[0]}; {where}")
    assert not failures, report(failures, count)


def parametric(rng: random.Random, depth: int) -> tuple:
    if depth <= 0 or rng.random() < 0.2:
        leaves = (("v", "x"), ("v", "y"), ("v", "M"), ("v", "N"), ("c", rng.randint(-5, 5)))
        return rng.choice(leaves)
    kind = rng.choice(("+", "-", "//", "%", "min", "max", "*c", "mod_product"))
    below = depth - 1
    modulus = rng.choice((("v", "M"), ("v", "N"), ("c", rng.choice((2, 3, 4)))))
    if kind in ("//", "%"):
        return (kind, parametric(rng, below), modulus)
    if kind == "*c":
        return ("*", ("c", rng.choice(SMALL)), parametric(rng, below))
    if kind == "mod_product":
        inner = ("%", parametric(rng, below), rng.choice((modulus, ("v", "M"))))
        return ("%", ("*", ("c", rng.choice(SMALL)), inner), modulus)
    return (kind, parametric(rng, below), parametric(rng, below))


def test_z3_bounds_of_written_expressions_are_their_exact_range():
    """Z3 proves the exact range, computed with Python ints, and refutes one slot less."""
    failures = []
    for seed in range(Z3_EXAMPLES):
        rng = random.Random(3 * 10**6 + seed)
        space = domain(rng)
        t = expression(rng, rng.choice((2, 3)), space.names, z3=True)
        values = [value(t, dict(zip(space.names, p))) for p in points(space)]
        low, high = min(values), max(values)
        written = build(t, dict(zip(space.names, space.symbols)))
        exact = la.IndexMap(space, la.Space(o=high - low + 1), [written - low])
        # One slot short: drop the top slot, or (alternately) shift below 0.
        if seed % 2 and high > low:
            short = la.IndexMap(space, la.Space(o=high - low), [written - low])
        else:
            short = la.IndexMap(space, la.Space(o=high - low + 2), [written - low - 1])
        for m, want in ((exact, la.Status.PROVED), (short, la.Status.REFUTED)):
            got = la.check_in_bounds(m, timeout_ms=60_000)
            if got.status is not want:
                failures.append(f"seed {seed}: {source(t)} on {space} in [{low}, {high}]: "
                                f"want {want}, got {got}")
    assert not failures, report(failures, Z3_EXAMPLES)


# -- the reproducers of issue 11 ---------------------------------------------------------


def written_in_x(extent: int, slots: int, formula) -> la.IndexMap:
    """``x ↦ formula(x)`` for ``x < extent`` into ``slots`` slots, written as a user would."""
    d = la.Space(x=extent)
    (x,) = d.symbols
    return la.IndexMap(d, la.Space(o=slots), [formula(x)])


def test_mod_of_a_product_holding_a_mod_is_not_pulled_apart():
    m = written_in_x(4, 8, lambda x: (2 * (x % 4)) % 4)
    assert [m(v)[0] for v in range(4)] == [0, 2, 0, 2]
    result = la.check_injective(m)
    assert result.status is la.Status.REFUTED
    a, b = result.counterexample["x"], result.counterexample["x'"]
    assert m(a) == m(b) and a != b


def test_mod_of_a_product_with_another_modulus_is_not_squared():
    m = written_in_x(4, 2, lambda x: (7 * (x % 4)) % 3)
    assert [m(v)[0] for v in range(4)] == [0, 1, 2, 0]
    result = la.check_in_bounds(m)
    assert result.status is la.Status.REFUTED
    assert result.counterexample["x"] == 2  # the one image outside [0, 2)


def test_equivalence_of_a_mod_product_and_its_wrong_rewrite_is_refuted():
    written = written_in_x(5, 10, lambda x: (7 * (x % 5)) % 5)
    rewrite = written_in_x(5, 10, lambda x: 2 * (x % 5))
    assert (written(3), rewrite(3)) == ((1,), (6,))
    result = la.check_equivalent(written, rewrite)
    assert result.status is la.Status.REFUTED
    point = result.counterexample["x"]
    assert written(point) != rewrite(point)


def test_an_even_maximum_over_six_is_not_taken_for_an_integer():
    # SymPy 1.14: (Max(4, 2*y)/6).is_integer is True, so Mod(Max(4, 2*y), 6) was 0.
    d = la.Space(y=4)
    (y,) = d.symbols
    m = la.IndexMap(d, la.Space(o=1), [sympy.Max(4, 2 * y) % 6])
    assert [m(v)[0] for v in range(4)] == [4, 4, 4, 0]
    assert la.check_in_bounds(m).status is la.Status.REFUTED
    assert (sympy.Max(6, 2 * y) / 3).is_integer is not False  # 2 at y = 3
    assert (sympy.Max(4, 2 * y) / 6).is_integer is not True  # 4/3 at y = 2


def test_a_composition_lands_where_composing_by_hand_lands():
    tiles = la.scale(la.split(la.Space(x=12), "x", 6, names=("t", "e")), "e", 4)
    t, e = tiles.codomain.symbols
    b = la.Space(tile=2, bank=5)
    banks = la.IndexMap(tiles.codomain, b, [t, (3 * (e % 5) + 1) % 5],
                        valid=sympy.Ne(b.symbols[1], 0))
    composed = la.compose(tiles, banks)
    for x in range(12):
        tile, elem = x // 6, 4 * (x % 6)
        assert composed(x) == (tile, (3 * (elem % 5) + 1) % 5)
    assert composed(2) == (0, 0)
    result = la.check_images_valid(composed)
    assert result.status is la.Status.REFUTED
    assert composed(result.counterexample["x"])[1] == 0


@pytest.mark.parametrize(
    ("written", "values"),
    [
        # Piecewise divides the condition through: x > Mod(x, 3)/5.
        (lambda x, y: sympy.Piecewise((9 * y, 5 * x > x % 3), (y, True)),
         lambda x, y: 9 * y if 5 * x > x % 3 else y),
        # floor(a) < n is held as a < n: y/2 < y.
        (lambda x, y: sympy.Piecewise((x, y // 2 < y), (-x, True)),
         lambda x, y: x if y // 2 < y else -x),
        # floor of a known integer returns it: Max(2, 4*y)/2.
        (lambda x, y: sympy.Max(4 * y, 2) // 2, lambda x, y: max(4 * y, 2) // 2),
        # A Piecewise in a condition becomes an ITE.
        (lambda x, y: sympy.Piecewise((x, x < sympy.Piecewise((y, sympy.Ne(x, y)), (1, True)) // 2),
                                      (y, True)),
         lambda x, y: x if x < (y if x != y else 1) // 2 else y),
    ],
    ids=["condition-divided", "floor-relation", "floor-dropped", "ite"],
)
def test_rewrites_that_leave_the_integer_vocabulary_are_held_in_it(written, values):
    d = la.Space(x=5, y=4)
    m = la.IndexMap(d, la.Space(o=50), [written(*d.symbols) + 20])
    for p in points(d):
        assert m(*p) == (values(*p) + 20,)
    assert la.check_in_bounds(m).status is la.Status.PROVED
    assert not m.exprs[0].has(sympy.ITE)


def test_a_valid_condition_written_with_floor_is_held_in_integers():
    # floor(b/2) <= c is held as b/2 < c + 1; Z3 needs b < 2*c + 2.
    dom, cod = la.Space(i=3), la.Space(b=6, c=3)
    (i,) = dom.symbols
    b, c = cod.symbols
    m = la.IndexMap(dom, cod, [2 * i, i], valid=b // 2 <= c)
    assert not sympy_fixes.has_fraction(m.valid)
    for slot in itertools.product(range(6), range(3)):
        held = bool(m.valid.subs(dict(zip(cod.symbols, slot))))
        assert held == (slot[0] // 2 <= slot[1])
    assert la.check_images_valid(m).status is la.Status.PROVED
    shifted = la.IndexMap(dom, cod, [2 * i + 1, i], valid=b // 2 < c)
    assert la.check_images_valid(shifted).status is la.Status.REFUTED


def test_each_installed_fix_passes_its_own_probe():
    assert not sympy_fixes.mod_of_product_is_wrong()
    assert not sympy_fixes.product_integrality_is_wrong()
    assert not sympy_fixes.piecewise_divides_conditions()
    assert not sympy_fixes.rounding_drops_to_a_fraction()
    assert sympy_fixes.install() == []  # a second install changes nothing


def test_a_piecewise_condition_with_symbols_on_both_sides_is_held_once():
    """7*x <= -2*x: SymPy's canonical form (x <= -7*x/2) and the fix's
    multiplied-back form rebuilt the Piecewise without end (found by the
    soundness suite); held now as x <= 0, which is the truth over the integers."""
    dom = la.Space(x=6)
    (x,) = dom.symbols
    m = la.IndexMap(dom, la.Space(r=1, s=2), [0, sympy.Piecewise((0, 7 * x <= -2 * x), (1, True))])
    assert [m(v) for v in range(6)] == [(0, 0 if 7 * v <= -2 * v else 1) for v in range(6)]
