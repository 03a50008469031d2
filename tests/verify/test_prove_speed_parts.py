"""check_bijective applies the by-parts lemma by itself to a map compose made.

Issue 17 item 3: the three-level cyclic deal of a symbolic N, bijective, was
the one question ISL decided (0.5 s) and layoutalg left UNKNOWN (its direct
queries time out at 20 s). The lemma on the parts ``compose`` recorded now
decides it inside ``check_bijective``. The truth is pinned at concrete sizes
by counting slots with Python sets, and a map that is not a bijection stays
REFUTED with a real counterexample.
"""

from __future__ import annotations

import itertools

import layoutalg as la
from layoutalg.verify import checks, composition
from layoutalg.verify.result import Status

(N,) = la.extents("N")
LEVELS = [(2, 3), (2, 5), (3, 1)]  # (parts, block) per level: bench/isl.py's hard question


def deal(n, levels=LEVELS) -> la.IndexMap:
    m = la.cyclic(la.Space(i=n), "i", levels[0][0], block=levels[0][1], names=("p0", "l0"))
    for k, (parts, block) in enumerate(levels[1:], start=1):
        m = la.cyclic(m, f"l{k - 1}", parts, block=block, names=(f"p{k}", f"l{k}"))
    return m.renamed(f"deal {levels} of {n}")


def test_the_three_level_deal_of_symbolic_n_is_proved_by_its_parts():
    m = deal(N)
    assert len(composition.parts_of(m)) == 3
    verdict = checks.check_bijective(m)
    assert verdict.status is Status.PROVED
    assert "by parts" in verdict.reason


def test_the_deal_is_a_bijection_at_concrete_sizes_by_counting():
    """Independent of any check: every element on its own valid slot, and as
    many valid slots as elements (the slots are counted with sets)."""
    for n in (1, 7, 30, 61, 90):
        m = deal(N).bind(N=n)
        images = [m(i) for i in range(n)]
        assert len(set(images)) == n
        slots = itertools.product(*(range(e) for e in m.codomain.extents))
        valid = {s for s in slots if m.valid is None or bool(m.valid.subs(
            dict(zip(m.codomain.symbols, s))))}
        assert set(images) == valid


def test_a_composed_map_that_is_no_bijection_stays_refuted():
    """Dealing [i:12] over 3 parts and then keeping only the part (a fold onto
    [p0:3]) puts four elements on each slot: REFUTED, whatever its parts say."""
    dealt = la.cyclic(la.Space(i=12), "i", 3, names=("p0", "l0"))
    p0, _ = dealt.codomain.symbols
    fold = la.IndexMap(dealt.codomain, la.Space(q=3), [p0], name="keep the part")
    m = la.compose(dealt, fold)
    verdict = checks.check_bijective(m)
    assert verdict.status is Status.REFUTED
    a, b = verdict.counterexample["i"], verdict.counterexample["i'"]
    assert a != b and a % 3 == b % 3  # both dealt to the same part
