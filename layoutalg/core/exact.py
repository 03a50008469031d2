"""Which maps are *exact by construction*: bookkeeping, no proof.

A map a combinator builds from a ``Space`` is in bounds, a bijection onto
its valid slots, and carries an inverse that is right on every valid slot
and left on every point: the combinator's formulas say so for every size
(``tests/core/test_combinators.py`` checks it over whole domains and proves
it for symbolic sizes; ``tests/core/test_combinator_sizes.py`` at sizes
drawn by Hypothesis) — provided its sizes fit for every size, so ``offset``,
``pad(to=)`` and ``delinearize`` record a map only when SymPy shows the
amount, ``to - extent`` or ``product - extent`` nonnegative. The combinators
record such a map with :func:`mark_exact`; the proofs of
``layoutalg.verify.composition`` ask :func:`is_exact` and skip its queries.

A map is known by :func:`key` (its domain, codomain, formulas, inverse,
valid and assumptions, not its name), in a bounded memo: a map forgotten is
only proved again, never trusted.

>>> from layoutalg.core.index_map import IndexMap
>>> from layoutalg.core.space import Space
>>> s = Space(only_in_this_example=3)  # the memo is process-wide: a map no one else builds
>>> m = IndexMap(s, s, s.symbols, inverse=s.symbols)
>>> is_exact(m), is_exact(mark_exact(m)), is_exact(m.renamed("another name"))
(False, True, True)
"""

from __future__ import annotations

from collections import OrderedDict

from layoutalg.core.index_map import IndexMap

MEMO_SIZE = 4096


class Memo:
    """A bounded map from keys to what is known about them (least recently used goes first)."""

    def __init__(self, size: int = MEMO_SIZE) -> None:
        self.size = size
        self.items: OrderedDict = OrderedDict()

    def get(self, key):
        if key in self.items:
            self.items.move_to_end(key)
        return self.items.get(key)

    def put(self, key, value) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


_exact = Memo()  # key -> True: exact by construction


def key(m: IndexMap) -> tuple:
    """Everything a fact about ``m`` depends on: all but its name."""
    return (m.domain, m.codomain, m.exprs, m.inverse, m.valid, m.assumptions)


def mark_exact(m: IndexMap) -> IndexMap:
    """Record ``m`` as exact by construction (see the module docstring) and return it."""
    _exact.put(key(m), True)
    return m


def is_exact(m: IndexMap) -> bool:
    """Was ``m`` (or a map equal to it but for its name) recorded by :func:`mark_exact`?"""
    return _exact.get(key(m)) is not None
