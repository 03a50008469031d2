"""The ``@la.spec`` decorator: claims parsing, expectations, validation, build, fingerprint."""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg.runner.dsl import Claim, run_claim


def row_major_4x8():
    """A bijective [4, 8] → [32] layout (the body every spec here shares)."""
    return la.linearize(la.Space(i=4, j=8))


def decorate(**kwargs) -> la.Spec:
    return la.spec(**kwargs)(row_major_4x8)


# -- claims parsing -------------------------------------------------------------------


def test_a_name_becomes_a_claim_without_arguments():
    s = decorate(claims=["injective"])
    assert s.claims == (Claim("injective", (), "PROVED"),)
    assert s.claims[0].label == "injective"


def test_a_tuple_claim_keeps_its_arguments():
    s = decorate(claims=[("fits", 64)])
    (claim,) = s.claims
    assert (claim.name, claim.args) == ("fits", (64,))
    assert claim.label == "fits(64)"


def test_an_equivalent_claim_carries_the_other_map_and_shows_its_name():
    other = la.strided((8, 4), (4, 1))
    s = decorate(claims=[("equivalent", other)])
    (claim,) = s.claims
    assert claim.name == "equivalent"
    assert claim.args == (other,)
    assert claim.label == f"equivalent({other.label})"


def test_claims_keep_their_order_and_mixed_forms():
    s = decorate(claims=["injective", ("fits", 128), "bijective"])
    assert [c.name for c in s.claims] == ["injective", "fits", "bijective"]
    assert [c.args for c in s.claims] == [(), (128,), ()]


def test_claims_may_be_a_tuple():
    s = decorate(claims=("injective", "in_bounds"))
    assert [c.name for c in s.claims] == ["injective", "in_bounds"]


def test_spec_keeps_name_doc_and_calls_the_function():
    s = decorate(claims=["injective"])
    assert s.name == "row_major_4x8"
    assert s.doc == "A bijective [4, 8] → [32] layout (the body every spec here shares)."
    assert s() == row_major_4x8()
    assert la.spec(claims=["injective"], name="renamed")(row_major_4x8).name == "renamed"


# -- expect ---------------------------------------------------------------------------


def test_expect_defaults_to_proved_for_every_claim():
    s = decorate(claims=["injective", "bijective"])
    assert [c.expect for c in s.claims] == ["PROVED", "PROVED"]


def test_one_expect_applies_to_every_claim():
    s = decorate(claims=["injective", ("fits", 8)], expect="REFUTED")
    assert [c.expect for c in s.claims] == ["REFUTED", "REFUTED"]


def test_a_list_of_expects_pairs_with_the_claims_in_order():
    s = decorate(claims=["bijective", ("fits", 8), ("fits", 128)],
                 expect=["PROVED", "REFUTED", "PROVED"])
    assert [(c.label, c.expect) for c in s.claims] == [
        ("bijective", "PROVED"), ("fits(8)", "REFUTED"), ("fits(128)", "PROVED")]


@pytest.mark.parametrize("given", ["proved", "FAILED", "", "REFUTED "])
def test_an_unknown_expectation_is_rejected_naming_the_argument_and_value(given):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=["injective"], expect=given)
    message = str(info.value)
    assert "expect" in message
    assert repr(given) in message
    assert "PROVED" in message and "REFUTED" in message  # the rule


def test_a_bad_expectation_inside_a_per_claim_list_is_rejected():
    with pytest.raises(la.SpecError) as info:
        decorate(claims=["injective", "bijective"], expect=["PROVED", "maybe"])
    assert "expect" in str(info.value)
    assert "'maybe'" in str(info.value)


@pytest.mark.parametrize("given", [None, 5])
def test_a_non_string_expectation_is_a_spec_error(given):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=["injective"], expect=given)
    assert "expect" in str(info.value)
    assert repr(given) in str(info.value)


@pytest.mark.parametrize("expect", [["PROVED"], ["PROVED", "PROVED", "REFUTED"], []])
def test_expects_of_the_wrong_length_are_rejected(expect):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=["injective", "bijective"], expect=expect)
    message = str(info.value)
    assert "expect" in message
    assert repr(expect) in message
    assert "2" in message  # how many were needed


# -- bad claims -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["injectiv", "Injective", "bijection", ""])
def test_an_unknown_claim_name_is_rejected_listing_the_known_ones(name):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=["injective", name])
    message = str(info.value)
    assert "claim" in message
    assert repr(name) in message
    for known in ("injective", "in_bounds", "bijective", "fits", "equivalent"):
        assert known in message


def test_an_unknown_claim_name_in_a_tuple_is_rejected():
    with pytest.raises(la.SpecError) as info:
        decorate(claims=[("fit", 64)])
    assert "'fit'" in str(info.value)


@pytest.mark.parametrize("claims", [[], ()])
def test_empty_claims_are_rejected(claims):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=claims)
    message = str(info.value)
    assert "claims" in message and "non-empty" in message
    assert repr(claims) in message


@pytest.mark.parametrize("claims", ["injective", None, 3])
def test_claims_must_be_a_list_not_a_bare_value(claims):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=claims)
    assert "claims" in str(info.value)
    assert repr(claims) in str(info.value)


@pytest.mark.parametrize("claim", [42, ("",), (64, "fits"), ()])
def test_a_claim_that_is_neither_a_name_nor_a_tuple_is_rejected(claim):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=[claim])
    assert "claim" in str(info.value)


def test_spec_errors_are_layout_errors():
    with pytest.raises(la.LayoutError):
        decorate(claims=["no_such_claim"])


def test_decorating_a_non_function_is_rejected():
    with pytest.raises(la.SpecError) as info:
        la.spec(claims=["injective"])(42)
    assert "42" in str(info.value)


# -- build ----------------------------------------------------------------------------


def test_build_returns_the_index_map():
    built = decorate(claims=["bijective"]).build()
    assert isinstance(built, la.IndexMap)
    assert built(1, 2) == (10,)


def test_build_accepts_a_family_object_with_index_map():
    class Family:
        def index_map(self):
            return row_major_4x8()

    family = Family()
    s = la.spec(claims=["bijective"])(lambda: family)
    assert s.build() is family
    # the claim is checked on family.index_map()
    assert run_claim(s, s.claims[0], s.build()).status is la.Status.PROVED


@pytest.mark.parametrize("value", [None, 42, "layout", la.Space(i=4), [row_major_4x8()]])
def test_build_rejects_a_value_that_is_not_a_layout(value):
    def bad():
        return value

    s = la.spec(claims=["injective"], name="not_a_layout")(bad)
    with pytest.raises(la.SpecError) as info:
        s.build()
    message = str(info.value)
    assert "not_a_layout" in message  # names the spec
    assert "IndexMap" in message  # states the rule
    assert repr(value)[:40] in message  # ends with what was given


# -- running claims -------------------------------------------------------------------


def test_run_claim_passes_tuple_arguments_to_the_check():
    # 32 one-byte elements: 32 bytes fit, 31 do not
    s = decorate(claims=[("fits", 32), ("fits", 31)])
    subject = s.build()
    fits, overflows = (run_claim(s, c, subject) for c in s.claims)
    assert fits.status is la.Status.PROVED
    assert overflows.status is la.Status.REFUTED


def test_run_claim_compares_with_the_equivalent_map():
    same = la.strided(32, 1)
    transposed = la.strided((8, 4), (4, 1))
    s = la.spec(claims=[("equivalent", same), ("equivalent", transposed)])(
        lambda: la.strided(32, 1))
    subject = s.build()
    verdicts = [run_claim(s, c, subject) for c in s.claims]
    assert verdicts[0].status is la.Status.PROVED
    # (8,4):(4,1) sends flat index 1 to offset 4, not 1
    assert verdicts[1].status is la.Status.REFUTED
    point = verdicts[1].counterexample["i"]
    assert same(point) != transposed(point)


def test_assume_and_timeout_are_kept():
    m, = la.extents("M")
    s = la.spec(claims=["injective"], assume=[m > 3], timeout_ms=1234)(row_major_4x8)
    assert s.assume == (m > 3,)
    assert s.timeout_ms == 1234


# -- fingerprint ----------------------------------------------------------------------


def test_fingerprint_is_stable_for_the_same_spec():
    assert decorate(claims=["injective"]).fingerprint == decorate(claims=["injective"]).fingerprint


@pytest.mark.parametrize("changed", [
    dict(claims=["bijective"]),
    dict(claims=["injective", "in_bounds"]),
    dict(claims=["injective"], expect="REFUTED"),
])
def test_fingerprint_changes_when_claims_or_expectations_change(changed):
    base = decorate(claims=["injective"])
    assert decorate(**changed).fingerprint != base.fingerprint


def test_fingerprint_changes_when_a_claim_argument_changes():
    assert (decorate(claims=[("fits", 64)]).fingerprint
            != decorate(claims=[("fits", 65)]).fingerprint)
    a = decorate(claims=[("equivalent", la.strided(32, 1))])
    b = decorate(claims=[("equivalent", la.strided((8, 4), (4, 1)))])
    assert a.fingerprint != b.fingerprint


def test_fingerprint_changes_when_the_source_changes():
    def first():
        return la.strided(4, 1)

    def second():
        return la.strided(4, 2)

    assert (la.spec(claims=["injective"])(first).fingerprint
            != la.spec(claims=["injective"])(second).fingerprint)


@pytest.mark.parametrize("claim", [("injective", 3), ("fits",), ("fits", 1, {}, 2), ("equivalent",)])
def test_a_claim_with_the_wrong_number_of_arguments_is_refused_at_declaration(claim):
    with pytest.raises(la.SpecError) as info:
        decorate(claims=[claim])
    assert repr(claim[0]) in str(info.value)
    assert "argument" in str(info.value)


def test_a_family_claim_is_known_before_its_family_is_touched():
    """Issue 12 item 3: which claims exist must not depend on import order
    (a fresh interpreter: nothing has touched la.mesh or la.tt yet)."""
    import subprocess
    import sys

    code = ("import layoutalg as la\n"
            "la.spec(claims=['fits_pe'])\n"
            "la.spec(claims=[('page_count', 4)])\n"
            "print('known')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "known"


def test_claims_are_frozen_objects_defined_beside_their_checks():
    """Issue 12 item 3: a claim is a value (name, check, arity) made where its
    check lives; families define theirs below the spec runner."""
    import dataclasses

    from layoutalg.mesh.checks import check_fits_pe
    from layoutalg.verify.claims import ClaimKind, claim_kind

    la.mesh  # noqa: B018 - the family module defines its claims when imported
    kind = claim_kind("fits_pe")
    assert isinstance(kind, ClaimKind)
    assert kind.check is check_fits_pe and kind.index_map is False and kind.arguments == (0, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        kind.name = "other"  # type: ignore[misc]
    assert claim_kind("no_such_claim") is None


def test_a_claim_defined_in_a_test_is_usable_then_forgotten():
    from layoutalg.verify.claims import claim, claim_kind, forget_claim

    def always_proved(m, **_options):
        return la.check_bijective(m)

    kind = claim("toy_always_bijective", always_proved, arguments=(0, 0))
    try:
        declared = la.spec(claims=["toy_always_bijective"])(lambda: la.identity(la.Space(i=3)))
        assert declared.claims[0].name == "toy_always_bijective"
        with pytest.raises(la.SpecError, match=r"claim 'toy_always_bijective' takes 0 argument"):
            la.spec(claims=[("toy_always_bijective", 1)])
    finally:
        forget_claim(kind.name)
    assert claim_kind("toy_always_bijective") is None
    with pytest.raises(la.SpecError, match="unknown claim 'toy_always_bijective'"):
        la.spec(claims=["toy_always_bijective"])


@pytest.mark.parametrize("name", ["", "two words", 3, "1st"])
def test_a_claim_name_must_be_an_identifier(name):
    from layoutalg.verify.claims import claim

    with pytest.raises(la.SpecError, match="a claim name must be an identifier"):
        claim(name, lambda m, **_: None)



def _channel_layout():
    import layoutalg.channel

    return layoutalg.channel.ChannelLayout("round_robin", num_channels=4, m_tiles=2, n_tiles=2,
                                           k_tiles=2, tile_bytes=64)


def _linear_layout():
    import layoutalg.linear

    return layoutalg.linear.LinearLayout({"lane": [[1], [2]]})  # lanes 0..3 -> 0..3


@pytest.mark.parametrize("build, claims", [
    (_channel_layout, [("load_balance", 1.5), "tiles_disjoint"]),  # load_balance reads no assume
    (_linear_layout, ["linear_injective"]),  # the linear claims' wrapper drops assume
])
def test_contradictory_assumptions_make_every_claim_unknown(build, claims):
    """A spec assuming M > 0 and M < 0 proves nothing, whether or not the claim's
    check reads ``assume`` (load_balance and the linear claims do not: they said
    PROVED). Consistent assumptions leave the verdicts as they were."""
    (m,) = la.extents("M")
    subject = build()
    for assume, status in (([m > 0], la.Status.PROVED), ([m > 0, m < 0], la.Status.UNKNOWN)):
        spec = la.spec(claims=claims, assume=assume)(lambda: subject)
        maps = {}
        assert [run_claim(spec, c, spec.build(), maps).status for c in spec.claims] == (
            [status] * len(spec.claims))
