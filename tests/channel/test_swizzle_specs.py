"""The shipped swizzle specs: every claim as expected, decided by Z3, refutations read.

CI's ``layoutalg prove`` checks specs/swizzle.py; here the outcomes are
proved again and the refuted ones' lanes, banks and degrees are checked
against hand computation.
"""

from __future__ import annotations

from pathlib import Path

from layoutalg.runner.prover import discover, prove_spec

ROOT = Path(__file__).resolve().parents[2]


def outcomes():
    found = discover([ROOT / "specs" / "swizzle.py"])
    return [o for f in found for o in prove_spec(f)]


def test_every_swizzle_claim_is_as_expected_and_none_enumerates():
    found = outcomes()
    assert len(found) == 14
    assert all(o.ok for o in found), [o for o in found if not o.ok]
    # The tile specs are over a symbolic R: Z3 decides them. (The prover may list a
    # small concrete map's points instead, as for the 1024-point CuTe composition.)
    symbolic = [o for o in found if o.spec != "sw128_over_a_cute_layout"]
    assert all("enumerat" not in o.reason and o.method == "z3" for o in symbolic)
    proved_symbolic = {o.spec for o in found if o.status == "PROVED"}
    assert {"sw128_tile_is_a_bijection", "sw128_column_access_is_conflict_free",
            "sw_fp32_column_read_is_conflict_free"} <= proved_symbolic


def test_refutations_name_the_lane_pair_the_bank_and_the_degree():
    text = {(o.spec, o.claim): o.reason for o in outcomes() if o.status == "REFUTED"}
    by_spec = {}
    for (spec, _), reason in text.items():
        by_spec.setdefault(spec, []).append(reason)
    # hand: rows r and r+1 of 128-byte rows, chunk 0, both in banks 0-3 (16 B groups)
    assert any(r.startswith("8-way conflict at step (col=0): row 0 (byte 0) and row 1 "
                            "(byte 128) both use bank 0")
               for r in by_spec["unswizzled_column_read_is_8_way"])
    assert all("2-way conflict" in r for r in by_spec["sw128_with_64bit_accesses_is_2_way"])
    assert all("2-way conflict" in r for r in by_spec["two_bit_swizzle_is_2_way"])
    assert all(r.startswith("32-way conflict")
               for r in by_spec["unswizzled_fp32_column_read_is_32_way"])
