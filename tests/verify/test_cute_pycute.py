"""layoutalg's CuTe algebra against pycute (the ``nvidia-cutlass`` wheel's own Python algebra).

Random small layouts from a fixed seed (the same cases every run). Each
answer is judged by the truth, computed here by plain Python enumeration
(``offset``: CuTe's colexicographic ``crd2idx``, written from CuTe's docs):

- layouts: every index evaluates to pycute's offset; size and cosize agree;
- compositions, complements, divides: where both answer, the answers are
  equal (shape and stride) and right; where pycute answers and layoutalg
  refuses, pycute's answer is wrong — by enumeration, at an index named
  here — and ``prove_*`` refutes it; layoutalg's answers are always right.

Z3 proves a sample (every ``Z3_EVERY``-th case). ``FIGURES`` collects the
counts that ``docs/cute.md`` quotes (run this file with ``-s`` to print them).
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from layoutalg.core.cute_algebra import complement, composition
from layoutalg.core.cute_tiling import logical_divide, logical_product, tiled_divide, zipped_divide
from layoutalg.core.cute_layout import CuteLayout
from layoutalg.errors import MapError
from layoutalg.verify.cute_postconditions import (
    prove_complement,
    prove_composition,
    prove_logical_divide,
)

pycute = pytest.importorskip("pycute")

SEED = 15
CASES = 1200
Z3_EVERY = 60
FIGURES: Counter = Counter()


def leaves(value):
    if isinstance(value, tuple):
        return [leaf for part in value for leaf in leaves(part)]
    return [value]


def offset(i, shape, stride, *, extend=False):
    """CuTe's offset of flat index ``i``; with ``extend``, read past the size as CuTe's
    composition does: the last mode of size > 1 keeps counting (size 1: stays at 0)."""
    pairs = list(zip(leaves(shape), leaves(stride)))
    if extend:
        pairs = [(s, d) for s, d in pairs if s > 1] or [(1, 0)]
    total = 0
    for k, (s, d) in enumerate(pairs):
        total += (i if (extend and k == len(pairs) - 1) else i % s) * d
        i //= s
    return total


def table(shape, stride):
    n = math.prod(leaves(shape))
    return [offset(i, shape, stride) for i in range(n)]


def random_layout(rng: random.Random, max_size=32, strides=(0, 1, 1, 2, 3, 4, 6, 8, 12, 16)):
    """A nested layout of rank 1-3 (a mode may hold 2 leaves), size at most ``max_size``."""
    budget = max_size
    shapes, strides_out = [], []
    for _ in range(rng.randint(1, 3)):
        mode_s, mode_d = [], []
        for _ in range(rng.choice((1, 1, 2))):
            s = rng.randint(1, max(1, min(6, budget)))
            budget = max(1, budget // s)
            mode_s.append(s)
            mode_d.append(rng.choice(strides))
        shapes.append(mode_s[0] if len(mode_s) == 1 else tuple(mode_s))
        strides_out.append(mode_d[0] if len(mode_d) == 1 else tuple(mode_d))
    if len(shapes) == 1 and rng.random() < 0.5:
        return shapes[0], strides_out[0]
    return tuple(shapes), tuple(strides_out)


def ours(shape, stride):
    return CuteLayout(shape, stride)


def theirs(layout):
    return pycute.Layout(layout.shape, layout.stride)


def same(pyc, layout: CuteLayout) -> bool:
    """pycute's answer equals ours, shape and stride (pycute keeps 1-tuples as tuples)."""
    try:
        return CuteLayout.from_pycute(pyc) == layout
    except MapError:
        return False


def pycute_or_none(call):
    try:
        return call()
    except (AssertionError, ZeroDivisionError, IndexError, TypeError, ValueError):
        return None


# -- layouts ------------------------------------------------------------------------------


def test_random_layouts_evaluate_like_pycute():
    rng = random.Random(SEED)
    checked = 0
    for _ in range(CASES):
        shape, stride = random_layout(rng)
        mine, pyc = ours(shape, stride), pycute.Layout(shape, stride)
        assert mine.size == pyc.size() and mine.cosize == pyc.cosize()
        want = table(shape, stride)
        assert [mine(i) for i in range(mine.size)] == want
        assert [pyc(i) for i in range(mine.size)] == want
        assert CuteLayout.from_pycute(pyc) == mine
        # pycute prints Python tuples; CuTe (and layoutalg) print a 1-tuple as (4).
        assert str(mine) == str(pyc).replace(" ", "").replace(",)", ")")
        checked += 1
    FIGURES["layouts evaluated"] = checked
    assert checked >= 1000


def test_the_evaluator_agrees_with_pycute_reading_past_the_size():
    # CuTe's composition reads A past its size through coalesced A: pycute's own
    # composition with B = n:1 shows it.
    assert offset(5, (2, 2), (0, 1), extend=True) == 2
    a = pycute.Layout((2, 2), (0, 1))
    c = pycute.composition(a, pycute.Layout(8, 1))  # B reaches 8 > size 4
    assert [c(i) for i in range(8)] == [offset(i, (2, 2), (0, 1), extend=True) for i in range(8)]


# -- compositions -------------------------------------------------------------------------


def composition_truth(a: CuteLayout, b: CuteLayout) -> list[int]:
    return [offset(x, a.shape, a.stride, extend=True) for x in table(b.shape, b.stride)]


def first_wrong_index(answer, truth):
    """Where a pycute answer differs from the truth: ("size", n) or ("value", i)."""
    shape, stride = answer.shape, answer.stride
    got = table(shape, stride)
    if len(got) != len(truth):
        return "size", len(got)
    wrong = [i for i, (x, y) in enumerate(zip(got, truth)) if x != y]
    return ("value", wrong[0]) if wrong else None


def test_compositions_against_pycute():
    rng = random.Random(SEED + 1)
    outcomes: Counter = Counter()
    for case in range(2 * CASES):
        a = ours(*random_layout(rng, max_size=48))
        b = ours(*random_layout(rng, max_size=16, strides=(0, 1, 1, 2, 2, 3, 4, 6, 8)))
        truth = composition_truth(a, b)
        pyc = pycute_or_none(lambda: pycute.composition(theirs(a), theirs(b)))
        try:
            mine = composition(a, b)
        except MapError:
            mine = None
        if mine is not None:  # every answer of ours is right
            assert table(mine.shape, mine.stride) == truth, (a, b, mine)
        if mine is not None and pyc is not None:
            assert same(pyc, mine), (a, b, mine, pyc)
            outcomes["equal"] += 1
            if case % Z3_EVERY == 0:
                assert prove_composition(a, b, mine).proved
        elif pyc is not None:  # we refuse: pycute's answer must be wrong
            wrong = first_wrong_index(pyc, truth)
            assert wrong is not None, (a, b, pyc)
            outcomes[f"pycute wrong {wrong[0]}"] += 1
            if wrong[0] == "size" or outcomes[f"pycute wrong {wrong[0]}"] <= 10:
                verdict = prove_composition(a, b, CuteLayout.from_pycute(pyc))
                assert verdict.refuted, (a, b, pyc)
                if wrong[0] == "value":
                    assert verdict.counterexample is not None
                    i = verdict.counterexample["i"]
                    assert table(pyc.shape, pyc.stride)[i] != truth[i]
        elif mine is not None:
            outcomes["pycute refuses, ours right"] += 1
        else:
            outcomes["both refuse"] += 1
    FIGURES.update({f"composition: {k}": v for k, v in outcomes.items()})
    assert outcomes["equal"] >= 1000
    assert sum(outcomes.values()) == 2 * CASES


def test_the_two_wrong_answers_cited_in_issue_15():
    a, b = pycute.Layout((2, 2), (1, 3)), pycute.Layout((2, 2), (1, 1))
    answer = pycute.composition(a, b)
    assert str(answer).replace(" ", "") == "(2,2):(1,1)"
    assert answer(3) == 2 and a(b(3)) == 3  # wrong at i = 3
    with pytest.raises(MapError, match="at i=3"):
        composition(CuteLayout.from_pycute(a), CuteLayout.from_pycute(b))
    verdict = prove_composition("(2,2):(1,3)", "(2,2):(1,1)", CuteLayout.from_pycute(answer))
    assert verdict.refuted and verdict.counterexample == {"i": 3}

    a, b = pycute.Layout((2, 2), (0, 1)), pycute.Layout(3, 1)
    answer = pycute.composition(a, b)
    assert str(answer) == "2:0"  # size 2, B has 3 indices
    with pytest.raises(MapError, match="shape divisibility"):
        composition(CuteLayout.from_pycute(a), CuteLayout.from_pycute(b))
    verdict = prove_composition("(2,2):(0,1)", "3:1", "2:0")
    assert verdict.refuted and verdict.reason.startswith("sizes differ: 2 vs 3")


# -- complements --------------------------------------------------------------------------


def tiles(layout: CuteLayout, rest, hi: int) -> bool:
    """(filter(layout), rest) fills [0, N) exactly once, N the least multiple of the
    layout's span that is at least hi (CuTe's complement, by enumeration)."""
    kept = [(s, d) for s, d in layout.leaves() if s > 1 and d > 0] or [(1, 0)]
    span = max(s * d for s, d in kept) if kept != [(1, 0)] else 1
    target = -(-hi // span) * span
    base = table(tuple(s for s, _ in kept), tuple(d for _, d in kept))
    rest_values = table(rest.shape, rest.stride)
    both = sorted(x + y for y in rest_values for x in base)
    return both == list(range(target))


def test_complements_against_pycute():
    rng = random.Random(SEED + 2)
    outcomes: Counter = Counter()
    for case in range(CASES):
        layout = ours(*random_layout(rng, max_size=24, strides=(0, 1, 2, 3, 4, 6, 8, 12)))
        hi = rng.randint(1, 96)
        pyc = pycute_or_none(lambda: pycute.complement(theirs(layout), hi))
        try:
            mine = complement(layout, hi)
        except MapError:
            mine = None
        if mine is not None:
            assert tiles(layout, mine, hi), (layout, hi, mine)
        if mine is not None and pyc is not None:
            assert same(pyc, mine), (layout, hi, mine, pyc)
            outcomes["equal"] += 1
            if case % Z3_EVERY == 0:
                assert prove_complement(layout, hi, mine).proved
        elif pyc is not None:
            bad = 0 in leaves(pyc.shape) or not tiles(layout, pyc, hi)
            assert bad, (layout, hi, pyc)  # pycute's answer misses or repeats an offset
            kind = "size-0 mode" if 0 in leaves(pyc.shape) else "misses offsets"
            outcomes[f"pycute wrong ({kind})"] += 1
            if kind != "size-0 mode" and outcomes[f"pycute wrong ({kind})"] <= 10:
                assert prove_complement(layout, hi, CuteLayout.from_pycute(pyc)).refuted
        elif mine is not None:
            outcomes["pycute refuses, ours right"] += 1
        else:
            outcomes["both refuse"] += 1
    FIGURES.update({f"complement: {k}": v for k, v in outcomes.items()})
    assert outcomes["equal"] >= 500


# -- divides ------------------------------------------------------------------------------


def test_divides_against_pycute():
    rng = random.Random(SEED + 3)
    outcomes: Counter = Counter()
    for case in range(2 * CASES):
        a = ours(*random_layout(rng, max_size=48))
        b = ours(*random_layout(rng, max_size=8, strides=(1, 1, 2, 2, 3, 4)))
        pyc = pycute_or_none(lambda: pycute.logical_divide(theirs(a), theirs(b)))
        try:
            mine = logical_divide(a, b)
        except MapError:
            mine = None
        rest = pycute_or_none(lambda: CuteLayout.from_pycute(
            pycute.complement(theirs(b), a.size)))
        if mine is not None:
            ours_rest = complement(b, a.size)
            both = CuteLayout((b.shape, ours_rest.shape), (b.stride, ours_rest.stride))
            assert table(mine.shape, mine.stride) == composition_truth(a, both)
            assert zipped_divide(a, b) == mine  # one tile: zipped is logical
        if mine is not None and pyc is not None:
            assert same(pyc, mine), (a, b, mine, pyc)
            outcomes["equal"] += 1
            if case % Z3_EVERY == 0:
                assert prove_logical_divide(a, b, mine).proved
        elif pyc is not None:
            # We refuse; pycute's answer is wrong against its own definition
            # A ∘ (B, complement(B, size(A))) — or that complement is not one.
            truth = None
            if rest is not None and 0 not in leaves(rest.shape) and tiles(b, rest, a.size):
                both = CuteLayout((b.shape, rest.shape), (b.stride, rest.stride))
                truth = composition_truth(a, both)
            wrong = "complement" if truth is None else first_wrong_index(pyc, truth)
            assert wrong is not None, (a, b, pyc)
            kind = wrong if isinstance(wrong, str) else wrong[0]
            outcomes[f"pycute wrong {kind}"] += 1
        elif mine is not None:
            outcomes["pycute refuses, ours right"] += 1
        else:
            outcomes["both refuse"] += 1
    FIGURES.update({f"logical_divide: {k}": v for k, v in outcomes.items()})
    assert outcomes["equal"] >= 800


def test_tuple_tilers_and_products_against_pycute():
    """2-D tilers (zipped and tiled divides) and logical products: equal where both answer;
    where only pycute answers, some mode's divide or the product's complement is refused
    by layoutalg, each refusal judged above."""
    rng = random.Random(SEED + 4)
    outcomes: Counter = Counter()
    for _ in range(CASES // 2):
        a = ours(*random_layout(rng, max_size=48))
        a = a if a.rank >= 2 else CuteLayout((a.shape, 2), (a.stride, a.cosize))
        tiler = tuple(ours(*random_layout(rng, max_size=4, strides=(1, 1, 2)))
                      for _ in range(rng.randint(1, 2)))
        for name, mine_of, theirs_of in (
                ("zipped_divide", zipped_divide, pycute.zipped_divide),
                ("tiled_divide", tiled_divide, pycute.tiled_divide)):
            pyc = pycute_or_none(lambda: theirs_of(theirs(a), tuple(map(theirs, tiler))))
            try:
                mine = mine_of(a, tiler)
            except MapError:
                mine = None
                with pytest.raises(MapError):  # the refusal is a mode's logical_divide
                    for k, t in enumerate(tiler):
                        logical_divide(a[k], t)
            if mine is not None and pyc is not None:
                assert same(pyc, mine), (name, a, tiler, mine, pyc)
                outcomes[f"{name}: equal"] += 1
        b = tiler[0]
        pyc = pycute_or_none(lambda: pycute.logical_product(theirs(a), theirs(b)))
        try:
            mine = logical_product(a, b)
        except MapError:
            mine = None
        if mine is not None and pyc is not None:
            assert same(pyc, mine), (a, b, mine, pyc)
            outcomes["logical_product: equal"] += 1
    FIGURES.update(outcomes)
    assert min(outcomes.values()) >= 100


@pytest.fixture(scope="module", autouse=True)
def print_figures():
    """Not a check: prints the counts that docs/cute.md quotes (``pytest -s -n 0``)."""
    yield
    for name, count in sorted(FIGURES.items()):
        print(f"{name}: {count}")


def test_cutlass_3513_pycute_asserts_and_layoutalg_names_the_condition():
    layout = pycute.Layout((12, (4, 8)), (7, (1, 30)))
    with pytest.raises(AssertionError):
        pycute.zipped_divide(layout, pycute.Layout(128))
    with pytest.raises(MapError, match="shape divisibility"):
        zipped_divide(CuteLayout.from_pycute(layout), 128)
