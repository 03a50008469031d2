"""``layoutalg show`` and ``layoutalg docs``: the pictures and pages say what
the layout does (checked against an independent evaluation of the map)."""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import layoutalg as la
from layoutalg.docgen import site
from layoutalg.docgen.pages import build_pages, write_pages
from layoutalg.docgen.picture import layout_svg
from cli_helpers import run_cli as run
from spec_texts import TWO_SPECS


ROOT = Path(__file__).resolve().parents[2]

SPECS = TWO_SPECS + '''


@la.spec(claims=["bijective"])
def big_grid():
    """[1024, 1024] over 32×32 PEs."""
    tiles = la.split(la.split(la.Space(i=1024, j=1024), "i", 32, names=("pe_row", "row")),
                     "j", 32, names=("pe_col", "col"))
    return la.linearize(la.permute(tiles, ["pe_row", "pe_col", "row", "col"]), ["row", "col"])


@la.spec(claims=["injective"])
def symbolic():
    """All sizes."""
    M, N = la.extents("M N")
    return la.strided((M, N), (1, M))
'''


@pytest.fixture
def specs(tmp_path) -> Path:
    path = tmp_path / "specs.py"
    path.write_text(textwrap.dedent(SPECS))
    return path


def cell_numbers(picture: str) -> list[list[int]]:
    """The numbered cells of a terminal picture, row by row."""
    rows = []
    for line in picture.splitlines():
        if re.fullmatch(r"(\s*\d+)+\s*", line):
            rows.append([int(n) for n in line.split()])
    return rows


def test_show_numbers_every_element_with_its_offset(specs):
    code, out, _ = run("show", f"{specs}::row_major")
    assert code == 0
    m = la.linearize(la.Space(i=4, j=8))
    rows, cols = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    (offsets,) = m.apply(rows, cols)
    assert cell_numbers(out) == (np.asarray(offsets) % 100).tolist()
    assert "numbers are offsets" in out


def test_show_of_a_large_layout_numbers_blocks_by_memory(specs):
    code, out, _ = run("show", f"{specs}::big_grid")
    assert code == 0
    numbers = cell_numbers(out)
    assert len(numbers) == 32 and all(len(row) == 32 for row in numbers)
    # Block (r, c) starts at element (32r, 32c), which lives on PE (r, c): the
    # memories are numbered in order, so that is memory 32r + c.
    assert numbers == [[(32 * r + c) % 100 for c in range(32)] for r in range(32)]
    assert "one cell per 32×32 block" in out
    assert "memories (1024): 0 = (pe_row=0, pe_col=0), 1 = (pe_row=0, pe_col=1)" in out
    assert "1023 = (pe_row=31, pe_col=31)" in out


def test_show_svg_colours_each_memory_apart_and_labels_offsets(specs, tmp_path):
    picture = tmp_path / "grid.svg"
    code, out, _ = run("show", f"{specs}::row_major", "--svg", str(picture))
    assert code == 0 and f"wrote {picture}" in out
    svg = picture.read_text()
    assert svg.count("<rect") == 32
    labels = [int(n) for n in re.findall(r'text-anchor="middle">(\d+)<', svg)]
    assert sorted(labels) == list(range(32))
    tiles = la.linearize(la.split(la.Space(i=4, j=4), "i", 2, names=("mem", "row")),
                         ["row", "j"])
    fills = set(re.findall(r'fill="(#[0-9a-f]{6})"', layout_svg(tiles)))
    assert len(fills) == 2  # two memories, two colours


def test_show_of_a_symbolic_layout_draws_sizes_that_meet_its_assumptions(specs):
    code, out, _ = run("show", f"{specs}::symbolic")
    assert code == 0
    rows_m, cols_n = (int(v) for v in re.search(r"drawn for M=(\d+), N=(\d+)", out).groups())
    m = la.strided((rows_m, cols_n), (1, rows_m))  # one flat index, drawn in rows of 32
    (offsets,) = m.apply(np.arange(rows_m * cols_n))
    expected = (np.asarray(offsets) % 100).tolist()
    assert cell_numbers(out) == [expected[k:k + 32] for k in range(0, len(expected), 32)]


def test_a_parametric_picture_meets_the_specs_assumptions(tmp_path):
    spec = tmp_path / "even.py"
    spec.write_text(textwrap.dedent('''
        import sympy
        import layoutalg as la

        M, P = la.extents("M P")


        @la.spec(claims=["injective"], assume=[sympy.Eq(M % P, 0)])
        def even_split():
            """M rows dealt to P memories in equal parts."""
            return la.split(la.Space(i=M), "i", P, names=("mem", "row"))
    '''))
    code, out, _ = run("show", str(spec))
    assert code == 0
    m, p = (int(re.search(fr"{name}=(\d+)", out).group(1)) for name in ("M", "P"))
    assert m % p == 0 and m != p


def test_show_of_an_unknown_spec_is_one_line_of_bad_input(specs):
    code, out, err = run("show", f"{specs}::nope")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no spec match" in err and "row_major" in err


def test_docs_writes_an_index_and_a_page_with_picture_per_spec(specs, tmp_path):
    out_dir = tmp_path / "pages"
    code, out, _ = run("docs", str(specs), "--out", str(out_dir), "--no-cache")
    assert code == 0 and f"to {out_dir}" in out
    index = (out_dir / "index.md").read_text()
    for name in ("row_major", "overlap", "big_grid", "symbolic"):
        assert f"[{name}](" in index
    page = {name: next(out_dir.glob(f"*specs-{name}.md")) for name in
            ("overlap", "big-grid", "symbolic")}
    overlap = page["overlap"].read_text()
    assert "both map to" in overlap and "**REFUTED**" in overlap
    assert f"({page['overlap'].stem}.svg)" in overlap
    assert page["overlap"].with_suffix(".svg").read_text().startswith("<svg")
    big = page["big-grid"].read_text()
    assert "| 1024 | 1024 | 1024 | 1024.0 | 1024 |" in big  # 1024 PEs, 1024 elements each
    overlap_use = re.search(r"\| (\d+) \| (\d+) \| (\d+) \| [\d.]+ \| (\d+) \|", overlap)
    assert overlap_use is None  # one flat memory: no memory-use table
    assert re.search(r"a (\d+)×\1 block of elements", big)
    symbolic = page["symbolic"].read_text()
    assert "The claims hold for every size; the picture is drawn for M=" in symbolic
    assert "drawn for M=" in page["symbolic"].with_suffix(".svg").read_text()


def test_docs_site_without_mkdocs_is_one_line_of_bad_input(specs, tmp_path, monkeypatch):
    real = site.importlib.util.find_spec
    monkeypatch.setattr(site.importlib.util, "find_spec",
                        lambda name, *a: None if name == "material" else real(name, *a))
    code, out, err = run("docs", str(specs), "--site", str(tmp_path / "site"), "--no-cache")
    assert code == 2
    assert err.count("\n") == 1 and "mkdocs-material" in err and "layoutalg[docs]" in err
    assert not (tmp_path / "site").exists()


def test_every_shipped_spec_gets_a_page_and_every_drawable_one_a_picture(tmp_path):
    folders = [ROOT / "specs" / "known_bad.py", ROOT / "specs" / "cute.py"]
    pages = build_pages(folders)
    write_pages(pages, tmp_path)
    index = (tmp_path / "index.md").read_text()
    from layoutalg.runner.prover import discover

    for found in discover(folders):
        page = next(tmp_path.glob(f"*-{found.spec.name.replace('_', '-')}.md"))
        assert f"[{found.spec.name}]({page.name})" in index
        if la.IndexMap is type(found.spec.build()) and found.spec.build().is_concrete:
            assert f"({page.stem}.svg)" in page.read_text()
            assert (tmp_path / f"{page.stem}.svg").exists()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_the_built_site_renders_in_headless_chromium(specs, tmp_path):
    code, _, err = run("docs", str(specs), "--site", str(tmp_path / "site"), "--no-cache")
    assert code == 0, err
    shot = tmp_path / "page.png"
    page = next((tmp_path / "site").glob("*specs-big-grid.html")).as_uri()
    browser = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                              "--no-first-run", "--disable-background-networking",
                              f"--user-data-dir={tmp_path / 'profile'}",
                              "--window-size=1000,2400", f"--screenshot={shot}", page],
                             capture_output=True, text=True, timeout=120)
    if not shot.exists():  # the browser could not start here: not the site's fault
        pytest.skip(f"chromium wrote no screenshot: {browser.stderr.strip()[-300:]}")
    from PIL import Image  # noqa: PLC0415 - only where chromium exists

    colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 16)
    # The page and its picture: many colours, not a blank or an error page.
    assert colours is not None and len(colours) > 20


def test_show_of_a_tenstorrent_tensor_numbers_cells_by_page():
    """A 128×128 bfloat16 tensor in 32×32 tiles is 4×4 pages in row-major
    order: the block at element (r, c) lies on page 4·(r // 32) + c // 32."""
    code, out, _ = run("show", str(ROOT / "specs" / "tt.py") + "::seed_block_figure")
    assert code == 0
    numbers = cell_numbers(out)
    step = 128 // len(numbers)
    assert numbers == [[4 * (r * step // 32) + c * step // 32 for c in range(len(row))]
                       for r, row in enumerate(numbers)]
    assert "numbers are pages" in out
    assert "memories (4): 0 = (core_x=0, core_y=0)" in out


def test_docs_page_of_a_tenstorrent_tensor_numbers_its_picture_by_page():
    spec = la.tt.TensorSpec((64, 64), "bfloat16",
                            memory=la.tt.ShardSpec("BLOCK", (2, 2), (32, 32)), storage="L1")
    svg = layout_svg(spec.index_map(), subject=spec)
    pages = [int(n) for n in re.findall(r'text-anchor="middle">(\d+)<', svg)]
    assert sorted(set(pages)) == [0, 1, 2, 3]
    assert "; page 3" in svg


def test_a_rank_one_layout_is_drawn_in_rows_of_32_without_cells_past_its_end():
    svg = layout_svg(la.linearize(la.Space(i=40)))
    assert svg.count("<rect") == 40
    labels = [int(n) for n in re.findall(r'text-anchor="middle">(\d+)<', svg)]
    assert labels == list(range(40))


def test_memory_use_of_uneven_tiles():
    """10 elements in tiles of 4 over ceil(10/4) = 3 memories: 4, 4 and 2."""
    from layoutalg.docgen.picture import memory_shares

    tiles = la.split(la.Space(i=10), "i", 4, names=("mem", "row"))
    assert memory_shares(tiles) == {"memories used": 3, "min": 2, "max": 4, "mean": 10 / 3,
                                    "footprint": 4}


def test_every_shipped_parametric_spec_is_drawn_for_sizes_meeting_its_assumptions():
    """The docs build draws each parametric theorem at example sizes; a spec
    whose assumptions bound a size its map lacks (proofs/dataflow.py's L2)
    once stopped the strict build. Checked here on every shipped spec."""
    from layoutalg.docgen.picture import drawn_instance
    from layoutalg.runner.prover import discover

    drawn = 0
    for found in discover([ROOT / "proofs"]):
        _, m = found.built()
        if m is None or m.is_concrete:
            continue
        instance = drawn_instance(m, found.spec.assume)
        assert instance is not None, found.spec.name
        drawn += 1
        sizes = dict(re.findall(r"(\w+)=(\d+)", instance[1]))
        values = {p: int(sizes[p.name]) for p in m.parameters}
        for condition in [*m.assumptions,
                          *(a for a in found.spec.assume if a.free_symbols <= set(values))]:
            assert bool(condition.subs(values)), (found.spec.name, condition, values)
    assert drawn >= 20
