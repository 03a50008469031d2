"""Theorems: the default Spyre layout is right for every tensor size.

For each rank r (0 to 6), for all sizes S0 … S(r-1) ≥ 1 and every number of
elements per stick E ≥ 1 (so for every dtype at once), the default layout
— dim_map order[1:] + [order[0], order[-1]], device_size with ⌈S/E⌉ sticks
along the stick dim — maps the host tensor bijectively onto its valid
device slots, its padding is exactly (E·⌈S_stick/E⌉ − S_stick)·Π(other
sizes) slots, and its stride_map gives every element's row-major PyTorch
offset. Every dim order is proved for ranks 2 and 3 (tests run rank 4);
the sparse default is proved for ranks 1 to 6.

The maps come from the same builders ``SpyreLayout.index_map`` uses
(``parametric_default_map``), so these theorems are about the shipped code.
"""

import itertools

import sympy

import layoutalg as la
from layoutalg.spyre import default_dim_map, dim_map_to_stride_map, parametric_default_map
from layoutalg.spyre.mapping import stride_map_offset_map
from layoutalg.spyre.torch_layout import contiguous_strides, offset_map

(E,) = la.extents("E")


def sizes(rank):
    return la.extents(" ".join(f"S{k}" for k in range(rank))) if rank else ()


def padding_formula(size, elems, sparse=False):
    """Padding of the default layout, derived by hand: every host element
    but the stick dim's round-up (dense), or E − 1 empty slots per element
    (sparse, one element per stick)."""
    if not size:
        return elems - 1
    others = sympy.Mul(*size[:-1])
    if sparse:
        return sympy.Mul(*size) * (elems - 1)
    return others * (elems * sympy.ceiling(size[-1] / elems) - size[-1])


def _bijective_spec(rank):
    size = sizes(rank)

    def default_all_sizes():
        return parametric_default_map(size, E, name=f"default rank {rank} (all sizes, all E)")

    default_all_sizes.__doc__ = (
        f"Rank {rank}: for all sizes and all E, a bijection onto the valid slots with "
        f"exactly {padding_formula(size, E)} padding slots.")
    return la.spec(claims=["bijective", ("spyre_padding", padding_formula(size, E))],
                   name=f"default_rank_{rank}_all_sizes")(default_all_sizes)


def _order_spec(order):
    size = sizes(len(order))

    def default_order():
        return parametric_default_map(size, E, order, name=f"default order {list(order)}")

    default_order.__doc__ = (f"dim_order {list(order)}: dim_map {list(default_dim_map(order))}, "
                             f"a bijection for all sizes and all E.")
    name = "default_order_" + "_".join(map(str, order))
    return la.spec(claims=["bijective"], name=name)(default_order)


def _sparse_spec(rank):
    size = sizes(rank)

    def sparse_all_sizes():
        return parametric_default_map(size, E, sparse=True, name=f"sparse default rank {rank}")

    sparse_all_sizes.__doc__ = (f"Sparse rank {rank}: one element per stick for all sizes, "
                                f"{padding_formula(size, E, sparse=True)} padding slots.")
    return la.spec(claims=["bijective", ("spyre_padding", padding_formula(size, E, True))],
                   name=f"sparse_rank_{rank}_all_sizes")(sparse_all_sizes)


def _stride_map_spec(rank):
    size = sizes(rank)
    order = list(range(rank))
    device = parametric_default_map(size, E).codomain.extents
    dims = default_dim_map(order)
    strides = dim_map_to_stride_map(size, device, dims)
    torch = offset_map(size, contiguous_strides(size), name=f"row-major offsets rank {rank}")

    def stride_map_all_sizes():
        return stride_map_offset_map(size, device, dims, strides, sympy.Mul(*size),
                                     name=f"default rank {rank} via stride_map")

    stride_map_all_sizes.__doc__ = (f"Rank {rank}: dot(device coordinate, stride_map) is the "
                                    f"row-major offset of every element, for all sizes and E.")
    return la.spec(claims=[("equivalent", torch)],
                   name=f"stride_map_rank_{rank}_all_sizes")(stride_map_all_sizes)


for _rank in range(7):
    globals()[f"default_rank_{_rank}_all_sizes"] = _bijective_spec(_rank)
for _rank in range(1, 7):
    globals()[f"stride_map_rank_{_rank}_all_sizes"] = _stride_map_spec(_rank)
for _rank in range(1, 7):
    globals()[f"sparse_rank_{_rank}_all_sizes"] = _sparse_spec(_rank)
for _order in itertools.chain(itertools.permutations(range(2)), itertools.permutations(range(3))):
    if list(_order) != sorted(_order):  # row-major is default_rank_r_all_sizes
        _made = _order_spec(_order)
        globals()[_made.name] = _made
del _made  # one name per spec: the prover collects every Spec in the module


@la.spec(claims=[("spyre_padding", 0)], expect="REFUTED")
def default_is_not_always_dense():
    """The default layout pads unless E divides the stick dim's size: Z3 picks
    sizes where it does not and reports the padding there."""
    S0, S1 = sizes(2)
    return parametric_default_map((S0, S1), E, name="default rank 2 (all sizes)")


@la.spec(claims=[("spyre_padding", 0)], assume=[sympy.Eq(sizes(2)[1] % E, 0)])
def default_is_dense_when_sticks_divide():
    """…and when E divides the stick dim's size, no slot is padding."""
    S0, S1 = sizes(2)
    return parametric_default_map((S0, S1), E, name="default rank 2, E | S1")
