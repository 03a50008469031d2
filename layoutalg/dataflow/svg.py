"""The frontier plot as hand-written SVG (no plotting library).

One panel per shape, log–log: cycles across, energy up. Small dots are each
dataflow's Pareto-front tilings, the black staircase the shape's frontier
over all dataflows, a ring each dataflow's least-energy tiling.
"""

from __future__ import annotations

import math
from html import escape

COLORS = {"os": "#1f77b4", "ws": "#d62728", "is": "#2ca02c"}
NAMES = {"os": "output-stationary", "ws": "weight-stationary", "is": "input-stationary"}
PANEL_W, PANEL_H = 300, 230
MARGIN = {"left": 58, "right": 12, "top": 30, "bottom": 40}
COLUMNS = 3
LEGEND_H = 34


def frontier_svg(result) -> str:
    """Render a :class:`~layoutalg.dataflow.characterize.Characterization`."""
    width, height = COLUMNS * PANEL_W, LEGEND_H + math.ceil(len(result.names) / COLUMNS) * PANEL_H
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
              f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'),
             f'<rect width="{width}" height="{height}" fill="white"/>', *_legend(result)]
    for k, name in enumerate(result.names):
        parts += _panel(result, name, (k % COLUMNS) * PANEL_W, LEGEND_H + (k // COLUMNS) * PANEL_H)
    return "\n".join([*parts, "</svg>"]) + "\n"


def _legend(result) -> list[str]:
    out, x = [], 12
    for d in dict.fromkeys(e.dataflow for e in result.evaluations):
        out += [f'<circle cx="{x + 5}" cy="17" r="4" fill="{COLORS[d]}"/>',
                f'<text x="{x + 14}" y="21">{d.upper()} ({NAMES[d]})</text>']
        x += 190
    return [*out, f'<polyline points="{x},17 {x + 20},17" stroke="black" fill="none"/>',
            f'<text x="{x + 26}" y="21">frontier · ring = least energy</text>']


def _panel(result, name: str, x0: float, y0: float) -> list[str]:
    evaluations = result.of(name)
    points = [(cy, en) for e in evaluations for en, cy, _ in e.front]
    cmin, cmax = _span(p[0] for p in points)
    emin, emax = _span(p[1] for p in points)
    left, top = x0 + MARGIN["left"], y0 + MARGIN["top"]
    w = PANEL_W - MARGIN["left"] - MARGIN["right"]
    h = PANEL_H - MARGIN["top"] - MARGIN["bottom"]

    def px(cycles):
        return left + w * (math.log10(cycles) - cmin) / (cmax - cmin)

    def py(energy):
        return top + h * (1 - (math.log10(energy) - emin) / (emax - emin))

    shape = evaluations[0].shape
    out = [f'<g><title>{escape(name)} {shape}</title>',
           f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#999"/>',
           (f'<text x="{left}" y="{top - 8}" font-weight="bold">{escape(name)} '
            f'{shape[0]}×{shape[1]}×{shape[2]}</text>'),
           *_ticks(cmin, cmax, px, "x", left, top, h), *_ticks(emin, emax, py, "y", left, top, h),
           f'<text x="{left + w / 2}" y="{top + h + 32}" text-anchor="middle">cycles</text>',
           (f'<text x="{x0 + 12}" y="{top + h / 2}" text-anchor="middle" '
            f'transform="rotate(-90 {x0 + 12} {top + h / 2})">energy (MAC units)</text>')]
    for e in evaluations:
        for en, cy, tiles in e.front:
            out.append(f'<circle cx="{px(cy):.1f}" cy="{py(en):.1f}" r="2.2" '
                       f'fill="{COLORS[e.dataflow]}" fill-opacity="0.75"><title>'
                       f'{e.dataflow.upper()} tiles {tiles}: energy {en}, {cy} cycles</title>'
                       f'</circle>')
    stairs = []
    for _, en, cy, _ in sorted(result.frontier(name), key=lambda p: p[2]):
        if stairs:
            stairs.append(f"{px(cy):.1f},{float(stairs[-1].split(',')[1]):.1f}")
        stairs.append(f"{px(cy):.1f},{py(en):.1f}")
    out.append(f'<polyline points="{" ".join(stairs)}" stroke="black" stroke-width="1" '
               f'fill="none"/>')
    for e in evaluations:
        out.append(f'<circle cx="{px(e.best.cycles):.1f}" cy="{py(e.best.energy.total):.1f}" '
                   f'r="5" fill="none" stroke="{COLORS[e.dataflow]}" stroke-width="1.5"><title>'
                   f'{e.dataflow.upper()} least energy: tiles {e.best.tiles}</title></circle>')
    out.append("</g>")
    return out


def _span(values) -> tuple[float, float]:
    """Log10 range of positive values, widened by 5 % and to at least 0.3 decades."""
    logs = [math.log10(v) for v in values]
    low, high = min(logs), max(logs)
    if high - low < 0.3:
        middle = (low + high) / 2
        low, high = middle - 0.15, middle + 0.15
    pad = 0.05 * (high - low)
    return low - pad, high + pad


def _ticks(low: float, high: float, place, axis: str, left, top, h) -> list[str]:
    """Ticks at m × 10^k (m = 1, or 1/2/5, or 1..9 as the range narrows), thinned so
    labels stay apart."""
    steps = (1,) if high - low > 2.5 else (1, 2, 5) if high - low > 1 else range(1, 10)
    gap = 42 if axis == "x" else 18
    out, last = [], None
    for exponent in range(math.floor(low), math.ceil(high) + 1):
        for step in steps:
            value = step * 10.0 ** exponent
            if not low <= math.log10(value) <= high:
                continue
            where = place(value)
            if last is not None and abs(where - last) < gap:
                continue
            last, label = where, _label(value)
            line, text = ((f'x1="{where:.1f}" y1="{top + h}" x2="{where:.1f}" y2="{top + h + 4}"',
                           f'x="{where:.1f}" y="{top + h + 16}" text-anchor="middle"')
                          if axis == "x" else
                          (f'x1="{left - 4}" y1="{where:.1f}" x2="{left}" y2="{where:.1f}"',
                           f'x="{left - 6}" y="{where + 4:.1f}" text-anchor="end"'))
            out += [f'<line {line} stroke="#555"/>', f"<text {text}>{label}</text>"]
    return out


def _label(value: float) -> str:
    exponent = math.floor(math.log10(value) + 1e-9)
    if exponent < 3:
        return str(round(value))
    return f"{round(value / 10 ** exponent)}e{exponent}"
