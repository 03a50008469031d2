"""The shipped mesh specs: the seed's failing layouts are refuted with the PE and bytes.

CI's `layoutalg prove` checks every claim of specs/mesh.py and proofs/mesh.py;
here the refuted ones are proved again and their messages read.
"""

from __future__ import annotations

from pathlib import Path

from layoutalg.runner.prover import discover, prove_spec

ROOT = Path(__file__).resolve().parents[2]


def test_refuted_specs_show_the_seeds_errors():
    found = [f for f in discover([ROOT / "specs" / "mesh.py"])
             if any(c.expect == "REFUTED" for c in f.spec.claims)]
    outcomes = [o for f in found for o in prove_spec(f)]
    assert all(o.ok for o in outcomes), [o for o in outcomes if not o.ok]
    text = {o.spec: o.reason for o in outcomes if o.expected == "REFUTED"}
    assert text["single_pe_4mb"] == ("PE (0, 0) exceeds memory: 4194304 > 36864 bytes "
                                     "(element (i=1023, j=1023))")
    assert "exceeds memory: 1048576 > 36864 bytes" in text["row_partition_4"]
    assert "exceeds memory: 33400 > 32768 bytes" in text["seed_planner_1000x1000"]
    assert text["mlp_bump_allocator"].startswith("PE (0, 0) exceeds memory: 77276 > 36864 bytes")
    assert "under Grid(2, 8) but on PE" in text["matmul_a_grid_2x8"]
    assert text["seed_gather_uneven"].startswith("an element lies past the bytes its message sends")
    assert text["seed_scatter_uneven_rows"].startswith("an element is written where the "
                                                       "destination layout does not put it")
    assert "pe_row=750 not in [0, 750)" in text["tall_row_partition"]
