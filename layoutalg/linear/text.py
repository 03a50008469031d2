"""Reading linear layouts in the forms Triton prints them.

Two forms are read (``str(layout)`` writes the first):

- ``LinearLayout::toString`` (triton-lang/triton ``lib/Tools/LinearLayout.cpp``)::

       - register=1 -> (0, 1)
         register=2 -> (8, 0)
       - lane=1 -> (0, 2)
       - warp is a size 1 dimension
      where out dims are: [dim0 (size 16), dim1 (size 8)]

- the TTGIR attribute of a ``LinearEncodingAttr``, as in Triton's lit tests::

      #ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4]], warp = [], block = []}>

  which carries no out dim sizes: pass ``shape`` (the tensor's), or they are
  inferred as Triton's inferring constructor does.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from layoutalg.errors import describe
from layoutalg.linear.errors import LinearLayoutError
from layoutalg.linear.layout import LinearLayout

_BASIS = re.compile(r"^\s*(?:-\s*)?([A-Za-z_]\w*)=(\d+)\s*->\s*\(([\d,\s]*)\)\s*$")
_SIZE_ONE = re.compile(r"^\s*-\s*([A-Za-z_]\w*) is a size 1 dimension\s*$")
_OUTS = re.compile(r"^\s*where out dims are:\s*\[(.*)\]\s*$")
_OUT = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(size\s*(\d+)\)\s*$")
_ATTR = re.compile(r"^\s*(?:#ttg\.linear<)?\s*\{(.*)\}\s*>?\s*$", re.S)
_ENTRY = re.compile(r"([A-Za-z_]\w*)\s*=\s*(\[[\[\]\d,\s-]*\])")


def parse_linear_layout(text: str, *, shape: Sequence[int] | None = None) -> LinearLayout:
    """A layout from Triton's ``toString`` text or its ``#ttg.linear<{…}>`` attribute.

    >>> parse_linear_layout("#ttg.linear<{register = [[1], [2]], lane = [[4]], warp = [], "
    ...                     "block = []}>").out_dims
    (('dim0', 8),)
    """
    if not isinstance(text, str):
        raise LinearLayoutError(f"parse_linear_layout: text must be a string; got "
                                f"{describe(text)}")
    if "->" in text or "where out dims are" in text:
        layout = _from_tostring(text)
    else:
        layout = _from_attribute(text)
    if shape is None:
        return layout
    if not isinstance(shape, (list, tuple)) or len(shape) != len(layout.out_dims):
        raise LinearLayoutError(f"parse_linear_layout: shape must give one size per out dim "
                                f"{layout.out_names}; got {describe(shape)}")
    return LinearLayout(layout.bases, list(zip(layout.out_names, shape)))


def _from_tostring(text: str) -> LinearLayout:
    bases: dict[str, list[list[int]]] = {}
    out_dims = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if m := _BASIS.match(line):
            name, power, values = m.group(1), int(m.group(2)), m.group(3)
            vectors = bases.setdefault(name, [])
            if power != 1 << len(vectors):
                raise LinearLayoutError(f"parse_linear_layout: line {number} gives {name}="
                                        f"{power}, but the next basis of {name} is "
                                        f"{name}={1 << len(vectors)}: {line.strip()!r}")
            vectors.append([int(v) for v in values.split(",") if v.strip()])
        elif m := _SIZE_ONE.match(line):
            bases.setdefault(m.group(1), [])
        elif m := _OUTS.match(line):
            out_dims = []
            for part in filter(str.strip, m.group(1).split(",")):
                if not (o := _OUT.match(part)):
                    raise LinearLayoutError(f"parse_linear_layout: cannot read out dim "
                                            f"{part.strip()!r} on line {number}")
                out_dims.append((o.group(1), int(o.group(2))))
        else:
            raise LinearLayoutError(
                f"parse_linear_layout: cannot read line {number}: {line.strip()!r} (expected "
                f"'name=2^i -> (values)', '- name is a size 1 dimension' or "
                f"'where out dims are: [...]')")
    if out_dims is None:
        raise LinearLayoutError("parse_linear_layout: the text has no 'where out dims are: "
                                "[...]' line, so the out dims are unknown")
    return LinearLayout(list(bases.items()), out_dims)


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
    return LinearLayout([(name, ast.literal_eval(values)) for name, values in entries])


__all__ = ["parse_linear_layout"]
