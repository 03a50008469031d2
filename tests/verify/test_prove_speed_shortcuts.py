"""What ``layoutalg prove``'s shortcuts may change (time) and may not (verdicts, guards).

Inside ``query.shortcuts()`` (each spec of a prove run) a query asked before
is answered from memory and a small concrete map is enumerated; outside,
every check asks Z3. These tests pin: the same verdicts either way (with the
truth hand-computed), what is remembered (sat and unsat, never unknown), that
the guards of issue 8 still hold (contradictory assumptions, an operator
outside the vocabulary: UNKNOWN), that the memo is off outside a prove run,
and that the JSON report carries the per-claim time table.
"""

from __future__ import annotations

import json

import sympy

import layoutalg as la
from layoutalg.runner import prover, reports
from layoutalg.verify import checks, query
from layoutalg.verify.result import Status

M, = la.extents("M")


def tiles() -> la.IndexMap:
    """[12] → [3, 4] by i ↦ (i // 4, i % 4): a bijection (hand-checked: 12 = 3·4)."""
    d = la.Space(i=12)
    (i,) = d.symbols
    return la.IndexMap(d, la.Space(t=3, o=4), [i // 4, i % 4], name="tiles")


def folded() -> la.IndexMap:
    """[8] → [4] by i ↦ i % 4: in bounds, not injective (0 and 4 share slot 0)."""
    d = la.Space(i=8)
    (i,) = d.symbols
    return la.IndexMap(d, la.Space(o=4), [i % 4], name="folded")


def test_small_concrete_maps_are_enumerated_inside_and_asked_of_z3_outside():
    inside_verdicts = {}
    with query.shortcuts():
        for check in (checks.check_bijective, checks.check_in_bounds, checks.check_injective):
            for m in (tiles(), folded()):
                inside_verdicts[(check.__name__, m.label)] = check(m)
    for (name, label), verdict in inside_verdicts.items():
        assert verdict.method == "enumeration"
        outside = getattr(checks, name)(tiles() if label == "tiles" else folded())
        assert outside.method == "z3"
        assert outside.status is verdict.status
    truth = {("check_bijective", "tiles"): Status.PROVED,
             ("check_bijective", "folded"): Status.REFUTED,
             ("check_in_bounds", "folded"): Status.PROVED,
             ("check_injective", "folded"): Status.REFUTED}
    for key, status in truth.items():
        assert inside_verdicts[key].status is status
    collision = inside_verdicts[("check_injective", "folded")].counterexample
    assert collision["i"] % 4 == collision["i'"] % 4 and collision["i"] != collision["i'"]


def test_enumeration_leaves_false_assumptions_to_the_guard():
    """A concrete map whose assumptions are false proves nothing: UNKNOWN, as
    with Z3 alone, never an enumerated PROVED."""
    m = tiles()
    with query.shortcuts():
        verdict = checks.check_bijective(m, assume=[sympy.false])
    assert verdict.status is Status.UNKNOWN
    assert "contradict" in verdict.reason


def test_contradictory_assumptions_stay_unknown_when_remembered():
    d = la.Space(i=M)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=M), [i], name="identity")
    contradiction = [M > 5, M < 3]
    with query.shortcuts():
        first = checks.check_injective(m, assume=contradiction)
        again = checks.check_injective(m, assume=contradiction)
    assert first.status is Status.UNKNOWN and again.status is Status.UNKNOWN


def test_an_unsupported_operator_stays_unknown():
    d = la.Space(i=M)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(o=M), [sympy.Function("f")(i)], name="opaque")
    with query.shortcuts():
        assert checks.check_in_bounds(m).status is Status.UNKNOWN


def test_an_unsupported_operator_written_alike_in_both_maps_stays_unknown():
    """check_equivalent skips coordinates written alike, but still translates
    them: an operator outside the vocabulary is UNKNOWN, never PROVED."""
    d = la.Space(i=M)
    (i,) = d.symbols
    f = sympy.Function("f")
    one = la.IndexMap(d, la.Space(o=M, p=M), [f(i), i], name="one")
    other = la.IndexMap(d, la.Space(o=M, p=M), [f(i), i], name="other")
    assert checks.check_equivalent(one, other).status is Status.UNKNOWN


def test_answers_are_remembered_in_a_run_only_and_never_unknown():
    memo = query.answers_memo()
    memo.clear()
    d = la.Space(i=M)
    (i,) = d.symbols
    m = la.IndexMap(d, la.Space(t=M, o=2), [i + 1, i % 2], name="shifted")  # i = M-1 escapes
    outside = checks.check_in_bounds(m)
    assert outside.refuted and memo.hits == memo.misses == 0  # off outside a prove run
    with query.shortcuts():
        first = checks.check_in_bounds(m)
        hits = memo.hits
        second = checks.check_in_bounds(m)
        assert memo.hits == hits + 1  # the same query, answered from memory
        assert first.status is second.status is Status.REFUTED
        assert second.counterexample == first.counterexample
        # an unknown answer (an operator outside the vocabulary) is not kept
        kept = len(memo.items)
        opaque = la.IndexMap(d, la.Space(o=M), [sympy.Function("f")(i)], name="opaque")
        assert checks.check_in_bounds(opaque).status is Status.UNKNOWN
        assert len(memo.items) == kept
    # the one escaping point (by hand): i + 1 = M, the last element
    values = first.counterexample
    assert values["i"] == values["M"] - 1


def test_prove_reports_a_time_table(tmp_path):
    spec_file = tmp_path / "specs" / "few.py"
    spec_file.parent.mkdir()
    spec_file.write_text(
        "import layoutalg as la\n"
        "@la.spec(claims=['bijective', 'injective'])\n"
        "def deal():\n"
        "    return la.cyclic(la.Space(n=12), 'n', 3)\n"
        "@la.spec(claims=['injective'], expect='REFUTED')\n"
        "def zero():\n"
        "    return la.strided((8,), (0,))\n")
    outcomes = prover.prove(prover.discover([spec_file]))
    assert [o.status for o in outcomes] == ["PROVED", "PROVED", "REFUTED"]
    assert {o.method for o in outcomes} == {"enumeration"}  # 12 and 8 points
    report = tmp_path / "r.json"
    reports.write_json(outcomes, report)
    table = json.loads(report.read_text())["timing"]
    rows = table["claims"]
    assert len(rows) == 3
    assert [r["seconds"] for r in rows] == sorted((r["seconds"] for r in rows), reverse=True)
    assert {r["claim"] for r in rows} == {"few::deal::bijective", "few::deal::injective",
                                          "few::zero::injective"}
    assert all(r["cpu_seconds"] >= 0 and r["method"] == "enumeration" for r in rows)
    assert abs(sum(r["share"] for r in rows) - 1) < 1e-3


def test_a_forced_encoding_is_part_of_the_memo_key():
    """An answer found under one forced encoding is not reused under another
    (the forced choice lives in verify.encodings since solver.py was split)."""
    from layoutalg.verify import query
    from layoutalg.verify.z3_backend import solver

    plain = query._key((), (), (), (), None)
    with solver.use_encoding("int"):
        forced = query._key((), (), (), (), None)
    assert plain[-1] == "auto" and forced[-1] == "int" and plain != forced
