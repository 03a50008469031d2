"""A new family is one short module (issue 12): ``tests/toy_family.py``.

Built from core combinators, the toy gets the checks, their counterexamples,
the spec DSL and the CLI without a line of its own arithmetic. The truth is
pinned by the family's formula in plain Python ints.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import textwrap
from io import StringIO
from pathlib import Path

import pytest

import layoutalg as la
from layoutalg.cli import main

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import toy_family  # noqa: E402
from toy_family import BankedVector  # noqa: E402


def written(i: int, banks: int, block: int, element_bytes: int) -> tuple[int, int]:
    """The family's definition: block b of the vector goes to bank b mod banks."""
    bank = (i // block) % banks
    address = ((i // (block * banks)) * block + i % block) * element_bytes
    return bank, address


def test_the_toy_family_is_one_short_module():
    assert len(inspect.getsource(toy_family).splitlines()) <= 40


@pytest.mark.parametrize("length, banks, block", [(10, 3, 2), (12, 4, 3), (7, 7, 1), (5, 2, 4)])
def test_the_map_is_the_written_formula_and_a_bijection_onto_its_valid_slots(length, banks, block):
    m = BankedVector(length, banks, block).index_map()
    images = [m(i) for i in range(length)]
    assert images == [written(i, banks, block, 4) for i in range(length)]
    assert la.check_bijective(m).status is la.Status.PROVED


def test_a_bank_that_overflows_is_refuted_at_an_element_that_overflows():
    m = BankedVector(10, 3, 2).index_map()
    # Banks 0 and 1 each hold four 4-byte elements, the last ending at byte 16.
    ends = {}
    for i in range(10):
        bank, address = written(i, 3, 2, 4)
        ends[bank] = max(ends.get(bank, 0), address + 4)
    assert max(ends.values()) == 16
    fits = la.check_fits(m, 16, per=("bank",), element_bytes=4, offsets_in_bytes=True)
    assert fits.status is la.Status.PROVED
    over = la.check_fits(m, 15, per=("bank",), element_bytes=4, offsets_in_bytes=True)
    assert over.status is la.Status.REFUTED
    assert written(over.counterexample["i"], 3, 2, 4)[1] + 4 > 15


def test_bad_sizes_are_one_clear_error():
    with pytest.raises(la.LayoutError, match=r"^banks must be a positive integer; got 0$"):
        BankedVector(10, 0, 2)


def test_specs_of_the_toy_family_run_through_the_cli(tmp_path, monkeypatch):
    (tmp_path / "toy_specs.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(HERE)!r})
        import layoutalg as la
        from toy_family import BankedVector

        FITS = {{"per": ("bank",), "element_bytes": 4, "offsets_in_bytes": True}}

        @la.spec(claims=["bijective", ("fits", 16, FITS)])
        def banked():
            return BankedVector(10, 3, 2)

        @la.spec(claims=[("fits", 15, FITS)], expect="REFUTED")
        def banked_in_too_little_memory():
            return BankedVector(10, 3, 2)
    """))
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    code = main(["prove", "--no-cache", str(tmp_path / "toy_specs.py")], stream=out)
    assert code == 0, out.getvalue()
    assert "3 claims in 2 specs: all as expected" in out.getvalue()


def test_every_small_toy_is_a_bijection_onto_its_valid_slots_by_enumeration():
    for length, banks, block in itertools.product(range(1, 7), range(1, 4), range(1, 4)):
        m = BankedVector(length, banks, block).index_map()
        images = [m(i) for i in range(length)]
        assert images == [written(i, banks, block, 4) for i in range(length)]
        assert len(set(images)) == length
        # every slot is an element or padding, never both or neither
        assert la.padding(m).total - la.padding(m).count == length
