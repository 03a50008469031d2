"""Hypothesis strategies: small concrete layouts, broken maps, pairs, access sets.

Three sources of maps, all small enough to enumerate (domains up to
``MAX_DOMAIN`` points, codomains up to ``MAX_CODOMAIN`` slots):

- ``layouts``: random chains of the combinators (and CuTe ``strided``
  layouts), correct by construction;
- ``broken_maps``: such a layout with one or two deliberate faults (a
  perturbed coefficient, a wrong inverse, a dropped or shifted ``valid``, a
  codomain extent one too small);
- ``hand_maps``: hand-built maps of random affine/div/mod/min/max terms that
  may collide, escape bounds or carry a made-up inverse.

``maps()`` mixes the three. ``equivalence_pairs``, ``fit_problems``,
``conflict_problems`` and ``compose_problems`` build the inputs of the
two-map, memory, resource and composition checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy
from hypothesis import reject
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.verify import brute
from layoutalg.verify.memory import byte_end, flat_offset, memory_dims

MAX_DOMAIN = 200
MAX_CODOMAIN = 4096
MAX_STEPS = 3


class Fresh:
    """Dimension names never used before in one example."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"n{self.count}"


# -- spaces ----------------------------------------------------------------------------


@st.composite
def spaces(draw, *, names=("a", "b", "c"), max_size: int = MAX_DOMAIN, max_rank: int = 3):
    """A concrete space of rank 1..max_rank with at most ``max_size`` points."""
    rank = draw(st.integers(1, max_rank))
    budget = max_size
    dims = []
    for name in names[:rank]:
        extent = draw(st.integers(1, min(12, budget)))
        budget //= extent
        dims.append((name, extent))
    return la.Space(*dims)


# -- CuTe strided layouts ----------------------------------------------------------------


def _nest(draw, leaves: list[int], cuts: list[int]):
    """Group ``leaves`` into a nested tuple at the drawn ``cuts``."""
    groups, start = [], 0
    for cut in cuts + [len(leaves)]:
        part = leaves[start:cut]
        start = cut
        if part:
            groups.append(part[0] if len(part) == 1 and draw(st.booleans()) else tuple(part))
    if len(groups) == 1 and not isinstance(groups[0], tuple):
        return groups[0]
    return tuple(groups)


@st.composite
def strided_layouts(draw, *, max_size: int = MAX_DOMAIN, compact: bool = False):
    """``la.strided(shape, stride)`` with nested shapes and compact, gapped,
    broadcast (stride 0) or arbitrary strides; sometimes a cosize override.
    ``compact=True``: only compact layouts at their natural cosize (bijections)."""
    count = draw(st.integers(1, 4))
    sizes, budget = [], max_size
    for _ in range(count):
        size = draw(st.integers(1, min(8, budget)))
        sizes.append(size)
        budget //= size
    kind = "compact" if compact else draw(st.sampled_from(["compact", "gapped", "random"]))
    if kind == "random":
        strides = [draw(st.integers(0, 12)) for _ in sizes]
    else:
        order = draw(st.permutations(range(count)))
        strides, running = [0] * count, 1
        for k in order:
            gap = 1 if kind == "compact" else draw(st.integers(1, 3))
            running *= gap
            strides[k] = running
            running *= sizes[k]
    cuts = sorted(draw(st.lists(st.integers(1, max(1, count - 1)), max_size=2)))
    shape = _nest(draw, sizes, cuts)
    stride = _restructure(shape, iter(strides))
    natural = sum((s - 1) * d for s, d in zip(sizes, strides)) + 1
    cosize = None
    if not compact and draw(st.integers(0, 4)) == 0:
        cosize = max(1, natural + draw(st.integers(-2, 2)))
    if (cosize or natural) > MAX_CODOMAIN:
        cosize = MAX_CODOMAIN
    return la.strided(shape, stride, cosize=cosize)


def _restructure(shape, values):
    if isinstance(shape, tuple):
        return tuple(_restructure(part, values) for part in shape)
    return next(values)


# -- combinator chains -------------------------------------------------------------------


def _codomain(source) -> la.Space:
    return source if isinstance(source, la.Space) else source.codomain


def _room(space: la.Space, dim: str, new_extent: int) -> bool:
    """The codomain stays within MAX_CODOMAIN when ``dim`` grows to ``new_extent``."""
    return space.size // space.extent(dim) * new_extent <= MAX_CODOMAIN


def _split(draw, source, fresh):
    space = _codomain(source)
    dim = draw(st.sampled_from(space.names))
    extent = space.extent(dim)
    factor = draw(st.integers(1, extent + 2))
    if not _room(space, dim, -(-extent // factor) * factor):
        return None
    return la.split(source, dim, factor, names=(fresh(), fresh()))


def _fuse(draw, source, fresh):
    space = _codomain(source)
    if space.rank < 2:
        return None
    outer, inner = draw(st.permutations(space.names))[:2]
    return la.fuse(source, outer, inner, name=fresh())


def _permute(draw, source, fresh):
    space = _codomain(source)
    if space.rank < 2:
        return None
    return la.permute(source, draw(st.permutations(space.names)))


def _pad(draw, source, fresh):
    space = _codomain(source)
    dim = draw(st.sampled_from(space.names))
    extent = space.extent(dim)
    if draw(st.booleans()):
        multiple = draw(st.integers(1, 5))
        if not _room(space, dim, -(-extent // multiple) * multiple):
            return None
        return la.pad(source, dim, multiple)
    to = extent + draw(st.integers(0, 3))
    if not _room(space, dim, to):
        return None
    return la.pad(source, dim, to=to)


def _cyclic(draw, source, fresh):
    space = _codomain(source)
    dim = draw(st.sampled_from(space.names))
    extent = space.extent(dim)
    parts = draw(st.integers(1, 4))
    block = draw(st.integers(1, 3))
    local = -(-(-(-extent // block)) // parts) * block
    if not _room(space, dim, parts * local):
        return None
    return la.cyclic(source, dim, parts, block=block, names=(fresh(), fresh()))


def _linearize(draw, source, fresh):
    space = _codomain(source)
    order = draw(st.permutations(space.names))
    count = draw(st.integers(1, space.rank))
    return la.linearize(source, order[:count], name=fresh())


def _delinearize(draw, source, fresh):
    space = _codomain(source)
    dim = draw(st.sampled_from(space.names))
    extent = space.extent(dim)
    count = draw(st.integers(2, 3))
    sizes = [draw(st.integers(1, max(1, min(extent, 8)))) for _ in range(count - 1)]
    sizes.append(-(-extent // math.prod(sizes)) + draw(st.integers(0, 1)))
    if not _room(space, dim, math.prod(sizes)):
        return None
    return la.delinearize(source, dim, **{fresh(): size for size in sizes})


def _offset(draw, source, fresh):
    space = _codomain(source)
    dim = draw(st.sampled_from(space.names))
    amount = draw(st.integers(0, 4))
    if not _room(space, dim, space.extent(dim) + amount):
        return None
    return la.offset(source, dim, amount)


def _scale(draw, source, fresh):
    space = _codomain(source)
    dim = draw(st.sampled_from(space.names))
    factor = draw(st.integers(1, 3))
    if not _room(space, dim, space.extent(dim) * factor):
        return None
    return la.scale(source, dim, factor)


STEPS = {
    "split": _split, "fuse": _fuse, "permute": _permute, "pad": _pad, "cyclic": _cyclic,
    "linearize": _linearize, "delinearize": _delinearize, "offset": _offset, "scale": _scale,
}


@st.composite
def layouts(draw, *, max_steps: int = MAX_STEPS, bijective: bool = False):
    """A correct layout: a space or a CuTe layout followed by 1..max_steps combinators.

    ``bijective=True`` starts only from a space or a compact CuTe layout, so
    the result is a bijection onto its valid slots with a correct inverse.
    """
    fresh = Fresh()
    if draw(st.integers(0, 3)) == 0:
        source = draw(strided_layouts(compact=bijective))
        if brute.check_in_bounds(source).refuted:
            return source  # a cosize below its images: compose refuses to build on it
    else:
        source = draw(spaces())
    for _ in range(draw(st.integers(1, max_steps))):
        step = STEPS[draw(st.sampled_from(sorted(STEPS)))]
        source = step(draw, source, fresh) or source
    if isinstance(source, la.Space):
        return la.identity(source)
    return source


# -- random expressions ------------------------------------------------------------------


@st.composite
def terms(draw, symbols):
    """One atom of the index vocabulary over ``symbols``."""
    x = draw(st.sampled_from(symbols))
    y = draw(st.sampled_from(symbols))
    a = draw(st.integers(1, 6))
    c = draw(st.integers(0, 5))
    kind = draw(st.sampled_from(
        ["linear", "linear", "div", "mod", "div_sum", "mod_sum", "ceil", "min", "max",
         "piecewise", "product"]))
    if kind == "linear":
        return x
    if kind == "ceil":
        return sympy.ceiling((x + c) / a)
    if kind == "product":
        return x * y
    if kind == "div":
        return x // a
    if kind == "mod":
        return x % a
    if kind == "div_sum":
        return (x + c * y + c) // a
    if kind == "mod_sum":
        return (x + c * y + c) % a
    if kind == "min":
        return sympy.Min(x, c)
    if kind == "max":
        return sympy.Max(x - c, y)
    return sympy.Piecewise((x, sympy.Lt(y, c)), (y + a, True))


@st.composite
def expressions(draw, symbols):
    """A constant plus 1..3 integer multiples of vocabulary atoms."""
    expr = sympy.Integer(draw(st.integers(-2, 3)))
    for _ in range(draw(st.integers(1, 3))):
        coefficient = draw(st.sampled_from([1, 1, 1, 2, 3, 4, 8, -1, -2]))
        expr += coefficient * draw(terms(symbols))
    return expr


@st.composite
def conditions(draw, symbols, extents):
    """A ``valid`` predicate: bounds and residues of codomain coordinates."""
    parts = []
    for _ in range(draw(st.integers(1, 2))):
        k = draw(st.integers(0, len(symbols) - 1))
        p, extent = symbols[k], extents[k]
        kind = draw(st.sampled_from(["lt", "ge", "residue"]))
        if kind == "lt":
            parts.append(sympy.Lt(p, draw(st.integers(0, extent + 1))))
        elif kind == "ge":
            parts.append(sympy.Ge(p, draw(st.integers(0, 3))))
        else:
            modulus = draw(st.integers(2, 4))
            parts.append(sympy.Eq(p % modulus, draw(st.integers(0, modulus - 1))))
    if len(parts) == 2 and draw(st.booleans()):
        return sympy.Or(*parts)
    return sympy.And(*parts)


def image_extents(domain: la.Space, exprs) -> list[int]:
    """The smallest extents that hold every image (at least 1)."""
    names = [f"p{k}" for k in range(len(exprs))]
    probe = la.IndexMap(domain, la.Space.of(tuple(names), (1,) * len(exprs)), exprs)
    _, ys = brute.image_table(probe)
    return [max(1, int(ys[:, k].max()) + 1) for k in range(len(exprs))]


@st.composite
def hand_maps(draw):
    """A hand-built map of random terms; extents near the true image range."""
    domain = draw(spaces())
    rank = draw(st.integers(1, 2))
    exprs = [draw(expressions(domain.symbols)) for _ in range(rank)]
    tight = image_extents(domain, exprs)
    extents = [max(1, e + draw(st.sampled_from([0, 0, 0, -1, -2, 1, 3]))) for e in tight]
    while math.prod(extents) > MAX_CODOMAIN:
        k = extents.index(max(extents))
        extents[k] = max(1, extents[k] // 2)
    codomain = la.Space.of(tuple(f"p{k}" for k in range(rank)), tuple(extents))
    inverse = None
    if draw(st.integers(0, 2)) == 0:
        inverse = [draw(expressions(codomain.symbols)) for _ in domain.names]
    valid = None
    if draw(st.booleans()):
        valid = draw(conditions(codomain.symbols, codomain.extents))
    return la.IndexMap(domain, codomain, exprs, inverse=inverse, valid=valid, name="hand")


# -- deliberate faults ----------------------------------------------------------------------


@st.composite
def perturbed(draw, expr, symbols):
    """``expr`` with one constant nudged (sign kept, never zero) or a term added."""
    constants = sorted(
        {a for a in expr.atoms(sympy.Rational) if a != 0 and (a.is_Integer or a.p == 1)},
        key=sympy.default_sort_key,
    )
    if constants and draw(st.booleans()):
        old = draw(st.sampled_from(constants))
        if old.is_Integer:
            new = int(old) + draw(st.sampled_from([-2, -1, 1, 2]))
            if new == 0 or (new > 0) != (old > 0):
                new = int(old) * 2
            return expr.xreplace({old: sympy.Integer(new)})
        divisor = old.q + draw(st.sampled_from([-1, 1, 2]))  # old.q >= 2, so divisor >= 1
        return expr.xreplace({old: sympy.Rational(1, divisor)})
    coefficient = draw(st.sampled_from([-1, 1, 2]))
    if symbols and draw(st.booleans()):
        return expr + coefficient * draw(st.sampled_from(symbols))
    return expr + coefficient


FAULTS = ("expr", "inverse", "drop_valid", "shift_valid", "shrink", "grow", "drop_inverse")


@st.composite
def broken_maps(draw):
    """A correct layout with one or two deliberate faults."""
    m = draw(layouts())
    for fault in draw(st.lists(st.sampled_from(FAULTS), min_size=1, max_size=2, unique=True)):
        m = _fault(draw, m, fault)
    return m


def _fault(draw, m: la.IndexMap, fault: str) -> la.IndexMap:
    exprs, inverse, valid, codomain = list(m.exprs), m.inverse, m.valid, m.codomain
    if fault == "expr":
        k = draw(st.integers(0, len(exprs) - 1))
        exprs[k] = draw(perturbed(exprs[k], m.domain.symbols))
    elif fault == "inverse" and inverse is not None:
        inverse = list(inverse)
        k = draw(st.integers(0, len(inverse) - 1))
        inverse[k] = draw(perturbed(inverse[k], codomain.symbols))
    elif fault == "drop_valid":
        valid = None
    elif fault == "shift_valid" and valid is not None:
        relations = sorted(valid.atoms(sympy.Rel), key=sympy.default_sort_key)
        old = draw(st.sampled_from(relations))
        new = old.func(old.lhs, old.rhs + draw(st.sampled_from([-1, 1])), evaluate=False)
        valid = valid.xreplace({old: new})
    elif fault in ("shrink", "grow"):
        k = draw(st.integers(0, codomain.rank - 1))
        extent = codomain.extents[k] + (1 if fault == "grow" else -1)
        if extent >= 1 and codomain.size // codomain.extents[k] * extent <= MAX_CODOMAIN:
            codomain = codomain.replace(k, [(codomain.names[k], extent)])
    elif fault == "drop_inverse":
        inverse = None
    return la.IndexMap(m.domain, codomain, exprs, inverse=inverse, valid=valid,
                       name=f"{fault}({m.label})")


def maps():
    """Any small concrete map: correct, broken or hand-built."""
    return st.one_of(layouts(), broken_maps(), hand_maps())


# -- pairs for check_equivalent ------------------------------------------------------------


def expand_mod(expr):
    """Rewrite every ``a mod b`` as ``a - b·⌊a/b⌋``: the same function, other syntax."""
    return expr.replace(
        lambda e: isinstance(e, sympy.Mod),
        lambda e: e.args[0] - e.args[1] * sympy.floor(e.args[0] / e.args[1]),
    )


def _rewritten(m: la.IndexMap) -> la.IndexMap:
    return la.IndexMap(m.domain, m.codomain, [expand_mod(e) for e in m.exprs], name="rewritten")


@st.composite
def _split_fuse(draw):
    """``fuse(split(d, f))`` is ``d`` in a padded space."""
    space = draw(spaces())
    dim = draw(st.sampled_from(space.names))
    extent = space.extent(dim)
    factor = draw(st.integers(1, extent + 1))
    first = la.fuse(la.split(space, dim, factor, names=("o", "q")), "o", "q", name=dim)
    second = la.pad(space, dim, to=-(-extent // factor) * factor)
    return first, second


@st.composite
def _scale_linearize(draw):
    """Scaling the flat offset equals scaling the stride of every dim."""
    space = draw(spaces())
    factor = draw(st.integers(1, 3))
    first = la.scale(la.linearize(space, name="flat"), "flat", factor)
    last = space.names[-1]
    second = la.linearize(la.scale(space, last, factor), name="flat")
    return first, second


@st.composite
def _round_trip(draw):
    """``delinearize(linearize(space))`` back into the same extents is the identity."""
    space = draw(spaces())
    flat = la.linearize(space, name="flat")
    back = la.delinearize(flat, "flat", **{f"{n}2": e for n, e in space.dims})
    return back, la.identity(space)


@st.composite
def _cyclic_formula(draw):
    """``cyclic`` against its documented formula, written by hand."""
    space = draw(spaces(max_rank=1))
    parts, block = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    first = la.cyclic(space, space.names[0], parts, block=block)
    (d,) = space.symbols
    second = la.IndexMap(space, first.codomain,
                         [(d // block) % parts, (d // (block * parts)) * block + d % block],
                         name="formula")
    return first, second


@st.composite
def _colex_route(draw):
    """CuTe ``(A,B):(B,1)`` equals delinearize, swap and linearize."""
    a, b = draw(st.integers(1, 14)), draw(st.integers(1, 14))
    first = la.strided((a, b), (b, 1))
    space = la.Space(i=a * b)
    swapped = la.permute(la.delinearize(space, "i", q=b, r=a), ["r", "q"])
    return first, la.linearize(swapped, name="offset")


@st.composite
def _cute_composition(draw):
    """CuTe: ``N:d ∘ B`` equals B with its strides times ``d``."""
    # a cosize override below the images is no layout to compose (compose refuses it)
    inner = draw(strided_layouts(max_size=60).filter(lambda m: not brute.check_in_bounds(m).refuted))
    cosize = inner.codomain.extents[0]
    d = draw(st.integers(1, 3))
    outer = la.strided(cosize + draw(st.integers(0, 3)), d)
    shape, stride = _shape_stride(inner)
    try:
        composed = la.compose(inner, outer)
    except la.CompositionError:  # inner's padding, pulled back through an outer with no
        reject()  # inverse, would be a predicate of more than RUN_LIMIT runs: compose says so
    return composed, la.strided(shape, tuple(d * s for s in stride))


def _shape_stride(m: la.IndexMap):
    """Recover a flat ``(shape, stride)`` of a ``strided`` map from its label."""
    shape_text, stride_text = m.name.split(":")
    return _flat(shape_text), _flat(stride_text)


def _flat(text: str) -> tuple[int, ...]:
    return tuple(int(t) for t in text.replace("(", " ").replace(")", " ").replace(",", " ").split())


ROUTES = (_split_fuse, _scale_linearize, _round_trip, _cyclic_formula, _colex_route,
          _cute_composition)


@st.composite
def equivalence_pairs(draw):
    """Two maps over one domain with codomains of equal rank: equal by a
    different route, the same map rewritten, perturbed copies, or unrelated."""
    kind = draw(st.sampled_from(["route", "route", "rewrite", "perturb", "unrelated"]))
    if kind == "route":
        first, second = draw(draw(st.sampled_from(ROUTES))())
    elif kind == "rewrite":
        first = draw(layouts())
        second = _rewritten(first)
    elif kind == "perturb":
        first = draw(st.one_of(layouts(), hand_maps()))
        second = _fault(draw, first, "expr")
    else:
        first = draw(hand_maps())
        exprs = [draw(expressions(first.domain.symbols)) for _ in first.exprs]
        second = la.IndexMap(first.domain, first.codomain, exprs, name="other")
    if kind != "perturb" and draw(st.integers(0, 3)) == 0:
        second = _fault(draw, second, "expr")
    if draw(st.booleans()):
        first, second = second, first
    return first, second


# -- check_fits ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FitProblem:
    m: la.IndexMap
    capacity: int
    per: tuple[str, ...]
    element_bytes: int
    offsets_in_bytes: bool


def needed_bytes(m, per, element_bytes, offsets_in_bytes) -> np.ndarray:
    """The byte end of every element (as check_fits defines it)."""
    _, inside = memory_dims(m, per)
    _, ys = brute.image_table(m)
    flat = flat_offset(m, [ys[:, k] for k in range(ys.shape[1])], inside)
    return np.broadcast_to(np.asarray(byte_end(flat, element_bytes, offsets_in_bytes)), (len(ys),))


@st.composite
def fit_problems(draw):
    """A map, the dims naming a memory, and a capacity within a few bytes of the need."""
    m = draw(maps())
    names = m.codomain.names
    count = draw(st.integers(0, len(names) - 1))
    per = tuple(draw(st.permutations(names))[:count])
    element_bytes = draw(st.sampled_from([1, 2, 4]))
    offsets_in_bytes = draw(st.booleans())
    need = int(needed_bytes(m, per, element_bytes, offsets_in_bytes).max())
    # a negative capacity is bad input (MapError), not a question
    capacity = max(0, need + draw(st.integers(-element_bytes - 1, element_bytes + 1)))
    return FitProblem(m, capacity, per, element_bytes, offsets_in_bytes)


# -- check_conflict_free ------------------------------------------------------------------


@dataclass(frozen=True)
class ConflictProblem:
    space: la.Space
    accesses: dict
    resource: la.IndexMap | None

    @property
    def well_formed(self) -> bool:
        """Without a resource map the accesses must share one codomain rank."""
        ranks = {access.codomain.rank for access in self.accesses.values()}
        return self.resource is not None or len(ranks) == 1


def _resource(draw, address: int) -> la.IndexMap | None:
    channels = draw(st.integers(1, 8))
    granule = draw(st.sampled_from([1, 2, 4, 8, 16]))
    kind = draw(st.sampled_from(["interleave", "interleave", "range", "skewed", "none"]))
    if kind == "none":
        return None
    domain = la.Space(addr=address)
    (a,) = domain.symbols
    if kind == "interleave":
        expr = (a // granule) % channels
    elif kind == "range":
        chunk = granule * draw(st.integers(1, 16))
        expr = a // chunk
        channels = -(-address // chunk)
    else:
        expr = (a // granule + a // (granule * channels)) % channels
    return la.IndexMap(domain, la.Space(channel=max(1, channels)), [expr], name=kind)


@st.composite
def conflict_problems(draw):
    """An iteration space, 2-3 accesses (tile base addresses) and a resource map."""
    space = draw(spaces(names=("ti", "tj", "tk")))
    address = 4096
    resource = _resource(draw, address)
    count = draw(st.integers(2, 3))
    rank = 1 if resource is not None else draw(st.integers(1, 2))
    mixed = resource is None and draw(st.integers(0, 15)) == 0
    accesses = {}
    for k in range(count):
        if mixed:
            rank = 1 + k % 2
        tile = draw(st.sampled_from([1, 2, 4, 8, 16, 64]))
        exprs = []
        for _ in range(rank):
            base = draw(st.integers(0, 64))
            expr = sympy.Integer(base)
            for symbol in space.symbols:
                expr += draw(st.sampled_from([0, 0, 1, 2, 3, 5])) * tile * symbol
            if draw(st.integers(0, 3)) == 0:
                expr = draw(perturbed(expr, space.symbols)) if draw(st.booleans()) else (
                    expr % draw(st.integers(2, 9)))
            exprs.append(expr)
        names = ("addr",) if resource is not None else tuple(f"r{j}" for j in range(len(exprs)))
        codomain = la.Space.of(names, (address,) * len(exprs))
        accesses[f"x{k}"] = la.IndexMap(space, codomain, exprs, name=f"x{k}")
    return ConflictProblem(space, accesses, resource)




# -- compose ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ComposeProblem:
    first: la.IndexMap
    then: la.IndexMap
    bijections: bool  # both parts are bijections onto their valid slots


@st.composite
def compose_problems(draw):
    """``first`` and a one-combinator ``then`` whose domain is ``first``'s
    codomain with some extents one larger or one smaller (so the chain
    sometimes needs, and sometimes fails, compose's in-bounds proof)."""
    bijections = draw(st.booleans())
    first = draw(layouts(bijective=True) if bijections else maps())
    extents = [max(1, e + draw(st.sampled_from([0, 0, 0, 1, -1]))) for e in first.codomain.extents]
    space = la.Space.of(tuple(f"t{k}" for k in range(len(extents))), tuple(extents))
    step = STEPS[draw(st.sampled_from(sorted(STEPS)))]
    then = step(draw, space, Fresh()) or la.identity(space)
    return ComposeProblem(first, then, bijections)
