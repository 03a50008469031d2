"""Which div/mod encoding should ``solve`` start with? Every shipped claim under three orders.

``layoutalg.verify.z3_backend.solver.solve`` starts Z3 on its own div/mod; if no
answer comes within ``RACE_AFTER_S`` and the query divides by a constant,
it also starts quotient variables (``num = den·q + r``) and takes the first
answer. This script proves every shipped claim (``prover.discover(None)``,
``prover.prove``, in-process, no cache) under three orders, chosen by
patching ``solver._build`` here only (as tests/verify/test_differential.py's
``encoding()`` does):

    shipped          Z3's div/mod first, quotient variables raced after RACE_AFTER_S
    quotients        quotient variables first, Z3's div/mod raced after RACE_AFTER_S
    quotients-if-all quotient variables first only when every division of the
                     query gets them (see below), else as shipped

``_Translator.constant_divisions`` counts the divisions by an integer
constant whose numerator has no quantified variable, that is the ones the
quotient encoding rewrites; it does not count the others (symbolic divisor,
or inside a ``forall``), so on its own it cannot say "all". Every floor,
ceiling and Mod goes through ``_Translator._divided`` once, so the script
counts those calls too: "all" means ``constant_divisions == calls > 0``.
The decision needs a translated query, so under quotients-if-all solve's
first build has quotient variables and, when only some divisions got them
("mixed"), a build with Z3's div/mod replaces it; that extra build is timed
and shown ("rebuild s"). With no constant division the two builds are the
same query, so quotients and quotients-if-all differ only on mixed queries.

Orders run interleaved, rotating which goes first each round, after one
untimed warm-up pass. Per order it prints the total wall time and its ratio
to shipped in the same round, the claims whose verdict differs from shipped
(there must be none; exit 1 otherwise), the claims whose counterexample or
reason text differs, and the claims whose best time over the rounds changes
most. Shipped's later rounds against its first show the noise floor.

    python bench/solver_encodings.py [--rounds 2] [--top 10] [--no-warmup]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from unittest import mock

from rich.console import Console
from rich.table import Table

from layoutalg.runner import prover

solver = importlib.import_module("layoutalg.verify.z3_backend.solver")

ORDERS = ("shipped", "quotients", "quotients-if-all")


@dataclass
class Tally:
    """What the patched ``_build`` saw during one pass."""

    queries: int = 0  # solve() calls that reached Z3 (a first build)
    no_division: int = 0
    all_constant: int = 0  # every division gets quotient variables
    mixed: int = 0  # some but not all do
    only_native: int = 0  # divisions, none of them by a constant outside a forall
    raced: int = 0  # second builds: no answer within RACE_AFTER_S
    rebuild_seconds: float = 0.0

    def note(self, translator) -> None:
        calls = getattr(translator, "division_calls", 0)
        self.queries += 1
        if calls == 0:
            self.no_division += 1
        elif translator.constant_divisions == calls:
            self.all_constant += 1
        elif translator.constant_divisions:
            self.mixed += 1
        else:
            self.only_native += 1


def every_division_quotiented(translator) -> bool:
    calls = getattr(translator, "division_calls", 0)
    return calls > 0 and translator.constant_divisions == calls


@contextlib.contextmanager
def order(name: str, tally: Tally):
    """Patch ``solver`` so that ``solve`` starts with the encoding ``name`` asks for."""
    build = solver._build
    divided = solver._Translator._divided
    local = threading.local()  # solve's two builds run in its caller's thread

    def counted_divided(self, num, den):
        self.division_calls = getattr(self, "division_calls", 0) + 1
        return divided(self, num, den)

    def first_build(query) -> tuple[object, bool]:
        """The first build and whether it holds quotient variables."""
        if name == "shipped":
            return build(*query, quotients=False), False
        built = build(*query, quotients=True)
        if name == "quotients" or isinstance(built, solver.Outcome):
            return built, True
        translator = built[1]
        if every_division_quotiented(translator) or not translator.constant_divisions:
            return built, True  # with no constant division both builds are the same
        start = time.perf_counter()
        rebuilt = build(*query, quotients=False)
        tally.rebuild_seconds += time.perf_counter() - start
        return rebuilt, False

    def patched(*query, quotients: bool):
        if quotients:  # solve's second build, started for the race
            tally.raced += 1
            return build(*query, quotients=not local.swapped)
        built, local.swapped = first_build(query)
        if not isinstance(built, solver.Outcome):
            tally.note(built[1])
        return built

    with mock.patch.object(solver._Translator, "_divided", counted_divided), \
            mock.patch.object(solver, "_build", patched):
        yield


@dataclass
class Pass:
    order: str
    round: int
    seconds: float
    outcomes: list[prover.Outcome]
    tally: Tally


def prove_all(found, name: str, round_: int) -> Pass:
    tally = Tally()
    with order(name, tally):
        start = time.perf_counter()
        outcomes = prover.prove(found)
        seconds = time.perf_counter() - start
    return Pass(name, round_, seconds, outcomes, tally)


def idents(outcomes: list[prover.Outcome]) -> list[str]:
    """``Outcome.ident``, with ``#n`` appended to repeats so every claim has its own key."""
    seen: dict[str, int] = {}
    keys = []
    for outcome in outcomes:
        count = seen[outcome.ident] = seen.get(outcome.ident, 0) + 1
        keys.append(outcome.ident if count == 1 else f"{outcome.ident}#{count}")
    return keys


def totals_table(passes: list[Pass]) -> Table:
    out = Table(title="every shipped claim: wall time per pass, ratio to shipped (same round)",
                header_style="bold")
    for column in ("round", "order", "wall s", "ratio", "queries", "all const", "mixed",
                   "native only", "no div", "raced", "rebuild s"):
        out.add_column(column, justify="left" if column == "order" else "right")
    for p in sorted(passes, key=lambda p: (p.round, ORDERS.index(p.order))):
        t = p.tally
        out.add_row(str(p.round), p.order, f"{p.seconds:.1f}", f"{ratio(passes, p):.3f}",
                    str(t.queries), str(t.all_constant), str(t.mixed), str(t.only_native),
                    str(t.no_division), str(t.raced), f"{t.rebuild_seconds:.2f}")
    return out


def ratio(passes: list[Pass], p: Pass) -> float:
    """``p``'s wall time over shipped's in the same round."""
    shipped = next(q for q in passes if q.order == "shipped" and q.round == p.round)
    return p.seconds / shipped.seconds


def best_seconds(passes: list[Pass], name: str) -> dict[str, float]:
    """Each claim's best time over the rounds of order ``name``."""
    best: dict[str, float] = {}
    for p in passes:
        if p.order == name:
            for key, outcome in zip(idents(p.outcomes), p.outcomes):
                best[key] = min(best.get(key, float("inf")), outcome.seconds)
    return best


def differences(base: Pass, other: Pass,
                field: Callable[[prover.Outcome], object]) -> list[tuple[str, object, object]]:
    """Claims where ``field`` of ``other``'s outcome differs from ``base``'s."""
    found = []
    for key, a, b in zip(idents(base.outcomes), base.outcomes, other.outcomes):
        if field(a) != field(b):
            found.append((key, field(a), field(b)))
    return found


def verdict(outcome: prover.Outcome) -> str:
    return outcome.status


def text(outcome: prover.Outcome) -> tuple[object, str]:
    return outcome.counterexample, outcome.reason


def what_differs(a: tuple[object, str], b: tuple[object, str]) -> tuple[object, object]:
    """The counterexamples of two ``text`` values if they differ, else their reasons."""
    return (a[0], b[0]) if a[0] != b[0] else (a[1], b[1])


def noise(passes: list[Pass], console: Console) -> None:
    """Shipped against itself in later rounds: how much differs with nothing changed."""
    shipped = [p for p in passes if p.order == "shipped"]
    first = shipped[0]
    for later in shipped[1:]:
        texts = differences(first, later, text)
        changes = [abs(b.seconds - a.seconds) for a, b in zip(first.outcomes, later.outcomes)]
        console.print(f"shipped round {later.round} vs round {first.round} (noise): "
                      f"{len(differences(first, later, verdict))} verdicts and {len(texts)} "
                      f"counterexamples or reasons differ; claim times change by up to "
                      f"{max(changes):.3f} s, {sum(c > 0.1 for c in changes)} claims by > 0.1 s")
        for key, a, b in texts:
            a, b = what_differs(a, b)
            console.print(f"    {key}: round {first.round} {a}, round {later.round} {b}",
                          style="dim")


def compare(passes: list[Pass], name: str, top: int, console: Console) -> bool:
    """Print verdicts and texts of order ``name`` differing from shipped; True if a verdict does."""
    shipped = {p.round: p for p in passes if p.order == "shipped"}
    verdicts, texts = {}, {}
    for p in passes:
        if p.order == name:
            for key, a, b in differences(shipped[p.round], p, verdict):
                verdicts.setdefault(key, []).append((p.round, a, b))
            for key, a, b in differences(shipped[p.round], p, text):
                texts.setdefault(key, []).append((p.round, a, b))
    console.print(f"  claims whose verdict differs from shipped: {len(verdicts)}")
    for key, rows in verdicts.items():
        for round_, a, b in rows:
            console.print(f"    [red]round {round_}: {key}: shipped {a}, {name} {b}[/]")
    same = {key: rows for key, rows in texts.items() if key not in verdicts}
    every_round = sum(len(rows) == len(shipped) for rows in same.values())
    console.print(f"  claims with the same verdict but another counterexample or reason: "
                  f"{len(same)} ({every_round} in every round)")
    for key, rows in list(same.items())[:top]:
        a, b = what_differs(*rows[0][1:])
        console.print(f"    {key}: shipped {a}, {name} {b}", style="dim")
    return bool(verdicts)


def report(passes: list[Pass], top: int, console: Console) -> int:
    console.print(totals_table(passes))
    noise(passes, console)
    rounds = sorted({p.round for p in passes})
    shipped_best = best_seconds(passes, "shipped")
    failed = False
    for name in ORDERS:
        walls = [p.seconds for p in passes if p.order == name]
        ratios = [ratio(passes, p) for p in passes if p.order == name]
        console.print(f"\n[bold]{name}[/]: wall {' + '.join(f'{s:.1f}' for s in walls)} s "
                      f"(median {statistics.median(walls):.1f} s, ratio to shipped "
                      f"{', '.join(f'{r:.3f}' for r in ratios)} over {len(rounds)} round(s))")
        if name == "shipped":
            continue
        failed = compare(passes, name, top, console) or failed
        best = best_seconds(passes, name)
        changes = sorted(best, key=lambda k: abs(best[k] - shipped_best[k]), reverse=True)[:top]
        table = Table(title=f"{name}: {top} largest changes of a claim's best time vs shipped",
                      header_style="bold")
        for column in ("claim", "shipped s", f"{name} s", "change s", "ratio"):
            table.add_column(column, justify="left" if column == "claim" else "right")
        for key in changes:
            a, b = shipped_best[key], best[key]
            times = (f"{a:.3f}", f"{b:.3f}", f"{b - a:+.3f}", f"{b / a:.2f}×" if a else "")
            table.add_row(key, *times)
        console.print(table)
        sum_a, sum_b = sum(shipped_best.values()), sum(best.values())
        console.print(f"  sum of per-claim best times: shipped {sum_a:.1f} s, {name} {sum_b:.1f} s "
                      f"(ratio {sum_b / sum_a:.3f})")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="passes per order (default 2)")
    parser.add_argument("--top", type=int, default=10, help="claims listed per order (default 10)")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed first pass")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1; got {args.rounds}")
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 140)
    found = prover.discover(None)
    console.print(f"{len(found)} specs; RACE_AFTER_S = {solver.RACE_AFTER_S}", style="dim")
    if not args.no_warmup:
        warm = prove_all(found, "shipped", 0)
        console.print(f"  warm-up (shipped): {warm.seconds:.1f}s, {len(warm.outcomes)} claims",
                      style="dim")
    passes = []
    for round_ in range(1, args.rounds + 1):
        shift = (round_ - 1) % len(ORDERS)
        for name in ORDERS[shift:] + ORDERS[:shift]:
            passes.append(prove_all(found, name, round_))
            console.print(f"  round {round_} {name}: {passes[-1].seconds:.1f}s", style="dim")
    return report(passes, args.top, console)


if __name__ == "__main__":
    sys.exit(main())
