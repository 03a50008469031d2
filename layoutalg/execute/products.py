"""Tile products that never wait for a BLAS thread.

OpenBLAS hands a real product to its thread pool when ``M·N·K`` exceeds
``SMP_THRESHOLD_MIN · GEMM_MULTITHREAD_THRESHOLD`` = 65536 · 4 multiply-adds
(OpenMathLib/OpenBLAS ``interface/gemm.c``: the ``MNK`` test before
``num_cpu_avail(3)``; ``SMP_THRESHOLD_MIN`` is 65536.0 for real types;
``GEMM_MULTITHREAD_THRESHOLD=4`` in ``Makefile.system``). For a KPU run's
hundreds of mid-sized tile products that hand-off costs more than it saves:
on this project's loaded 2-core VM, 512 products of 128³ took 22–72 ms on
one BLAS thread and 150–540 ms on two.

So a product of at most :data:`SMALL_PRODUCT_MACS` multiply-adds is cut into
row × column blocks of at most :data:`SINGLE_THREAD_MACS` each, made by one
batched ``numpy.matmul`` over views of the same memory (no copy), so every
block runs on the calling thread. Every element of ``out`` is still one dot
product over the whole depth ``K`` (blocks split rows and columns, never
``K``). Larger products, dtypes other than float32 and float64 (no real
BLAS) and views that are not C-contiguous go to ``numpy.matmul`` whole.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

#: OpenBLAS runs a real product of at most this many multiply-adds on the calling thread.
SINGLE_THREAD_MACS = 65536 * 4
#: Products up to this size are cut into single-thread blocks (above it BLAS threads pay).
SMALL_PRODUCT_MACS = 1 << 22
#: The most blocks a product is cut into.
MAX_BLOCKS = 64


@lru_cache(maxsize=256)
def blocks(m: int, n: int, k: int) -> tuple[int, int] | None:
    """``(row parts, column parts)`` cutting an ``m×k · k×n`` product into
    equal blocks of at most :data:`SINGLE_THREAD_MACS`, or None when the
    product is whole (small enough already, too large, or not divisible)."""
    if not SINGLE_THREAD_MACS < m * n * k <= SMALL_PRODUCT_MACS:
        return None
    parts = (1, 2, 4, 8, 16, 32, 64)
    fits = [(rows * cols, abs(m // rows - n // cols), -rows, (rows, cols))
            for rows in parts for cols in parts
            if not m % rows and not n % cols and rows * cols <= MAX_BLOCKS
            and (m // rows) * (n // cols) * k <= SINGLE_THREAD_MACS]
    return min(fits)[-1] if fits else None   # fewest blocks, then the squarest


class Products:
    """``out = a @ b`` for views that recur (one run's tile slots), with each
    operand triple's block views made once."""

    def __init__(self) -> None:
        # keyed by the ids of the views; the value keeps the views alive, so
        # an id is not reused while its entry exists
        self._made: dict[tuple[int, int, int], tuple] = {}

    def __call__(self, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        key = (id(a), id(b), id(out))
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = (a, b, out, _split(a, b, out) or (a, b, out))
        x, y, z = found[3]
        np.matmul(x, y, out=z)


def _split(a: np.ndarray, b: np.ndarray, out: np.ndarray):
    """Batched block views ``(a, b, out)`` of a product, or None (whole)."""
    (m, k), n = a.shape, b.shape[1]
    parts = blocks(m, n, k)
    if parts is None or out.dtype not in (np.float32, np.float64) or not all(
            x.flags.c_contiguous for x in (a, b, out)):
        return None
    rows, cols = parts
    rb, cb = m // rows, n // cols
    a_blocks = a.reshape(rows, 1, rb, k)                             # (rows, 1, rb, k)
    b_blocks = b.reshape(k, cols, cb).transpose(1, 0, 2)[None]       # (1, cols, k, cb)
    out_blocks = out.reshape(rows, rb, cols, cb).transpose(0, 2, 1, 3)   # (rows, cols, rb, cb)
    if not all(np.shares_memory(v, x) for v, x in ((a_blocks, a), (b_blocks, b),
                                                   (out_blocks, out))):
        return None   # (a reshape that copied; cannot happen for C-contiguous views)
    return a_blocks, b_blocks, out_blocks
