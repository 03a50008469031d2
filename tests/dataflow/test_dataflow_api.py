"""The dataflow facade, bad input messages, and the shipped specs and proofs."""

from __future__ import annotations

import ast
import types
from pathlib import Path

import pytest

import layoutalg as la
from layoutalg.runner import prover

df = la.dataflow
ROOT = Path(__file__).resolve().parents[2]
M, N, K = la.extents("M N K")


def test_all_names_the_public_api():
    public = {name for name, value in vars(df).items()
              if name.isidentifier() and not name.startswith("_")
              and not isinstance(value, types.ModuleType)}
    assert set(df.__all__) == public
    for name in df.__all__:
        assert getattr(df, name) is not None


def test_every_public_name_is_documented():
    page = (ROOT / "docs" / "dataflow.md").read_text()
    for name in df.__all__:
        assert f"la.dataflow.{name}" in page, name


def test_the_docs_example_runs_and_its_comments_are_true():
    """Each ``expression  # value …`` line of the page's first example is checked."""
    page = (ROOT / "docs" / "dataflow.md").read_text()
    block = page.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("#")
        if comment and "=" not in code.replace("==", ""):
            value = comment.split()[0]
            if value.startswith("(("):
                value = comment.strip()
            assert eval(code, scope) == ast.literal_eval(value), line  # noqa: S307 - our page
            checked += 1
        else:
            exec(line, scope)  # noqa: S102 - our page
    assert checked == 5


def test_errors_are_layout_errors():
    assert issubclass(df.DataflowError, la.LayoutError)


@pytest.mark.parametrize("call, message", [
    (lambda: df.Schedule("rs", (4, 4, 4), (2, 2, 2)),
     "Schedule: dataflow must be one of ('os', 'ws', 'is'); got 'rs'"),
    (lambda: df.Schedule("OS", (4, 4, 4), (2, 2, 2)),
     "Schedule: dataflow must be one of ('os', 'ws', 'is'); got 'OS'"),
    (lambda: df.Schedule("os", (4, 4), (2, 2, 2)),
     "Schedule: problem must be a tuple ('M', 'N', 'K'); got (4, 4)"),
    (lambda: df.Schedule("os", (4, 0, 4), (2, 2, 2)),
     "Schedule: problem N must be a positive int; got 0"),
    (lambda: df.Schedule("os", (4, 4, 4), (2, 2.5, 2)),
     ("Schedule: tiles Tj must be a positive int or a positive integer symbol "
      "(declare it with layoutalg.extents); got 2.5")),
    (lambda: df.Schedule("os", (4, 4, 4), (8, 2, 2)),
     "Schedule: tile Ti must be at most M=4 (a larger tile only holds padding; use Ti=4); got 8"),
    (lambda: df.Schedule("os", (4, 4, 4), (2, 2, 2), element_bytes=0),
     "Schedule: element_bytes must be a positive int; got 0"),
    (lambda: df.Schedule("os", (4, 4, 4), (True, 2, 2)),
     "Schedule: tiles Ti must be a positive int or a positive integer symbol; got True"),
    (lambda: df.Capacities(l2_bytes=-5),
     "Capacities: l2_bytes must be a positive int; got -5"),
    (lambda: df.traffic((4, 4, 4)),
     "traffic: schedule must be a Schedule; got (4, 4, 4)"),
    (lambda: df.traffic(df.Schedule("os", (4, 4, 4), (2, 2, 2))).get("dram", "D", "read"),
     "Traffic.get: operand must be one of ('A', 'B', 'C'); got 'D'"),
    (lambda: df.traffic(df.Schedule("os", (4, 4, 4), (2, 2, 2))).get("array", "A", "read"),
     "Traffic.get: kind must be one of ('hop',); got 'read'"),
    (lambda: df.optimize((M, 4, 4), "os"),
     "optimize: problem must be concrete ints; got (M, 4, 4)"),
    (lambda: df.optimize((4, 4, 4), "os", (1024, 1024)),
     "optimize: capacities must be a Capacities; got (1024, 1024)"),
    (lambda: df.check_meets_compulsory((4, 4, 4)),
     "check_meets_compulsory: subject must be a Schedule or a SeedReuse; got (4, 4, 4)"),
    (lambda: df.check_meets_compulsory(df.Schedule("os", (4, 4, 4), (2, 2, 2)), "D"),
     "check_meets_compulsory: operand must be one of ('A', 'B', 'C'); got 'D'"),
    (lambda: df.check_energy_below(df.Schedule("os", (4, 4, 4), (2, 2, 2)),
                                   df.Schedule("ws", (4, 4, 8), (2, 2, 2))),
     ("check_energy_below: both schedules must solve the same problem; got (4, 4, 4) and "
      "(4, 4, 8)")),
    (lambda: df.schedule_cycles(df.Schedule("os", (M, 4, 4), (1, 1, 1))),
     "schedule_cycles: needs concrete sizes; got OS M×4×4 in 1×1×1 tiles"),
])
def test_bad_input_names_the_argument_the_rule_and_the_value(call, message):
    with pytest.raises(df.DataflowError) as info:
        call()
    assert str(info.value) == message


def test_schedule_is_a_frozen_hashable_value():
    a = df.Schedule("ws", (8, 8, 8), (4, 4, 4))
    assert a == df.Schedule("ws", (8, 8, 8), (4, 4, 4)) and hash(a) == hash(
        df.Schedule("ws", (8, 8, 8), (4, 4, 4)))
    with pytest.raises(AttributeError):
        a.tiles = (1, 1, 1)


def test_bind_turns_a_symbolic_schedule_concrete():
    s = df.Schedule("os", (M, N, K), (2, 2, 2)).bind(M=4, N=6, K=8)
    assert s == df.Schedule("os", (4, 6, 8), (2, 2, 2))


@pytest.mark.parametrize("path", ["specs/dataflow.py", "proofs/dataflow.py"])
def test_shipped_specs_meet_their_expectations(path):
    outcomes = prover.prove(prover.discover([ROOT / path]))
    assert outcomes and all(o.ok for o in outcomes), [
        (o.spec, o.claim, o.status, o.reason) for o in outcomes if not o.ok]
    refuted = {o.spec for o in outcomes if o.status == "REFUTED"}
    assert refuted  # each file documents at least one seed error the tool catches
