"""Core ``delinearize`` vs Tenstorrent's digit-peeling unflatten, on one symbolic claim.

The claim: ``[x : A·B·C·D] → [a:A, b:B, c:C, d:D]``, the row-major unflatten
of one index into four symbolic extents, is a bijection (in bounds,
injective, onto); then the same for proofs/dataflow.py's step number, three
ceiling-quotient trip counts. Three maps of each are proved, interleaved
over the rounds:

    tt unlinear      digits peeled from the innermost, each quotient feeding the
                     next (the form layoutalg.tt used for its page maps)
    la.delinearize   the core combinator (now built from core.tiling.unflatten)
    independent      ``x // stride % extent`` per coordinate, the core's form
                     before issue 12 (reference; expected to time out)

Prints each one's verdict and median time, and the ratios la.delinearize /
tt unlinear and independent / tt unlinear. The issue measured 0.41 s for
the tt form and UNKNOWN after 97 s for the old core one.

    python bench/delinearize.py [--rounds 3] [--timeout 20]
"""

from __future__ import annotations

import argparse
import statistics
import time

import sympy

import layoutalg as la
from layoutalg.core.tiling import row_major_strides

NAMES = ("a", "b", "c", "d")


def tt_unlinear(index, sizes):
    """The digit peeling of layoutalg/tt/placement.py before issue 12, as it was written."""
    coords, rest = [], index
    for size in reversed(list(sizes)[1:]):
        rest, coordinate = rest // size, rest % size
        coords.append(coordinate)
    coords.append(rest)
    return coords[::-1]


def maps(sizes):
    """The three maps of the row-major unflatten of one index into ``sizes``."""
    names = NAMES[:len(sizes)]
    domain = la.Space(x=sympy.Mul(*sizes))
    codomain = la.Space(*zip(names, sizes))
    (x,) = domain.symbols
    strides = row_major_strides(sizes)
    flat = sum(c * s for c, s in zip(codomain.symbols, strides))
    peeled = la.IndexMap(domain, codomain, tt_unlinear(x, sizes), inverse=[flat],
                         name="tt unlinear")
    independent = la.IndexMap(
        domain, codomain,
        [x // s if k == 0 else (x // s) % e for k, (s, e) in enumerate(zip(strides, sizes))],
        inverse=[flat], name="independent")
    core = la.delinearize(domain, "x", **dict(zip(names, sizes)))
    return {"tt unlinear": peeled, "la.delinearize": core, "independent": independent}


def questions():
    """Four symbolic extents (the issue's), and proofs/dataflow.py's step number:
    three ceiling-quotient trip counts."""
    M, N, K, TI, TJ, TK = la.extents("M N K Ti Tj Tk")
    trips = [sympy.ceiling(M / TI), sympy.ceiling(N / TJ), sympy.ceiling(K / TK)]
    return {"4-way A·B·C·D": maps(la.extents("A B C D")),
            "3-way ⌈M/Ti⌉·⌈N/Tj⌉·⌈K/Tk⌉": maps(trips)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per check")
    args = parser.parse_args()
    for question, built in questions().items():
        times: dict[str, list[float]] = {name: [] for name in built}
        verdicts: dict[str, set[str]] = {name: set() for name in built}
        order = list(built)
        for r in range(args.rounds):
            for name in order[r % len(order):] + order[:r % len(order)]:
                start = time.perf_counter()
                result = la.check_bijective(built[name], timeout_ms=int(args.timeout * 1000))
                times[name].append(time.perf_counter() - start)
                verdicts[name].add(result.status.name)
        base = statistics.median(times["tt unlinear"])
        print(f"symbolic {question} unflatten bijective, {args.rounds} rounds, "
              f"timeout {args.timeout:g} s per check")
        for name in built:
            median = statistics.median(times[name])
            print(f"  {name:15s} {'/'.join(sorted(verdicts[name])):8s} median {median:7.3f} s  "
                  f"ratio to tt unlinear {median / base:6.2f}")


if __name__ == "__main__":
    main()
