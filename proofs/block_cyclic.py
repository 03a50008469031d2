"""Theorems: block-cyclic dealing is a bijection for every size.

Index d of an extent-N dim goes, in blocks of B, round-robin to P parts:
part (d // B) mod P at local slot (d // (B·P))·B + d mod B. For all N, P,
B ≥ 1 this is a bijection onto the valid local slots.

With a symbolic block, one query on the whole map is beyond Z3 (UNKNOWN
after 70 s): it multiplies three unknown sizes. The deal is the chain of
three core maps — ``split`` the index into (block, offset), deal the
blocks one by one (``cyclic`` with block 1), ``linearize`` (round, offset)
into the local slot — each proved in its own small query
(``bijective_by_parts``, docs: Verification). Two more claims make it a
theorem about ``la.cyclic(..., block=B)`` itself: the chain's composition
sends every index where the library's map does (``equivalent``), and the
two have the same codomain and the same valid slots (a slot-by-slot
``equivalent`` of the ``valid`` predicates; the codomains are compared
when the spec is built).
"""

import layoutalg as la
from _chains import same_codomain, valid_slots  # beside this file

N, P, B = la.extents("N P B")


@la.spec(claims=["bijective"])
def cyclic_deal_all_sizes():
    """Cyclic (B = 1) deal of N indices over P parts, for all N and P."""
    return la.cyclic(la.Space(n=N), "n", P)


LIBRARY_DEAL = la.cyclic(la.Space(n=N), "n", P, block=B).renamed("la.cyclic(n, P, block=B)")


def deal_chain() -> la.Chain:
    """The block-cyclic deal as the chain of its steps, named like the library's map."""
    blocks = la.split(la.Space(n=N), "n", B, names=("n_block", "n_offset"))
    rounds = la.cyclic(blocks.codomain, "n_block", P, names=("n_part", "n_round"))
    local = la.linearize(rounds.codomain, ["n_round", "n_offset"], name="n_local")
    return la.Chain((blocks, rounds, local), name="block-cyclic deal (N, P, B) by parts")


@la.spec(claims=["bijective_by_parts", ("equivalent", LIBRARY_DEAL)])
def block_cyclic_deal_all_sizes():
    """Block-cyclic deal of N indices in blocks of B over P parts, for all N,
    P, B: ``la.cyclic(Space(n=N), "n", P, block=B)`` is a bijection onto its
    valid slots, proved by parts (split by B, deal the blocks over P,
    linearize round and offset). The equivalent claim shows the chain's
    composition gives the library's values at every index; its codomain
    is the library's (checked when the spec is built) and its valid slots
    are (``block_cyclic_deal_valid_slots``).

    History (issue 11): this was once claimed as one ``bijective`` query on
    the whole map and PROVED, but only because two nested ceilings shared
    one Z3 name, which silently limited N to small sizes. With the naming
    fixed that query was UNKNOWN (72 s), so the theorem is now proved by
    parts; no verdict was ever REFUTED."""
    chain = deal_chain()
    same_codomain(chain, LIBRARY_DEAL)
    return chain


@la.spec(claims=[("equivalent", valid_slots(LIBRARY_DEAL, "la.cyclic(block=B) valid"))])
def block_cyclic_deal_valid_slots():
    """The chain of ``block_cyclic_deal_all_sizes`` and ``la.cyclic(...,
    block=B)`` call the same slots valid, for all N, P, B: the bijection
    proved by parts is onto the library's own valid slots."""
    chain = deal_chain()
    return valid_slots(same_codomain(chain, LIBRARY_DEAL), "chain valid")
