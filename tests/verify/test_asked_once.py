"""A check asks each distinct question of Z3 once (``query.asks_once``), and a
4×4 grid's bijectivity takes at most two solver checks.

The count is of calls into ``solver.solve`` (each a Z3 check of its own). The
verdicts are pinned against plain Python ints: the row-major map of a 4×4
grid is a bijection onto [0, 16); a map that sends two elements to one slot
is not, and its counterexample is recomputed here.
"""

from __future__ import annotations

import pytest
import z3

import layoutalg as la
from layoutalg.verify import query as q
from layoutalg.verify.result import Status
from layoutalg.verify.z3_backend import solver

TIMEOUT_MS = 60_000  # a margin: these queries answer in milliseconds


@pytest.fixture
def asked(monkeypatch):
    """The questions that reached ``solver.solve``, in order."""
    questions = []
    real = solver.solve

    def counting(unknowns, constraints, **kwargs):
        questions.append((tuple(unknowns), tuple(constraints), tuple(kwargs["parameters"]),
                          tuple(kwargs["assumptions"]), kwargs.get("forall")))
        return real(unknowns, constraints, **kwargs)

    monkeypatch.setattr(solver, "solve", counting)
    return questions


def grid_tiling(rows: int, cols: int, pes: int) -> la.IndexMap:
    """[i, j] tiled over pes×pes PEs: [pe_row, pe_col, offset in the tile]."""
    tile_rows, tile_cols = -(-rows // pes), -(-cols // pes)
    m = la.split(la.Space(i=rows, j=cols), "i", tile_rows, names=("pe_row", "row"))
    m = la.split(m, "j", tile_cols, names=("pe_col", "col"))
    return la.linearize(la.permute(m, ["pe_row", "pe_col", "row", "col"]), ["row", "col"])


def test_a_4x4_row_major_map_is_a_bijection_in_at_most_two_checks(asked):
    m = la.linearize(la.Space(i=4, j=4), ["i", "j"])
    images = sorted(4 * i + j for i in range(4) for j in range(4))
    assert images == list(range(16))                       # hand truth: a bijection
    assert [m(i, j) for i in range(4) for j in range(4)] == [(k,) for k in range(16)]
    assert la.check_bijective(m, timeout_ms=TIMEOUT_MS).proved
    assert len(asked) <= 2, asked


def test_a_4x4_grid_tiling_is_a_bijection_in_at_most_two_checks(asked):
    m = grid_tiling(30, 30, 4)
    slots = {m(i, j) for i in range(30) for j in range(30)}
    assert len(slots) == 900                                # no two elements share a slot
    assert all(0 <= r < 4 and 0 <= c < 4 and 0 <= o < 64 for r, c, o in slots)
    verdict = la.check_bijective(m, timeout_ms=TIMEOUT_MS)
    assert verdict.proved, verdict
    assert len(asked) <= 2, asked


def test_a_symbolic_grid_tiling_asks_no_question_twice(asked):
    M, N = la.extents("M N")
    m = la.split(la.Space(i=M, j=N), "i", 8, names=("pe_row", "row"))
    m = la.split(m, "j", 16, names=("pe_col", "col"))
    m = la.linearize(la.permute(m, ["pe_row", "pe_col", "row", "col"]), ["row", "col"])
    assert la.check_bijective(m, timeout_ms=TIMEOUT_MS).proved
    assert la.check_bijective(m.bind(M=20, N=33), timeout_ms=TIMEOUT_MS).proved
    assert len({hash(a) for a in asked}) == len(asked), asked


def doubled() -> la.IndexMap:
    """[i:4, j:4] → [o:16], o = 4·i + (j mod 3): j = 0 and j = 3 share a slot.
    Its inverse (o ↦ (o // 4, o mod 4)) is wrong there: the whole fallback runs."""
    d = la.Space(i=4, j=4)
    i, j = d.symbols
    c = la.Space(o=16)
    (o,) = c.symbols
    return la.IndexMap(d, c, [4 * i + j % 3], inverse=[o // 4, o % 4], name="doubled")


def test_a_map_with_a_doubled_element_is_refuted_at_a_real_collision(asked):
    verdict = la.check_bijective(doubled(), timeout_ms=TIMEOUT_MS)
    assert verdict.status is Status.REFUTED, verdict
    ce = verdict.counterexample
    first, second = (ce["i"], ce["j"]), (ce["i'"], ce["j'"])
    assert first != second
    assert 4 * first[0] + first[1] % 3 == 4 * second[0] + second[1] % 3   # plain ints
    assert len({hash(a) for a in asked}) == len(asked), asked


def test_surjective_asks_the_pigeonhole_parts_once(asked):
    """[i:4, j:4] → [o:16] by 4·i + j with no inverse: onto by counting, whose
    in-bounds and injective parts each ask once."""
    d = la.Space(i=4, j=4)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=16), [4 * i + j], name="no inverse")
    assert sorted(4 * a + b for a in range(4) for b in range(4)) == list(range(16))
    assert la.check_surjective(m, timeout_ms=TIMEOUT_MS).proved
    onto = list(asked)
    assert len(onto) == 2, onto                       # in bounds, and the pairwise query
    assert la.check_bijective(m, timeout_ms=TIMEOUT_MS).proved
    assert asked[2:] == onto                          # the same two, asked once each


def test_the_memo_lives_for_one_check_only(asked):
    m = doubled()
    la.check_injective(m, timeout_ms=TIMEOUT_MS)
    first = len(asked)
    la.check_injective(m, timeout_ms=TIMEOUT_MS)
    assert first >= 1 and len(asked) == 2 * first    # outside a check nothing is kept
    with q.shortcuts(reuse=False, enumerate_up_to=0):
        la.check_injective(m, timeout_ms=TIMEOUT_MS)
    assert len(asked) == 3 * first


def test_the_queries_of_one_check_share_one_fresh_context(asked, monkeypatch):
    """Two queries of one check, one context; the next check a new one (a
    context's history changes Z3's search, so no check inherits another's)."""
    made = []
    take = solver._FRESH.take  # fresh contexts, made ahead of need

    def counting():
        made.append(take())
        assert isinstance(made[-1], z3.Context)
        return made[-1]

    monkeypatch.setattr(solver._FRESH, "take", counting)
    d = la.Space(i=4, j=4)
    i, j = d.symbols
    m = la.IndexMap(d, la.Space(o=16), [4 * i + j], name="no inverse")  # no division: no race
    assert la.check_bijective(m, timeout_ms=TIMEOUT_MS).proved
    assert len(asked) == 2 and len(made) == 1, (asked, made)
    assert la.check_bijective(m, timeout_ms=TIMEOUT_MS).proved
    assert len(asked) == 4 and len(made) == 2
