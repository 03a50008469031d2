"""Specs over the toy family, proved by the ordinary prover."""

import layoutalg as la
from banked import BankedVector


@la.spec(claims=["bijective", "toy_spread_evenly"])
def twelve_over_four():
    return BankedVector(12, 4)


@la.spec(claims=["injective", "toy_spread_evenly"], expect=["PROVED", "REFUTED"])
def ten_over_four():
    return BankedVector(10, 4)
