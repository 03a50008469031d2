"""Machine-readable reports of a prove run: JSON and JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from layoutalg.runner.prover import Outcome


def summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    unexpected = sum(not o.ok for o in outcomes)
    errors = sum(o.status == "ERROR" for o in outcomes)
    return {"claims": len(outcomes), "as_expected": len(outcomes) - unexpected,
            "unexpected": unexpected, "errors": errors}


def write_json(outcomes: Sequence[Outcome], path: Path, *, partial: bool = False) -> None:
    """The summary, one row per claim (in spec order), and ``timing``: the
    claims slowest first; ``partial`` when the run was interrupted and some
    claims are missing."""
    data = {
        "partial": partial,
        "summary": summary(outcomes),
        "timing": timing(outcomes),
        "results": [{**asdict(o), "ok": o.ok} for o in outcomes],
    }
    path.write_text(json.dumps(data, indent=2) + "\n")


def timing(outcomes: Sequence[Outcome]) -> dict:
    """Where a run's time went: totals, and every claim slowest first with its
    wall and CPU seconds (CPU of its process, every thread: Z3 solves in its
    own), how it was decided, and its share of the claims' wall time."""
    wall = sum(o.seconds for o in outcomes)
    rows = sorted(outcomes, key=lambda o: o.seconds, reverse=True)
    return {
        "claims_seconds": round(wall, 6),
        "claims_cpu_seconds": round(sum(o.cpu_seconds for o in outcomes), 6),
        "claims": [{"claim": o.ident, "seconds": round(o.seconds, 6),
                    "cpu_seconds": round(o.cpu_seconds, 6), "method": o.method,
                    "status": o.status, "share": round(o.seconds / wall, 6) if wall else 0.0}
                   for o in rows],
    }


def write_junit(outcomes: Sequence[Outcome], path: Path, *, partial: bool = False) -> None:
    """One test case per claim; an interrupted run adds one erroring case, so
    a CI that reads only the XML does not take the missing claims as passed."""
    counts = summary(outcomes)
    suite = ET.Element(
        "testsuite", name="layoutalg prove", tests=str(counts["claims"] + partial),
        failures=str(counts["unexpected"] - counts["errors"]),
        errors=str(counts["errors"] + partial),
        time=f"{sum(o.seconds for o in outcomes):.3f}",
    )
    if partial:
        case = ET.SubElement(suite, "testcase", classname="layoutalg", name="run interrupted")
        ET.SubElement(case, "error", message="partial report: the run was interrupted").text = (
            "Claims not reached are missing from this report.")
    for o in outcomes:
        case = ET.SubElement(suite, "testcase", classname=f"{Path(o.path).stem}.{o.spec}",
                             name=o.claim, time=f"{o.seconds:.3f}")
        if not o.ok:
            kind = "error" if o.status == "ERROR" else "failure"
            failure = ET.SubElement(case, kind, message=f"expected {o.expected}, got {o.status}")
            failure.text = o.reason
        else:
            ET.SubElement(case, "system-out").text = f"{o.status}: {o.reason}"
    tree = ET.ElementTree(suite)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
