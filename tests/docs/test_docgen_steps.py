"""Family layouts shown as steps (issue 14, item 2) and a channel claim's
counterexample shown as the tiles that conflict (item 3).

The steps are each layout's index map taken apart, not a second model of
it: composed they are proved equivalent to ``index_map()`` (Z3), and single
points are pinned with values worked out by hand from the seeds' rules.
"""

from __future__ import annotations

import re

import pytest
import sympy

import layoutalg as la
from layoutalg.channel import ChannelLayout
from layoutalg.docgen import mathml
from layoutalg.docgen.channel_marks import conflict_marks, global_tile
from layoutalg.docgen.pages import formula_lines, layout_section, steps_of
from layoutalg.mesh import MeshLayout
from layoutalg.spyre import SpyreLayout
from layoutalg.spyre.defaults import default_layout

SEED_003 = {"num_channels": 4, "m_tiles": 16, "n_tiles": 16, "k_tiles": 16,
            "tile_bytes": 64 * 64 * 4}
MB = 1 << 20


def composes_to(steps, whole) -> None:
    result = la.check_equivalent(la.Chain(steps).index_map(), whole)
    assert result.status is la.Status.PROVED, result.reason


# -- channel layouts: tile → address → (channel, offset) ------------------------------------


@pytest.mark.parametrize("option", ["matrix", "round_robin", "iteration_aware", "hardware"])
def test_channel_steps_compose_to_the_index_map(option):
    layout = ChannelLayout(option, **SEED_003)
    steps = layout.layout_steps()
    assert [s.codomain.names for s in steps] == [("address",), ("channel", "offset")]
    composes_to(steps, layout.index_map())


def test_channel_steps_of_a_symbolic_channel_count():
    h = sympy.Symbol("H", positive=True, integer=True)
    layout = ChannelLayout("iteration_aware", num_channels=2 * h, m_tiles=4, n_tiles=4,
                           k_tiles=4, tile_bytes=256)
    composes_to(layout.layout_steps(), layout.index_map())


def test_channel_steps_by_hand():
    # Seed 003, option 2: whole tiles dealt round robin, tile g at g × tile bytes,
    # on channel g mod N, the (g div N)-th tile of its channel.
    rr = ChannelLayout("round_robin", **SEED_003)
    to_address, decode = rr.layout_steps()
    for g in (0, 5, 256, 767):
        (address,) = to_address(g)
        assert address == g * 16384
        assert decode(address) == (g % 4, (g // 4) * 16384)
    # Option 3, the seed's worked example: A[0,1] on channel 2, B[1,0] on channel 3.
    ia = ChannelLayout("iteration_aware", **SEED_003)
    to_address, decode = ia.layout_steps()
    assert decode(*to_address(1))[0] == 2  # A tile (ti=0, tk=1): global tile 1
    assert decode(*to_address(256 + 16))[0] == 3  # B tile (tk=1, tj=0)


def test_a_channel_page_shows_address_then_decoder_one_piece_per_line():
    layout = ChannelLayout("matrix", **SEED_003)
    text = "\n".join(layout_section(layout.index_map(), layout))
    assert "chain of 2 steps" in text
    assert re.search(r"^  address = .*  if tile < 256$", text, re.M)
    assert re.search(r"^          = .*  otherwise$", text, re.M)
    assert re.search(r"^  channel = ⌊address/4194304⌋$", text, re.M)


# -- mesh layouts: element → (pe_row, pe_col, row, col) → (pe_row, pe_col, offset) ----------


@pytest.mark.parametrize("layout, shape", [
    (MeshLayout.grid(2, 2), (10, 10)),
    (MeshLayout.grid(32, 32), (1000, 1000)),
    (MeshLayout.block_cyclic(3, 4, 8, 5), (100, 90)),
    (MeshLayout.grid(4, 2).transposed(), (10, 7)),
    (MeshLayout.row_partition(4), (10, 4, 3)),
    (MeshLayout.col_partition(4), (17,)),
])
def test_mesh_steps_compose_to_the_index_map(layout, shape):
    steps = layout.layout_steps(shape, element_size=2)
    assert steps[-2].codomain.names == ("pe_row", "pe_col", "row", "col")
    assert steps[-1].codomain.names == ("pe_row", "pe_col", "offset")
    assert len(steps) == (2 if len(shape) == 2 else 3)
    composes_to(steps, layout.index_map(shape, element_size=2))


def test_mesh_steps_by_hand():
    # Grid(2, 2) of 10×10: 5×5 tiles; element (9, 3) is row 4, col 3 of PE (1, 0),
    # float32 offset (4·5 + 3)·4 = 92 bytes.
    tiles, offset = MeshLayout.grid(2, 2).layout_steps((10, 10))
    assert tiles(9, 3) == (1, 0, 4, 3) and offset(1, 0, 4, 3) == (1, 0, 92)
    # BlockCyclic(3, 4, 8, 5): row block 30 // 8 = 3 goes to PE row 3 mod 3 = 0 as its
    # second block there (local row 8 + 6); column block 47 // 5 = 9 to PE col 1, its
    # third block (local col 10 + 2).
    tiles, _ = MeshLayout.block_cyclic(3, 4, 8, 5).layout_steps((100, 90))
    assert tiles(30, 47) == (0, 1, 14, 12)


def test_replicated_and_custom_mesh_layouts_are_one_step():
    assert MeshLayout.replicated(2, 2).layout_steps((4, 4)) == ()
    mapping = la.IndexMap(la.Space(i=4), la.Space(pe_row=2, pe_col=1, offset=2),
                          [la.Space(i=4).symbols[0] // 2, 0, la.Space(i=4).symbols[0] % 2])
    assert MeshLayout.custom(mapping).layout_steps((4,)) == ()


def test_a_placed_mesh_tensor_is_shown_as_its_steps():
    placed = MeshLayout.grid(2, 2).on((10, 10))
    assert len(steps_of(placed)) == 2
    text = "\n".join(layout_section(placed.index_map(), placed))
    assert "**Grid(2, 2) of [10, 10] float32**" in text and "chain of 2 steps" in text
    assert re.search(r"^  pe_row = ⌊i/5⌋$", text, re.M)
    assert re.search(r"^  offset = 4\*col \+ 20\*row$", text, re.M)


# -- Spyre layouts: torch dims cut into device dims → device order --------------------------


SEED_SPYRE = SpyreLayout([128, 256, 512], "float16", [256, 8, 128, 64], [1, 2, 0, 2])


@pytest.mark.parametrize("layout", [
    SEED_SPYRE,
    default_layout([100, 200, 500], "float16"),  # padding on the stick dim
    default_layout([512, 256], "float32", dim_order=[1, 0]),
    default_layout([100, 200], "float16", dim_order=[0, 1, -1]),  # sparse: a synthetic dim
])
def test_spyre_steps_compose_to_the_index_map(layout):
    steps = layout.layout_steps()
    assert len(steps) == 2 and steps[1].codomain.names == layout.index_map().codomain.names
    composes_to(steps, layout.index_map())


def test_spyre_steps_by_hand():
    # Seed 001: device element (a, b, c, d) holds torch element (c, a, 64·b + d).
    cut, order = SEED_SPYRE.layout_steps()
    assert cut.codomain.names == ("dev2", "dev0", "dev1", "dev3")  # h0, h1, then h2's two
    assert cut(5, 3, 135) == (5, 3, 2, 7)
    assert order(*cut(5, 3, 135)) == (3, 2, 5, 7)


def test_a_spyre_layout_in_device_order_already_is_one_step():
    plain = SpyreLayout([64, 64], "float16", [64, 64], [0, 1])
    assert plain.layout_steps() == () and steps_of(plain) == ()


# -- formulas -------------------------------------------------------------------------------


def test_a_name_of_several_letters_is_one_identifier_in_mathml():
    m = MeshLayout.grid(2, 2).on((10, 10)).index_map()
    html = "\n".join(formula_lines(m))
    assert "<mi>pe&#x0005F;row</mi>" in html and "<mi>offset</mi>" in html
    assert '<mi mathvariant="italic">' not in html
    if mathml.available():  # the subscript SymPy would write for pe_row is gone
        assert "<msub>" not in html
    spyre = "\n".join(formula_lines(SEED_SPYRE.index_map()))
    assert "<mi>dev2</mi>" in spyre and "<mi>h0</mi>" in spyre  # letters and a number
    assert 'mathvariant="italic"' not in spyre


# -- channel counterexamples as tiles ---------------------------------------------------------


def test_a_channel_conflict_outlines_the_two_streamed_tiles_on_one_channel():
    small = ChannelLayout("round_robin", num_channels=4, m_tiles=4, n_tiles=4, k_tiles=4,
                          tile_bytes=256)
    marks = conflict_marks(small, "channel_conflict_free(os, tile)", {"ti": 0, "tj": 0, "tk": 0})
    # A[0,0] is tile 0, B[0,0] tile 4·4 = 16; dealt round robin both land on channel 0.
    assert [p for p, _ in marks] == [(0,), (16,)]
    assert "channel 0" in marks[0][1] and "channel 0" in marks[1][1]
    # Weight stationary on the seed's option 3: A[0,0] and C[0,0] (tile 512), channel 0.
    ia = ChannelLayout("iteration_aware", **SEED_003)
    marks = conflict_marks(ia, "channel_conflict_free(ws, tile)", {"ti": 0, "tj": 0, "tk": 0})
    assert [p for p, _ in marks] == [(0,), (512,)]


def test_a_wrong_channel_total_outlines_a_tile_of_that_channel():
    ia = ChannelLayout("iteration_aware", **SEED_003)
    # Seed 003, option 3: A[ti,tk] on channel 2·((ti+tk) mod 2), B[tk,tj] on
    # 2·((tk+tj) mod 2) + 1. Channel 0's first tile is A[0,0] (tile 0); channel 3's
    # is B[0,1], tile 256 + 1.
    marks = conflict_marks(ia, "channel_totals", {"channel": 0, "bytes": 4 * MB})
    assert [p for p, _ in marks] == [(0,)] and "holds 4194304 B" in marks[0][1]
    assert [p for p, _ in conflict_marks(ia, "channel_totals", {"channel": 3, "bytes": 0})] \
        == [(257,)]
    empty = ChannelLayout("matrix", **SEED_003)  # channel 1 holds nothing: no tile to show
    assert conflict_marks(empty, "channel_totals", {"channel": 1, "bytes": 0}) == []


def test_a_channel_picture_says_its_elements_are_tiles():
    from layoutalg.docgen.pages import tile_numbering

    layout = ChannelLayout("round_robin", num_channels=4, m_tiles=4, n_tiles=2, k_tiles=3,
                           tile_bytes=256)
    assert "A's 4×3 tiles row-major, then B's 3×2, then C's 4×2" in tile_numbering(layout)
    assert tile_numbering(MeshLayout.grid(2, 2).on((4, 4))) == ""


def test_overlapping_tiles_are_outlined_by_their_global_numbers():
    matrix = ChannelLayout("matrix", **SEED_003, channel_bytes=3 * MB)
    marks = conflict_marks(matrix, "tiles_disjoint", {"tk": 12, "tj": 0, "ti'": 0, "tj'": 0})
    # B starts after A's 256 tiles: B[12, 0] is 256 + 12·16; C starts at 512.
    assert [p for p, _ in marks] == [(448,), (512,)]
    assert global_tile(matrix, "B", 12, 0) == 448
    assert conflict_marks(matrix, "tiles_disjoint", {"other": 1}) == []
    assert conflict_marks(matrix, "tiles_disjoint", None) == []


def test_notes_must_match_the_highlighted_elements():
    from layoutalg.docgen.picture import layout_svg

    with pytest.raises(ValueError, match="one thing per highlighted element"):
        layout_svg(la.strided((4,), (1,)), highlight=[(0,)], notes=["a", "b"])
    svg = layout_svg(la.strided((4,), (1,)), highlight=[(1,)], notes=["on channel 3"])
    assert "1: on channel 3" in svg


def test_a_bank_conflict_outlines_both_threads():
    """bank_conflict_free names the second thread by its primed lane only
    (``thread'``); the step ``col`` is shared."""
    from pathlib import Path

    from layoutalg.docgen.pages import spec_page
    from layoutalg.runner.prover import discover, prove

    root = Path(__file__).resolve().parents[2]
    found = [f for f in discover([root / "specs" / "channel.py"])
             if f.spec.name == "unswizzled_column_read"]
    outcomes = prove(found, cache=None)
    assert outcomes[0].status == "REFUTED" and "thread'" in outcomes[0].counterexample
    svg = spec_page(found[0], outcomes)[1].text
    marked = re.findall(r'fill="#c00000">\d: element \(col=(\d+), thread=(\d+)\) → '
                        r'\(offset=(\d+)\)', svg)
    (col, thread, byte), (col2, thread2, byte2) = [tuple(map(int, m)) for m in marked]
    # One step, two threads; 128-byte rows: thread t reads byte 128·t + 16·col, and
    # 8 banks of 16 B put byte b in bank (b // 16) mod 8: the same bank for both.
    assert col == col2 and thread != thread2
    assert (byte, byte2) == (128 * thread + 16 * col, 128 * thread2 + 16 * col)
    assert (byte // 16) % 8 == (byte2 // 16) % 8
