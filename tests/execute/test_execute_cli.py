"""``layoutalg run SPEC`` (``layoutalg.cli.run.run_run``): layouts and dataflow schedules."""

from __future__ import annotations

import argparse
import re
import textwrap
from io import StringIO

import pytest

from layoutalg.cli.run import run_run
from layoutalg.execute import MachineError

SPECS = '''
import layoutalg as la
import layoutalg.dataflow  # registers the dataflow claims


@la.spec(claims=["bijective"])
def uneven_grid():
    """[10, 7] on 3×2 PEs: 4×4 tiles, the last row and column trimmed."""
    dom = la.Space(i=10, j=7)
    i, j = dom.symbols
    return la.IndexMap(dom, la.Space(pe_row=3, pe_col=2, offset=16),
                       [i // 4, j // 4, 4 * (i % 4) + j % 4], name="uneven")


@la.spec(claims=["injective"], expect="REFUTED")
def overlap():
    return la.strided((4, 4), (1, 2))


@la.spec(claims=[("fits", 64, {"element_bytes": 4})], expect="REFUTED")
def too_big():
    return la.linearize(la.Space(i=8, j=4))


@la.spec(claims=["meets_compulsory"])
def small_ws():
    return la.dataflow.Schedule("ws", (12, 10, 8), (4, 5, 4))


@la.spec(claims=["bijective"])
def symbolic():
    M, = la.extents("M")
    return la.linearize(la.Space(i=M, j=3))
'''


@pytest.fixture
def specs(tmp_path):
    path = tmp_path / "runs.py"
    path.write_text(textwrap.dedent(SPECS))
    return path


def run(reference: str, **options) -> tuple[int, str]:
    out = StringIO()
    code = run_run(argparse.Namespace(spec=reference, **options), out)
    return code, out.getvalue()


def row(out: str, label: str) -> str:
    line = next(line for line in out.splitlines() if label in line)
    return line.split("│")[2].strip()


def test_a_layout_runs_round_trip_and_prints_bytes_per_memory(specs):
    code, out = run(f"{specs}::uneven_grid")
    assert code == 0, out
    assert "round trip exact: fetch returned all 70 elements" in out
    # PE (0, 0) holds a full 4×4 tile (64 B); PE (2, 1) the 2×3 corner (24 B)
    assert row(out, "data bytes per PE (min / max)") == "24 / 64"
    # 6 PEs × 16 slots − 70 elements = 26 slots keep the fill
    assert row(out, "padding slots") == "26 of 96 (27.1%)"
    assert row(out, "plan") == "strided"


def test_a_colliding_layout_fails_its_round_trip_with_exit_1(specs):
    code, out = run(f"{specs}::overlap")
    assert code == 1
    assert "round trip FAILED" in out and "not injective" in out


def test_the_fits_claim_sets_the_capacity_and_the_overflow_fails_the_run(specs):
    code, out = run(f"{specs}::too_big")
    assert code == 1
    assert "the layout exceeds memory: 128 > 64 bytes" in out


def test_a_capacity_option_overrides_the_claim(specs):
    code, out = run(f"{specs}::too_big", capacity=128)
    assert code == 0, out
    assert "128 B per memory (--capacity)" in out


def test_a_schedule_runs_on_the_kpu_and_matches_the_model(specs):
    code, out = run(f"{specs}::small_ws")
    assert code == 0, out
    assert "✗" not in out and out.count("✓") >= 10
    assert "C equals numpy.matmul" in out
    assert "DRAM bytes per channel" in out


def test_a_shipped_known_bad_spec_shows_its_collision():
    code, out = run("specs/known_bad.py::overlapping_rows")
    assert code == 1
    assert "56 of 128 elements read back another value" in out


def test_a_symbolic_layout_runs_at_sizes_that_meet_its_assumptions(specs):
    code, out = run(f"{specs}::symbolic")
    assert code == 0, out
    rows = int(re.search(r"running at M=(\d+)", out).group(1))
    assert f"fetch returned all {rows * 3} elements" in out


def test_a_symbolic_layout_without_such_sizes_is_bad_input(tmp_path):
    path = tmp_path / "impossible.py"
    path.write_text(textwrap.dedent('''
        import sympy
        import layoutalg as la

        M, = la.extents("M")


        @la.spec(claims=["bijective"], assume=[sympy.Gt(M, 5), sympy.Lt(M, 3)])
        def impossible():
            return la.linearize(la.Space(i=M, j=3))
    '''))
    with pytest.raises(MachineError, match=r"run: layout .* has symbolic extents \['M'\]"):
        run(f"{path}::impossible")
