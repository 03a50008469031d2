"""CuTe's divides and products: a layout cut into tiles, or a tile repeated.

Built, as CuTe and pycute write them, from :func:`composition` and
:func:`complement` (:mod:`layoutalg.core.cute_algebra`), whose refusals they
share; the zipped, tiled, blocked and raked forms only regroup modes.
"""

from __future__ import annotations

from layoutalg.core.cute_algebra import (
    Tiler,
    coalesce,
    coalesce_modes,
    complement,
    composition,
    make_layout,
    mode_wise,
)
from layoutalg.core.cute_layout import CuteLayout, as_layout


def append_modes(layout: CuteLayout, rank: int) -> CuteLayout:
    """``layout`` padded with ``1:0`` modes up to ``rank`` (CuTe's ``append<R>``)."""
    if layout.rank >= rank:
        return layout
    return make_layout(*layout.modes, *([CuteLayout(1, 0)] * (rank - layout.rank)))


@mode_wise("tiler")
def logical_divide(a: CuteLayout, b: CuteLayout) -> CuteLayout:
    """``A ∘ (B, complement(B, size(A)))``: ``A`` split into tiles ``B`` and the rest.

    A tuple tiler divides ``a``'s modes one by one (None keeps a mode).

    >>> str(logical_divide(CuteLayout((4, 2, 3), (2, 1, 8)), CuteLayout(4, 2)))
    '((2,2),(2,3)):((4,1),(2,8))'
    """
    return composition(a, make_layout(b, complement(b, a.size)))


@mode_wise("tiler")
def logical_product(a: CuteLayout, b: CuteLayout) -> CuteLayout:
    """``(A, complement(A, size(A)·cosize(B)) ∘ B)``: ``A`` repeated as ``B`` says.

    >>> str(logical_product(CuteLayout((2, 2), (4, 1)), 6))
    '((2,2),(2,3)):((4,1),(2,8))'
    """
    return make_layout(a, composition(complement(a, a.size * b.cosize), b))


def tile_unzip(divided: CuteLayout, tiler: Tiler) -> CuteLayout:
    """Gather a by-mode divide or product ``((t0,r0),(t1,r1),…)`` as ``((t0,t1,…),(r0,r1,…))``
    (purely structural: the same leaves, regrouped)."""
    if not isinstance(tiler, tuple):
        return divided
    pairs = [(CuteLayout(1, 0), divided[k]) if entry is None else (divided[k][0], divided[k][1])
             for k, entry in enumerate(tiler)]
    rests = [rest for _, rest in pairs] + list(divided.modes[len(tiler):])
    return make_layout(make_layout(*(tile for tile, _ in pairs)), make_layout(*rests))


def zipped_divide(a: object, tiler: Tiler) -> CuteLayout:
    """``logical_divide`` with the tiles gathered in mode 0 and the rest in mode 1."""
    return tile_unzip(logical_divide(a, tiler), tiler)


def tiled_divide(a: object, tiler: Tiler) -> CuteLayout:
    """``zipped_divide`` with its second mode unpacked: ``(tile, r0, r1, …)``."""
    return _unpacked(zipped_divide(a, tiler))


def zipped_product(a: object, tiler: Tiler) -> CuteLayout:
    """``logical_product`` with the blocks gathered in mode 0 and the products in mode 1."""
    return tile_unzip(logical_product(a, tiler), tiler)


def tiled_product(a: object, tiler: Tiler) -> CuteLayout:
    """``zipped_product`` with its second mode unpacked."""
    return _unpacked(zipped_product(a, tiler))


def _unpacked(zipped: CuteLayout) -> CuteLayout:
    """``(tile, (r0, r1, …))`` as ``(tile, r0, r1, …)``."""
    return make_layout(zipped[0], *zipped[1].modes)


def zip_product(product: CuteLayout, rank: int, *, block_first: bool) -> CuteLayout:
    """Regroup ``(block, products)`` of rank ``rank`` into modes ``(block_k, products_k)``
    (``(products_k, block_k)`` when not ``block_first``). Purely structural."""
    if rank == 1:
        pair = (product[0], product[1]) if block_first else (product[1], product[0])
        return make_layout(*pair)
    pairs = [(product[0][k], product[1][k]) for k in range(rank)]
    return make_layout(*(make_layout(*(pair if block_first else pair[::-1])) for pair in pairs))


def rank_product_parts(block: object, tiler: object) -> tuple[CuteLayout, int]:
    """The logical product a blocked or raked product regroups, and its rank."""
    block, tiler = as_layout(block, "block"), as_layout(tiler, "tiler")
    rank = max(block.rank, tiler.rank)
    return logical_product(append_modes(block, rank), append_modes(tiler, rank)), rank


def _rank_product(block, tiler, *, block_first: bool) -> CuteLayout:
    product, rank = rank_product_parts(block, tiler)
    zipped = zip_product(product, rank, block_first=block_first)
    return coalesce(zipped) if rank == 1 else coalesce_modes(zipped)


def blocked_product(block: object, tiler: object) -> CuteLayout:
    """``block`` repeated over ``tiler``, block by block: mode ``k`` is ``(block_k, tiler_k)``.

    The result has rank ``max(rank(block), rank(tiler))``, each mode
    coalesced, as in CuTe (rank 1: the whole result coalesced).

    >>> str(blocked_product(CuteLayout((2, 2), (1, 2)), CuteLayout((3, 4), (4, 1))))
    '((2,3),8):((1,16),2)'
    """
    return _rank_product(block, tiler, block_first=True)


def raked_product(block: object, tiler: object) -> CuteLayout:
    """``block`` interleaved over ``tiler``: mode ``k`` is ``(tiler_k, block_k)``.

    >>> str(raked_product(CuteLayout((2, 2), (1, 2)), CuteLayout((3, 4), (4, 1))))
    '((3,2),(4,2)):((16,1),(4,2))'
    """
    return _rank_product(block, tiler, block_first=False)


__all__ = [
    "append_modes", "blocked_product", "logical_divide", "logical_product", "raked_product",
    "rank_product_parts", "tile_unzip", "tiled_divide", "tiled_product", "zip_product",
    "zipped_divide", "zipped_product",
]
