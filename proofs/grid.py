"""Theorems: the grid placement is right for every tensor and every PE mesh.

For all M, N, PR, PC ≥ 1, with tiles TR = ⌈M/PR⌉ and TC = ⌈N/PC⌉, the map
(i, j) ↦ (i // TR, j // TC, (i mod TR)·TC + j mod TC) is a bijection from the
tensor onto the valid slots of PR × PC PEs with TR·TC slots each.
No enumeration tool can state this: it ranges over infinitely many sizes.
"""

import sympy

import layoutalg as la

M, N, PR, PC = la.extents("M N PR PC")


def parametric_grid(*, with_padding=True):
    """The grid layout with symbolic sizes; ``with_padding=False`` drops the
    valid predicate (claims every slot holds data)."""
    tr, tc = sympy.ceiling(M / PR), sympy.ceiling(N / PC)
    dom = la.Space(i=M, j=N)
    cod = la.Space(pe_row=PR, pe_col=PC, offset=tr * tc)
    i, j = dom.symbols
    r, c, o = cod.symbols
    row, col = r * tr + o // tc, c * tc + o % tc
    valid = sympy.And(row < M, col < N) if with_padding else None
    return la.IndexMap(dom, cod, [i // tr, j // tc, (i % tr) * tc + j % tc],
                       inverse=[row, col], valid=valid, name="grid(M, N, PR, PC)")


@la.spec(claims=["injective", "in_bounds", "bijective"])
def grid_all_sizes():
    """For all M, N, PR, PC: injective, in bounds, a bijection onto valid slots."""
    return parametric_grid()


@la.spec(claims=["bijective"], assume=[sympy.Eq(M % PR, 0), sympy.Eq(N % PC, 0)])
def even_grid_has_no_padding():
    """When PR divides M and PC divides N, every slot holds an element."""
    return parametric_grid(with_padding=False)


@la.spec(claims=["bijective"], expect="REFUTED")
def uneven_grid_has_padding():
    """Without the divisibility assumptions the claim fails: Z3 picks sizes
    (the counterexample names M, N, PR, PC) where a slot stays empty."""
    return parametric_grid(with_padding=False)
