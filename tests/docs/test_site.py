"""The docs site works opened from disk and offline (issue 14): page links
end in ``.html`` and lead to pages, formulas are MathML (no MathJax, no raw
LaTeX), nothing is loaded from the web, search is bundled; specs are grouped
by family and module with their verdicts; formulas are readable."""

from __future__ import annotations

import re
import textwrap
from io import StringIO
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
import sympy
import yaml

import layoutalg as la
from layoutalg.cli import main
from layoutalg.docgen import catalog, mathml, offline
from layoutalg.docgen.pages import Page, build_pages, formula_lines, layout_section
from spec_texts import TWO_SPECS


ROOT = Path(__file__).resolve().parents[2]

SPECS = TWO_SPECS + '''


@la.spec(claims=["injective"])
def hostile():
    """Says <script>alert("owned")</script> in its docstring."""
    return la.strided((2, 2), (1, 2))
'''

REMOTE = re.compile(
    r"""<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""", re.I)
HREF = re.compile(r"""\bhref=["']([^"'#]*)(?:#[^"']*)?["']""")
SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
CODE = re.compile(r"<(code|pre)\b.*?</\1>", re.S | re.I)
TAG = re.compile(r"<[^>]*>")


def offline_problems(site: Path) -> list[str]:
    """What would not work opened from disk without a network, page by page."""
    problems = []
    pages = [p for p in site.rglob("*.html") if p.name != "404.html"]
    for page in pages:
        html = page.read_text()
        name = page.relative_to(site)
        problems += [f"{name}: loads {m[0]}" for m in REMOTE.finditer(html)]
        code = " ".join(TAG.findall(html) + SCRIPT.findall(html)).lower()
        for cdn in ("mathjax", "fonts.googleapis", "fonts.gstatic", "unpkg.com", "jsdelivr"):
            if cdn in code:
                problems.append(f"{name}: names {cdn}")
        shown = CODE.sub("", SCRIPT.sub("", html))  # prose may quote LaTeX in code
        for raw in (r"\(", r"\[", "$$", r"\mapsto", r"\lfloor"):
            if raw in shown:
                problems.append(f"{name}: raw LaTeX {raw!r} left")
        for href in HREF.findall(html):
            if not href or urlsplit(href).scheme or href.startswith("/"):
                continue
            target = (page.parent / unquote(href)).resolve()
            if not target.is_file():
                problems.append(f"{name}: link {href!r} opens no file (a folder listing)")
    return problems


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A site of three specs (proved, refuted as designed, hostile docstring),
    built the way the README says."""
    work = tmp_path_factory.mktemp("site")
    code, err = docs_site(work, "tour.py")
    assert code == 0, err
    return work / "site"


def docs_site(work: Path, name: str) -> tuple[int, str]:
    """``layoutalg docs <work/name holding SPECS> --site work/site``: exit code, stderr."""
    module = work / name
    module.write_text(textwrap.dedent(SPECS))
    err = StringIO()
    code = main(["docs", str(module), "--site", str(work / "site"), "--no-cache",
                 "--cache-dir", str(work / "cache")], stream=StringIO(), errors=err)
    return code, err.getvalue()


def test_the_site_opens_from_disk_offline(site):
    pages = sorted(p.name for p in site.glob("*.html"))
    assert "index.html" in pages and len(pages) >= 4
    assert not [p for p in site.iterdir() if p.is_dir() and p.name.startswith("tour")], \
        "a spec page is a folder: links would open folder listings from file://"
    assert offline_problems(site) == []


def test_the_checker_sees_what_breaks_offline(tmp_path):
    """The checks above can fail: a page as MkDocs built it before issue 14."""
    (tmp_path / "index.html").write_text(
        '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>'
        '<link href="https://fonts.googleapis.com/css?family=Roboto" rel="stylesheet">'
        '<a href="tour-row-major/">row_major</a><p>\\[ (i) \\mapsto (i) \\]</p>')
    found = "\n".join(offline_problems(tmp_path))
    for problem in ("loads <script", "loads <link", "names mathjax", "fonts.googleapis",
                    "raw LaTeX", "opens no file"):
        assert problem in found


def test_formulas_are_mathml_and_search_is_bundled(site):
    page = next(site.glob("*tour-row-major.html")).read_text()
    assert page.count("<math") == 2  # its one image coordinate, and the domain bounds
    assert "MathML" in page and "arithmatex" not in page
    index = (site / "search" / "search_index.js").read_text()
    assert index.startswith("var __index =") and "row_major" in index
    shim = site / offline.SHIM_PATH
    assert shim.read_text() == offline.SHIM
    assert f'src="{offline.SHIM_PATH}"' in page  # relative: works from file://


def test_a_docstring_with_html_shows_as_text(site):
    page = next(site.glob("*tour-hostile.html")).read_text()
    assert "alert(" in page
    assert '<script>alert("owned")' not in page and "&lt;script&gt;alert(" in page


def test_the_index_groups_specs_by_family_and_module_with_verdicts(site):
    index = (site / "index.html").read_text()
    assert "3 specs: 2 proved, 1 refuted as designed" in index
    assert "tour.py" in index
    nav = re.findall(r'<a href="([^"]+)" class="md-nav__link', index)
    assert any(h.endswith("tour-overlap.html") for h in nav)
    section = index[index.find("Core layouts"):]
    assert "tour-overlap.html" in section  # listed under its family


def test_the_projects_own_site_is_configured_offline():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["use_directory_urls"] is False
    assert config["theme"]["font"] is False
    assert "search" in config["plugins"] and "offline" in config["plugins"]
    assert offline.SHIM_PATH in config["extra"]["polyfills"]
    assert "extra_javascript" not in config
    assert not any("arithmatex" in str(ext) for ext in config["markdown_extensions"])
    assert {"The docs site": "site.md"} in config["nav"]
    hooks = (ROOT / "docs" / "hooks.py").read_text()
    assert "on_page_markdown" in hooks and "mathml.render" in hooks


def test_every_formula_of_the_hand_written_docs_becomes_mathml():
    for page in sorted((ROOT / "docs").glob("*.md")):
        rendered = mathml.render(page.read_text())
        prose = re.sub(r"```.*?```|`[^`\n]*`", "", rendered, flags=re.S)
        assert "$$" not in prose, page.name
        assert not re.search(r"(?<![\w$])\$[^\s$][^$\n]*[^\s$]\$(?![\w$])", prose), page.name
    assert "<math" in mathml.render((ROOT / "docs" / "spyre.md").read_text())


@pytest.mark.parametrize("markdown", [
    "```bash\n$ layoutalg run $SPEC\n```\n",
    "in `$XDG_CACHE_HOME/layoutalg` or `$$`",
    "costs $5 or $ 6, and $x$y",
])
def test_code_and_dollar_amounts_are_not_math(markdown):
    assert mathml.render(markdown) == markdown


def test_markdown_signs_inside_math_cannot_become_emphasis_or_cells():
    import markdown as md

    rendered = mathml.render(r"| a | $a_b * c_d * [e]$ |")
    assert "<math" in rendered and not re.search(r">[^<]*[*_\[\]|][^<]*<", rendered)
    assert "<em>" not in md.markdown(rendered)


def test_a_long_valid_predicate_is_one_conjunct_per_line():
    tiles = la.split(la.split(la.Space(i=10, j=6), "i", 4), "j", 4)
    assert isinstance(tiles.valid, sympy.And) and len(tiles.valid.args) == 2
    text = "\n".join(formula_lines(tiles))
    block = text[text.index("```text"):text.index("```", 8)]
    assert "valid where\n  i_i + 4*i_o < 10\n  and j_i + 4*j_o < 6" in block \
        or "valid where\n  j_i + 4*j_o < 6\n  and i_i + 4*i_o < 10" in block
    for name in tiles.codomain.names:  # one line per image coordinate
        assert re.search(rf"^  {name} = ", block, re.M)
    assert text.count("\n- <math") == 2  # each conjunct as its own formula


def test_a_chain_is_shown_as_its_steps():
    tiles = la.split(la.Space(i=8, j=6), "i", 4)
    chain = la.Chain((tiles, la.linearize(tiles.codomain)), name="flat")
    lines = "\n".join(layout_section(chain.index_map(), chain))
    assert "### Steps" in lines and "chain of 2 steps" in lines
    assert "**Step 1**, <code>split(i, 4)</code>" in lines
    assert "**Step 2**" in lines and "**Step 3**" not in lines


def test_family_and_verdict_of_a_spec():
    assert catalog.family_of("cute_identities", la.Space(i=2)) == "cute"
    assert catalog.family_of("my_specs", la.identity(la.Space(i=2))) == "core"
    tt = la.tt.TensorSpec((32, 32), "bfloat16")
    assert catalog.family_of("my_specs", tt) == "tt"

    class O:
        def __init__(self, status, expected):
            self.status, self.ok = status, status == expected

    assert catalog.verdict_of([O("PROVED", "PROVED")]) == catalog.PROVED
    assert catalog.verdict_of([O("PROVED", "PROVED"), O("REFUTED", "REFUTED")]) \
        == catalog.AS_DESIGNED
    assert catalog.verdict_of([O("REFUTED", "REFUTED"), O("UNKNOWN", "PROVED")]) \
        == catalog.UNEXPECTED
    assert catalog.verdict_of([]) == catalog.UNEXPECTED


def test_navigation_nests_pages_by_section_and_leaves_pictures_out():
    pages = [Page("generated/index.md", "", title="Overview"),
             Page("generated/a.md", "", title="a", section=("Core layouts", "x/m.py")),
             Page("generated/a.svg", "<svg/>"),
             Page("generated/b.md", "", title="b<i>", section=("Core layouts", "x/m.py")),
             Page("generated/c.md", "", title="c", section=("CuTe layouts", "x/n.py"))]
    assert catalog.navigation(pages, folder="") == [
        {"Overview": "index.md"},
        {"Core layouts": [{"x/m.py": [{"a": "a.md"}, {"b-i-": "b.md"}]}]},
        {"CuTe layouts": [{"x/n.py": [{"c": "c.md"}]}]}]
    assert catalog.navigation(pages)[0] == {"Overview": "generated/index.md"}


def test_a_seed_family_lists_the_flaws_its_specs_catch():
    folders = [ROOT / "specs" / "channel.py"]
    pages = {p.path: p for p in build_pages(folders)}
    seed = pages["generated/seed-channel.md"]
    assert seed.section == ("Seed documents",) and "KPU memory channels" in seed.title
    refuted = re.findall(r"^\| \[(\w+)\]", seed.text, re.M)
    assert refuted and "seed_totals_leave_c_out" in refuted
    assert "seed_totals_count_a_and_b_only" not in refuted  # proved: not a flaw


def test_a_refuted_picture_outlines_both_colliding_elements(site):
    from layoutalg.docgen.picture import CELL, MAX_SIDE
    from layoutalg.docgen.sampling import aligned_grid

    svg = next(site.glob("*tour-overlap.svg")).read_text()
    marks = re.findall(r'<g class="counterexample"><rect x="(\d+)" y="(\d+)"', svg)
    assert len(marks) == 2
    notes = re.findall(r'fill="#c00000">(\d): element \((i=\d+)\) → \((offset=\d+)\)</text>', svg)
    assert [n[0] for n in notes] == ["1", "2"] and notes[0][2] == notes[1][2]  # same offset
    m = la.strided((8, 4), (1, 4))
    top = 28  # under the title
    for (x, y), (_, element, _) in zip(marks, notes):
        row, col = aligned_grid(m, MAX_SIDE).cell_of(m, (int(element.split("=")[1]),))
        assert (int(x), int(y)) == (6 + col * CELL - 1, top + row * CELL - 1)
    page = next(site.glob("*tour-overlap.html")).read_text()
    assert "Outlined in red and numbered: the counterexample to injective" in page


def test_an_out_of_bounds_element_says_which_coordinate_leaves_its_space():
    from layoutalg.docgen.picture import counterexample_points, layout_svg, point_text

    tiles = la.split(la.Space(i=10, j=4), "i", 4)  # i_o < 3: element i=9 is in bounds
    broken = la.IndexMap(tiles.domain, la.Space(pe=2, offset=16),
                         [tiles.exprs[0], 4 * tiles.exprs[1] + tiles.exprs[2]])
    points = counterexample_points(broken, {"i": 9, "j": 1, "other": 5})
    assert points == [(9, 1)]
    assert point_text(broken, (9, 1)) == ("element (i=9, j=1) → (pe=2, offset=5): "
                                          "pe=2 is outside [0, 2); no such memory")
    assert counterexample_points(broken, {"i": 10, "j": 1}) == []  # not an element
    svg = layout_svg(broken, highlight=points)
    assert svg.count('class="counterexample"') == 1 and "no such memory" in svg


def test_cell_labels_never_overprint_their_neighbours():
    from layoutalg.docgen.picture import CELL, CHAR_WIDTH, layout_svg

    for stride in (1, 1000, 10**6, 10**12):
        svg = layout_svg(la.strided((3, 3), (1, stride)))
        labels = re.findall(r'text-anchor="middle"(?: font-size="([\d.]+)")?>(\d+)<', svg)
        assert labels  # small numbers are always shown
        for size, text in labels:
            assert len(text) * CHAR_WIDTH * float(size or 8) <= CELL - 3
        if stride == 10**12:
            assert len(labels) < 9  # 13-digit offsets: left to the tooltips


def test_a_family_layout_is_named_in_its_familys_words():
    from layoutalg.docgen.pages import vocabulary

    schedule_like = type("Schedule", (), {"__str__": lambda self: "OS 128×768×768 in\n tiles"})
    assert vocabulary(schedule_like()) == "OS 128×768×768 in tiles"
    dump = type("TensorSpec", (), {"__str__": lambda self: "TensorSpec(shape=(64, 64))"})
    assert vocabulary(dump()) == ""  # a field dump says nothing the label does not
    assert vocabulary(la.identity(la.Space(i=2))) == ""
    lines = "\n".join(layout_section(la.identity(la.Space(i=2)), schedule_like()))
    assert "**OS 128×768×768 in tiles**" in lines


def tiled_1000(tile: int = 31):
    tiles = la.split(la.split(la.Space(i=1000, j=1000), "i", tile, names=("pe_row", "row")),
                     "j", tile, names=("pe_col", "col"))
    return la.linearize(la.permute(tiles, ["pe_row", "pe_col", "row", "col"]), ["row", "col"])


def blocks_straddling_memories(m, row_starts, col_starts) -> int:
    """Cells whose block of elements lies in more than one memory."""
    i, j = np.meshgrid(np.arange(1000), np.arange(1000), indexing="ij")
    ys = m.apply(i, j)
    memory = ys[0] * 10_000 + ys[1]
    rows = np.split(np.arange(1000), row_starts[1:])
    cols = np.split(np.arange(1000), col_starts[1:])
    return sum(len(np.unique(memory[np.ix_(r, c)])) > 1 for r in rows for c in cols)


def test_a_large_picture_samples_whole_tiles_not_confetti():
    from layoutalg.docgen.picture import MAX_SIDE, caption
    from layoutalg.docgen.sampling import aligned_grid

    m = tiled_1000()
    grid = aligned_grid(m, MAX_SIDE)
    assert len(grid.row_starts) <= MAX_SIDE and len(grid.col_starts) <= MAX_SIDE
    assert blocks_straddling_memories(m, grid.row_starts, grid.col_starts) == 0
    even = np.arange(0, 1000, -(-1000 // MAX_SIDE))  # the old sampling: every 21st element
    assert blocks_straddling_memories(m, even, even) > 0
    assert "a 31×31 block of elements" in caption(m)


def test_a_chain_that_does_not_compose_still_shows_its_steps():
    from layoutalg.docgen.pages import spec_page
    from layoutalg.runner.prover import discover

    found = [f for f in discover([ROOT / "specs" / "known_bad.py"])
             if f.spec.name == "floor_tiles_flattened"]
    text = spec_page(found[0], [])[0].text
    assert '!!! failure "Its layout gives no index map"' in text
    assert "### Steps" in text and "**Step 2**" in text


def test_without_latex2mathml_pages_keep_latex_and_a_site_is_refused(tmp_path, monkeypatch):
    from layoutalg.docgen import site

    monkeypatch.setattr(mathml, "_converter", lambda: None)
    assert mathml.inline("i < 4") == "$i < 4$" and mathml.render("$x$") == "$x$"
    real = site.importlib.util.find_spec
    monkeypatch.setattr(site.importlib.util, "find_spec",
                        lambda name, *a: None if name == "latex2mathml" else real(name, *a))
    code, err = docs_site(tmp_path, "one.py")
    assert code == 2 and "latex2mathml" in err and err.count("\n") == 1
    assert not (tmp_path / "site").exists()


def test_every_shipped_spec_module_lands_in_its_family():
    from layoutalg.runner.prover import discover

    expected = {"mesh": "mesh", "spyre": "spyre", "tt": "tt", "channel": "channel",
                "dataflow": "dataflow", "dtensor": "dtensor", "cute": "cute",
                "cute_algebra": "cute", "cute_identities": "cute", "grid": "core",
                "known_bad": "core", "block_cyclic": "core", "tiling": "core"}
    seen = set()
    for found in discover([ROOT / "specs", ROOT / "proofs"]):
        stem = found.path.stem
        if stem in expected and found.path not in seen:  # one spec per module
            seen.add(found.path)
            try:
                subject = found.subject()
            except Exception:  # noqa: BLE001 - a spec that does not build has its own test
                subject = None
            assert catalog.family_of(stem, subject) == expected[stem], found.ident


def test_a_family_layout_that_says_its_steps_is_shown_as_them():
    from layoutalg.docgen.pages import Stepped, steps_of

    pages = la.split(la.Space(i=64), "i", 16, names=("page", "offset"))
    banks = la.IndexMap(pages.codomain, la.Space(bank=3, address=32),
                        [pages.codomain.symbols[0] % 3,
                         16 * (pages.codomain.symbols[0] // 3) + pages.codomain.symbols[1]])

    class Paged:
        def layout_steps(self):
            return (pages, banks)

    assert isinstance(Paged(), Stepped) and steps_of(Paged()) == (pages, banks)
    assert steps_of(la.identity(la.Space(i=2))) == ()
    text = "\n".join(layout_section(la.compose(pages, banks), Paged()))
    assert "chain of 2 steps" in text
    assert re.search(r"^  bank = page mod 3$", text, re.M)
