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

The loop nest is also proved as a map from the *step number* to the tile
triple. As one delinearization by three ceiling-quotient extents that is
beyond one Z3 query (it timed out); as a chain — peel the innermost loop
index off the step number, split the rest into the outer two, put the loops
in (ti, tj, tk) order (``Schedule.index_map``) — it is proved by parts
(``bijective_by_parts``, docs: Verification) in well under a second, and the
chain's composition is that one-step delinearization followed by the loop nest.
"""

import sympy

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


def step_numbers(dataflow) -> la.Chain:
    """Step number → (ti, tj, tk): the innermost loop index is the step's last
    digit, the outer two come from the quotient, then the loop nest."""
    plan = schedule(dataflow)
    nest = plan.index_map()
    (outer, middle, inner), (t1, t2, t3) = nest.domain.names, nest.domain.extents
    last = la.delinearize(la.Space(step=t1 * t2 * t3), "step", rest=t1 * t2, **{inner: t3})
    rest = la.delinearize(last.codomain, "rest", **{outer: t1, middle: t2})
    return la.Chain((last, rest, nest), name=f"steps of {plan.label}")


def step_delinearized(dataflow) -> la.IndexMap:
    """The same map in one step: delinearize by all three trip counts, then the loop nest."""
    plan = schedule(dataflow)
    nest = plan.index_map()
    steps = la.Space(step=sympy.Mul(*nest.domain.extents))
    by_three = la.delinearize(steps, "step", **dict(zip(nest.domain.names, nest.domain.extents)))
    return la.compose(by_three, nest, name=f"delinearized steps of {plan.label}")


def steps_claims(dataflow):
    return ["bijective_by_parts", ("equivalent", step_delinearized(dataflow))]


@la.spec(claims=steps_claims("os"))
def output_stationary_steps_all_sizes():
    """OS step s → ((s // ⌈K/Tk⌉) // ⌈N/Tj⌉, (s // ⌈K/Tk⌉) mod ⌈N/Tj⌉, s mod ⌈K/Tk⌉):
    every tile triple at exactly one step, for all sizes and tiles, by parts."""
    return step_numbers("os")


@la.spec(claims=steps_claims("ws"))
def weight_stationary_steps_all_sizes():
    """WS steps (tk → tj → ti): every tile triple at exactly one step, by parts."""
    return step_numbers("ws")


@la.spec(claims=steps_claims("is"))
def input_stationary_steps_all_sizes():
    """IS steps (tk → ti → tj): every tile triple at exactly one step, by parts."""
    return step_numbers("is")


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
