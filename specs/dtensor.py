"""PyTorch DTensor layouts and redistributions (issue 16, item 1; pytorch#194457).

Placements as DTensor prints them on a DeviceMesh's shape; symbolic sizes
(``la.extents``) make a claim hold for every tensor size and world size.
Uneven shards follow ``torch.chunk``: chunks of ⌈n/k⌉, trailing ranks get
fewer rows or none.
"""

import layoutalg as la
from layoutalg.dtensor import (
    AllGather, DTensorLayout, Redistribution, plan_redistribution,
)

N, M, K, K2 = la.extents("N M K K2")

# -- layouts ---------------------------------------------------------------------------


@la.spec(claims=["bijective", "torch_local_shapes"])
def shard_rows_all_sizes():
    """[S(0)] of an [N, M] tensor on K ranks, for all N, M, K: every element on
    exactly one rank, once; each rank's local shape and elements are torch's."""
    return DTensorLayout((K,), ["S(0)"], (N, M))


@la.spec(claims=["bijective", "torch_local_shapes"])
def shard_and_replicate_all_sizes():
    """[S(1), R] on a K × K2 mesh: columns chunked over mesh dim 0, every rank
    along mesh dim 1 holds its copy, for all N, M, K, K2."""
    return DTensorLayout((K, K2), ["S(1)", "R"], (N, M))


@la.spec(claims=["bijective", "torch_local_shapes"])
def shard_both_dims_all_sizes():
    """[S(0), S(1)] on a K × K2 mesh (2-D tensor parallel), for all sizes."""
    return DTensorLayout((K, K2), ["S(0)", "S(1)"], (N, M))


@la.spec(claims=["bijective"])
def nested_uneven_rows():
    """[S(0), S(0)] of (5, 3) on a 2 × 2 mesh: nested pieces of 2/1/1/1 rows,
    not the flat chunks 2/2/1/0 (pytorch#194457's layout)."""
    return DTensorLayout((2, 2), ["S(0)", "S(0)"], (5, 3))


# -- redistributions -------------------------------------------------------------------


@la.spec(claims=["delivers"])
def all_gather_all_sizes():
    """S(0) → R by all_gather on K ranks: padded to ⌈N/K⌉, gathered, cut by
    torch.chunk's lengths; every rank gets all N·M elements, once, in place."""
    return plan_redistribution(DTensorLayout((K,), ["S(0)"], (N, M)), ["R"])


@la.spec(claims=["delivers"])
def all_to_all_all_sizes():
    """S(0) → S(1) by all_to_all on K ranks, for all N, M, K."""
    return plan_redistribution(DTensorLayout((K,), ["S(0)"], (N, M)), ["S(1)"])


@la.spec(claims=["delivers"])
def chunk_replicated_all_sizes():
    """R → S(1): each rank keeps its own chunk of its copy, for all sizes."""
    return plan_redistribution(DTensorLayout((K,), ["R"], (N, M)), ["S(1)"])


@la.spec(claims=["delivers"])
def gather_2d_mesh_all_sizes():
    """[S(0), S(1)] → [R, R] on a K × K2 mesh: two all_gathers, inner mesh dim
    first, for all sizes."""
    return plan_redistribution(DTensorLayout((K, K2), ["S(0)", "S(1)"], (N, M)), ["R", "R"])


# -- pytorch#194457: a flattened all_gather of uneven nested shards loses a row ---------


SOURCE_194457 = DTensorLayout((2, 2), ["S(0)", "S(0)"], (5, 3))


@la.spec(claims=["delivers"], expect="REFUTED")
def pytorch_194457_flattened_all_gather():
    """torch 2.13: [S(0), S(0)] → [R, R] of (5, 3) on 2 × 2 merges the two
    all_gathers into one over the flattened mesh and cuts the result by the flat
    chunks 2/2/1/0, but the ranks hold 2/1/1/1 rows: a padding row lands at
    row 3 and row 4 is lost (REFUTED with the rank and element)."""
    return plan_redistribution(SOURCE_194457, ["R", "R"], flatten=True)


@la.spec(claims=["delivers"])
def pytorch_194457_fixed():
    """The fix (do not flatten when uneven): one all_gather per mesh dim, inner
    first, each cut by torch.chunk of its own logical size."""
    return plan_redistribution(SOURCE_194457, ["R", "R"])


@la.spec(claims=["delivers"])
def pytorch_194457_flattened_cut_by_pieces():
    """Also right: the flattened all_gather cut by the lengths the ranks hold."""
    return Redistribution(SOURCE_194457, [AllGather((0, 1), 0)])


@la.spec(claims=["delivers"])
def pytorch_194457_flattened_even():
    """The flattening is right when the product of the mesh dims divides the
    rows: (8, 3) on 2 × 2."""
    return plan_redistribution(DTensorLayout((2, 2), ["S(0)", "S(0)"], (8, 3)), ["R", "R"],
                               flatten=True)


@la.spec(claims=["delivers"], expect="REFUTED")
def pytorch_194457_gather_before_chunk():
    """The same flattening hits [S(0), S(0)] → [R, S(0)] of (5, 3) on 2 × 2: torch
    2.13 gathers both mesh dims in one flattened all_gather, cut 2/2/1/0, then
    chunks mesh dim 1: rank (0, 1) gets a padding row and row 3 where rows 3 and
    4 belong (found by tests/dtensor/test_dtensor_torch.py in torch itself)."""
    return plan_redistribution(SOURCE_194457, ["R", "S(0)"], flatten=True)


@la.spec(claims=["delivers"])
def pytorch_194457_gather_before_chunk_fixed():
    """Unflattened: gather mesh dim 1, then 0, then chunk mesh dim 1."""
    return plan_redistribution(SOURCE_194457, ["R", "S(0)"])
