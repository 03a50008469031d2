"""Theorems of CuTe's layout algebra, for every shape and stride.

pycute and CuTe's tests check these identities on examples; here they are
proved for all sizes at once.
"""

import layoutalg as la

M, N, s, d, t, e = la.extents("M N s d t e")


@la.spec(claims=[("equivalent", la.strided(M * N, 1))])
def coalesce_column_major():
    """Coalescing: (M,N):(1,M) is the same layout as (M·N):1, for all M, N."""
    return la.strided((M, N), (1, M))


@la.spec(claims=["bijective"])
def row_major_is_a_bijection():
    """(M,N):(N,1) is a bijection onto [0, M·N), for all M, N."""
    return la.strided((M, N), (N, 1))


@la.spec(claims=[("equivalent", la.strided(t, d * e))])
def compose_rank_one():
    """Composition rule: s:d ∘ t:e = t:(d·e) whenever B stays inside A's
    domain, e·(t − 1) < s; for all s, d, t, e.

    B is stated into A's domain ``[0, s)`` (its cosize set to ``s``), which
    is what "B stays inside A's domain" means and what compose proves. With
    B's natural cosize ``e·(t − 1) + 1`` narrower than ``s``, compose would
    have to pull that narrower box back through A, which has no inverse for
    a symbolic stride, and it refuses rather than guess the valid slots."""
    a = la.strided(s, d)
    b = la.strided(t, e, cosize=s).assuming(e * (t - 1) < s)
    return la.compose(b, a)
