"""A Triton linear layout as a value: bases per input dimension, over GF(2).

Triton (``include/triton/Tools/LinearLayout.h``, triton-lang/triton) defines a
linear layout by its *bases*: ``bases[in_dim][i]`` is the output (one value per
out dim) at ``in_dim = 2**i``, every other input 0; any other output is the XOR
of the bases of the input's set bits (``L(x ⊕ y) = L(x) ⊕ L(y)``). An in dim
with ``k`` bases has ``2**k`` values; out dims have power-of-two sizes.

Bits are numbered as Triton flattens dims (minor to major): input bits run over
the in dims in order, an output flattens to ``dim0 + size(dim0) * (dim1 + …)``;
:attr:`LinearLayout.columns` is the GF(2) matrix in that numbering.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import flatten_colex, unflatten_colex
from layoutalg.errors import LinearLayoutError, describe
from layoutalg.linear import gf2
from layoutalg.linear.maps import xor_index_map
from layoutalg.validate import (
    all_distinct,
    identifier,
    index,
    int_tuple,
    is_int,
    named_pairs,
    power_of_two,
)

Bases = tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]
OutDims = tuple[tuple[str, int], ...]
WHERE, NAMES = "LinearLayout", "'lane' or 'dim0'"


@dataclass(frozen=True)
class LinearLayout:
    """Triton's ``LinearLayout``: ``bases`` ``{in_dim: [basis, …]}`` (or pairs, in order),
    each basis one nonnegative int per out dim; ``out_dims`` names (default ``dim0,
    dim1, …``; sizes inferred as Triton does: the largest value rounded up to a power
    of two) or ``{name: power-of-two size}``. Surjectivity is not required (Triton's
    inferring constructor asserts it).

    >>> mma = LinearLayout({"register": [[0, 1], [8, 0]],
    ...                     "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]})
    >>> mma.out_dims, mma(register=3, lane=5)
    ((('dim0', 16), ('dim1', 8)), (9, 3))
    """

    bases: Bases
    out_dims: OutDims = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        bases = _bases(self.bases)
        out_dims = _out_dims(self.out_dims, bases)
        for name, vectors in bases:
            for i, vector in enumerate(vectors):
                if len(vector) != len(out_dims):
                    raise LinearLayoutError(
                        f"LinearLayout: bases[{name!r}][{i}] must hold one value per out dim "
                        f"{tuple(n for n, _ in out_dims)}; got {list(vector)}")
                for (out, size), v in zip(out_dims, vector):
                    if v >= size:
                        raise LinearLayoutError(
                            f"LinearLayout: bases[{name!r}][{i}] = {list(vector)} has {out}={v}, "
                            f"past out dim {out!r} of size {size}")
        object.__setattr__(self, "bases", bases)
        object.__setattr__(self, "out_dims", out_dims)

    @property
    def in_dims(self) -> tuple[tuple[str, int], ...]:
        """``(name, size)`` per in dim; size is ``2 ** len(bases)``."""
        return tuple((name, 1 << len(vectors)) for name, vectors in self.bases)

    @property
    def in_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.bases)

    @property
    def out_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.out_dims)

    @property
    def in_bits(self) -> int:
        return sum(len(vectors) for _, vectors in self.bases)

    @property
    def out_bits(self) -> int:
        return sum(size.bit_length() - 1 for _, size in self.out_dims)

    @property
    def in_size(self) -> int:
        return 1 << self.in_bits

    @property
    def out_size(self) -> int:
        return 1 << self.out_bits

    @property
    def label(self) -> str:
        """One line for messages: ``LinearLayout(lane:32, warp:4 → dim0:16, dim1:8)``."""
        ins = ", ".join(f"{n}:{s}" for n, s in self.in_dims)
        outs = ", ".join(f"{n}:{s}" for n, s in self.out_dims)
        return f"LinearLayout({ins} → {outs})"

    def basis(self, in_dim: str, i: int) -> tuple[int, ...]:
        """``L(in_dim = 2**i)``."""
        bases = dict(self.bases)
        if not isinstance(in_dim, str) or in_dim not in bases:
            raise LinearLayoutError(f"LinearLayout.basis: in_dim must be one of the in dims "
                                    f"{self.in_names}; got {describe(in_dim)}")
        count = len(bases[in_dim])
        if not is_int(i) or not 0 <= i < count:
            raise LinearLayoutError(f"LinearLayout.basis: i must be an int in [0, {count}) "
                                    f"(in dim {in_dim!r} has {count} bases); got {describe(i)}")
        return bases[in_dim][i]

    def flat_out(self, values: Sequence[int]) -> int:
        """An output tuple as one int, ``dim0`` in the lowest bits."""
        if not isinstance(values, (list, tuple)) or len(values) != len(self.out_dims) or any(
                not is_int(v) or not 0 <= v < size for v, (_, size) in zip(values, self.out_dims)):
            raise LinearLayoutError(f"LinearLayout.flat_out: values must be one int per out dim "
                                    f"in [0, size) of {dict(self.out_dims)}; got "
                                    f"{describe(values)}")
        return pack(values, self.out_dims)

    def unflat_out(self, flat: int) -> tuple[int, ...]:
        _check_flat(flat, self.out_size, "LinearLayout.unflat_out")
        return tuple(_unpack(flat, self.out_dims).values())

    def flat_in(self, point: Mapping[str, int]) -> int:
        """An input ``{in_dim: value}`` as one int (the first in dim lowest)."""
        self._check_point(point, "LinearLayout.flat_in")
        return pack([point.get(name, 0) for name in self.in_names], self.in_dims)

    def unflat_in(self, flat: int) -> dict[str, int]:
        _check_flat(flat, self.in_size, "LinearLayout.unflat_in")
        return _unpack(flat, self.in_dims)

    @cached_property
    def columns(self) -> tuple[int, ...]:
        """One int per input bit: the flattened output of that bit alone."""
        return tuple(self.flat_out(v) for _, vectors in self.bases for v in vectors)

    @property
    def rank(self) -> int:
        return gf2.rank(self.columns)

    def __call__(self, /, **point: int) -> tuple[int, ...]:
        """``L(point)``: the XOR of the bases of the set bits (missing in dims are 0)."""
        return self.unflat_out(gf2.apply(self.columns, self.flat_in(point)))

    def _check_point(self, point: Mapping[str, int], who: str) -> None:
        if not isinstance(point, Mapping):
            raise LinearLayoutError(f"{who}: point must be a dict {{in_dim: value}}; got "
                                    f"{describe(point)}")
        sizes = dict(self.in_dims)
        for name, value in point.items():
            if name not in sizes:
                raise LinearLayoutError(f"LinearLayout: unknown in dim {name!r}; the in dims "
                                        f"are {self.in_names}")
            index(LinearLayoutError, name, value, sizes[name], where="LinearLayout")

    def apply_flat(self, x: int) -> int:
        """The flattened output of the flattened input ``x``."""
        _check_flat(x, self.in_size, "LinearLayout.apply_flat")
        return gf2.apply(self.columns, x)

    def inverse(self) -> LinearLayout:
        """The inverse layout (out dims → in dims) of an invertible layout (Triton's ``invert``).

        >>> LinearLayout({"lane": [[2], [1]]}).inverse()(dim0=2)
        (1,)
        """
        state = gf2.eliminate(self.columns)
        if state.kernel or len(state.pivots) != self.out_bits:
            raise LinearLayoutError(f"LinearLayout.inverse: the layout must be invertible "
                                    f"(rank {len(state.pivots)}, {self.in_bits} input bits, "
                                    f"{self.out_bits} output bits); got {self!r}")
        def preimage(name: str, j: int) -> list[int]:  # the input of out dim ``name`` = 2**j
            unit = self.flat_out([1 << j if n == name else 0 for n in self.out_names])
            return list(self.unflat_in(state.reduce(unit)[1]).values())

        return LinearLayout([(name, [preimage(name, j) for j in range(size.bit_length() - 1)])
                             for name, size in self.out_dims], list(self.in_dims))

    @property
    def invertible(self) -> bool:
        return self.in_bits == self.out_bits == self.rank

    def index_map(self, *, name: str | None = None) -> IndexMap:
        """The map as an ``IndexMap`` of XORs of bits (:mod:`layoutalg.linear.maps`), with
        its inverse when invertible, so the generic checks (``la.check_bijective``) apply.

        >>> m = LinearLayout({"lane": [[1, 1], [2, 0]]}, {"dim0": 4, "dim1": 2}).index_map()
        >>> m(3), m.inverse is None
        ((3, 1), True)
        """
        back = [vectors for _, vectors in self.inverse().bases] if self.invertible else None
        return xor_index_map(self.in_dims, self.out_dims, [vs for _, vs in self.bases], back,
                             name=name or "linear_layout")

    def __str__(self) -> str:
        """Triton's ``LinearLayout::toString`` text, line for line (triton-lang/triton
        ``lib/Tools/LinearLayout.cpp``: no in dims prints ``(empty layout)``, or
        ``(empty layout with out-dims [...])`` when there are out dims)."""
        outs = ", ".join(f"{n} (size {s})" for n, s in self.out_dims)
        if not self.bases:
            return f"\n(empty layout with out-dims [{outs}])" if outs else "\n(empty layout)"
        lines = [""]
        for name, vectors in self.bases:
            if not vectors:
                lines.append(f" - {name} is a size 1 dimension")
            for i, vector in enumerate(vectors):
                lead = " - " if i == 0 else "   "
                lines.append(f"{lead}{name}={1 << i} -> ({', '.join(map(str, vector))})")
        lines.append(f"where out dims are: [{outs}]")
        return "\n".join(lines)

    def __repr__(self) -> str:
        bases = ", ".join(f"{n!r}: {[list(v) for v in vs]}" for n, vs in self.bases)
        return f"LinearLayout({{{bases}}}, out_dims={dict(self.out_dims)!r})"

    @classmethod
    def from_triton(cls, layout: object) -> LinearLayout:
        """From Triton's own Python ``LinearLayout`` (``triton._C.libtriton.linear_layout``)
        or anything with ``.bases`` (pairs) and ``.out_dims`` (pairs); duck-typed."""
        if not (hasattr(layout, "bases") and hasattr(layout, "out_dims")):
            raise LinearLayoutError(f"LinearLayout.from_triton: layout must have .bases and "
                                    f".out_dims (a triton LinearLayout); got {describe(layout)}")
        bases, out_dims = layout.bases, layout.out_dims
        for argument, value in (("bases", bases), ("out_dims", out_dims)):
            if not isinstance(value, (list, tuple, Mapping)):
                raise LinearLayoutError(f"LinearLayout.from_triton: layout.{argument} must be a "
                                        f"list of (name, ...) pairs; got {describe(value)}")
        return cls(bases if isinstance(bases, Mapping) else list(bases),
                   out_dims if isinstance(out_dims, Mapping) else list(out_dims))

    @classmethod
    def from_gluon(cls, layout: object) -> LinearLayout:
        """From gluon's ``DistributedLinearLayout(reg_bases, lane_bases, warp_bases,
        block_bases, shape)``; duck-typed. Out dims are ``dim0, …`` of the shape's sizes."""
        names = ("reg_bases", "lane_bases", "warp_bases", "block_bases", "shape")
        if not all(hasattr(layout, n) for n in names):
            raise LinearLayoutError(f"LinearLayout.from_gluon: layout must have {names}; got "
                                    f"{describe(layout)}")
        for n in names:
            if not isinstance(getattr(layout, n), (list, tuple)):
                raise LinearLayoutError(f"LinearLayout.from_gluon: layout.{n} must be a list; "
                                        f"got {describe(getattr(layout, n))}")
        return distributed(layout.reg_bases, layout.lane_bases, layout.warp_bases,
                           layout.block_bases, shape=layout.shape)


def _bases(value: object) -> Bases:
    """The bases as nested tuples of ints ≥ 0, one tuple per in dim (names distinct)."""
    result = []
    for name, vectors in named_pairs(LinearLayoutError, "bases", value, where=WHERE):
        name = identifier(LinearLayoutError, "an in dim name", name, where=WHERE, example=NAMES)
        if not isinstance(vectors, (list, tuple)):
            raise LinearLayoutError(f"LinearLayout: bases[{name!r}] must be a list of basis "
                                    f"vectors such as [[0, 1], [1, 0]]; got {describe(vectors)}")
        result.append((name, tuple(int_tuple(LinearLayoutError, f"bases[{name!r}][{i}]", vector,
                                             least=0, where=WHERE)
                                   for i, vector in enumerate(vectors))))
    all_distinct(LinearLayoutError, "in dim names", [n for n, _ in result], where=WHERE)
    return tuple(result)


def _out_dims(value: object, bases: Bases) -> OutDims:
    """Out dims from names (sizes inferred as Triton does) or from name → size."""
    width = {len(v) for _, vs in bases for v in vs}
    if value is None:
        if len(width) > 1:
            raise LinearLayoutError(f"LinearLayout: every basis must have the same length; "
                                    f"got lengths {sorted(width)}")
        value = [f"dim{k}" for k in range(width.pop() if width else 0)]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = [identifier(LinearLayoutError, "an out dim name", v, where=WHERE, example=NAMES)
                 for v in value]
        # Triton's inferring constructor: the largest value, rounded up to a power of two.
        top = [max((vs[k] for _, b in bases for vs in b if len(vs) == len(names)), default=0)
               for k in range(len(names))]
        pairs = [(n, 1 << t.bit_length()) for n, t in zip(names, top)]
    else:
        pairs = [(identifier(LinearLayoutError, "an out dim name", n, where=WHERE, example=NAMES),
                  power_of_two(LinearLayoutError, f"out dim {n!r} size", size, where=WHERE))
                 for n, size in named_pairs(LinearLayoutError, "out_dims", value, where=WHERE)]
    all_distinct(LinearLayoutError, "out dim names", [n for n, _ in pairs], where=WHERE)
    return tuple(pairs)


def pack(values: Sequence[int], dims) -> int:
    """One value per ``(name, size)`` of ``dims`` as one int, the first lowest (colexicographic)."""
    return flatten_colex([int(v) for v in values], [size for _, size in dims])


def _unpack(flat: int, dims) -> dict[str, int]:
    """The inverse of :func:`pack` on ``[0, product of sizes)``: ``{name: value}``."""
    return dict(zip((name for name, _ in dims), unflatten_colex(flat, [s for _, s in dims])))


def _check_flat(flat: object, size: int, who: str) -> None:
    if not is_int(flat) or not 0 <= flat < size:
        raise LinearLayoutError(f"{who}: the flat index must be an int in [0, {size}); got "
                                f"{describe(flat)}")


def distributed(reg=(), lane=(), warp=(), block=(), *, shape: Sequence[int] | None = None,
                out_dims=None) -> LinearLayout:
    """A register layout ``(register, lane, warp, block) → (dim0, …)``, gluon's argument
    order; ``shape`` gives the out dims' sizes, and then ``out_dims`` may name them.

    >>> distributed(lane=[[1], [2]], warp=[[4], [8]]).out_dims    # SimpleBlocked
    (('dim0', 16),)
    >>> distributed(lane=[[1]], shape=[2], out_dims=["x"]).out_dims
    (('x', 2),)
    """
    for argument, in_dim, vectors in (("reg", "register", reg), ("lane", "lane", lane),
                                      ("warp", "warp", warp), ("block", "block", block)):
        if not isinstance(vectors, (list, tuple)):
            raise LinearLayoutError(f"distributed: {argument} (the {in_dim} bases) must be a "
                                    f"list of basis vectors such as [[0, 1], [1, 0]]; got "
                                    f"{describe(vectors)}")
    if shape is not None:
        if not isinstance(shape, (list, tuple)):
            raise LinearLayoutError(f"distributed: shape must be a list of sizes; got "
                                    f"{describe(shape)}")
        names = [f"dim{k}" for k in range(len(shape))] if out_dims is None else out_dims
        if not (isinstance(names, (list, tuple)) and len(names) == len(shape)
                and all(isinstance(n, str) for n in names)):
            raise LinearLayoutError(f"distributed: with shape {list(shape)}, out_dims must be "
                                    f"{len(shape)} out dim names (the sizes are the shape's); "
                                    f"got {describe(out_dims)}")
        out_dims = list(zip(names, shape))
    return LinearLayout([("register", list(reg)), ("lane", list(lane)), ("warp", list(warp)),
                         ("block", list(block))], out_dims)


__all__ = ["LinearLayout", "distributed"]
