"""``Chain``: index maps applied one after another, kept apart for proofs by parts.

``check_bijective_by_parts`` proves each part and concludes for the whole
(docs/verification.md, "Proofs by parts"); ``index_map()`` is the composition,
for everything else. It lives above the core because that composition is proved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import CompositionError, describe
from layoutalg.verify.compose import compose


@dataclass(frozen=True)
class Chain:
    """``parts[0]`` first, then ``parts[1]`` on its codomain, and so on.

    Each part's codomain must have the extents of the next part's domain
    (names may differ).

    >>> from layoutalg import Space, linearize
    >>> tiles = linearize(Space(r=2, c=3), ["c"])
    >>> Chain((tiles, linearize(tiles.codomain)), name="flat").index_map()(1, 2)
    (5,)
    """

    parts: tuple[IndexMap, ...]
    name: str | None = None

    def __post_init__(self) -> None:
        parts = self.parts
        if not isinstance(parts, Sequence) or isinstance(parts, str) or not parts:
            raise CompositionError(f"Chain: parts must be a non-empty sequence of IndexMaps; "
                                   f"got {describe(parts)}")
        object.__setattr__(self, "parts", tuple(parts))
        for k, part in enumerate(self.parts):
            if not isinstance(part, IndexMap):
                raise CompositionError(f"Chain: parts[{k}] must be an IndexMap; "
                                       f"got {describe(part)}")
        for k, (before, after) in enumerate(zip(self.parts, self.parts[1:])):
            if not _same_extents(before.codomain.extents, after.domain.extents):
                raise CompositionError(
                    f"Chain: parts[{k}]'s codomain {before.codomain} must have the extents of "
                    f"parts[{k + 1}]'s domain {after.domain}")
        if self.name is not None and not isinstance(self.name, str):
            raise CompositionError(f"Chain: name must be a string; got {describe(self.name)}")

    @property
    def label(self) -> str:
        return self.name or " ∘ ".join(part.label for part in reversed(self.parts))

    def index_map(self) -> IndexMap:
        """The composition of the parts (``compose`` folded left to right).

        Raises ``CompositionError`` where ``compose`` does: a part whose
        images (reached from the chain's domain) leave its codomain, so the
        chain is undefined there — ``check_bijective_by_parts`` reports that
        as REFUTED at the escaping point instead.
        """
        m = self.parts[0]
        for part in self.parts[1:]:
            m = compose(m, part)
        return m.renamed(self.label)


def _same_extents(a: Sequence, b: Sequence) -> bool:
    return len(a) == len(b) and all(sympy.simplify(sympy.sympify(x) - y) == 0
                                    for x, y in zip(a, b))
