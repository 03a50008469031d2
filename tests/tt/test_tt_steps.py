"""A Tenstorrent tensor's layout as steps (``TensorSpec.layout_steps``):
element → (page, offset) → (location, slot, offset) → (location, address).

The steps must be the index map taken apart, not a second model of it:
composed they are proved equivalent to ``index_map()`` on shipped specs,
and each step is checked on a few points with plain Python integers
against the rules written out by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import layoutalg as la
from layoutalg.docgen.pages import Stepped, spec_page, steps_of
from layoutalg.runner.prover import discover

ROOT = Path(__file__).resolve().parents[2]
TT_SPECS = ROOT / "specs" / "tt.py"

SHIPPED = [
    "seed_tiled_64x64",                  # interleaved DRAM, tiles
    "seed_row_major_64x64",              # interleaved DRAM, rows
    "tiled_pads_last_two_dims_first",    # interleaved DRAM, padded batches
    "bfloat8_b_tiles_on_blackhole",      # exponent bytes before each tile, 64 B alignment
    "seed_block_figure",                 # BLOCK sharded L1
    "height_sharded_uneven",             # HEIGHT sharded L1, an empty core
    "width_sharded_row_major_uneven",    # WIDTH sharded L1, padded pages
    "nd_sharded_round_robin",            # N-d sharded L1
    "interleaved_1024x1024_blackhole",   # a million elements
]


@pytest.fixture(scope="module")
def shipped() -> dict[str, object]:
    return {found.spec.name: found for found in discover([TT_SPECS])}


@pytest.mark.parametrize("name", SHIPPED)
def test_the_steps_compose_to_the_index_map(shipped, name):
    tensor = shipped[name].subject()
    steps = tensor.layout_steps()
    assert isinstance(tensor, Stepped) and len(steps) == 3
    composed = la.Chain(steps).index_map()
    result = la.check_equivalent(composed, tensor.index_map())
    assert result.status is la.Status.PROVED, result.reason
    names = [step.codomain.names for step in steps]
    location = tensor.index_map().codomain.names[:-1]
    assert names == [("page", "offset"), (*location, "slot", "offset"), (*location, "address")]


def test_composed_steps_keep_the_padding_and_prove_bijective(shipped):
    tensor = shipped["width_sharded_row_major_uneven"].subject()
    composed = la.Chain(tensor.layout_steps()).index_map()
    result = la.check_bijective(composed)
    assert result.status is la.Status.PROVED, result.reason
    m = tensor.index_map()
    # A real element's slot, a padding element's slot (the last shard's
    # pages end in 24 padding elements) and an alignment-free byte inside an element.
    for slot in [m(2, 999), (3, 1, m(2, 999)[-1] + 4), (3, 1, m(2, 999)[-1] + 1)]:
        assert composed.preimage(*slot) == m.preimage(*slot)


def interleaved_by_hand(tensor, element):
    """Bank and address of a 2D TILE or ROW_MAJOR element, from TT-Metal's rules."""
    (ph, pw), (_, pages_across) = tensor.page_shape, tensor.pages_2d
    row, col = element
    page = (row // ph) * pages_across + col // pw
    if tensor.layout == "TILE":
        (fh, fw), i, j = tensor.tile.face_shape, row % ph, col % pw
        face = (i // fh) * (pw // fw) + j // fw
        offset = face * fh * fw + (i % fh) * fw + j % fw
    else:
        offset = col % pw
    banks = tensor.device.dram_banks
    return (page, offset), (page % banks, page // banks, offset), (
        page % banks,
        tensor.base_address + (page // banks) * tensor.aligned_page_bytes
        + offset * tensor.dtype.element_bytes)


@pytest.mark.parametrize("tensor", [
    la.tt.TensorSpec((64, 64), "bfloat16"),
    la.tt.TensorSpec((100, 50), "bfloat16", layout="ROW_MAJOR", base_address=4096),
    la.tt.TensorSpec((96, 160), "float32", tile=(16, 32)),
], ids=["tiles", "rows", "short-tiles"])
def test_each_step_at_a_few_points_in_plain_integers(tensor):
    first, second, third = tensor.layout_steps()
    height, width = tensor.shape
    for element in [(0, 0), (height - 1, width - 1), (17, 18), (height // 2, width - 3), (5, 31)]:
        page, slot, place = interleaved_by_hand(tensor, element)
        assert first(*element) == page
        assert second(*page) == slot
        assert third(*slot) == place
        assert tensor.index_map()(*element) == place


def test_a_sharded_step_places_pages_on_the_figure_cores(shipped):
    """Seed §4.2, Figure 4: core (x=1, y=0) holds pages 2, 3, 6, 7 in that order."""
    tensor = shipped["seed_block_figure"].subject()
    _, second, third = tensor.layout_steps()
    assert [second(page, 7) for page in (2, 3, 6, 7)] == [
        (1, 0, slot, 7) for slot in range(4)]
    assert third(1, 0, 2, 7) == (1, 0, 2 * tensor.aligned_page_bytes + 2 * 7)


def test_packed_dtypes_have_no_byte_steps():
    tensor = la.tt.TensorSpec((64, 64), "bfloat4_b")
    with pytest.raises(la.tt.TTError, match="packs two elements per byte"):
        tensor.layout_steps()


def test_the_docs_page_shows_one_line_per_step(shipped):
    found = shipped["seed_tiled_64x64"]
    assert len(steps_of(found.subject())) == 3
    (page, *_) = spec_page(found, [])
    text = page.text
    assert "### Steps" in text
    for line in ["  page = ", "  bank = page mod 12", "  slot = ⌊page/12⌋",
                 "  address = 2*offset + 2048*slot"]:
        assert line in text
    assert text.count("<math") > 6  # every step's coordinates as MathML too
