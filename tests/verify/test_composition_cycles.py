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


def test_in_bounds_from_memory_stops_where_the_records_lead_back():
    """``in_own_codomain`` follows a composition's last part; with ``a = x ∘ b``
    and ``b = y ∘ a`` recorded (Hypothesis met such records through the CuTe
    postconditions: a RecursionError) it asks Z3 instead of going round."""
    space = la.Space.of(("i",), (5,))
    (i,) = space.symbols
    a = la.IndexMap(space, la.Space.of(("o",), (5,)), [4 - i], name="reverse")  # not exact
    b = la.IndexMap(space, la.Space.of(("o",), (9,)), [2 * i], name="double")
    x = la.identity(space)
    composition.note_composition(a, x, b)
    composition.note_composition(b, x, a)
    # by hand: 4 - i for i in 0..4 is 0..4, inside [0, 5)
    assert all(0 <= 4 - v < 5 for v in range(5))
    assert composition.in_own_codomain(a).proved
