"""The Tenstorrent checks: Z3 against enumeration on random tensors and
claims (any disagreement is a bug; Z3 UNKNOWN is a failure), known verdicts,
and the claims as the spec DSL runs them.

Agreement alone is not the truth: Z3 and the enumeration twin read the same
index map, so a wrong map makes them agree on a wrong verdict. Every
differential test here also states the verdict the truth gives, taken from
the plain-Python reference of TT-Metal's layouts in ``test_tt_reference``
(faces walked row-major, pages round-robin over banks, shards by TT-Metal's
shard loops), never from ``layoutalg.tt``'s tables or sizes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import tt as tt_brute
from parametric_pages import interleaved_pages
from test_tt_reference import KNOWN, build, placements, reference, reference_pages
from test_tt_roundtrip import options as spec_options
from test_tt_roundtrip import tensor_specs

import layoutalg as la
from layoutalg import tt
from layoutalg.runner.dsl import Claim, known_claims, run_claim
from layoutalg.verify import brute
from layoutalg.verify.result import Status

# Generous: the slowest query here takes well under a second on a quiet machine; a
# timeout turns PROVED into UNKNOWN (a failure), so leave room for a loaded one.
TIMEOUT_MS = 60_000


def agree(proved, enumerated):
    assert proved.status is not Status.UNKNOWN, f"Z3 said UNKNOWN: {proved}"
    assert enumerated.method == "enumeration"
    assert proved.status is enumerated.status, f"\n  z3:    {proved}\n  brute: {enumerated}"


def table(spec):
    return spec.pages_by_core() if spec.is_sharded else spec.pages_by_bank()


def truth(spec) -> dict:
    """The reference's page placement of ``spec`` (see ``reference_pages``)."""
    return reference_pages(spec.shape, spec.dtype.name, **spec_options(spec))


def held_by(ref: dict, where) -> set[int]:
    """Pages the reference puts on bank or core ``where``."""
    return {page for page, (location, _) in ref["where"].items() if location == where}


@st.composite
def holds_claims(draw, spec):
    """A location and a page set: the true one, or it with one page off."""
    held = table(spec)
    where = draw(st.sampled_from(sorted(held)))
    pages = {p for p in held[where] if p is not None}
    change = draw(st.sampled_from(["none", "add", "drop", "swap", "beyond"]))
    if change in ("add", "swap"):
        pages.add(draw(st.integers(0, spec.num_pages - 1)))
    if change in ("drop", "swap") and pages:
        pages.discard(draw(st.sampled_from(sorted(pages))))
    if change == "beyond":
        pages.add(spec.num_pages + draw(st.integers(0, 2)))
    return where, sorted(pages)


@given(st.data())
def test_holds_pages_z3_agrees_with_enumeration(data):
    spec = data.draw(tensor_specs())
    where, pages = data.draw(holds_claims(spec))
    z3 = tt.check_holds_pages(spec, where, pages, timeout_ms=TIMEOUT_MS)
    agree(z3, tt_brute.check_holds_pages(spec, where, pages))
    held = held_by(truth(spec), where)
    assert z3.proved == (held == set(pages))
    if z3.refuted:
        page = z3.counterexample["page"]
        assert (page in pages) != (page in held)


@given(st.data())
def test_page_count_z3_agrees_with_enumeration(data):
    spec = data.draw(tensor_specs())
    count = max(1, spec.num_pages + data.draw(st.integers(-2, 2)))
    z3 = tt.check_page_count(spec, count, timeout_ms=TIMEOUT_MS)
    agree(z3, tt_brute.check_page_count(spec, count))
    assert z3.proved == (count == truth(spec)["pages"])


@given(st.data())
def test_aligned_and_fits_z3_agree_with_enumeration(data):
    spec = data.draw(tensor_specs())
    ref = truth(spec)
    alignment = data.draw(st.sampled_from([1, 2, 3, 8, 16, 32, 48, 64, 128]))
    aligned = tt.check_aligned(spec, alignment, timeout_ms=TIMEOUT_MS)
    agree(aligned, tt_brute.check_aligned(spec, alignment))
    starts = [ref["base"] + slot * ref["step"] for _, slot in ref["where"].values()]
    assert aligned.proved == all(a % alignment == 0 for a in starts)
    # each bank or core reserves its slots whole, padding included
    need = ref["base"] + ref["slots"] * ref["step"]
    capacity = max(1, need + data.draw(st.sampled_from([-ref["step"], -1, 0, 1])))
    z3 = tt.check_fits_memory(spec, capacity, timeout_ms=TIMEOUT_MS)
    assert z3.status is not Status.UNKNOWN
    assert z3.status is tt_brute.check_fits_memory(spec, capacity).status
    assert z3.proved == (need <= capacity)


def broken(m: la.IndexMap, fault: str) -> la.IndexMap:
    """A page map with one deliberate fault."""
    if fault == "drop_valid":
        return la.IndexMap(m.domain, m.codomain, m.exprs, inverse=m.inverse, name="no_valid")
    if fault == "narrow":
        *dims, (name, extent) = m.codomain.dims
        codomain = la.Space(*dims, (name, max(1, extent - 1)))
        return la.IndexMap(m.domain, codomain, m.exprs, inverse=m.inverse, valid=m.valid,
                           name="narrow")
    (p,) = m.domain.symbols
    if fault == "collide":
        exprs = [e.xreplace({p: p // 2 * 2}) for e in m.exprs]
        return la.IndexMap(m.domain, m.codomain, exprs, inverse=m.inverse, valid=m.valid,
                           name="collide")
    return m


@given(st.data())
def test_page_map_bijectivity_z3_agrees_with_enumeration(data):
    spec = data.draw(tensor_specs())
    fault = data.draw(st.sampled_from(["none", "none", "drop_valid", "narrow", "collide"]))
    m = broken(spec.page_map(), fault)
    z3 = la.check_bijective(m, timeout_ms=TIMEOUT_MS)
    agree(z3, brute.check_bijective(m))
    ref = truth(spec)
    expected = {
        "none": True,
        # the last address byte is never a page start (slots are >= 16 aligned bytes)
        "narrow": True,
        # without `valid` every byte of every slot must hold a page: slots are >= 16 bytes
        "drop_valid": False,
        # pages 0 and 1 share an image as soon as there are two pages
        "collide": ref["pages"] < 2,
    }[fault]
    assert z3.proved is expected, z3
    if fault != "collide":  # the map itself: page p at the reference's (location, slot)
        for page, (location, slot) in ref["where"].items():
            place = location if isinstance(location, tuple) else (location,)
            assert m(page) == (*place, ref["base"] + slot * ref["step"]), page


ELEMENT_CASES = [KNOWN[k] for k in (1, 3, 6, 9, 10, 14, 17)]


@pytest.mark.parametrize(("shape", "dtype", "options"), ELEMENT_CASES)
def test_element_maps_are_bijections_by_z3_and_by_enumeration(shape, dtype, options):
    spec = build(shape, dtype, options)
    m = spec.index_map()
    z3 = la.check_bijective(m, timeout_ms=TIMEOUT_MS)
    agree(z3, brute.check_bijective(m))
    assert z3.proved, z3  # the truth: every element on its own byte, every real byte filled
    # ...and the map that was proved is TT-Metal's: faces, pages, banks or shards
    expected, _ = reference(shape, dtype, **options)
    assert placements(spec) == expected


# -- known verdicts ---------------------------------------------------------------------

SEED_BLOCK = tt.TensorSpec((128, 128), "bfloat16", storage="L1",
                           memory=tt.ShardSpec("BLOCK", (2, 2), (64, 64)))


def test_seed_sentence_is_refuted_and_the_figure_proved():
    sentence = tt.check_holds_pages(SEED_BLOCK, (0, 1), [2, 3, 7, 8])
    assert sentence.refuted
    page = sentence.counterexample["page"]
    assert page in {2, 3, 7, 8, 9, 12, 13}          # a page the sentence gets wrong
    figure = tt.check_holds_pages(SEED_BLOCK, (1, 0), [2, 3, 6, 7])
    assert figure.proved and figure.method == "z3"


def test_overflowing_shard_names_the_core_and_the_bytes():
    spec = tt.TensorSpec((8192, 1024), "bfloat16", storage="L1",
                         memory=tt.ShardSpec("HEIGHT", (8, 1), (1024, 1024)))
    verdict = tt.check_fits_memory(spec)
    assert verdict.refuted
    assert "exceeds memory: 2097152 > 1499136 bytes" in verdict.reason
    assert verdict.reason.startswith("core (")
    assert verdict.counterexample["bytes"] == 2097152


def test_a_tensor_smaller_than_its_shard_is_judged_by_the_reservation():
    spec = tt.TensorSpec((32, 32), "float32", storage="L1",
                         memory=tt.ShardSpec("BLOCK", (1, 1), (64, 64)))
    assert spec.bytes_per_location == 4 * 4096
    verdict = tt.check_fits_memory(spec, 8192)
    assert verdict.refuted and "reserves 4 page slots of 4096 B" in verdict.reason
    assert tt_brute.check_fits_memory(spec, 8192).refuted


def test_packed_pages_are_refuted_by_the_alignment_check():
    domain = la.Space(page=100)
    (p,) = domain.symbols
    packed = la.IndexMap(domain, la.Space(bank=12, address=900), [p % 12, (p // 12) * 100])
    verdict = tt.check_aligned(packed, 32)
    assert verdict.refuted
    assert verdict.counterexample["address"] % 32 != 0


def test_page_count_refutations_say_which_way():
    spec = tt.TensorSpec((3, 40, 50), "bfloat16")
    assert "more than 8 pages" in tt.check_page_count(spec, 8).reason
    assert "fewer than 13 pages: page 12 holds no element" in tt.check_page_count(spec, 13).reason


def test_derived_shard_shapes():
    cases = [
        (((2, 64, 128), (4, 2), "BLOCK"), {}, ("BLOCK", (64, 32))),
        (((2, 64, 128), (4, 2), "BLOCK", "COL_MAJOR"), {}, ("BLOCK", (32, 64))),
        (((1, 1, 100352, 64), (8, 7), "HEIGHT"), {}, ("HEIGHT", (1792, 64))),
        (((1, 1, 128, 512), (4, 2), "WIDTH"), {}, ("WIDTH", (128, 64))),
        (((64, 96), (2, 2), "BLOCK"), {"use_height_and_width_as_shard_shape": True},
         ("BLOCK", (64, 96))),
        (((64, 96), (2, 2), "BLOCK", "COL_MAJOR"), {"use_height_and_width_as_shard_shape": True},
         ("BLOCK", (96, 64))),   # TTNN swaps to (width, height) for COL_MAJOR
    ]
    for args, kwargs, (strategy, shard) in cases:
        memory = tt.create_sharded_memory_config(*args, **kwargs)
        assert (memory.strategy, memory.shard_shape) == (strategy, shard)
        assert memory.grid == args[1]


# -- claims in the DSL -----------------------------------------------------------------


def test_the_family_registers_its_claims():
    assert {"holds_pages", "page_count", "pages_aligned", "fits_device",
            "pages_bijective"} <= set(known_claims())


@pytest.mark.parametrize(("claim", "status"), [
    (Claim("holds_pages", ((1, 0), [2, 3, 6, 7])), "PROVED"),
    (Claim("holds_pages", ((0, 1), [2, 3, 7, 8]), "REFUTED"), "REFUTED"),
    (Claim("page_count", (16,)), "PROVED"),
    (Claim("pages_aligned", ()), "PROVED"),
    (Claim("pages_aligned", (4096,)), "REFUTED"),
    (Claim("fits_device", ()), "PROVED"),
    (Claim("fits_device", (8000,)), "REFUTED"),
    (Claim("pages_bijective", ()), "PROVED"),
    (Claim("bijective", ()), "PROVED"),
])
def test_claims_run_through_the_dsl(claim, status):
    spec = la.spec(claims=[(claim.name, *claim.args)], timeout_ms=TIMEOUT_MS)(lambda: SEED_BLOCK)
    assert run_claim(spec, spec.claims[0], spec.build()).status.value == status


def test_parametric_interleaving_is_a_bijection_for_all_sizes():
    """The page map's arithmetic, for every page count N and bank count B."""
    assert interleaved_pages(10, 3)(7) == (1, 2)  # 7 = 2·3 + 1: bank 1, its third slot
    m = interleaved_pages(*la.extents("N B"))
    assert la.check_bijective(m, timeout_ms=TIMEOUT_MS).proved
