"""How torch-spyre's DMA reads a Spyre layout, and the rule that keeps it from dividing by zero.

torch-spyre copies a tensor between host and device with a loop nest built
from the layout (torch-spyre/torch-spyre ``torch_spyre/csrc/spyre_mem.cpp``:
``get_dim_map``, ``get_tile_map``, ``get_device_stride_infos``). The copy
does not read the dim_map a layout was built with: ``get_dim_map`` recovers
one from the ``stride_map``, giving each device dim (of size > 1) the host
dim with the largest host stride not above the device dim's stride, and then
reads device dim ``device_rank - 3`` as the stick dim's tile dim whatever its
stride says. ``get_device_stride_infos`` divides each device dim's stride by
the host stride of the dim it was read as; a device dim read as the wrong
host dim can give a zero quotient, and the next division by it killed the
process with SIGFPE (torch-spyre#3401; guarded with a RuntimeError since
torch-spyre#3809).

A layout the DMA reads as written is one where every device dim of size > 1
is read as the torch dim its ``dim_map`` names. ``check_dma_rule`` refuses
the others (the torch-spyre bridge runs it at construction);
``check_dma_reading`` proves or refutes, with the host element the copy
misplaces, that the DMA's reading is the layout.
"""

from __future__ import annotations

import time
from dataclasses import replace

from layoutalg.errors import describe
from layoutalg.spyre.args import listed
from layoutalg.spyre.errors import SpyreError, TorchSpyreError
from layoutalg.spyre.layout import SpyreLayout
from layoutalg.spyre.mapping import SYNTHETIC
from layoutalg.verify.checks import check_equivalent
from layoutalg.verify.claims import register_claim
from layoutalg.verify.result import CheckResult
from layoutalg.verify.solver import DEFAULT_TIMEOUT_MS


def dma_dim_map(size, stride, device_size, stride_map) -> tuple[int, ...]:
    """The dim_map torch-spyre's ``get_dim_map`` reads from a stride_map.

    ``-1`` where no host dim is read (size-1 device dims, ``-1`` strides).

    >>> dma_dim_map((5, 100, 150), (15000, 150, 1), (100, 3, 5, 64), (150, 64, 15000, 1))
    (1, 2, 0, 2)
    >>> dma_dim_map((1, 4, 4096, 128), (2097152, 524288, 128, 1), (1, 4, 128, 64, 64),
    ...             (2097152, 524288, 1, 8192, 128))
    (-1, 1, 2, 2, 2)
    """
    rank = len(stride_map)
    best = [0] * rank
    read = [SYNTHETIC] * rank
    for i, (extent, host_stride) in enumerate(zip(size, stride)):
        if extent == 1 or host_stride == 0:  # size-1 and expanded host dims are skipped
            continue
        for j in range(rank):
            if device_size[j] == 1:
                continue
            if best[j] < host_stride <= stride_map[j]:
                best[j], read[j] = host_stride, i
    tile = rank - 3 if rank > 2 else 0  # the device dim read as the stick dim's tiles
    if read[tile] != SYNTHETIC:
        read[tile] = read[rank - 1]
    return tuple(read)


def dma_mismatch(layout: SpyreLayout) -> tuple[int, int] | None:
    """The first device dim of a dense layout that the DMA reads as another
    torch dim than its ``dim_map`` names: ``(device dim, torch dim read)``."""
    stride_map = layout.stride_map
    if stride_map[-1] == -1:  # sparse: the DMA reads the synthetic stick differently
        return None
    read = dma_dim_map(layout.size, layout.stride, layout.device_size, stride_map)
    for k, (extent, want, got) in enumerate(zip(layout.device_size, layout.dim_map, read)):
        if extent > 1 and stride_map[k] != -1 and want != got:
            return k, got
    return None


def check_dma_rule(layout: SpyreLayout) -> None:
    """Raise ``TorchSpyreError`` if torch-spyre's DMA would misread ``layout``.

    >>> from layoutalg.spyre import default_layout
    >>> check_dma_rule(default_layout([5, 100, 150]))  # the docs' example: read as written
    """
    _layout(layout, "check_dma_rule")
    found = dma_mismatch(layout)
    if found is None:
        return
    k, read = found
    stride_map = layout.stride_map
    if read == SYNTHETIC:
        how = "no torch dim (its stride is below every host stride)"
        quotient = ""
    else:
        host = layout.stride[read]
        how = f"torch dim {read} (host stride {host})"
        quotient = (f"; the copy divides by stride_map[{k}] // {host} = "
                    f"{stride_map[k] // host}")
    tile = layout.device_rank - 3
    why = (f" (torch-spyre reads device dim {tile}, device_rank - 3, as the tiles of the "
           f"stick dim)" if k == tile else "")
    raise TorchSpyreError(
        f"stride_map[{k}] = {stride_map[k]}: torch-spyre's DMA (spyre_mem.cpp get_dim_map) reads "
        f"device dim {k} as {how}, but the layout puts torch dim {layout.dim_map[k]} there"
        f"{why}{quotient}; a copy with this layout divides by zero (SIGFPE, "
        f"torch-spyre#3401); got device_size={listed(layout.device_size)}, "
        f"stride_map={listed(stride_map)} for size={listed(layout.size)}, "
        f"stride={listed(layout.stride)}")


def dma_reading(layout: SpyreLayout) -> SpyreLayout:
    """The layout as torch-spyre's DMA reads it (the dim_map of ``dma_dim_map``),
    unchecked: its map shows where the copy puts each host element."""
    _layout(layout, "dma_reading")
    read = dma_dim_map(layout.size, layout.stride, layout.device_size, layout.stride_map)
    return SpyreLayout.unchecked(layout.size, layout.dtype, layout.device_size, read,
                                 stride=layout.stride)


def check_dma_reading(layout: SpyreLayout, *, assume=(),
                      timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """torch-spyre's DMA puts every host element where the layout says (Z3).

    REFUTED names the host element whose device slot the DMA's reading gets
    wrong.

    >>> from layoutalg.spyre import default_layout
    >>> check_dma_reading(default_layout([5, 100, 150])).status
    <Status.PROVED: 'PROVED'>
    """
    start = time.perf_counter()
    read = dma_reading(layout)
    verdict = check_equivalent(read.index_map(), layout.index_map(), assume=assume,
                               timeout_ms=timeout_ms)
    verdict = replace(verdict, check="spyre_dma_reading",
                      subject=f"{layout.label} as torch-spyre's DMA reads it "
                              f"(dim_map {listed(read.dim_map)})")
    if verdict.seconds is None:
        verdict = replace(verdict, seconds=time.perf_counter() - start)
    return verdict


def _layout(layout: object, where: str) -> SpyreLayout:
    if not isinstance(layout, SpyreLayout):
        raise SpyreError(f"{where}: layout must be a SpyreLayout; got {describe(layout)}")
    return layout


register_claim("spyre_dma_reading", check_dma_reading, index_map=False)

__all__ = ["check_dma_reading", "check_dma_rule", "dma_dim_map", "dma_mismatch", "dma_reading"]
