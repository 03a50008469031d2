"""``layoutalg show`` and ``layoutalg docs``: pictures and pages of specs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

import numpy as np
from rich.console import Console
from rich.text import Text

from layoutalg.cli.prove import open_cache
from layoutalg.core.index_map import IndexMap
from layoutalg.docgen import picture
from layoutalg.docgen.pages import build_pages, write_pages
from layoutalg.docgen.sampling import aligned_grid, evaluate_at
from layoutalg.docgen.site import build_site
from layoutalg.errors import OutputError, SpecError
from layoutalg.runner.prover import DEFAULT_FOLDERS, Found, discover_some
from layoutalg.validate import first_out_of_range
from layoutalg.verify.result import point_text

TERMINAL_SIDE = 32


def find_spec(reference: str) -> Found:
    """``path.py::name``, ``path.py`` (its only spec), or a spec name in the default folders."""
    path, _, name = reference.partition("::")
    if path.endswith(".py"):
        found = discover_some([path], "show/run: SPEC")
    else:
        base = Path.cwd()
        if not any((base / folder).is_dir() for folder in DEFAULT_FOLDERS):
            raise SpecError(f"show/run: SPEC must be path.py::name, path.py, or the name of a "
                            f"spec under specs/ or proofs/, and the working folder {base} has "
                            f"neither; got {reference!r}")
        found, name = discover_some(None, "show/run: SPEC"), reference
    matches = [f for f in found if not name or f.spec.name == name]
    if len(matches) != 1:
        names = ", ".join(f.spec.name for f in found[:12])
        what = "no spec" if not matches else f"{len(matches)} specs"
        raise SpecError(f"show/run: SPEC must name exactly one spec (path.py::name); "
                        f"{what} match {reference!r}; some specs are: {names}")
    return matches[0]


def run_show(args, stream: TextIO) -> int:
    found = find_spec(args.spec)
    subject, m = found.built()
    # TERM=xterm-mono and the like: Rich would still send 16 colours
    mono = os.environ.get("TERM", "").lower().endswith(("-mono", "-m"))
    console = Console(file=stream, highlight=False, width=None if stream.isatty() else 132,
                      color_system=None if mono else "auto")
    console.print(str(m), markup=False)
    instance = picture.drawn_instance(m, found.spec.assume)
    if instance is None:
        console.print("(no picture: Z3 found no sizes meeting the assumptions in time)")
        return 0
    drawn, note = instance
    if note:
        console.print(f"(the claims hold for every size; the picture is {note})")
    if picture.folding(drawn):
        console.print(f"({picture.folding(drawn)})")
    if args.svg:
        title = f"{m.label} ({note})" if note else m.label
        try:
            args.svg.write_text(picture.layout_svg(drawn, title=title, subject=subject))
        except OSError as exc:
            raise OutputError(f"--svg: cannot write the picture {str(args.svg)!r}: "
                              f"{exc.strerror or exc}") from None
        console.print(f"wrote {args.svg}")
        return 0
    console.print(terminal_picture(drawn, subject, glyphs=needs_glyphs(console)))
    return 0


def terminal_picture(m: IndexMap, subject: object = None, *, glyphs: bool = False) -> Text:
    """Elements as coloured cells (one colour per memory), numbered so the picture
    reads without colour too: by the subject's own unit when it has one (a
    Tenstorrent page), else offsets, or memory numbers when a cell stands for
    a block. A large layout is sampled along its tiles (``aligned_grid``, as
    the SVG is), so each tile gets whole cells. With ``glyphs`` (see
    ``needs_glyphs``) each cell starts with its memory's letter, as in the legend.
    """
    grid = aligned_grid(m, TERMINAL_SIDE)
    rows, cols, cell_rows, cell_cols = grid.points(m)
    ys = evaluate_at(m, rows, cols)
    keys, memory_index = picture.memory_numbers(ys)
    numbered = picture.cell_numbers(subject, m, rows, cols)
    if numbered:
        unit, numbers = f"{numbered[0]}s", numbered[1]
    elif grid.sampled:
        unit, numbers = "memories, numbered in order", memory_index
    else:
        unit, numbers = "offsets", ys[:, -1]
    cells = {(int(r), int(c)): (int(k), int(n))
             for r, c, k, n in zip(cell_rows, cell_cols, memory_index, numbers)}
    text = Text()
    n_rows, n_cols = int(cell_rows.max()) + 1, int(cell_cols.max()) + 1
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) not in cells:
                text.append("    " if glyphs else "   ")
                continue
            k, n = cells[r, c]
            number = f"{glyph(k)}{n % 100:02d}" if glyphs else f"{n % 100:2d}"
            text.append(f"{number} ", style=f"black on {picture.colour(k, 0)}")
        text.append("\n")
    memories = "letters and colours are memories" if glyphs else "colours are memories"
    if grid.sampled:
        text.append(f"(one cell per {picture.block_words(grid)[2:]}, showing its first "
                    f"element; {memories}; numbers are {unit}, mod 100)\n")
    else:
        text.append(f"({memories}; numbers are {unit} mod 100)\n")
    if m.codomain.rank > 1:
        text.append(memory_legend(m.codomain.names[:-1], keys, extents=m.codomain.extents[:-1],
                                  glyphs=glyphs) + "\n")
    return text


GLYPHS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def glyph(memory: int) -> str:
    """The letter of memory number ``memory`` (memories in order cycle through
    52 letters, so neighbours in the numbering never share one)."""
    return GLYPHS[memory % len(GLYPHS)]


def needs_glyphs(console: Console) -> bool:
    """Whether cells need a letter per memory: the console shows no colour
    (``NO_COLOR``, ``no_color=True``, a terminal with no colour system), or only
    16 colours, to which the pictures' light fills all round to the same grey."""
    return console.no_color or (
        console.is_terminal and console.color_system not in ("256", "truecolor"))


def run_docs(args, stream: TextIO) -> int:
    cache = open_cache(args)
    discover_some(args.paths or None)  # an empty module is bad input, as for prove
    pages = build_pages(args.paths or None, cache=cache)
    out = args.out if args.out is not None or args.site is not None else "docs/generated"
    if out is not None:
        write_pages(pages, Path(out))
        stream.write(f"wrote {len(pages)} files to {out}\n")
    if args.site is not None:
        index = build_site(pages, args.site)
        stream.write(f"built the site of {len(pages)} files: open {index}\n")
    return 0


def memory_legend(names, keys: np.ndarray, shown: int = 6, extents=None, *,
                  glyphs: bool = False) -> str:
    """``memories (N): 0 = (pe_row=0, pe_col=0), 1 = ...`` (the first and last
    few); a key outside the codomain's ``extents`` says it names no memory.
    With ``glyphs``, each memory's letter first: ``A: 0 = (pe_row=0, ...)``."""
    items = []
    for k, key in enumerate(keys):
        missing = extents is not None and first_out_of_range(map(int, key), extents)
        items.append((f"{glyph(k)}: " if glyphs else "") + f"{k} = "
                     + point_text(names, map(int, key)) + (" (no such memory)" if missing else ""))
    if len(items) > shown:
        items = items[: shown // 2] + ["…"] + items[-(shown // 2):]
    return f"memories ({len(keys)}): " + ", ".join(items)
