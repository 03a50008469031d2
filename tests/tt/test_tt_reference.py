"""A plain-Python reference model of TT-Metal's page layouts, and the seed's
figures checked against it and against ``layoutalg.tt``.

The reference is written from TT-Metal's algorithms, independently of the
SymPy index maps: faces are numbered by walking them, legacy shards by the
shard loop of ``core_to_host_pages``, N-d shards by the recursion of
``BufferDistributionSpec::compute_page_mapping``. Other ``test_tt_*`` modules
import :func:`reference` to compare every element's placement.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from layoutalg import tt

FACES = {  # TT-Metal's TILE_FACE_HW_CHOICES, typed from its source
    (32, 32): (16, 16), (16, 32): (16, 16), (32, 16): (16, 16), (16, 16): (16, 16),
    (8, 32): (8, 16), (4, 32): (4, 16), (2, 32): (2, 16), (1, 32): (1, 16),
    (8, 16): (8, 16), (4, 16): (4, 16), (2, 16): (2, 16), (1, 16): (1, 16),
}
BYTES = {"bfloat16": 2, "float32": 4, "uint32": 4, "int32": 4, "uint16": 2, "uint8": 1,
         "bfloat8_b": 1}


def up(a: int, b: int) -> int:
    return -(-a // b) * b


def face_table(tile: tuple[int, int]) -> dict[tuple[int, int], int]:
    """Offsets inside a tile by walking faces row-major, then rows of a face."""
    (th, tw), (fh, fw) = tile, FACES[tile]
    table, offset = {}, 0
    for fr in range(th // fh):
        for fc in range(tw // fw):
            for i in range(fh):
                for j in range(fw):
                    table[(fr * fh + i, fc * fw + j)] = offset
                    offset += 1
    return table


def cores(grid, orientation):
    gx, gy = grid
    if orientation == "ROW_MAJOR":
        return [(x, y) for y in range(gy) for x in range(gx)]
    return [(x, y) for x in range(gx) for y in range(gy)]


def legacy_slots(memory, page_rows, page_cols, shard_rows, shard_cols):
    """page → (core, slot) for HEIGHT / WIDTH / BLOCK, shard by shard."""
    across = -(-page_cols // shard_cols)
    down = -(-page_rows // shard_rows)
    order = cores(memory.grid, memory.orientation)
    where = {}
    for index in range(down * across):
        r, c = divmod(index, across)
        if memory.strategy == "BLOCK":
            core = (c, r) if memory.orientation == "ROW_MAJOR" else (r, c)
        else:
            core = order[index]
        for i in range(shard_rows):
            for j in range(shard_cols):
                pr, pc = r * shard_rows + i, c * shard_cols + j
                if pr < page_rows and pc < page_cols:
                    where[pr * page_cols + pc] = (core, i * shard_cols + j)
    return where


def nd_slots(memory, tensor_pages, shard_pages):
    """page → (core, slot) by TT-Metal's N-d recursion: shards row-major,
    shard s on core s % ncores at s // ncores shard volumes."""
    order = cores(memory.grid, memory.orientation)
    grid = [-(-t // s) for t, s in zip(tensor_pages, shard_pages)]
    volume = math.prod(shard_pages)
    where = {}
    for shard_id, shard in enumerate(itertools.product(*(range(g) for g in grid))):
        core = order[shard_id % len(order)]
        base = (shard_id // len(order)) * volume
        for inner in itertools.product(*(range(s) for s in shard_pages)):
            page = [o * s + k for o, s, k in zip(shard, shard_pages, inner)]
            if all(p < t for p, t in zip(page, tensor_pages)):
                host = 0
                for p, t in zip(page, tensor_pages):
                    host = host * t + p
                slot = 0
                for k, s in zip(inner, shard_pages):
                    slot = slot * s + k
                where[host] = (core, base + slot)
    return where


def reference_pages(shape, dtype, *, layout="TILE", tile=(32, 32), memory="INTERLEAVED",
                    storage="DRAM", device=tt.WORMHOLE_B0, base=0) -> dict:
    """The page level of the reference: every page's ``(bank_or_core, slot)``
    and the sizes that place it.

    Keys: ``where`` (page → (location, slot)), ``pages`` (count), ``step``
    (bytes of one page slot: the page rounded up to the alignment), ``slots``
    (slots each bank or core reserves: ⌈pages/banks⌉ interleaved, one shard
    of pages for legacy shards, ⌈shards/cores⌉ shards for N-d shards),
    ``base``, ``alignment`` and what the element level needs.
    """
    th, tw = tile if layout == "TILE" else (1, 1)
    *lead, h, w = (1, *shape) if len(shape) == 1 else shape
    if len(shape) == 1:
        lead = []
    hp, wp = up(h, th), up(w, tw)
    if layout == "TILE":
        ph, pw = tile
    elif isinstance(memory, tt.ShardSpec) and memory.strategy != "HEIGHT":
        ph, pw = 1, memory.shard_shape[1]
    elif isinstance(memory, tt.NdShardSpec):
        ph, pw = 1, memory.shard_shape[-1]
    else:
        ph, pw = 1, wp
    rows = math.prod(lead) * hp
    page_rows, page_cols = rows // ph, -(-wp // pw)
    size = BYTES[dtype]
    exp = 0
    if dtype == "bfloat8_b":
        fh = FACES[tile][0]
        exp = up(fh * (th // fh) * (tw // FACES[tile][1]), 16)
    page_bytes = ph * pw * size + exp
    align = device.dram_alignment if storage == "DRAM" else device.l1_alignment
    step = up(page_bytes, align)
    if memory == "INTERLEAVED":
        banks = device.dram_banks if storage == "DRAM" else math.prod(device.worker_grid)
        where = {p: (p % banks, p // banks) for p in range(page_rows * page_cols)}
        slots = -(-(page_rows * page_cols) // banks)
    elif isinstance(memory, tt.ShardSpec):
        sh, sw = memory.shard_shape
        shard_rows, shard_cols = -(-sh // ph), -(-sw // pw)
        where = legacy_slots(memory, page_rows, page_cols, shard_rows, shard_cols)
        slots = shard_rows * shard_cols
    else:
        shard = list(memory.shard_shape)
        if len(shape) == 1:
            tensor_pages, shard_pages = [-(-wp // pw)], [-(-shard[0] // pw)]
        else:
            tensor_pages = list(lead) + [hp // ph, -(-wp // pw)]
            shard_pages = shard[:-2] + [-(-shard[-2] // ph), -(-shard[-1] // pw)]
        where = nd_slots(memory, tensor_pages, shard_pages)
        shards = math.prod(-(-t // s) for t, s in zip(tensor_pages, shard_pages))
        cores_count = memory.grid[0] * memory.grid[1]
        slots = -(-shards // cores_count) * math.prod(shard_pages)
    return {"where": where, "pages": page_rows * page_cols, "step": step, "slots": slots,
            "base": base, "alignment": align, "lead": lead, "hp": hp, "page": (ph, pw),
            "page_cols": page_cols, "exp": exp, "size": size}


def reference(shape, dtype, *, layout="TILE", tile=(32, 32), memory="INTERLEAVED",
              storage="DRAM", device=tt.WORMHOLE_B0, base=0):
    """Every element's ``(bank_or_core, byte address)``, and the page count."""
    ref = reference_pages(shape, dtype, layout=layout, tile=tile, memory=memory,
                          storage=storage, device=device, base=base)
    lead, hp, (ph, pw), page_cols = ref["lead"], ref["hp"], ref["page"], ref["page_cols"]
    where, step, exp, size = ref["where"], ref["step"], ref["exp"], ref["size"]
    faces = face_table(tile) if layout == "TILE" else None
    out = {}
    for point in itertools.product(*(range(n) for n in shape)):
        *lead_i, i, j = (0, *point) if len(shape) == 1 else point
        block = 0
        for k, n in zip(lead_i, lead):
            block = block * n + k
        r = block * hp + i
        page = (r // ph) * page_cols + j // pw
        inside = faces[(r % ph, j % pw)] if faces else j % pw
        location, slot = where[page]
        out[point] = (location, base + slot * step + exp + inside * size)
    return out, ref["pages"]


def placements(spec: tt.TensorSpec) -> dict:
    """``layoutalg.tt``'s placement of every element, by evaluating its index map."""
    m = spec.index_map()
    grid = np.indices(spec.shape).reshape(len(spec.shape), -1)
    image = [np.broadcast_to(v, grid.shape[1:]).tolist() for v in m.apply(*grid)]
    out = {}
    for k, point in enumerate(zip(*grid.tolist())):
        location = image[0][k] if len(image) == 2 else (image[0][k], image[1][k])
        out[point] = (location, image[-1][k])
    return out


# -- the reference itself against hand-derived figures ------------------------------------


def test_face_table_matches_the_32x32_formula():
    table = face_table((32, 32))
    for (i, j), offset in table.items():
        assert offset == (2 * (i // 16) + j // 16) * 256 + (i % 16) * 16 + j % 16


def test_reference_reproduces_the_seed_block_figure():
    memory = tt.ShardSpec("BLOCK", (2, 2), (64, 64))
    where = legacy_slots(memory, 4, 4, 2, 2)
    held = {}
    for page, (core, slot) in sorted(where.items()):
        held.setdefault(core, []).append(page)
    assert held == {(0, 0): [0, 1, 4, 5], (1, 0): [2, 3, 6, 7],
                    (0, 1): [8, 9, 12, 13], (1, 1): [10, 11, 14, 15]}


# -- layoutalg.tt against the reference -------------------------------------------------

TOY = tt.Device("toy", dram_banks=3, l1_bytes=1 << 16, worker_grid=(4, 3), dram_alignment=32)

KNOWN = [
    ((64, 64), "bfloat16", {}),
    ((3, 40, 50), "bfloat16", {}),
    ((3, 40, 50), "bfloat8_b", {"device": tt.BLACKHOLE}),
    ((37,), "float32", {"layout": "ROW_MAJOR"}),
    ((37,), "bfloat16", {}),
    ((2, 5, 33), "uint8", {"layout": "ROW_MAJOR", "storage": "L1", "device": TOY}),
    ((2, 20, 40), "float32", {"tile": (16, 32), "device": TOY}),
    ((9, 40), "bfloat16", {"tile": (4, 32), "storage": "L1", "device": TOY}),
    ((40, 50), "uint16", {"tile": (32, 16), "device": TOY, "base": 64}),
    ((128, 128), "bfloat16", {"memory": tt.ShardSpec("BLOCK", (2, 2), (64, 64)),
                              "storage": "L1"}),
    ((128, 96), "bfloat16", {"memory": tt.ShardSpec("BLOCK", (2, 3), (64, 32), "COL_MAJOR"),
                             "storage": "L1"}),
    ((100, 90), "bfloat16", {"memory": tt.ShardSpec("BLOCK", (3, 4), (32, 32)),
                             "storage": "L1"}),
    ((3, 40, 50), "float32", {"memory": tt.ShardSpec("HEIGHT", (2, 2), (64, 64)),
                              "storage": "L1"}),
    ((3, 40, 50), "float32", {"memory": tt.ShardSpec("HEIGHT", (2, 2), (64, 64), "COL_MAJOR"),
                              "storage": "L1"}),
    ((7, 30), "bfloat16", {"layout": "ROW_MAJOR",
                           "memory": tt.ShardSpec("WIDTH", (2, 2), (7, 8)), "storage": "L1"}),
    ((7, 30), "bfloat16", {"layout": "ROW_MAJOR",
                           "memory": tt.ShardSpec("BLOCK", (4, 3), (3, 8)), "storage": "L1"}),
    ((5, 30), "float32", {"layout": "ROW_MAJOR",
                          "memory": tt.ShardSpec("HEIGHT", (3, 1), (2, 30)), "storage": "DRAM",
                          "device": TOY}),
    ((3, 100, 70), "bfloat16", {"memory": tt.NdShardSpec((2, 64, 64), (2, 2)),
                                "storage": "L1"}),
    ((3, 10, 20), "float32", {"layout": "ROW_MAJOR",
                              "memory": tt.NdShardSpec((2, 3, 8), (2, 3), "COL_MAJOR"),
                              "storage": "L1"}),
]


def build(shape, dtype, options) -> tt.TensorSpec:
    kwargs = {k: v for k, v in options.items() if k != "base"}
    return tt.TensorSpec(shape, dtype, base_address=options.get("base", 0), **kwargs)


@pytest.mark.parametrize(("shape", "dtype", "options"), KNOWN)
def test_every_element_is_where_the_reference_puts_it(shape, dtype, options):
    spec = build(shape, dtype, options)
    ref_options = {k: v for k, v in options.items()}
    expected, pages = reference(shape, dtype, **ref_options)
    assert spec.num_pages == pages
    assert placements(spec) == expected


@pytest.mark.parametrize(("shape", "dtype", "options"), KNOWN)
def test_page_location_and_tables_agree_with_the_reference(shape, dtype, options):
    spec = build(shape, dtype, options)
    expected, _ = reference(shape, dtype, **options)
    pages_of = spec.element_page_map()
    grid = np.indices(spec.shape).reshape(len(spec.shape), -1)
    page_ids = np.broadcast_to(pages_of.apply(*grid)[0], grid.shape[1:]).tolist()
    first_byte = {}
    for page, point in zip(page_ids, zip(*grid.tolist())):
        location, address = expected[point]
        first_byte.setdefault(page, (location, address))
        loc, start = first_byte[page]
        assert loc == location
        first_byte[page] = (loc, min(start, address))
    for page, (location, address) in first_byte.items():
        got_location, got_address = spec.page_location(page)
        assert got_location == location
        assert got_address <= address < got_address + spec.page_bytes
        assert got_address % spec.alignment == 0
    table = spec.pages_by_core() if spec.is_sharded else spec.pages_by_bank()
    listed = [p for slots in table.values() for p in slots if p is not None]
    assert sorted(listed) == list(range(spec.num_pages))
    for location, slots in table.items():
        for slot, page in enumerate(slots):
            if page is not None:
                assert spec.page_location(page) == (
                    location, spec.base_address + slot * spec.aligned_page_bytes)
