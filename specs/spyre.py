"""IBM Spyre stick layouts (seed 001, torch-spyre): every example, padding
counted exactly, a default layout of every rank, a sparse layout, and the
known-bad designs a check must catch.

Expected figures are derived by hand in each docstring, never read back
from the implementation.
"""

import layoutalg as la
from layoutalg.spyre import SpyreLayout, default_layout

SEED_SIZE = [128, 256, 512]
SEED_DIM_MAP = [1, 2, 0, 2]
SEED_DEVICE = [256, 8, 128, 64]


def seed_layout(size=SEED_SIZE):
    return SpyreLayout(size, "float16", SEED_DEVICE, SEED_DIM_MAP)


def device_formula(name, third):
    """The seed's device → host formula over the device grid [256, 8, 128, 64]:
    (a, b, c, d) ↦ (c, a, third(b, d))."""
    dom = la.Space(a=256, b=8, c=128, d=64)
    a, b, c, d = dom.symbols
    cod = la.Space(h0=128, h1=256, h2=512 * 64)
    return la.IndexMap(dom, cod, [c, a, third(b, d)], name=name)


SEED_FORMULA = device_formula("(a, b, c, d) ↦ (c, a, 64·b + d)", lambda b, d: 64 * b + d)
OLD_DOC_FORMULA = device_formula("(a, b, c, d) ↦ (c, a, b·d)", lambda b, d: b * d)


# -- the seed's example ---------------------------------------------------------------


@la.spec(claims=[("equivalent", SEED_FORMULA)])
def seed_formula():
    """Seed 001: size [128, 256, 512], dim_map [1, 2, 0, 2], device_size
    [256, 8, 128, 64]: device element (a, b, c, d) is torch element
    (c, a, 64·b + d) — proved for all 16,777,216 device slots."""
    return seed_layout().device_to_host_map()


@la.spec(claims=[("equivalent", OLD_DOC_FORMULA)], expect="REFUTED")
def seed_formula_as_once_written():
    """An earlier revision of torch-spyre's TensorLayouts.md wrote the same
    element as (c, a, b·d); the tool finds a device slot where that differs."""
    return seed_layout().device_to_host_map()


@la.spec(claims=["bijective", ("spyre_padding", 0), "spyre_stride_map"])
def seed_layout_bijective():
    """The seed layout holds each of the 128·256·512 = 16,777,216 host elements
    in its own slot, 256·8·128·64 = 16,777,216 slots: no padding. Its
    stride_map [512, 64, 131072, 1] gives every element's PyTorch offset."""
    return seed_layout()


@la.spec(claims=[("equivalent", seed_layout())])
def seed_layout_is_the_default():
    """The seed's layout is the default one: rank 3, dim_map = order[1:] +
    [order[0], order[-1]] = [1, 2, 0, 2]; device_size [256, ⌈512/64⌉ = 8, 128, 64]."""
    layout = default_layout(SEED_SIZE, "float16")
    if (layout.device_size, layout.dim_map) != (tuple(SEED_DEVICE), tuple(SEED_DIM_MAP)):
        raise la.LayoutError(f"default_layout({SEED_SIZE}) is {layout!r}, not the seed's layout")
    return layout


@la.spec(claims=["bijective", ("fits", 33_554_432, {"per": (), "element_bytes": 2,
                                                     "offsets_in_bytes": True})])
def seed_layout_device_bytes():
    """In device memory: 128 bytes × 256·8·128 sticks = 33,554,432 bytes
    (= 128·256·512 elements × 2 bytes, nothing wasted); host element → byte
    is a bijection onto the even bytes and fits exactly."""
    return seed_layout().device_offset_map()


# -- the same layout, padded -----------------------------------------------------------


@la.spec(claims=["bijective", ("spyre_padding", 6_777_216), "spyre_stride_map"])
def seed_layout_padded_100_200_500():
    """Seed 001: the same layout used for a [100, 200, 500] tensor. The device
    still has 256·8·128·64 = 16,777,216 slots; 100·200·500 = 10,000,000 hold
    elements, so 6,777,216 are padding (40.4 %): dim 1 pads 200 → 256, dim 0
    100 → 128, dim 2 500 → 8·64 = 512."""
    return seed_layout([100, 200, 500])


@la.spec(claims=[("spyre_padding", 0)], expect="REFUTED")
def padded_layout_claimed_dense():
    """Claiming the padded use has no padding is refuted with the true count."""
    return seed_layout([100, 200, 500])


@la.spec(claims=["bijective", ("spyre_padding", 240_000)])
def default_layout_100_200_500():
    """The default layout of [100, 200, 500] fp16 instead: device_size
    [200, ⌈500/64⌉ = 8, 100, 64] = 10,240,000 slots, 240,000 padding (2.3 %)."""
    return default_layout([100, 200, 500], "float16")


# -- a default layout of every rank (hand-derived parts) -------------------------------

RANKS = {
    # rank: (size, dtype, device_size, dim_map, padding slots), each derived by hand
    0: ([], "float16", [64], [-1], 64 - 1),
    1: ([100], "float32", [4, 32], [0, 0], 4 * 32 - 100),
    2: ([512, 256], "float16", [4, 512, 64], [1, 0, 1], 0),
    3: ([3, 5, 200], "bfloat16", [5, 4, 3, 64], [1, 2, 0, 2], 5 * 4 * 3 * 64 - 3 * 5 * 200),
    4: ([2, 3, 4, 130], "int8", [3, 4, 2, 2, 128], [1, 2, 3, 0, 3],
        3 * 4 * 2 * 2 * 128 - 2 * 3 * 4 * 130),
    5: ([2, 2, 3, 3, 40], "float32", [2, 3, 3, 2, 2, 32], [1, 2, 3, 4, 0, 4],
        2 * 3 * 3 * 2 * 2 * 32 - 2 * 2 * 3 * 3 * 40),
    6: ([2, 2, 2, 2, 2, 100], "float16", [2, 2, 2, 2, 2, 2, 64], [1, 2, 3, 4, 5, 0, 5],
        2**6 * 64 - 2**5 * 100),
}


def _default_rank_spec(rank):
    size, dtype, device, dims, pad = RANKS[rank]
    expected = SpyreLayout(size, dtype, device, dims)

    def layout():
        return default_layout(size, dtype)

    layout.__doc__ = (f"Default layout, rank {rank}: {size} {dtype} → device_size {device}, "
                      f"dim_map {dims}, {pad} padding slots.")
    return la.spec(claims=["bijective", ("equivalent", expected), ("spyre_padding", pad)],
                   name=f"default_rank_{rank}")(layout)


for _rank in RANKS:
    globals()[f"default_rank_{_rank}"] = _default_rank_spec(_rank)


@la.spec(claims=["bijective", ("equivalent", SpyreLayout([512, 256], "float32", [16, 256, 32],
                                                          [0, 1, 0]))])
def default_column_major():
    """dim_order [1, 0] makes dim 0 the stick dim: dim_map [0] + [1, 0] =
    [0, 1, 0], device_size [⌈512/32⌉ = 16, 256, 32] for fp32."""
    return default_layout([512, 256], "float32", dim_order=[1, 0])


# -- a sparse layout ----------------------------------------------------------------------


@la.spec(claims=["bijective", ("spyre_padding", 1_260_000), "spyre_stride_map",
                 ("equivalent", SpyreLayout([100, 200], "float16", [200, 100, 64], [1, 0, -1]))])
def sparse_100_200():
    """Sparse [100, 200] fp16 (dim_order [0, 1, -1]): dim_map [1, 0, -1],
    device_size [200, 100, 64]; one element per 128-byte stick, so 20,000
    sticks hold 20,000 elements and 20,000·63 = 1,260,000 slots are padding."""
    return default_layout([100, 200], "float16", dim_order=[0, 1, -1])


@la.spec(claims=["bijective", ("fits", 2_560_000, {"per": (), "element_bytes": 2,
                                                    "offsets_in_bytes": True})])
def sparse_100_200_device_bytes():
    """The sparse layout takes 20,000 sticks × 128 bytes = 2,560,000 bytes."""
    return default_layout([100, 200], "float16", dim_order=[0, 1, -1]).device_offset_map()



@la.spec(claims=["bijective", "spyre_dma_reading"], expect=["PROVED", "REFUTED"])
def sparse_dim_map_form_copy_moves_one_column():
    """The same sparse form, [5, 30] fp16: a fine bijection (device_size [30, 5, 64],
    stride_map [1, 30, -1]), but torch-spyre's copy (spyre_mem.cpp get_dim_map at
    0583ae3) reads device dim 0, torch dim 1's, as the stick dim's tiles and moves
    column 0 only: REFUTED at (h0=0, h1=1). torch-spyre's own constructor builds the
    sparse layout with a size-1 device dim ([30, 1, 5, 64] by [1, -1, 30, -1]), which
    its copy moves whole (docs/spyre.md)."""
    return default_layout([5, 30], "float16", dim_order=[0, 1, -1])

# -- known-bad layouts: the check names the element lost or doubled -----------------------


@la.spec(claims=["in_bounds"], expect="REFUTED")
def coverage_too_small_loses_elements():
    """[100, 200, 500] with device_size [256, 7, 128, 64]: dim 2 gets 7·64 = 448
    < 500 coordinates. SpyreLayout refuses it (CoverageError); built unchecked,
    the check names a host element with h2 ≥ 448 that has no slot."""
    return SpyreLayout.unchecked([100, 200, 500], "float16", [256, 7, 128, 64],
                                 SEED_DIM_MAP).index_map()


@la.spec(claims=["injective"], expect="REFUTED")
def stick_of_128_halves_doubles_elements():
    """A stick dim of 128 fp16 elements (256 bytes) in 128-byte sticks: the
    second half of each stick overwrites the next stick; the check names two
    host elements on one device byte. SpyreLayout refuses it (StickSizeError)."""
    return SpyreLayout.unchecked([128, 256], "float16", [2, 128, 128], [1, 0, 1]
                                 ).device_offset_map()


@la.spec(claims=["injective"], expect="REFUTED")
def missing_torch_dim_doubles_elements():
    """dim_map [1, 1] for a [4, 128] tensor leaves torch dim 0 out (DimMapError):
    built unchecked, the 4 rows land on the same slots; the check names two
    host elements of different rows that share one."""
    return SpyreLayout.unchecked([4, 128], "float16", [2, 64], [1, 1]).index_map()


@la.spec(claims=[("spyre_stride_map", [64, 256, 2])], expect="REFUTED")
def wrong_stride_map():
    """[512, 256] fp16 with the stick stride written as 2 instead of 1: the
    check names the first host element whose offset comes out wrong."""
    return default_layout([512, 256])

