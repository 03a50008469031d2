"""Issue 12: adding a family takes one short module (tests/architecture/toy_family/banked.py).

The toy family composes core combinators and defines one claim beside its
check; the prover runs its specs like any shipped family's.
"""

from __future__ import annotations

import pathlib

import pytest

import layoutalg as la
from layoutalg.runner.prover import discover, prove

HERE = pathlib.Path(__file__).parent / "toy_family"


def outcomes():
    return {(o.spec, o.claim): o for o in prove(discover([HERE / "specs_banked.py"]))}


def test_the_toy_family_is_one_short_module():
    lines = (HERE / "banked.py").read_text().splitlines()
    code = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    assert len(code) < 60


def test_its_specs_prove_and_refute_as_declared():
    seen = outcomes()
    assert {key: o.status for key, o in seen.items()} == {
        ("twelve_over_four", "bijective"): "PROVED",
        ("twelve_over_four", "toy_spread_evenly"): "PROVED",
        ("ten_over_four", "injective"): "PROVED",
        ("ten_over_four", "toy_spread_evenly"): "REFUTED",
    }
    assert all(o.ok for o in seen.values())


def test_its_map_is_the_round_robin_deal():
    import sys

    sys.path.insert(0, str(HERE))
    try:
        from banked import BankedVector
    finally:
        sys.path.remove(str(HERE))
    m = BankedVector(10, 4).index_map()
    # truth written by hand: element e → (bank e mod 4, row e div 4)
    assert [m(e) for e in range(10)] == [(e % 4, e // 4) for e in range(10)]
    with pytest.raises(la.LayoutError, match="banks must be a positive int; got 0"):
        BankedVector(10, 0)
