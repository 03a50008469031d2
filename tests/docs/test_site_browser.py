"""The docs site as a browser shows it (issue 14, item 6): headless Chromium
opens a built site from disk (``file://``) with the network blocked, and the
rendered pages show formulas (no raw ``\\[`` or ``\\(``), links that open
pages, and a refuted spec's counterexample outlined in red.

Skipped when no Chromium is installed (``apt-get install chromium``; CI's
``.ci/run`` installs it when it can). The screenshots come from
``tools/screenshot_docs.sh``, the tool a person runs to look at the site.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from io import StringIO
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from layoutalg.cli import main
from layoutalg.docgen.picture import HIGHLIGHT

ROOT = Path(__file__).resolve().parents[2]
BROWSER = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))),
               None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium installed")

# The README tour's layout after step 3 (1000×1000: PE row 32 does not
# exist), a proved mesh layout, and two channel layouts of seed 003 at a
# small size: round robin conflicts (A[0,0] and B[0,0] on channel 0), the
# even/odd design does not.
SPECS = '''
import layoutalg as la
import layoutalg.channel  # noqa: F401 - the channel claims
from layoutalg.channel import ChannelLayout
from layoutalg.mesh import MeshLayout

M, N = 1000, 1000
PR, PC = 32, 32
SMALL = {"num_channels": 4, "m_tiles": 4, "n_tiles": 4, "k_tiles": 4, "tile_bytes": 256}


@la.spec(claims=["bijective"])
def activations():
    """An M×N float32 tensor in equal tiles over PR×PC PEs, row-major in each PE."""
    dom = la.Space(i=M, j=N)
    i, j = dom.symbols
    tr, tc = M // PR, N // PC
    pes = la.Space(pe_row=PR, pe_col=PC, offset=tr * tc)
    return la.IndexMap(dom, pes, [i // tr, j // tc, (i % tr) * tc + j % tc], name="activations")


@la.spec(claims=["bijective"])
def grid_2x2():
    """A 10×10 tensor in ceil-division tiles over 2×2 PEs."""
    return MeshLayout.grid(2, 2).on((10, 10))


@la.spec(claims=[("channel_conflict_free", "os", "tile")], expect="REFUTED")
def round_robin():
    """The seed's option 2: A[0,0] and B[0,0] share channel 0."""
    return ChannelLayout("round_robin", **SMALL)


@la.spec(claims=[("channel_conflict_free", "os", "tile")])
def iteration_aware():
    """The seed's option 3: A on even, B on odd channels."""
    return ChannelLayout("iteration_aware", **SMALL)
'''

PAGES = {  # what is opened: the index, a family's page, three spec pages (by name ending)
    "index": "index.html",
    "family": "seed-channel.html",
    "refuted": "tour-activations.html",
    "conflict": "tour-round-robin.html",
    "proved": "tour-grid-2x2.html",
}
BLOCKED = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9"]


def chromium(*args: str) -> str:
    """Run headless Chromium with the network blocked; its standard output."""
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([BROWSER, *BLOCKED, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120, check=False)
    return done.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("browser")
    (work / "tour.py").write_text(textwrap.dedent(SPECS))
    errors = StringIO()
    code = main(["docs", str(work / "tour.py"), "--site", str(work / "site"), "--no-cache",
                 "--cache-dir", str(work / "cache")], stream=StringIO(), errors=errors)
    assert code == 0, errors.getvalue()
    return work / "site"


@pytest.fixture(scope="module")
def pages(site) -> dict[str, str]:
    """Each page's file name (a spec page's starts with its folder's name)."""
    return {key: next(site.glob(f"*{end}")).name for key, end in PAGES.items()}


@pytest.fixture(scope="module")
def doms(site, pages) -> dict[str, str]:
    """Each page's DOM after Chromium ran its scripts."""
    return {key: chromium("--dump-dom", (site / page).as_uri()) for key, page in pages.items()}


@pytest.fixture(scope="module")
def screenshots(site, pages, tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("screenshots")
    tool = ROOT / "tools" / "screenshot_docs.sh"
    done = subprocess.run(["bash", str(tool), str(out), str(site), *pages.values()],
                          env={**os.environ, "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return {key: out / page.replace(".html", ".png") for key, page in pages.items()}


SCRIPT = re.compile(r"<(script|style|code|pre)\b.*?</\1>", re.S | re.I)


def visible_text(dom: str) -> str:
    """Text a reader sees: no scripts, styles, or code (where LaTeX may be quoted)."""
    return re.sub(r"<[^>]*>", " ", SCRIPT.sub(" ", dom))


@pytest.mark.parametrize("key", PAGES)
def test_the_browser_shows_no_raw_latex(doms, key):
    dom = doms[key]
    assert "</html>" in dom and len(dom) > 2000, f"{key}: Chromium rendered nothing"
    text = visible_text(dom)
    for raw in (r"\[", r"\(", "$$", r"\mapsto", r"\lfloor"):
        assert raw not in text, f"{key} page shows raw {raw!r}"


def test_formulas_are_rendered_as_mathml(doms):
    assert doms["refuted"].count("<math") >= 3  # pe_row, pe_col, offset
    assert doms["proved"].count("<math") >= 3


@pytest.mark.parametrize("key", PAGES)
def test_every_link_in_the_rendered_page_opens_a_file(site, pages, doms, key):
    """Links between pages open ``.html`` files (not folder listings); what
    the page loads (styles, scripts, pictures) is on disk. A link out to the
    web (the theme's credit) is left to the reader to follow."""
    page = site / pages[key]
    found = re.findall(r"""<(a|link|img|script)\b[^>]*?\b(?:href|src)="([^"]*)\"""", doms[key])
    local = [(tag, h) for tag, h in found if h and not h.startswith("#")]
    assert sum(tag == "a" for tag, _ in local) >= 3, f"{pages[key]}: hardly any links"
    for tag, href in local:
        parts = urlsplit(href)
        if tag == "a" and parts.scheme in ("http", "https"):
            continue
        assert parts.scheme in ("", "file"), f"{pages[key]} loads {href} from the web"
        target = Path(unquote(parts.path)) if parts.scheme else page.parent / unquote(parts.path)
        assert target.resolve().is_file(), f"{pages[key]}: {href} opens no file"
        if tag == "a":
            assert target.suffix in (".html", ".svg", ".png"), f"{pages[key]}: {href}"


def test_the_index_and_family_page_link_the_spec_pages(doms):
    for key in ("index", "family"):
        assert re.search(r'href="(?:\./)?[\w-]*tour-round-robin\.html"', doms[key]), key
    assert "tour-activations.html" in doms["index"]


def test_the_counterexample_is_outlined_in_red_on_the_refuted_pages(site, screenshots):
    from PIL import Image

    red = tuple(int(HIGHLIGHT[k:k + 2], 16) for k in (1, 3, 5))

    def outline_pixels(path: Path) -> int:
        image = Image.open(path).convert("RGB")
        return sum(n for n, (r, g, b) in image.getcolors(1 << 24)
                   if abs(r - red[0]) < 40 and g < 40 and b < 40)

    for key in ("refuted", "conflict"):
        assert outline_pixels(screenshots[key]) > 40, f"{key}: no red outline in the picture"
    assert outline_pixels(screenshots["proved"]) == 0  # the check sees the difference
    svg = next(site.glob("*tour-round-robin.svg")).read_text()
    assert svg.count('class="counterexample"') == 2
    assert "A tile (ti=0, tk=0) = tile 0: its base on channel 0" in svg
    assert "B tile (tk=0, tj=0) = tile 16: its base on channel 0" in svg


def test_the_picture_is_an_image_of_the_page(doms):
    assert re.search(r'<img[^>]+src="[\w-]*tour-activations\.svg"', doms["refuted"])
    assert "Outlined in red and numbered" in doms["refuted"]


def test_the_checks_see_what_a_page_without_mathml_shows(tmp_path):
    """The DOM checks can fail: the LaTeX a page shows when no math was rendered."""
    page = tmp_path / "raw.html"
    page.write_text("<html><body><p>\\[ (i, j) \\mapsto (i) \\]</p>"
                    "<code>\\(kept in code\\)</code></body></html>")
    text = visible_text(chromium("--dump-dom", page.as_uri()))
    assert r"\[" in text and r"\mapsto" in text and r"\(" not in text


def test_search_works_from_disk_offline(site):
    """Material opens its search with ``?q=``: the index is a script beside the
    pages and the worker runs through the bundled shim, so results come with
    no server and no network."""
    def results(query: str) -> str:
        dom = chromium("--virtual-time-budget=8000", "--dump-dom",
                       f"{(site / 'index.html').as_uri()}?q={query}")
        found = re.search(r'class="md-search-result__meta">([^<]*)<', dom)
        return found[1] if found else "no search box"

    assert re.fullmatch(r"[1-9]\d* matching documents?", results("activations"))
    assert results("zzqqxxv") == "No matching documents"
