"""``layoutalg show`` and ``layoutalg docs``: pictures and pages of specs."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

import numpy as np
from rich.console import Console
from rich.text import Text

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import SpecError
from layoutalg.prover import Found, discover

TERMINAL_SIDE = 32


def find_spec(reference: str) -> Found:
    """``path.py::name``, ``path.py`` (its only spec), or a spec name in the default folders."""
    path, _, name = reference.partition("::")
    if path.endswith(".py"):
        found = discover([path])
    else:
        found, name = discover(None), reference
    matches = [f for f in found if not name or f.spec.name == name]
    if len(matches) != 1:
        names = ", ".join(f.spec.name for f in found[:12])
        what = "no spec" if not matches else f"{len(matches)} specs"
        raise SpecError(f"show/run: SPEC must name exactly one spec (path.py::name); "
                        f"{what} match {reference!r}; some specs are: {names}")
    return matches[0]


def index_map_of(found: Found) -> IndexMap:
    subject = found.spec.build()
    return subject if isinstance(subject, IndexMap) else subject.index_map()


def run_show(args, stream: TextIO) -> int:
    from layoutalg.docgen.picture import drawable, layout_svg

    found = find_spec(args.spec)
    m = index_map_of(found)
    console = Console(file=stream, highlight=False, width=None if stream.isatty() else 132)
    console.print(str(m), markup=False)
    if not drawable(m):
        console.print(f"(no picture: {m.domain} is symbolic, of rank > 2, or too large)")
        return 0
    if args.svg:
        args.svg.write_text(layout_svg(m, title=m.label))
        console.print(f"wrote {args.svg}")
        return 0
    console.print(terminal_picture(m))
    return 0


def terminal_picture(m: IndexMap) -> Text:
    """Elements as coloured cells (one colour per memory), numbered so the picture
    reads without colour too: offsets when every element has a cell, memory
    numbers when a cell stands for a block."""
    from layoutalg.docgen.picture import colour, sampled_points

    rows, cols, ys, step_r, step_c = sampled_points(m, TERMINAL_SIDE)
    memory = ys[:, :-1] if ys.shape[1] > 1 else np.zeros((len(ys), 1), dtype=np.int64)
    keys, memory_index = np.unique(memory, axis=0, return_inverse=True)
    memory_index = memory_index.ravel()
    grid = {(int(r) // step_r, int(c) // step_c): (int(k), int(y[-1]))
            for r, c, k, y in zip(rows, cols, memory_index, ys)}
    text = Text()
    n_rows = max(r for r, _ in grid) + 1
    n_cols = max(c for _, c in grid) + 1
    for r in range(n_rows):
        for c in range(n_cols):
            cell = grid.get((r, c))
            if cell is None:
                text.append("   ")
            else:
                number = cell[0] if step_r > 1 or step_c > 1 else cell[1]
                label = f"{number % 100:2d}"
                text.append(label + " ", style=f"black on {colour(cell[0], 0)}")
        text.append("\n")
    if step_r > 1 or step_c > 1:
        text.append(f"(one cell per {step_r}×{step_c} block of elements, showing its first "
                    "element; colours and numbers are memories, numbered in order, mod 100)\n")
        text.append(memory_legend(m.codomain.names[:-1], keys) + "\n")
    else:
        text.append("(colours are memories; numbers are offsets mod 100)\n")
    return text


def run_docs(args, stream: TextIO) -> int:
    from layoutalg.docgen.pages import build_pages, write_pages
    from layoutalg.proof_cache import ProofCache

    pages = build_pages(args.paths or None, cache=None if args.no_cache else ProofCache())
    out = args.out if args.out is not None or args.site is not None else "docs/generated"
    if out is not None:
        write_pages(pages, Path(out))
        stream.write(f"wrote {len(pages)} files to {out}\n")
    if args.site is not None:
        from layoutalg.docgen.site import build_site

        index = build_site(pages, args.site)
        stream.write(f"built the site of {len(pages)} files: open {index}\n")
    return 0


def memory_legend(names, keys: np.ndarray, shown: int = 6) -> str:
    """``memories: 0 = (pe_row=0, pe_col=0), 1 = ...`` (the first and last few)."""
    if not names:
        return "memories: one"
    items = [f"{k} = ({', '.join(f'{n}={int(v)}' for n, v in zip(names, key))})"
             for k, key in enumerate(keys)]
    if len(items) > shown:
        items = items[: shown // 2] + ["…"] + items[-(shown // 2):]
    return f"memories ({len(keys)}): " + ", ".join(items)
