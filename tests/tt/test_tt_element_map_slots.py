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
import sympy

from layoutalg.core.evaluate import evaluate_all
from layoutalg.core.space import Space
from layoutalg.tt import Device, NdShardSpec, ShardSpec, TensorSpec
from layoutalg.tt.maps import _unless_always

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


def test_conditions_true_on_every_slot_are_left_out_and_no_others():
    """A relation interval bounds show true on the whole codomain box is dropped; one
    some slot fails, an equation, or anything interval bounds cannot read is kept."""
    box = Space(x=10, y=4)
    x, y = box.symbols
    kept = [sympy.Lt(x, 5), sympy.Eq(sympy.Mod(x, 2), 0), sympy.Ge(x - y, 0)]
    vacuous = [sympy.Lt(sympy.Mod(x * 7 + y, 8), 8), sympy.Lt(x, 10), sympy.Ge(x + y, 0),
               sympy.Lt(4 * sympy.floor(x / 4) + y, 12)]
    assert _unless_always(kept + vacuous, box) == kept


def test_a_full_interleaved_tensor_only_rules_out_bytes_inside_elements():
    """1024×1024 bfloat16 on Blackhole: 1024 tiles of 2048 B over 8 banks, 128 per bank,
    no alignment gap, no padding: every even byte of [0, 128·2048) in every bank starts an
    element, so valid is just ``address mod 2 = 0``; a 1000×900 block-sharded tensor keeps
    its padding (the last shard column covers columns 896..1023, 900 real)."""
    full = TensorSpec((1024, 1024), "bfloat16", device="blackhole").index_map()
    assert full.codomain.extents == (8, 128 * 2048)
    (address,) = full.codomain.symbols[1:]
    assert full.valid == sympy.Eq(sympy.Mod(address, 2), 0)
    padded = TensorSpec((1000, 900), "bfloat16", storage="L1",
                        memory=ShardSpec("BLOCK", (8, 8), (128, 128))).index_map()
    assert len(sympy.And.make_args(padded.valid)) > 1
    # core (7, 7) holds shard (7, 7): rows 896.., columns 896..; its first tile's byte 2c
    # is column 896 + c of row 896, padding from column 900 on
    assert padded.preimage(7, 7, 6) == (896, 899) and padded.preimage(7, 7, 8) is None
