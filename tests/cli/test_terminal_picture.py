"""``layoutalg show``'s terminal picture: readable without colour (a letter
per memory, mapped by the legend) and sampled along the tiles, so no tile is
drawn twice in a row while its neighbour is skipped."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

import layoutalg as la
from layoutalg.cli import main
from layoutalg.cli.show import GLYPHS, glyph, needs_glyphs, terminal_picture

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[")


def two_memories_stacked() -> la.IndexMap:
    """Rows 0-1 on memory 0, rows 2-3 on memory 1, the same offsets 0..7 in
    each: numbers alone cannot tell the memories apart."""
    tiles = la.split(la.Space(i=4, j=4), "i", 2, names=("mem", "row"))
    return la.linearize(tiles, ["row", "j"])


def two_memories_side_by_side() -> la.IndexMap:
    tiles = la.split(la.Space(i=2, j=8), "j", 4, names=("mem", "col"))
    return la.linearize(la.permute(tiles, ["mem", "i", "col"]), ["i", "col"])


def printed(m: la.IndexMap, console: Console) -> str:
    console.print(terminal_picture(m, glyphs=needs_glyphs(console)))
    return console.file.getvalue()


def cells(picture: str) -> list[list[str]]:
    """The picture's cells, row by row (lines of letter-and-number cells)."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", picture)
    return [line.split() for line in plain.splitlines()
            if re.fullmatch(r"(\s*[A-Za-z]\d\d)+\s*", line)]


@pytest.mark.parametrize("console", [
    Console(file=StringIO(), no_color=True, width=132),
    Console(file=StringIO(), force_terminal=True, color_system=None, width=132),
    Console(file=StringIO(), force_terminal=True, color_system="standard", width=132),
], ids=["no_color", "no-colour-terminal", "16-colour-terminal"])
def test_without_colour_adjacent_memories_render_differently(console):
    out = printed(two_memories_stacked(), console)
    grid = cells(out)
    assert len(grid) == 4 and all(len(row) == 4 for row in grid)
    # Row 1 (memory 0) and row 2 (memory 1) hold the same offsets 4..7 and 0..3
    # in the numbers, but their cells differ by the memory's letter.
    assert [c[1:] for c in grid[0]] == [c[1:] for c in grid[2]]
    assert grid[1][0] != grid[2][0] and grid[1][0][0] == "A" and grid[2][0][0] == "B"
    assert "memories (2): A: 0 = (mem=0), B: 1 = (mem=1)" in out
    assert "letters and colours are memories" in out
    if console.no_color or console.color_system is None:
        assert not ANSI.search(out)


def test_memories_side_by_side_get_different_letters():
    console = Console(file=StringIO(), no_color=True, width=132)
    grid = cells(printed(two_memories_side_by_side(), console))
    assert [cell[0] for cell in grid[0]] == ["A"] * 4 + ["B"] * 4
    assert grid[0][3] != grid[0][4]


def test_a_colour_terminal_keeps_plain_numbered_cells():
    console = Console(file=StringIO(), force_terminal=True, color_system="truecolor", width=132)
    assert not needs_glyphs(console)
    out = printed(two_memories_stacked(), console)
    assert ANSI.search(out) and "memories (2): 0 = (mem=0), 1 = (mem=1)" in out


def test_letters_cycle_so_neighbouring_memories_differ():
    rows = la.linearize(la.split(la.Space(i=30, j=4), "i", 1, names=("mem", "row")),
                        ["row", "j"])
    console = Console(file=StringIO(), no_color=True, width=132)
    letters = [row[0][0] for row in cells(printed(rows, console))]
    assert letters == list(GLYPHS[:30])
    assert [glyph(k) for k in (0, 25, 26, 51, 52)] == ["A", "Z", "a", "z", "A"]


def run(*argv: str) -> str:
    out, err = StringIO(), StringIO()
    assert main(list(argv), stream=out, errors=err) == 0, err.getvalue()
    return out.getvalue()


def test_no_color_in_the_environment_gives_letters_in_show(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    out = run("show", str(ROOT / "specs" / "tt.py") + "::seed_block_figure")
    grid = cells(out)
    assert len(grid) == 32
    # Core (0, 0) holds the top-left block, core (1, 0) the top-right: letters A and C.
    assert grid[0][0][0] == "A" and grid[0][-1][0] == "C" and grid[-1][-1][0] == "D"
    assert "A: 0 = (core_x=0, core_y=0)" in out and not ANSI.search(out)


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


def test_a_monochrome_term_gives_letters_in_show(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.setenv("TERM", "xterm-mono")
    monkeypatch.setenv("COLUMNS", "160")
    stream, err = Terminal(), StringIO()
    assert main(["show", str(ROOT / "specs" / "tt.py") + "::seed_block_figure"],
                stream=stream, errors=err) == 0
    out = stream.getvalue()
    assert len(cells(out)) == 32 and not ANSI.search(out)


def test_grid_uneven_column_labels_are_distinct_and_increasing():
    """[1000, 900] over 32×30 PEs: tiles 32×30. Sampled every 29 columns the
    picture showed PE column 0 twice (element columns 0 and 29) and so every
    PE column label twice somewhere; sampled along the tiles each cell column
    is one PE column."""
    out = run("show", str(ROOT / "specs" / "grid.py") + "::grid_uneven")
    rows = [[int(n) for n in line.split()] for line in out.splitlines()
            if re.fullmatch(r"(\s*\d+)+\s*", line)]
    assert len(rows) == 32 and all(len(row) == 30 for row in rows)
    # Memories are numbered in order (pe_row, pe_col): the top row labels
    # the PE columns 0..29, and row r starts at memory 30r.
    assert rows[0] == list(range(30))
    for r, row in enumerate(rows):
        assert row == [(30 * r + c) % 100 for c in range(30)]
    assert "one cell per 32×30 block of elements" in out
