"""``TensorSpec.index_map()`` on every slot: its ``valid`` bytes are exactly the bytes the
elements land on, and its inverse gives each of them back.

The truth is the forward map (a different formula, evaluated on every element); the
checked side is the inverse and ``valid`` (evaluated on every slot of the codomain), which
``element_map`` writes without repeating the page-row bound the placement already keeps
(``maps.element_of_page_coords(..., bounded=True)``). The layouts cover interleaved and
HEIGHT / WIDTH / BLOCK sharded placements, TILE and ROW_MAJOR pages, leading dims, a
rank-1 tensor, and padding in both directions.
"""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.core.evaluate import evaluate_all
from layoutalg.tt import Device, NdShardSpec, ShardSpec, TensorSpec

SEED = Device("seed_3_banks", dram_banks=3, l1_bytes=1 << 20, worker_grid=(2, 2))

LAYOUTS = {
    "interleaved_tile": TensorSpec((64, 64), "bfloat16", device=SEED),
    "interleaved_leading_padded": TensorSpec((3, 40, 50), "bfloat16", device=SEED),
    "interleaved_rank1": TensorSpec((70,), "float32", device=SEED),
    "row_major": TensorSpec((5, 50), "bfloat16", layout="ROW_MAJOR", device=SEED),
    "height_uneven": TensorSpec((3, 40, 50), "bfloat16", storage="L1", device=SEED,
                                memory=ShardSpec("HEIGHT", (2, 2), (64, 64))),
    "width_row_major": TensorSpec((3, 100), "float32", layout="ROW_MAJOR", storage="L1",
                                  device=SEED, memory=ShardSpec("WIDTH", (2, 2), (3, 32))),
    "block_uneven": TensorSpec((100, 90), "bfloat16", storage="L1", device=SEED,
                               memory=ShardSpec("BLOCK", (2, 2), (64, 64))),
    "block_col_major": TensorSpec((2, 64, 64), "bfloat16", storage="L1", device=SEED,
                                  memory=ShardSpec("BLOCK", (2, 2), (64, 32), "COL_MAJOR")),
    "nd_sharded": TensorSpec((3, 40, 70), "bfloat16", storage="L1", device=SEED,
                             memory=NdShardSpec((2, 32, 64), (2, 2))),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_valid_slots_are_the_landing_slots_and_the_inverse_returns_each_element(name):
    spec = LAYOUTS[name]
    m = spec.index_map()
    grids = np.meshgrid(*(np.arange(n) for n in m.domain.extents), indexing="ij")
    elements = np.stack([g.ravel() for g in grids], axis=1)
    images = np.stack([np.broadcast_to(v, (len(elements),))
                       for v in m.apply(*elements.T)], axis=1)
    landing = {tuple(s): tuple(e) for s, e in zip(images.tolist(), elements.tolist())}
    assert len(landing) == len(elements)  # no two elements on one slot
    slots = np.meshgrid(*(np.arange(n) for n in m.codomain.extents), indexing="ij")
    env = dict(zip(m.codomain.symbols, (s.ravel() for s in slots)))
    valid, *back = evaluate_all([m.valid, *m.inverse], env)
    valid = np.broadcast_to(valid, (slots[0].size,)).astype(bool)
    back = np.stack([np.broadcast_to(b, (slots[0].size,)) for b in back], axis=1)
    where = np.stack([s.ravel() for s in slots], axis=1)
    assert int(valid.sum()) == len(landing)
    for slot, element in zip(where[valid].tolist(), back[valid].tolist()):
        assert landing[tuple(slot)] == tuple(element)
