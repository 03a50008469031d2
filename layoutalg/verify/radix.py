"""The mixed-radix lemma: a row-major linearization is a bijection digit by digit.

Z3's case splits on ``⌊o / s_k⌋ mod e_k`` multiply with every digit (eight radix-4
digits: seconds; ``bench/growth.py --axis dims``); the classical theorem needs no query.

**Lemma.** Let ``e_0 … e_{n-1} ≥ 1``, ``s_{n-1} = 1``, ``s_k = s_{k+1}·e_{k+1}``
and ``E = s_0·e_0``. ``L(x) = Σ s_k·x_k`` maps the box ``Π [0, e_k)``
one to one onto ``[0, E)``, and the *peeled digits* ``P(o)`` — ``r_{n-1} = o``;
for ``k = n-1 … 1``: ``x_k = r_k mod e_k``, ``r_{k-1} = ⌊r_k / e_k⌋``;
``x_0 = r_0`` (unreduced) — are its inverse: for every ``o`` in ``[0, E)``,
``P(o)`` lies in the box and ``L(P(o)) = o``; for every ``x`` in the box,
``P(L(x)) = x``.

*Proof.* ``⌊⌊a/b⌋/c⌋ = ⌊a/(bc)⌋`` for ``b, c ≥ 1``, so ``r_k = ⌊o / s_k⌋``.
For ``k ≥ 1``, ``x_k = r_k mod e_k`` lies in ``[0, e_k)``; ``x_0 = ⌊o/s_0⌋``
lies in ``[0, e_0)`` because ``0 ≤ o < s_0·e_0``. Division with remainder at
each step gives ``r_k = e_k·r_{k-1} + x_k``, and unrolling from ``r_{n-1} = o``
gives ``o = Σ s_k·x_k``. Conversely, for ``x`` in the box, ``0 ≤ L(x) ≤
Σ s_k·(e_k - 1) = s_0·e_0 - s_{n-1} = E - 1`` (the sum telescopes, since
``s_k·e_k = s_{k-1}``), so ``L(x)`` is in ``[0, E)``; and ``r_k = Σ_{j ≤ k}
x_j·s_j / s_k = e_k·r_{k-1} + x_k`` with ``0 ≤ x_k < e_k``, so the remainder
of ``r_k`` by ``e_k`` is ``x_k`` (it is unique): ``P(L(x)) = x``. ∎

**Where it applies** (:func:`digit_by_digit`): a map ``g`` without padding
(``valid`` is None) and with an inverse, each codomain coordinate either a
bare domain symbol (passed through: same extent, the inverse gives it back
as the bare codomain symbol) or a *block* ``o = Σ c_k·x_k`` over domain
symbols of its own, every domain symbol used exactly once. A block's
inverse coordinates must be the peeled digits of ``o`` node for node (a
``Mod`` of the previous quotient by its divisor, each quotient a ``floor``
of the previous one over that divisor, the top digit the last quotient) —
read off the SymPy trees structurally, never by SymPy's simplification (a
digit given back as 0 — ``core.tiling.digits`` skips a divisor of 1 — is
held to extent 1, where it is 0 and its term nothing). The
side conditions — divisor ``f_k = e_k`` (the domain extent of ``x_k``),
``c_k = s_k``, the block's codomain extent ``E = s_0·e_0``, every ``e_k ≥ 1``,
and a pass-through's extents equal — are one query through the door
(``query.run``): with concrete sizes its formula is already false (plain
integer arithmetic), with symbolic ones Z3 proves the identities under the
map's assumptions; an unsat answer under assumptions no size meets is
UNKNOWN there, as everywhere. Then ``g`` is a product of such ``L`` and
identities, coordinates reordered: in bounds, a bijection onto its
codomain, its inverse right on every slot and left on every point.

**Reversed** (a delinearization, a split): ``g`` sends a domain coordinate
``d`` in ``[0, E)`` to its peeled digits (node for node as above, over
``d``), its inverse gives ``d`` back as their row-major sum ``L``, and
either ``valid`` is None and ``E = s_0·e_0``, or ``valid`` is exactly
``L(y) < E`` (one such block) and ``E ≤ s_0·e_0``. By the lemma, ``P`` maps
``[0, E)`` into the box (the top digit ``⌊d/s_0⌋ < e_0``) with ``L(P(d)) = d``
(so one to one, each image valid), and every valid ``y`` in the box has
``L(y)`` in ``[0, E)`` and ``P(L(y)) = y``: a bijection onto the valid
slots, its inverse right on each.

Anything else — another shape, a side condition refuted or undecided —
and the lemma says nothing (None): the caller asks Z3 as before.
``tests/verify/test_radix.py`` pins the lemma against enumeration.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.verify import query as q
from layoutalg.verify.result import CheckResult, Status

PROVED = ("a bijection of its domain onto its codomain, with an inverse right on every slot "
          "(mixed-radix digits, digit by digit: verify.radix)")
PADDED = ("a bijection of its domain onto its valid slots, with an inverse right on each "
          "(mixed-radix digits, digit by digit: verify.radix)")


@dataclass(frozen=True)
class Block:
    """One linearized coordinate: its position in the codomain, its digits
    outermost first (domain symbols), their coefficients in the sum, and the
    divisors the inverse peels them by (innermost last; the top digit none)."""

    position: int
    digits: tuple[sympy.Symbol, ...]
    coefficients: tuple[sympy.Expr, ...]
    divisors: tuple[sympy.Expr, ...]  # divisors[k] peels digits[k + 1]
    zeros: tuple[sympy.Symbol, ...] = ()  # digits of extent 1, given back as 0


@dataclass(frozen=True)
class Shape:
    """How ``g`` reads as the lemma's product: blocks and pass-throughs
    (codomain position → domain symbol). ``reverse``: the blocks are ``g``'s
    digits of a domain coordinate (a delinearization; ``Block.position`` is
    that coordinate's, the digits codomain symbols) and their sums ``g``'s
    inverse; ``padded``: then ``g.valid`` is "the one block's sum < its extent"."""

    blocks: tuple[Block, ...]
    passed: tuple[tuple[int, sympy.Symbol], ...]
    reverse: bool = False
    padded: bool = False


def shape(g: IndexMap) -> Shape | None:
    """The lemma's reading of ``g`` (structure only, no side condition), or
    None when ``g`` is not of that form or has no block of two digits or more."""
    if g.inverse is None:
        return None
    if g.valid is None:
        found = _read(g.domain.symbols, g.codomain.symbols, g.exprs, g.inverse)
        if found is not None:
            return Shape(*found)
    found = _read(g.codomain.symbols, g.domain.symbols, g.inverse, g.exprs)
    if found is None:
        return None
    blocks, passed = found
    # the reading named (domain position, codomain symbol): turn it round
    passed = tuple(sorted((g.codomain.symbols.index(y), g.domain.symbols[k]) for k, y in passed))
    if g.valid is None:
        return Shape(blocks, passed, reverse=True)
    k = blocks[0].position
    if len(blocks) != 1 or not isinstance(g.valid, sympy.StrictLessThan) or g.valid.args != (
            g.inverse[k], sympy.sympify(g.domain.extents[k])):
        return None
    return Shape(blocks, passed, reverse=True, padded=True)


def _read(sources, targets, sums, digits_of):
    """``(blocks, passed)`` when each ``targets[k]`` is given by ``sums[k]``,
    a bare source symbol or a row-major sum of source symbols whose
    ``digits_of`` (by source symbol) peel the target back; else None."""
    digit = dict(zip(sources, digits_of))
    used: list[sympy.Symbol] = []
    blocks, passed = [], []
    for position, (expr, o) in enumerate(zip(sums, targets)):
        if expr in sources:
            if digit[expr] != o:
                return None
            passed.append((position, expr))
            used.append(expr)
            continue
        terms = _terms(expr, sources)
        if terms is None or len(terms) < 2:
            return None
        block = _block(position, o, terms, digit)
        if block is None:
            return None
        blocks.append(block)
        used.extend(block.digits + block.zeros)
    if not blocks or len(used) != len(set(used)) or set(used) != set(sources):
        return None
    return tuple(blocks), tuple(passed)


def digit_by_digit(g: IndexMap, assume: Sequence[object], timeout_ms: int) -> CheckResult | None:
    """PROVED when the lemma applies to ``g`` (see the module docstring):
    in bounds, a bijection onto its valid slots (all of its codomain but for
    a padded delinearization), its inverse right on each and left on every
    point. None: the lemma says nothing."""
    start = time.perf_counter()
    found = shape(g)
    if found is None:
        return None
    outcome = q.run([], [sympy.Or(*_side_conditions_failing(g, found))], [g], assume=assume,
                    timeout_ms=timeout_ms)
    if outcome.answer != "unsat":
        return None
    return q.result(Status.PROVED, "bijection with a right inverse", g.label, start,
                    reason=PADDED if found.padded else PROVED)


def _terms(expr: sympy.Expr, domain) -> list[tuple[sympy.Expr, sympy.Symbol]] | None:
    """``expr`` as ``Σ c·x`` (each term a coefficient free of the domain's
    symbols times one bare domain symbol), or None. Each term is rebuilt and
    compared with the original node: products and sums only, no floor/Mod."""
    if not isinstance(expr, sympy.Add):
        return None
    terms = []
    for term in expr.args:
        coefficient, x = term.as_independent(*domain, as_Add=False)
        if x not in domain or coefficient.free_symbols & set(domain):
            return None
        if sympy.Mul(coefficient, x) != term:
            return None
        terms.append((coefficient, x))
    if sympy.Add(*(sympy.Mul(c, x) for c, x in terms)) != expr:
        return None
    return terms


def _block(position: int, o: sympy.Symbol, terms, inverse) -> Block | None:
    """The block's digits in order, read off its inverse: the innermost is
    ``Mod(o, f)``, each next one ``Mod(q, f')`` of the quotient
    ``q = floor(o·f⁻¹)`` before it, the top one the last quotient itself. A
    digit whose inverse is 0 (``core.tiling.digits`` skips a divisor of 1)
    stands apart: the side conditions hold it to extent 1, where it is 0."""
    coefficient = {x: c for c, x in terms}
    zeros = tuple(x for x in coefficient if inverse[x] == 0)
    remaining = [x for x in coefficient if x not in zeros]
    if not remaining:
        return None
    rest: sympy.Expr = o
    inner_first: list[sympy.Symbol] = []
    divisors: list[sympy.Expr] = []
    while len(remaining) > 1:
        peeled = [x for x in remaining
                  if isinstance(inverse[x], sympy.Mod) and inverse[x].args[0] == rest]
        if len(peeled) != 1:
            return None
        x = peeled[0]
        divisor = inverse[x].args[1]
        quotient = _quotient(rest, divisor, [inverse[y] for y in remaining if y != x])
        if quotient is None:
            return None
        rest = quotient
        inner_first.append(x)
        divisors.append(divisor)
        remaining.remove(x)
    (top,) = remaining
    if inverse[top] != rest:
        return None
    digits = [top] + inner_first[::-1]
    return Block(position, tuple(digits), tuple(coefficient[x] for x in digits),
                 tuple(divisors[::-1]), zeros)


def _quotient(rest, divisor, others) -> sympy.Basic | None:
    """The node ``floor(rest·divisor⁻¹)`` where the other digits use it."""
    wanted = sympy.Mul(rest, sympy.Pow(divisor, -1))
    for expr in others:
        for node in sympy.preorder_traversal(expr):
            if isinstance(node, sympy.floor) and node.args[0] == wanted:
                return node
    return None


def _side_conditions_failing(g: IndexMap, found: Shape) -> list[sympy.Basic]:
    """Ways the side conditions could fail (any true: the lemma says nothing)."""
    extent = dict(zip(g.domain.symbols, g.domain.extents))
    digit_space, flat_space = (g.codomain, g.domain) if found.reverse else (g.domain, g.codomain)
    size_of = dict(zip(digit_space.symbols, digit_space.extents))
    failing = []
    for position, x in found.passed:
        failing.append(_differ(g.codomain.extents[position], extent[x]))
    for block in found.blocks:
        sizes = [sympy.sympify(size_of[x]) for x in block.digits]
        failing += [_differ(size_of[z], 1) for z in block.zeros]
        failing += [sympy.Lt(e, 1, evaluate=False) for e in sizes if not e.is_Integer]
        failing += [sympy.true for e in sizes if e.is_Integer and e < 1]
        failing += [_differ(f, e) for f, e in zip(block.divisors, sizes[1:])]
        stride: sympy.Expr = sympy.Integer(1)
        for k in range(len(sizes) - 1, -1, -1):
            failing.append(_differ(block.coefficients[k], stride))
            stride = stride * sizes[k]
        flat = sympy.sympify(flat_space.extents[block.position])
        if found.padded:   # the flat extent may fall short of the box: padding
            failing.append(sympy.true if flat.is_Integer and stride.is_Integer and flat > stride
                           else sympy.false if flat.is_Integer and stride.is_Integer
                           else sympy.Gt(flat, stride, evaluate=False))
        else:
            failing.append(_differ(flat, stride))
    return failing


def _differ(a, b) -> sympy.Basic:
    a, b = sympy.sympify(a), sympy.sympify(b)
    if a == b:
        return sympy.false   # one formula (a pass-through's symbolic extent)
    if a.is_Integer and b.is_Integer:
        return sympy.true if int(a) != int(b) else sympy.false   # plain int arithmetic
    return q.ne(a, b)
