"""Draw docs/assets/swizzle-banks.svg: an 8 × 128-byte tile coloured by bank, with and without
CuTe's Swizzle<3,4,3>, the column a phase of 8 lanes reads outlined.

    python docs/assets/swizzle_banks.py [--check]

Each cell is one 16-byte chunk (a 128-bit access) of the logical tile
(row, chunk); its colour is the group of 4 banks the swizzled byte offset
lands in (NVIDIA: 32 banks of 4 bytes). Column 0 is what 8 lanes read in
one phase: red when they share a bank group (the conflict, with its degree),
green when every lane has its own. ``--check`` exits 1 if the shipped file
differs from a fresh drawing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from layoutalg.channel.bank_brute import phase_degree
from layoutalg.channel.bank_model import NVIDIA_128BIT
from layoutalg.channel.swizzle import Swizzle

OUT = Path(__file__).resolve().parent / "swizzle-banks.svg"
COLOURS = ["#e5a8a8", "#a8bae5", "#cce5a8", "#e5a8de", "#a8e5db", "#e5c9a8", "#b7a8e5", "#e5e2a8"]
CELL, GAP, TOP, LEFT = 44, 60, 58, 34
ROWS, CHUNKS = 8, 8


def panel(swizzle: Swizzle | None, x0: int) -> list[str]:
    title = "no swizzle" if swizzle is None else str(swizzle)
    title = title.replace("<", "&lt;").replace(">", "&gt;")
    column = [(row * 128 if swizzle is None else swizzle(row * 128)) for row in range(ROWS)]
    degree, bank, _ = phase_degree(column, NVIDIA_128BIT)
    verdict = (f"column 0: {degree}-way conflict on banks {bank}–{bank + 3}" if degree > 1
               else "column 0: 8 lanes, 8 bank groups, conflict-free")
    colour = "#b00000" if degree > 1 else "#006000"
    parts = [f'<text x="{x0}" y="22" font-size="14" font-weight="bold">{title}</text>',
             f'<text x="{x0}" y="42" font-size="12" fill="{colour}">{verdict}</text>']
    for chunk in range(CHUNKS):
        parts.append(f'<text x="{x0 + chunk * CELL + CELL / 2}" y="{TOP - 4}" font-size="10" '
                     f'text-anchor="middle">chunk {chunk}</text>')
    for row in range(ROWS):
        parts.append(f'<text x="{x0 - 6}" y="{TOP + row * CELL + CELL / 2 + 4}" font-size="10" '
                     f'text-anchor="end">row {row}</text>')
        for chunk in range(CHUNKS):
            offset = row * 128 + chunk * 16
            address = offset if swizzle is None else swizzle(offset)
            group = address // 16 % 8
            x, y = x0 + chunk * CELL, TOP + row * CELL
            parts.append(
                f'<g><title>row {row}, chunk {chunk}: byte {offset} → {address}, banks '
                f'{4 * group}–{4 * group + 3}</title><rect x="{x}" y="{y}" width="{CELL - 2}" '
                f'height="{CELL - 2}" fill="{COLOURS[group]}"/><text x="{x + CELL / 2 - 1}" '
                f'y="{y + CELL / 2 + 3}" font-size="10" text-anchor="middle">b{4 * group}–'
                f'{4 * group + 3}</text></g>')
    stroke = "#b00000" if degree > 1 else "#006000"
    parts.append(f'<rect x="{x0 - 2}" y="{TOP - 2}" width="{CELL + 2}" height="{ROWS * CELL + 2}" '
                 f'fill="none" stroke="{stroke}" stroke-width="3"/>')
    return parts


def drawing() -> str:
    width = 2 * (LEFT + CHUNKS * CELL) + GAP
    height = TOP + ROWS * CELL + 36
    body = panel(None, LEFT) + panel(Swizzle(3, 4, 3), 2 * LEFT + CHUNKS * CELL + GAP)
    caption = ("8 rows × 128 B; a cell is a 16-byte chunk coloured by the 4 banks it lands in; "
               "outlined: the column one phase of 8 lanes reads (128-bit accesses)")
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace">',
        *body,
        f'<text x="{LEFT}" y="{height - 12}" font-size="11">{caption}</text>',
        "</svg>", ""])


def main(argv: list[str]) -> int:
    fresh = drawing()
    if "--check" in argv:
        return 0 if OUT.exists() and OUT.read_text() == fresh else 1
    OUT.write_text(fresh)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
