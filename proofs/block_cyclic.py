"""Theorems: block-cyclic dealing is a bijection for every size.

Index d of an extent-N dim goes, in blocks of B, round-robin to P parts:
part (d // B) mod P at local slot (d // (B·P))·B + d mod B. For all N, P,
B ≥ 1 this is a bijection onto the valid local slots.
"""

import layoutalg as la

N, P, B = la.extents("N P B")


@la.spec(claims=["bijective"])
def cyclic_deal_all_sizes():
    """Cyclic (B = 1) deal of N indices over P parts, for all N and P."""
    return la.cyclic(la.Space(n=N), "n", P)


@la.spec(claims=["bijective"])
def block_cyclic_deal_all_sizes():
    """Block-cyclic deal of N indices in blocks of B over P parts, for all N, P, B."""
    return la.cyclic(la.Space(n=N), "n", P, block=B)
