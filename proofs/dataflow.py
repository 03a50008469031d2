"""Theorems: matmul dataflow models, for every problem size and every tiling.

With symbolic M, N, K and tiles Ti ≤ M, Tj ≤ N, Tk ≤ K (and symbolic L2 and
register capacities), for each of the output-, weight- and input-stationary
schedules:

- the loop nest visits every tile triple exactly once (a bijection);
- the exact model never reports less DRAM traffic than the compulsory
  A ≥ M·K, B ≥ K·N, C ≥ M·N elements — so never less than
  ``element_bytes·(MK + KN + MN)`` bytes;
- the stationary operand crosses DRAM exactly once;
- whenever the full tiles meet the seed's capacity constraints, every step's
  (edge-trimmed) tiles fit L2 and the registers — and without that
  assumption Z3 finds sizes that overflow.

The seed's WS reuse factors fail the compulsory bound for B (and for A);
its OS factors and its WS factor for C pass it.
"""

import layoutalg as la
from layoutalg import dataflow as df

M, N, K, Ti, Tj, Tk, L2, REGISTERS = la.extents("M N K Ti Tj Tk L2 REGISTERS")
CAPACITIES = df.Capacities(l2_bytes=L2, register_bytes=REGISTERS)


def schedule(dataflow):
    return df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk))


def constraints(dataflow):
    return df.tile_constraints(schedule(dataflow), CAPACITIES)


MODEL = ["bijective", "meets_compulsory", "stationary_once"]


@la.spec(claims=MODEL)
def output_stationary_all_sizes():
    """OS (ti → tj → tk, C in the PEs): for all sizes and tiles."""
    return schedule("os")


@la.spec(claims=MODEL)
def weight_stationary_all_sizes():
    """WS (tk → tj → ti, B in the PEs): for all sizes and tiles."""
    return schedule("ws")


@la.spec(claims=MODEL)
def input_stationary_all_sizes():
    """IS (tk → ti → tj, A in the PEs): for all sizes and tiles."""
    return schedule("is")


@la.spec(claims=[("tiles_fit", CAPACITIES)], assume=constraints("os"))
def output_stationary_tiles_fit():
    """(Ti·Tk + Tk·Tj + Ti·Tj)·4 ≤ L2 and Ti·Tj·4 ≤ REGISTERS ⇒ every OS step fits."""
    return schedule("os")


@la.spec(claims=[("tiles_fit", CAPACITIES)], assume=constraints("ws"))
def weight_stationary_tiles_fit():
    """(Ti·Tk + Ti·Tj)·4 ≤ L2 and Tk·Tj·4 ≤ REGISTERS ⇒ every WS step fits."""
    return schedule("ws")


@la.spec(claims=[("tiles_fit", CAPACITIES)], assume=constraints("is"))
def input_stationary_tiles_fit():
    """(Tk·Tj + Ti·Tj)·4 ≤ L2 and Ti·Tk·4 ≤ REGISTERS ⇒ every IS step fits."""
    return schedule("is")


@la.spec(claims=[("tiles_fit", CAPACITIES)], expect="REFUTED")
def tiles_fit_needs_the_constraints():
    """Without the capacity constraints the claim fails: Z3 names sizes that overflow."""
    return schedule("ws")


@la.spec(claims=[("meets_compulsory", "B"), ("meets_compulsory", "A"), ("meets_compulsory", "C")],
         expect=["REFUTED", "REFUTED", "PROVED"])
def seed_weight_stationary_reuse_factors():
    """Seed WS reuse: B ⌈M/Ti⌉·⌈K/Tk⌉ implies less than K·N elements of B whenever
    Tk < K; A ⌈Tj/16⌉ implies less than M·K once Tj > 16 and N fits one tile; C ⌈K/Tk⌉
    is sound."""
    return df.SeedReuse(schedule("ws"))


@la.spec(claims=["meets_compulsory"])
def seed_output_stationary_reuse_factors():
    """Seed OS reuse (A ⌈N/Tj⌉, B ⌈M/Ti⌉, C ⌈K/Tk⌉) never implies less than the compulsory
    traffic (it implies exactly that; the exact OS model re-reads A and B — see docs)."""
    return df.SeedReuse(schedule("os"))
