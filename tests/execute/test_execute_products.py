"""Tile products cut into single-thread blocks (``execute.products``).

The threshold is OpenBLAS's: a real ``M·N·K`` of at most 65536 · 4 runs on
the calling thread (OpenMathLib/OpenBLAS ``interface/gemm.c``,
``Makefile.system``). The product must equal ``numpy.matmul`` exactly on
integer data, write into the caller's memory, and a KPU run with such tiles
must still equal ``A @ B`` and count what ``la.dataflow.traffic`` says.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.execute import Hierarchy, matmul
from layoutalg.execute.products import SINGLE_THREAD_MACS, SMALL_PRODUCT_MACS, Products, blocks


def test_the_threshold_is_openblas_s():
    assert SINGLE_THREAD_MACS == 262144   # 65536.0 · GEMM_MULTITHREAD_THRESHOLD=4


@pytest.mark.parametrize("shape, parts", [
    ((128, 128, 128), (4, 2)),    # 8 blocks of 32×64×128 = 262144 MACs each (hand-computed)
    ((256, 128, 128), (8, 2)),    # 16 blocks of 32×64
    ((64, 64, 64), None),         # 262144: already on one thread
    ((512, 512, 512), None),      # above SMALL_PRODUCT_MACS: BLAS's threads pay
    ((127, 128, 128), (1, 8)),    # 127 is prime: column cuts only, 127·16·128 = 260096
])
def test_blocks_by_hand(shape, parts):
    assert blocks(*shape) == parts


@given(st.integers(1, 300), st.integers(1, 300), st.integers(1, 300))
@settings(max_examples=200)
def test_blocks_are_equal_single_thread_cuts_or_none(m, n, k):
    parts = blocks(m, n, k)
    macs = m * n * k
    if parts is None:
        # whole: small enough already, too large, or no power-of-two cut fits
        fits = [(r, c) for r in (1, 2, 4, 8, 16, 32, 64) for c in (1, 2, 4, 8, 16, 32, 64)
                if m % r == 0 and n % c == 0 and r * c <= 64
                and (m // r) * (n // c) * k <= SINGLE_THREAD_MACS]
        assert macs <= SINGLE_THREAD_MACS or macs > SMALL_PRODUCT_MACS or not fits
        return
    rows, cols = parts
    assert SINGLE_THREAD_MACS < macs <= SMALL_PRODUCT_MACS
    assert m % rows == 0 and n % cols == 0
    assert (m // rows) * (n // cols) * k <= SINGLE_THREAD_MACS


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("m, n, k", [(128, 128, 128), (256, 128, 128), (96, 128, 64),
                                     (100, 128, 128), (64, 64, 64), (37, 41, 5)])
def test_a_product_equals_numpy_exactly_in_the_caller_s_memory(dtype, m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = rng.integers(-8, 9, (m, k)).astype(dtype)
    b = rng.integers(-8, 9, (k, n)).astype(dtype)
    memory = np.full((m + 2) * n, 7, dtype=dtype)
    out = memory[n:n + m * n].reshape(m, n)   # a view, as the executor's tile slots are
    multiply = Products()
    for _ in range(2):   # the second call reuses the block views
        multiply(a, b, out)
        assert np.array_equal(out, a.astype(np.int64) @ b.astype(np.int64))
    assert (memory[:n] == 7).all() and (memory[n + m * n:] == 7).all()


def test_a_trimmed_view_is_multiplied_whole():
    rng = np.random.default_rng(3)
    slot = np.zeros((128, 128), np.float32)
    out = slot[:100, :128]    # an edge tile in a full-tile slot: not C-contiguous
    a = rng.integers(-8, 9, (100, 128)).astype(np.float32)
    b = rng.integers(-8, 9, (128, 128)).astype(np.float32)
    Products()(a, b, out)
    assert np.array_equal(out, a @ b) and (slot[100:] == 0).all()


@pytest.mark.parametrize("dataflow, tiles", [("os", (128, 128, 128)), ("ws", (128, 64, 128)),
                                             ("is", (64, 128, 128))])
def test_a_kpu_run_with_split_products_is_exact_and_counts_the_model(dataflow, tiles):
    rng = np.random.default_rng(5)
    a = rng.integers(-8, 9, (256, 200)).astype(np.float32)
    b = rng.integers(-8, 9, (200, 300)).astype(np.float32)
    machine = Hierarchy(l2_bytes=1 << 20, register_bytes=1 << 20)
    c, counters = matmul(a, b, dataflow=dataflow, tiles=tiles, machine=machine)
    assert np.array_equal(c, a @ b)
    assert counters.traffic() == la.dataflow.traffic(counters.schedule)
