"""A CuTe layout as a value: nested ``shape:stride`` of ints, in CuTe notation.

``CuteLayout`` is what CuTe (and pycute) call a ``Layout``: the function of
:mod:`layoutalg.core.cute` (colexicographic; the last mode takes what is left).
Its ``str`` is CuTe's notation ``(4,(2,2)):(2,(1,8))``; :func:`parse_layout`
reads it back; :meth:`CuteLayout.index_map` is :func:`layoutalg.strided` of it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from layoutalg.core.cute import format_nested, nesting, strided
from layoutalg.core.index_map import IndexMap
from layoutalg.core.laid_out import bridge
from layoutalg.errors import MapError, describe
from layoutalg.validate import is_int

IntTuple = int | tuple
_TOKEN = re.compile(r"(\d+)|\S")  # a number, or one other non-space character


def flatten(value: IntTuple) -> tuple[int, ...]:
    """The leaves of a nested tuple, in order: ``flatten((2,(3,4))) == (2, 3, 4)``."""
    if isinstance(value, tuple):
        return tuple(leaf for part in value for leaf in flatten(part))
    return (value,)


def _normalized(value: object, argument: str, *, least: int) -> IntTuple:
    """``value`` as nested tuples of Python ints ``>= least``, or MapError."""
    if isinstance(value, tuple):
        if not value:
            raise MapError(f"CuteLayout: {argument} must not contain an empty tuple; got ()")
        return tuple(_normalized(v, argument, least=least) for v in value)
    if isinstance(value, list):
        raise MapError(f"CuteLayout: {argument} must use tuples, not lists; got {describe(value)}")
    if not is_int(value) or value < least:
        rule = "positive integers" if least == 1 else "nonnegative integers"
        raise MapError(f"CuteLayout: {argument} must hold {rule} (nested tuples allowed); "
                       f"got {describe(value)}")
    return int(value)


@dataclass(frozen=True)
class CuteLayout:
    """CuTe's ``shape:stride`` layout, frozen and hashable.

    Args:
        shape: a positive int or a nested tuple of them.
        stride: the same nesting, nonnegative ints (negative strides are
            not supported, as in :func:`layoutalg.strided`).

    >>> a = CuteLayout((4, (2, 2)), (2, (1, 8)))
    >>> str(a), a.size, a.cosize, a(5)
    ('(4,(2,2)):(2,(1,8))', 16, 16, 3)
    """

    shape: IntTuple
    stride: IntTuple

    def __post_init__(self) -> None:
        shape = _normalized(self.shape, "shape", least=1)
        stride = _normalized(self.stride, "stride", least=0)
        if nesting(shape) != nesting(stride):
            raise MapError(f"CuteLayout: shape and stride must have the same nesting; got shape "
                           f"{format_nested(shape)} and stride {format_nested(stride)}")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "stride", stride)

    @property
    def rank(self) -> int:
        """The number of top-level modes (1 for an int shape)."""
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    @property
    def modes(self) -> tuple[CuteLayout, ...]:
        """The top-level modes, each a layout."""
        if isinstance(self.shape, tuple):
            return tuple(CuteLayout(s, d) for s, d in zip(self.shape, self.stride))
        return (self,)

    def __getitem__(self, k: int) -> CuteLayout:
        return self.modes[k]

    def leaves(self) -> tuple[tuple[int, int], ...]:
        """``(shape, stride)`` of every flat mode, in order."""
        return tuple(zip(flatten(self.shape), flatten(self.stride)))

    @property
    def size(self) -> int:
        """The domain's size: the product of the shape."""
        return math.prod(flatten(self.shape))

    @property
    def cosize(self) -> int:
        """The codomain's size: ``L(size - 1) + 1`` (the largest offset plus one)."""
        return self.offset(self.size - 1) + 1

    def offset(self, i: int) -> int:
        """``L(i)`` for any ``i >= 0``; past ``size`` the last mode keeps counting, as in CuTe."""
        leaves = self.leaves()
        total = 0
        for k, (s, d) in enumerate(leaves):
            coordinate = i if k == len(leaves) - 1 else i % s
            total += coordinate * d
            i //= s
        return total

    def __call__(self, i: int) -> int:
        """``L(i)`` for a flat index ``0 <= i < size``."""
        if not is_int(i) or not 0 <= i < self.size:
            raise MapError(f"CuteLayout {self}: index must be an int in [0, {self.size}); "
                           f"got {describe(i)}")
        return self.offset(int(i))

    def index_map(self, *, cosize: int | None = None, name: str | None = None) -> IndexMap:
        """The map ``[i:size] → [offset:cosize]`` (``layoutalg.strided`` of the same layout);
        ``cosize`` overrides the codomain extent (e.g. to feed another's domain of that size)."""
        return strided(self.shape, self.stride, cosize=cosize, name=name or str(self))

    def __str__(self) -> str:
        return f"{format_nested(self.shape)}:{format_nested(self.stride)}"

    def __repr__(self) -> str:
        return f"CuteLayout({self.shape!r}, {self.stride!r})"

    @classmethod
    def from_pycute(cls, layout: object) -> CuteLayout:
        """The same layout as a ``pycute.Layout`` (or anything with ``shape`` and ``stride``:
        duck-typed, pycute is never imported here)."""
        if isinstance(layout, CuteLayout):
            return layout
        if not (hasattr(layout, "shape") and hasattr(layout, "stride")):
            raise MapError(f"CuteLayout.from_pycute: layout must have .shape and .stride "
                           f"(a pycute.Layout); got {describe(layout)}")
        return cls(layout.shape, layout.stride)


def as_layout(value: object, argument: str) -> CuteLayout:
    """A ``CuteLayout`` from a layout, CuTe text, a pycute layout or an int ``n`` (``n:1``)."""
    if isinstance(value, CuteLayout):
        return value
    if isinstance(value, str):
        return parse_layout(value)
    if is_int(value) and value >= 1:
        return CuteLayout(int(value), 1)
    if hasattr(value, "shape") and hasattr(value, "stride"):
        return CuteLayout.from_pycute(value)
    raise MapError(f"{argument} must be a CuteLayout, CuTe text such as '(4,2):(1,4)', a "
                   f"pycute.Layout or a positive int; got {describe(value)}")


def parse_layout(text: str) -> CuteLayout:
    """Read CuTe notation: ``parse_layout("(4,(2,2)):(2,(1,8))")``.

    Spaces are ignored. Raises MapError naming the position of the first
    character that does not fit.

    >>> parse_layout("(6, 2):(8, 2)")
    CuteLayout((6, 2), (8, 2))
    """
    if not isinstance(text, str):
        raise MapError(f"parse_layout: text must be a string such as '(4,2):(1,4)'; "
                       f"got {describe(text)}")
    # Recursive descent over int | '(' tuple (',' tuple)* ')', on tokens
    # (position, text, is a number); the end of the text is an empty token.
    tokens = [(m.start(), m[0], m[1] is not None) for m in _TOKEN.finditer(text)]
    tokens.append((len(text), "", False))
    at = 0

    def take(token: str, wanted: str) -> None:
        nonlocal at
        position, found, _ = tokens[at]
        if found != token:
            got = repr(found[0]) if found else "the end"
            raise MapError(f"parse_layout: expected {wanted} at position {position} of "
                           f"{text!r}; got {got}")
        at += 1

    def int_tuple(what: str) -> IntTuple:
        nonlocal at
        _, token, number = tokens[at]
        if number:
            at += 1
            return int(token)
        take("(", f"a number or '(' in {what}")
        items = [int_tuple(what)]
        while tokens[at][1] == ",":
            at += 1
            items.append(int_tuple(what))
        take(")", f"',' or ')' in {what}")
        return tuple(items)

    shape = int_tuple("the shape")
    take(":", "':' between shape and stride")
    stride = int_tuple("the stride")
    take("", "the end of the layout")
    return CuteLayout(shape, stride)


#: A spec may return a pycute ``Layout`` itself (pycute is never imported here).
bridge("pycute Layout", "pycute", "Layout", CuteLayout.from_pycute)
