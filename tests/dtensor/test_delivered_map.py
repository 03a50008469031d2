"""``plan._delivered``: the map the delivery proof compares, against running the plan.

The delivered map (what each target slot reads back through every step,
built with ``verify.query.substitute``) must say "this slot gets its own
element" exactly where ``brute.simulate`` — the collectives run on data as
DTensor runs them — puts that element there, at every point of small plans:
the pytorch#194457 ones (flattened and fixed, uneven nested pieces) and an
even and an uneven all_to_all and 2-D gather.
"""

from __future__ import annotations

import itertools

import pytest

from layoutalg.core.tiling import flatten
from layoutalg.dtensor import AllGather, DTensorLayout, Redistribution, brute, plan_redistribution
from layoutalg.dtensor.plan import _delivered

SOURCE = DTensorLayout((2, 2), ["S(0)", "S(0)"], (5, 3))

PLANS = {
    "194457 flattened": lambda: plan_redistribution(SOURCE, ["R", "R"], flatten=True),
    "194457 fixed": lambda: plan_redistribution(SOURCE, ["R", "R"]),
    "194457 cut by pieces": lambda: Redistribution(SOURCE, [AllGather((0, 1), 0)]),
    "194457 gather before chunk": lambda: plan_redistribution(SOURCE, ["R", "S(0)"],
                                                              flatten=True),
    "194457 gather before chunk fixed": lambda: plan_redistribution(SOURCE, ["R", "S(0)"]),
    "all_to_all uneven": lambda: plan_redistribution(DTensorLayout((3,), ["S(0)"], (7, 5)),
                                                     ["S(1)"]),
    "2-D gather uneven": lambda: plan_redistribution(
        DTensorLayout((2, 3), ["S(0)", "S(1)"], (5, 7)), ["R", "R"]),
}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_delivered_says_what_the_run_delivers(name):
    plan = PLANS[name]()
    delivered, expected = _delivered(plan)
    target = plan.target.index_map()
    ran = brute.simulate(plan)
    rank_dims = len(plan.target.mesh_shape)
    gets_own = []
    for point in itertools.product(*(range(e) for e in target.domain.extents)):
        slot = target(*point)
        rank, where = slot[:rank_dims], slot[rank_dims:]
        element = point[len(point) - len(plan.target.shape):]
        data = ran[rank]
        inside = all(i < n for i, n in zip(where, data.shape))
        run_ok = inside and int(data[where]) == flatten(element, plan.target.shape)
        model_ok = delivered(*point) == expected(*point)
        assert model_ok == run_ok, (name, point, delivered(*point), run_ok)
        gets_own.append(run_ok)
    # the refuted plans lose an element somewhere, the others none
    assert all(gets_own) == ("flattened" not in name and name != "194457 gather before chunk")
