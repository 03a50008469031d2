"""SVG pictures of layouts: elements coloured by memory, numbered by offset.

Rank 1 is drawn as rows of 32, rank 2 as it is, higher ranks with their
leading dims folded into rows. A parametric map is drawn for example sizes
that meet its assumptions (``drawn_instance``).
"""

from __future__ import annotations

import colorsys
import html
import math
from collections.abc import Sequence

import numpy as np

from layoutalg.core.index_map import IndexMap
from layoutalg.docgen.sampling import Grid, aligned_grid, element_coords, evaluate_at
from layoutalg.verify.brute import image_table
from layoutalg.verify.instance import example_instance, sizes_text
from layoutalg.verify.result import point_text as coords_text

MAX_SIDE = 48  # cells per side drawn; larger layouts are sampled evenly
CELL = 22


def colour(index: int, count: int) -> str:
    """Distinct, readable fills for ``count`` memories (golden-ratio hues)."""
    hue = (index * 0.618033988749895) % 1.0
    red, green, blue = colorsys.hls_to_rgb(hue, 0.78, 0.55)
    return f"#{int(red * 255):02x}{int(green * 255):02x}{int(blue * 255):02x}"


SHARES_LIMIT = 1 << 20  # elements enumerated to count elements per memory


def drawn_instance(m: IndexMap, assume=()) -> tuple[IndexMap, str] | None:
    """The map to draw and a note on it: ``m`` itself when concrete, else ``m``
    bound to example sizes meeting its assumptions and ``assume`` ("drawn for
    M=7, N=8"). None when no sizes are found."""
    instance = example_instance(m, assume)
    if instance is None:
        return None
    drawn, sizes = instance
    return drawn, f"drawn for {sizes_text(sizes)}" if sizes else ""


def memory_numbers(ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct memories (all image coordinates but the last) of the drawn
    cells, in order, and each cell's memory number."""
    memory = ys[:, :-1]
    if not memory.shape[1]:
        return np.zeros((1, 0), dtype=np.int64), np.zeros(len(ys), dtype=np.int64)
    keys, index = np.unique(memory, axis=0, return_inverse=True)
    return keys, index.ravel()


def folding(m: IndexMap) -> str:
    """How a rank-3+ domain is folded into rows (empty for rank ≤ 2)."""
    if m.domain.rank <= 2:
        return ""
    leading = ", ".join(m.domain.names[:-1])
    return (f"Rows run over ({leading}) in row-major order, columns over "
            f"{m.domain.names[-1]}.")


def caption(m: IndexMap, subject: object = None) -> str:
    """What a cell of ``layout_svg(m, subject=subject)`` stands for, in words."""
    grid = aligned_grid(m, MAX_SIDE)
    rows, cols, _, _ = grid.points(m)
    numbered = cell_numbers(subject, m, rows, cols)
    if grid.sampled:
        number = f", numbered with its {numbered[0]}" if numbered else ""
        return (f"Each cell stands for {block_words(grid)} and is coloured "
                f"by the memory that holds the block's first element{number} "
                "(hover for its place).")
    number = numbered[0] if numbered else "offset there"
    return ("Each cell is an element, coloured by the memory that holds it and "
            f"numbered with its {number} (hover for details).")


def block_words(grid: Grid) -> str:
    """``a 32×32 block of elements`` (or ``a block of up to 16×31 elements``)."""
    rows, cols, even = grid.block()
    return f"a {rows}×{cols} block of elements" if even else \
        f"a block of up to {rows}×{cols} elements"


def cell_numbers(subject: object, m: IndexMap, rows: np.ndarray,
                 cols: np.ndarray) -> tuple[str, np.ndarray] | None:
    """``(unit, numbers)`` when the spec's subject numbers its elements by a
    unit of its own (a Tenstorrent page): it has ``cell_numbering()``
    returning ``(unit, element map)`` whose first image coordinate is the
    unit's number, over the same domain as ``m``. None otherwise."""
    numbering = getattr(subject, "cell_numbering", None)
    if numbering is None:
        return None
    unit, of_element = numbering()
    if of_element.domain.extents != m.domain.extents:
        return None
    return unit, evaluate_at(of_element, rows, cols)[:, 0]


def layout_svg(m: IndexMap, *, title: str | None = None, subject: object = None,
               highlight: Sequence[tuple[int, ...]] = (),
               notes: Sequence[str] | None = None) -> str:
    """The domain as a grid of cells (rank 1 drawn as rows of 32): each cell
    coloured by its memory (all codomain dims but the last) and labelled with
    its offset (the last codomain dim), or with its unit's number when
    ``subject`` numbers its elements (``cell_numbers``; then sampled cells
    are labelled too). A label too wide for its cell is set smaller, or left
    to the cell's tooltip, never drawn over its neighbours.

    ``highlight``: elements (domain points, e.g. a counterexample's) outlined
    in red, numbered, and listed under the grid with their images and what
    is wrong with them (``point_text``), or with ``notes`` (one per element)
    when the family says it better (a channel conflict's channels)."""
    if not m.is_concrete:
        raise ValueError(f"layout_svg draws concrete layouts (bind the sizes first); "
                         f"got {m.domain}")
    grid = aligned_grid(m, MAX_SIDE)
    rows, cols, cell_rows, cell_cols = grid.points(m)
    ys = evaluate_at(m, rows, cols)
    numbered = cell_numbers(subject, m, rows, cols)
    labels = numbered[1] if numbered else (None if grid.sampled else ys[:, -1])
    keys, memory_index = memory_numbers(ys)
    n_rows, n_cols = int(cell_rows.max()) + 1, int(cell_cols.max()) + 1
    if grid.sampled:
        title = f"{title or ''} (one cell per {block_words(grid)[2:]})".strip()
    top = 28 if title else 6
    marked = [(point, grid.cell_of(m, point)) for point in highlight]
    if notes is not None and len(notes) != len(highlight):
        raise ValueError(f"layout_svg: notes must say one thing per highlighted element "
                         f"({len(highlight)}); got {len(notes)}")
    said = [point_text(m, point) for point in highlight] if notes is None else list(notes)
    notes = [f"{k}: {note}" for k, note in enumerate(said, start=1)]
    title_px = int(len(title) * 7.3) + 12 if title else 0  # 12px monospace
    notes_px = max((int(len(note) * 6.7) + 12 for note in notes), default=0)  # 11px
    grid_bottom = n_rows * CELL + top
    width_px = max(n_cols * CELL + 12, title_px, notes_px)
    height_px = grid_bottom + 8 + 16 * len(notes)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width_px}" height="{height_px}" '
             f'viewBox="0 0 {width_px} {height_px}" font-family="monospace" font-size="8">']
    if title:
        parts.append(f'<text x="6" y="18" font-size="12">{html.escape(title)}</text>')
    memory_names = m.codomain.names[:-1]
    coords = [np.broadcast_to(v, rows.shape) for v in element_coords(m, rows, cols)]
    unit = f"{numbered[0]} " if numbered else ""
    for cell, (r, c, k, y) in enumerate(zip(cell_rows, cell_cols, memory_index, ys)):
        x0, y0 = 6 + int(c) * CELL, top + int(r) * CELL
        where = ", ".join(f"{n}={v}" for n, v in zip(memory_names, y[:-1]))
        element = ", ".join(str(int(v[cell])) for v in coords)
        tip = html.escape(f"element ({element}) → {where + ', ' if where else ''}"
                          f"{m.codomain.names[-1]}={y[-1]}"
                          + (f"; {unit}{int(labels[cell])}" if numbered else ""))
        parts.append(f'<g><title>{tip}</title><rect x="{x0}" y="{y0}" width="{CELL - 1}" '
                     f'height="{CELL - 1}" fill="{colour(int(k), len(keys))}"/>'
                     + ("" if labels is None else _label(x0, y0, int(labels[cell])))
                     + "</g>")
    for k, (point, (row, col)) in enumerate(marked, start=1):
        x0, y0 = 6 + col * CELL, top + row * CELL
        parts.append(f'<g class="counterexample"><rect x="{x0 - 1}" y="{y0 - 1}" '
                     f'width="{CELL + 1}" height="{CELL + 1}" fill="none" stroke="{HIGHLIGHT}" '
                     f'stroke-width="3"/><text x="{x0 + CELL - 2}" y="{y0 + 7}" '
                     f'text-anchor="end" font-size="7" font-weight="bold" '
                     f'fill="{HIGHLIGHT}">{k}</text></g>')
    for k, note in enumerate(notes):
        parts.append(f'<text x="6" y="{grid_bottom + 18 + 16 * k}" font-size="11" '
                     f'fill="{HIGHLIGHT}">{html.escape(note)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


HIGHLIGHT = "#c00000"
CHAR_WIDTH = 0.6  # of the font size, for monospace digits


def _label(x0: int, y0: int, number: int) -> str:
    """A cell's number, centred, in a font small enough to stay inside the
    cell (8 px, down to 5 px for long numbers; none below that)."""
    text = str(number)
    size = min(8.0, (CELL - 3) / (CHAR_WIDTH * len(text)))
    if size < 5:
        return ""  # the tooltip still says it
    return (f'<text x="{x0 + CELL / 2 - 0.5}" y="{y0 + CELL / 2 + size * 0.35:.1f}" '
            f'text-anchor="middle"' + (f' font-size="{size:.1f}"' if size < 8 else "")
            + f">{text}</text>")


def counterexample_points(m: IndexMap, counterexample: dict | None) -> list[tuple[int, ...]]:
    """The elements of ``m`` a counterexample names: ``(i=4)`` and, for a
    collision, the second element ``(i'=8)`` (a coordinate without a primed
    twin is shared, as a conflict's step); only points inside the domain.

    >>> import layoutalg as la
    >>> counterexample_points(la.strided((8,), (1,)), {"i": 4, "i'": 6, "offset": 4})
    [(4,), (6,)]
    >>> read = la.linearize(la.Space(col=4, thread=8))  # a bank conflict at step col=1:
    >>> counterexample_points(read, {"col": 1, "thread": 0, "thread'": 3})
    [(1, 0), (1, 3)]
    """
    if not counterexample or not m.is_concrete or m.domain.rank == 0:
        return []
    extents = [int(e) for e in m.domain.extents]
    points = []
    names = m.domain.names
    for prime in ("", "'"):
        if prime and not any(f"{name}'" in counterexample for name in names):
            break
        # A conflict names the second element by its primed lane only
        # (thread and thread' at one step col): the other coordinates are shared.
        keys = [f"{name}'" if prime and f"{name}'" in counterexample else name
                for name in names]
        if all(key in counterexample for key in keys):
            point = tuple(int(counterexample[key]) for key in keys)
            if all(0 <= v < e for v, e in zip(point, extents)) and point not in points:
                points.append(point)
    return points


def point_text(m: IndexMap, point: tuple[int, ...]) -> str:
    """``element (i=992, j=0) → (pe_row=32, pe_col=0, offset=0): pe_row=32
    is outside [0, 32)`` — an element, its image and what is out of bounds."""
    image = tuple(int(v) for v in m(*point))
    text = (f"element {coords_text(m.domain.names, point)} → "
            f"{coords_text(m.codomain.names, image)}")
    outside = [f"{n}={v} is outside [0, {int(e)})"
               for n, v, e in zip(m.codomain.names, image, m.codomain.extents)
               if _is_number(e) and not 0 <= v < int(e)]
    if outside:
        memory = set(m.codomain.names[:-1])
        what = ("; no such memory" if any(o.split("=")[0] in memory for o in outside)
                else "")
        text += ": " + ", ".join(outside) + what
    return text


def _is_number(extent) -> bool:
    return isinstance(extent, int) or getattr(extent, "is_number", False)


def memory_shares(m: IndexMap) -> dict[str, float] | None:
    """Elements per memory (min / max / mean / memories used) and the
    footprint (the highest offset any memory uses, plus one, in the offset
    dim's unit), or None if the layout has no memory dims or cannot be
    enumerated."""
    if not m.is_concrete or m.codomain.rank < 2 or math.prod(m.domain.extents) > SHARES_LIMIT:
        return None
    _, ys = image_table(m)
    memory_extents = tuple(int(e) for e in m.codomain.extents[:-1])
    inside = np.all((ys[:, :-1] >= 0) & (ys[:, :-1] < np.asarray(memory_extents)), axis=1)
    memory = ys[inside, :-1].astype(np.int64)  # inside the memory dims: they fit
    flat = np.ravel_multi_index(tuple(memory.T), memory_extents)
    counts = np.bincount(flat, minlength=int(np.prod(memory_extents)))
    counts = counts[counts > 0]
    return {"memories used": int(len(counts)), "min": int(counts.min()),
            "max": int(counts.max()), "mean": float(counts.mean()),
            "footprint": int(ys[inside, -1].max()) + 1}
