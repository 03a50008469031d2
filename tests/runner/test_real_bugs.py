"""The shipped real-bug specs (specs/real_bugs.py): every buggy behaviour REFUTED, every
fix PROVED, and each counterexample replayed with plain integers against the report.

Truths come from the reports where they give them: #54621 / #28835 (the addresses in
their error messages), torch-spyre#3401 (the layout and host tensor of its reproducer, and
the divisor worked by hand from spyre_mem.cpp), cutlass#3513 (its printed result, size 288
of 384). tt-metal#24425's [32, 70] case is ours (the report has no example) and #53110's
fill addressing is our reading of the report, worked by hand here. Speed is not asserted here (bench/ measures it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import layoutalg as la
from layoutalg.runner.prover import discover, prove_spec
from layoutalg.core.cute_layout import parse_layout

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs" / "real_bugs.py"
DOCS = ROOT / "docs" / "real-bugs.md"
BUGS = ["tt_metal_24425", "tt_metal_53110", "tt_metal_54621", "tt_metal_28835",
        "torch_spyre_3401", "cutlass_3513"]


@pytest.fixture(scope="module")
def outcomes():
    found = discover([SPECS])
    return {(o.spec, o.claim): o for f in found for o in prove_spec(f)}


def test_every_claim_meets_its_expectation(outcomes):
    assert outcomes and all(o.ok for o in outcomes.values()), [
        o for o in outcomes.values() if not o.ok]


@pytest.mark.parametrize("bug", BUGS)
def test_each_bug_is_refuted_and_its_fix_proved(outcomes, bug):
    mine = [o for (spec, _), o in outcomes.items() if spec.startswith(bug)]
    assert any(o.status == "REFUTED" and o.counterexample for o in mine), bug
    if bug != "tt_metal_28835":  # its fix is the breakdown the refutation prints
        assert any(o.status == "PROVED" and o.spec.startswith(bug) for o in mine
                   if not any(p.spec == o.spec and p.status == "REFUTED" for p in mine)), bug


def test_24425_counterexample_is_a_shard_column_past_the_padded_width(outcomes):
    o = outcomes[("tt_metal_24425_padded_to_tiles", "padded_to_shards")]
    column = o.counterexample["shard_col"] * 64 + o.counterexample["col_in_shard"]
    assert 96 <= column < 128  # tiles pad 70 to 96; 2 shards of 64 span 128


def _tile_offset(i, j):
    return (2 * (i // 16) + j // 16) * 256 + (i % 16) * 16 + j % 16


def test_53110_counterexample_replays_by_hand(outcomes):
    o = next(o for (s, _), o in outcomes.items() if s == "tt_metal_53110_fill_pad_block_sharded")
    ce = o.counterexample
    first, second = (ce["d2"], ce["d3"]), (ce["d2'"], ce["d3'"])
    pad, data = (first, second) if first[0] >= 100 else (second, first)
    assert pad[0] >= 100 > data[0]
    cores = [(0, 0), (0, 1), (1, 0), (1, 1)]  # COL_MAJOR order of a 2 × 2 grid
    tr, tc = data[0] // 32, data[1] // 32
    data_at = (cores[(tr // 2) * 2 + tc // 4],
               ((tr % 2) * 4 + tc % 4) * 2048 + 2 * _tile_offset(data[0] % 32, data[1] % 32))
    page = (pad[0] // 32) * 8 + pad[1] // 32
    fill_at = (cores[page // 8], (page % 8) * 2048 + 2 * _tile_offset(pad[0] % 32, pad[1] % 32))
    assert fill_at == data_at


def test_54621_and_28835_figures_are_the_reports(outcomes):
    wo = outcomes[("tt_metal_54621_wo_shard_cb", "l1_holds(1310720)")]
    # 1,430,656 (CB region end) − 1,378,048 (lowest L1 buffer) = 52,608 B of clash
    assert "1,625,472 of 1,572,864 B L1 (52,608 B over" in wo.reason
    guard = outcomes[("tt_metal_54621_max_l1_guard", "l1_guard_sound(max)")]
    size = guard.counterexample["cb_bytes"]
    assert 1_378_048 - 119_936 < size <= 1_572_864 - 119_936
    clash = outcomes[("tt_metal_28835_clash_breakdown", "l1_holds(0)")]
    assert "115,200 B over" in clash.reason  # 1,089,536 − 974,336


def test_3401_counterexample_is_the_zero_divisor(outcomes):
    """By hand from spyre_mem.cpp: get_dim_map groups device dim 2 (stride_map 1) under torch
    dim 2 (host stride 128); the copy divides by 1 / 128 = 0 (C++ integer division)."""
    o = outcomes[("torch_spyre_3401_layout_the_dma_misreads", "spyre_dma_reading")]
    assert o.counterexample == {"device_dim": 2, "torch_dim": 2, "divisor": 1 // 128}
    assert "SIGFPE" in o.reason


def test_3513_reported_result_sizes(outcomes):
    o = outcomes[("cutlass_3513_dynamic_tiler_result", "cute_equivalent((12,(4,8)):(7,(1,30)))")]
    assert o.reason.startswith("sizes differ: 288 vs 384")
    reported = parse_layout("((12,4,2),(1,1,3)):((7,1,30),(896,11,90))")
    assert reported.size == 12 * 4 * 2 * 1 * 1 * 3 == 288
    assert parse_layout("(12,(4,8)):(7,(1,30))").size == 384


def test_the_docs_page_links_every_report_and_spec():
    text = DOCS.read_text()
    for url in ["https://github.com/tenstorrent/tt-metal/issues/24425",
                "https://github.com/tenstorrent/tt-metal/issues/53110",
                "https://github.com/tenstorrent/tt-metal/issues/54621",
                "https://github.com/tenstorrent/tt-metal/issues/28835",
                "https://github.com/torch-spyre/torch-spyre/issues/3401",
                "https://github.com/NVIDIA/cutlass/issues/3513",
                "https://github.com/pytorch/pytorch/issues/194457"]:
        assert url in text, url
    names = {f.spec.name for f in discover([SPECS])}
    for name in names:
        assert f"`{name}`" in text, name
    assert la.Status.REFUTED.value in text


def test_the_docs_links_are_the_generated_pages_names():
    """docs/real-bugs.md links each spec's generated page by the slug docgen gives it."""
    from layoutalg.docgen.pages import unique_slugs

    found = discover([SPECS, ROOT / "specs" / "dtensor.py"])
    pages = set(unique_slugs(found).values())
    linked = set(re.findall(r"\(generated/([a-z0-9-]+)\.md\)", DOCS.read_text()))
    assert linked and linked <= pages, linked - pages
