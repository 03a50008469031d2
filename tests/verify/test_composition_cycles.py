"""compose's records of what a map was made of may go round in a cycle
(``A = B ∘ r`` recorded, then ``B = A ∘ r⁻¹`` when composing rebuilt ``B``;
Hypothesis found one in tests/verify/test_structure_first.py). Opening ``A``
into parts must stop where the records lead back (that part stays whole)
instead of recursing until Python gives up."""

import layoutalg as la
from layoutalg.verify import composition


def test_a_cycle_of_records_leaves_the_part_whole():
    grid = la.Space.of(("i", "j"), (3, 5))
    a = la.linearize(grid)  # (i, j) -> 5i + j
    b = la.permute(grid, ("j", "i"))
    r = la.permute(b.codomain, ("i", "j"))
    r_back = la.identity(la.Space.of(("x",), (15,)))
    composition.note_composition(a, b, r)  # the records, as compose would write them
    composition.note_composition(b, a, r_back)  # ... and back round to a
    parts = composition.parts_of(a)
    assert parts is not None
    assert [p.label for p in parts] == [a.label, r_back.label, r.label]
    # b opens into a, which is being opened: a stays whole there
    assert [p.label for p in composition.parts_of(b)] == [b.label, r.label, r_back.label]


def test_parts_without_a_cycle_open_fully():
    grid = la.Space.of(("i", "j"), (3, 5 + 2))  # not the maps the test above records
    swap = la.permute(grid, ("j", "i"))
    flat = la.compose(swap, la.linearize(swap.codomain))  # (i, j) -> 3j + i
    assert flat(2, 4) == (14,)  # hand: j=4 rows of 3, plus i=2 (extents 3 x 7)
    parts = composition.parts_of(flat)
    assert [p.label for p in parts] == [swap.label, la.linearize(swap.codomain).label]
