"""Reading linear layouts in the forms Triton prints them.

- ``LinearLayout::toString`` (triton-lang/triton ``lib/Tools/LinearLayout.cpp``;
  ``str(layout)`` writes it), ``(empty layout …)`` included::

       - register=1 -> (0, 1)
       - warp is a size 1 dimension
      where out dims are: [dim0 (size 16), dim1 (size 8)]

- the TTGIR attribute of a ``LinearEncodingAttr``, as in Triton's lit tests:
  ``#ttg.linear<{register = [[0, 1]], lane = [[0, 2]], warp = [], block = []}>``;
  it carries no out dim sizes: pass ``shape``, or they are inferred as Triton does.

A ``shape`` contradicting the sizes ``toString`` text states is refused, not applied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from layoutalg.errors import LinearLayoutError, describe
from layoutalg.linear.layout import LinearLayout
from layoutalg.validate import is_int

_BASIS = re.compile(r"^\s*(?:-\s*)?([A-Za-z_]\w*)=(\d+)\s*->\s*\(([\d,\s]*)\)\s*$")
_SIZE_ONE = re.compile(r"^\s*-\s*([A-Za-z_]\w*) is a size 1 dimension\s*$")
_OUTS = re.compile(r"^\s*where out dims are:\s*\[(.*)\]\s*$")
_OUT = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(size\s*(\d+)\)\s*$")
_ATTR = re.compile(r"^\s*(?:#ttg\.linear<)?\s*\{(.*)\}\s*>?\s*$", re.DOTALL)
_ENTRY = re.compile(r"([A-Za-z_]\w*)\s*=\s*(\[[\[\]\d,\s-]*\])")
_EMPTY = re.compile(r"^\(empty layout(?: with out-dims \[(.*)\])?\)$")


def parse_linear_layout(text: str, *, shape: Sequence[int] | None = None) -> LinearLayout:
    """A layout from Triton's ``toString`` text or its ``#ttg.linear<{…}>`` attribute.

    >>> parse_linear_layout("#ttg.linear<{register = [[1], [2]], lane = [[4]], warp = [], "
    ...                     "block = []}>").out_dims
    (('dim0', 8),)
    """
    if not isinstance(text, str):
        raise LinearLayoutError(f"parse_linear_layout: text must be a string; got "
                                f"{describe(text)}")
    stated = True       # toString text states its out dim sizes; the attribute does not
    if empty := _EMPTY.match(text.strip()):  # toString of a layout without in dims
        where = "in '(empty layout with out-dims [...])'"
        layout = LinearLayout([], _out_dims(empty.group(1) or "", where))
    elif "->" in text or "where out dims are" in text:
        layout = _from_tostring(text)
    else:
        layout, stated = _from_attribute(text), False
    if shape is None:
        return layout
    if not isinstance(shape, (list, tuple)) or len(shape) != len(layout.out_dims) or not all(
            is_int(s) for s in shape):
        raise LinearLayoutError(f"parse_linear_layout: shape must give one int size per out "
                                f"dim {layout.out_names}; got {describe(shape)}")
    if stated:
        sizes = [s for _, s in layout.out_dims]
        if list(shape) != sizes:
            raise LinearLayoutError(f"parse_linear_layout: shape must agree with the sizes the "
                                    f"text states, {sizes} for {layout.out_names}; got "
                                    f"{describe(shape)}")
        return layout
    return LinearLayout(layout.bases, list(zip(layout.out_names, shape)))


def _number(digits: str) -> int:
    """A decimal int of the text; one clear error past Python's int-from-text limit."""
    try:
        return int(digits.strip())
    except ValueError:
        raise LinearLayoutError(f"parse_linear_layout: a number must be a decimal int Python "
                                f"can read (at most 4300 digits); got {describe(digits)}") from None


def _out_dims(listing: str, where: str) -> list[tuple[str, int]]:
    """``dim0 (size 16), dim1 (size 8)`` as pairs."""
    out_dims = []
    for part in filter(str.strip, listing.split(",")):
        if not (o := _OUT.match(part)):
            raise LinearLayoutError(f"parse_linear_layout: cannot read out dim {part.strip()!r} "
                                    f"{where} (expected 'name (size n)')")
        out_dims.append((o.group(1), _number(o.group(2))))
    return out_dims


def _from_tostring(text: str) -> LinearLayout:
    bases: dict[str, list[list[int]]] = {}
    out_dims = None
    current = None      # the in dim whose lines these are; Triton prints each in dim once
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if out_dims is not None:
            raise LinearLayoutError(f"parse_linear_layout: line {number} follows the 'where out "
                                    f"dims are' line, which Triton prints last: "
                                    f"{line.strip()!r}")
        if m := _BASIS.match(line):
            name, power, values = m.group(1), _number(m.group(2)), m.group(3)
            _once(bases, name, current, number, line)
            current = name
            vectors = bases.setdefault(name, [])
            if power != 1 << len(vectors):
                raise LinearLayoutError(f"parse_linear_layout: line {number} gives {name}="
                                        f"{power}, but the next basis of {name} is "
                                        f"{name}={1 << len(vectors)}: {line.strip()!r}")
            vectors.append([_number(v) for v in values.split(",") if v.strip()])
        elif m := _SIZE_ONE.match(line):
            _once(bases, m.group(1), None, number, line)
            current = None
            bases[m.group(1)] = []
        elif m := _OUTS.match(line):
            out_dims = _out_dims(m.group(1), f"on line {number}")
        else:
            raise LinearLayoutError(
                f"parse_linear_layout: cannot read line {number}: {line.strip()!r} (expected "
                f"'name=2^i -> (values)', '- name is a size 1 dimension' or "
                f"'where out dims are: [...]')")
    if out_dims is None:
        raise LinearLayoutError("parse_linear_layout: the text has no 'where out dims are: "
                                "[...]' line, so the out dims are unknown")
    return LinearLayout(list(bases.items()), out_dims)


def _once(bases: dict, name: str, current: str | None, number: int, line: str) -> None:
    """Refuse a second block of lines for an in dim (a contradiction, e.g. 'lane is a
    size 1 dimension' and then a lane basis): Triton prints each in dim once."""
    if name in bases and name != current:
        said = f"{len(bases[name])} bases long" if bases[name] else "a size 1 dimension"
        raise LinearLayoutError(f"parse_linear_layout: line {number} gives in dim {name!r} "
                                f"again after the text said it is {said}; each in dim must be "
                                f"stated once: {line.strip()!r}")


def _vectors(values: str, name: str, text: str) -> list[list[int]]:
    """``[[0, 1], [8, 0]]`` as lists of ints, read strictly as JSON (no Python evaluation)."""
    try:
        vectors = json.loads(re.sub(r"(?<!\d)0+(?=\d)", "", values))  # JSON refuses 01
    except ValueError:  # not JSON, or an int past Python's 4300-digit limit
        vectors = None
    if not isinstance(vectors, list) or not all(
            isinstance(v, list) and all(is_int(x) for x in v) for v in vectors):
        raise LinearLayoutError(f"parse_linear_layout: {name} must be a list of lists of ints "
                                f"(decimal, at most 4300 digits each) such as [[0, 1], [8, 0]]; "
                                f"got {values.strip()!r} in {describe(text)}")
    return vectors


def _from_attribute(text: str) -> LinearLayout:
    m = _ATTR.match(text)
    if not m:
        raise LinearLayoutError(f"parse_linear_layout: expected Triton's toString text or "
                                f"'#ttg.linear<{{register = [...], ...}}>'; got {describe(text)}")
    body = m.group(1)
    entries = _ENTRY.findall(body)
    rest = _ENTRY.sub("", body).replace(",", "").strip()
    if rest or not entries:
        raise LinearLayoutError(f"parse_linear_layout: cannot read the bases in {describe(text)}")
    return LinearLayout([(name, _vectors(values, name, text)) for name, values in entries])


__all__ = ["parse_linear_layout"]
