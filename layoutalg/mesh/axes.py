"""How one dimension of a tensor's 2-D view is dealt over one PE axis.

Every built-in layout but ``custom`` is *separable*: the PE row depends on one
view dimension, the PE column on the other. Each dimension is dealt in blocks
of ``block`` indices round-robin over ``parts`` PEs (``core.tiling.deal``): a
ceil-division tile is the deal in one round (block ``ceil(extent / parts)``),
a block-cyclic layout deals many rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutalg.core.tiling import ceil_div, deal_local, deal_part


@dataclass(frozen=True)
class Axis:
    """One view dimension's deal: ``extent`` indices in blocks of ``block`` over ``parts``
    PEs down PE rows (``pe_axis`` 0) or across columns (1); ``cyclic``: built with the
    ``cyclic`` combinator (block-cyclic layouts) rather than ``split`` (same arithmetic).

    >>> a = Axis(extent=10, block=4, parts=3, pe_axis=0)
    >>> a.counts().tolist(), a.local_extent
    ([4, 4, 2], 4)
    """

    extent: int
    block: int
    parts: int
    pe_axis: int
    cyclic: bool = False

    @property
    def blocks(self) -> int:
        return ceil_div(self.extent, self.block)

    @property
    def local_extent(self) -> int:
        """Local indices every part reserves: whole blocks, enough for the busiest part."""
        return ceil_div(self.blocks, self.parts) * self.block

    def part(self, x: np.ndarray) -> np.ndarray:
        return deal_part(x, self.parts, self.block)

    def local(self, x: np.ndarray) -> np.ndarray:
        return deal_local(x, self.parts, self.block)

    def counts(self) -> np.ndarray:
        """Indices held by each part (trailing parts may hold fewer, or none)."""
        full, rest = divmod(self.extent, self.block * self.parts)
        parts = np.arange(self.parts, dtype=np.int64)
        return full * self.block + np.clip(rest - parts * self.block, 0, self.block)


def tile_axis(extent: int, parts: int, pe_axis: int) -> Axis:
    """Ceil-division tiles: ``ceil(extent / parts)`` indices per part, in one round."""
    return Axis(extent, ceil_div(extent, parts), parts, pe_axis)


def whole_axis(extent: int, pe_axis: int) -> Axis:
    """The whole dimension on one part (replicated copies, single PE)."""
    return Axis(extent, extent, 1, pe_axis)
