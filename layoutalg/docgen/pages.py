"""Markdown pages of verified layouts: one per spec and an index."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import sympy

from layoutalg.channel.layout import ChannelLayout
from layoutalg.core.index_map import IndexMap
from layoutalg.core.printing import show
from layoutalg.docgen import catalog, markup, mathml, output_folder
from layoutalg.docgen.channel_marks import conflict_marks
from layoutalg.docgen.picture import (caption, counterexample_points, drawn_instance, folding,
                                      layout_svg, memory_shares)
from layoutalg.errors import LayoutError
from layoutalg.runner.prover import Found, Outcome, discover, prove
from layoutalg.verify.chain import Chain

MARK = {status: f"**{status}**" for status in ("PROVED", "REFUTED", "UNKNOWN", "ERROR")}


@dataclass(frozen=True)
class Page:
    """A generated file: its path under the docs folder and its text; a page
    of the navigation also has a ``title`` and the ``section`` (names of the
    nested groups, outermost first) it is listed under."""

    path: str
    text: str
    title: str = ""
    section: tuple[str, ...] = ()


@runtime_checkable
class Stepped(Protocol):
    """A family layout that can say its map as steps through named
    intermediate coordinates (element → page and offset → bank and address):
    its page shows each step, as a Chain's page shows its parts."""

    def layout_steps(self) -> Sequence[IndexMap]: ...


def steps_of(subject: object) -> tuple[IndexMap, ...]:
    """The steps of a Chain or a ``Stepped`` layout (empty for one step or none,
    or when the layout cannot say them: the page reports its map's error)."""
    if isinstance(subject, Chain):
        steps = subject.parts
    elif isinstance(subject, Stepped):
        try:
            steps = tuple(subject.layout_steps())
        except LayoutError:
            return ()
    else:
        return ()
    return tuple(steps) if len(steps) > 1 else ()


RESERVED = frozenset({"index"})


def slug(found: Found) -> str:
    """``folder-module-spec_name`` in ``[a-z0-9-]`` (see ``markup.slug``)."""
    return markup.slug(found.path.parent.name, found.path.stem, found.spec.name)


def unique_slugs(found: Sequence[Found]) -> dict[int, str]:
    """Each spec's page name, by position: two specs whose names fold to the
    same slug get distinct pages (``-2``, ``-3``, ...)."""
    taken: set[str] = set(RESERVED)
    names = {}
    for index, item in enumerate(found):
        base = name = slug(item)
        count = 1
        while name in taken:
            count += 1
            name = f"{base}-{count}"
        taken.add(name)
        names[index] = name
    return names


def source(found: Found) -> str:
    """``folder/module.py`` (just ``module.py`` for a module in the working folder)."""
    return "/".join(part for part in (found.path.parent.name, found.path.name) if part)


def build_pages(paths: Sequence[Path | str] | None = None, *, cache=None,
                executor=None) -> list[Page]:
    """Prove the specs (reusing ``cache``) and render every page: the index,
    a page per seed document with flaws caught, a page (and picture) per spec.

    A plain function: the MkDocs hook (docs/hooks.py) and ``layoutalg docs``
    only call it; ``catalog.navigation(pages)`` is the site's ``nav``."""
    found = discover(paths)
    outcomes = prove(found, cache=cache, executor=executor)
    by_spec: dict[tuple[str, str], list[Outcome]] = {}
    for outcome in outcomes:
        by_spec.setdefault((outcome.path, outcome.spec), []).append(outcome)
    names = unique_slugs(found)
    entries, pages = [], []
    for index, item in enumerate(found):
        spec_outcomes = by_spec.get((str(item.path), item.spec.name), [])
        built = _build(item)
        entry = catalog.Entry(
            name=item.spec.name, page=names[index], source=source(item),
            family=catalog.family_of(item.path.stem, built[0]),
            verdict=catalog.verdict_of(spec_outcomes),
            claims=tuple((o.claim, o.status) for o in spec_outcomes), doc=item.spec.doc or "")
        entries.append(entry)
        pages.append(spec_page(item, spec_outcomes, names[index], built=built,
                               section=(catalog.FAMILIES[entry.family][0], entry.source)))
    order = {key: k for k, key in enumerate(catalog.FAMILIES)}
    pages = [group for _, group in sorted(zip(entries, pages),
                                          key=lambda pair: order[pair[0].family])]
    seeds = [Page(f"generated/{name}.md", text, title=catalog.FAMILIES[name[5:]][1],
                  section=("Seed documents",))
             for name, text in catalog.seed_pages(entries).items()]
    index = Page("generated/index.md", catalog.index_text(entries), title="Overview")
    return [index, *seeds] + [p for group in pages for p in group]


def _build(found: Found) -> tuple[object, IndexMap | None, Exception | None]:
    """(subject, index map, None), or what was built and the error: a Chain
    whose parts do not compose still has its steps to show."""
    try:
        subject, m = found.built()
    except Exception as exc:  # noqa: BLE001 - the page says so instead of failing the build
        try:
            subject = found.subject()
        except Exception:  # noqa: BLE001 - as above
            subject = None
        return subject, None, exc
    return subject, m, None


def spec_page(found: Found, outcomes: Sequence[Outcome], name: str | None = None, *,
              built=None, section: tuple[str, ...] = ()) -> list[Page]:
    """The page of one spec (named ``name``, default its slug), and its SVG
    picture when it has one. Everything from the spec is escaped (``markup``)."""
    name = slug(found) if name is None else name
    lines = [f"# {markup.one_line(found.spec.name)}", "", markup.text(found.spec.doc or ""), "",
             f"Source: {markup.code(source(found))}", ""]
    pictures: list[Page] = []
    subject, m, error = _build(found) if built is None else built
    if error is not None:
        title = "The spec did not build" if subject is None else "Its layout gives no index map"
        lines += [f"!!! failure \"{title}\"", markup.indented(error), ""]
    if m is not None:
        lines += layout_section(m, subject)
    elif steps_of(subject):
        lines += ["## Layout", ""] + step_lines(steps_of(subject))
    lines += claims_section(outcomes)
    if m is not None:
        shares = memory_shares(m)
        if shares:
            memories = ", ".join(m.codomain.names[:-1])
            offset = m.codomain.names[-1]
            lines += ["## Memory use", "",
                      f"A memory is one ({markup.text(memories)}); {markup.code(offset)} is "
                      "the place inside it.", "",
                      "| memories used | elements per memory: min | max | mean "
                      f"| footprint (highest {markup.code(offset)} + 1) |",
                      "|---|---|---|---|---|",
                      f"| {shares['memories used']} | {shares['min']} | {shares['max']} "
                      f"| {shares['mean']:.1f} | {shares['footprint']} |", ""]
        instance = drawn_instance(m, found.spec.assume)
        if instance is not None:
            drawn, note = instance
            title = f"{m.label} ({note})" if note else m.label
            refuted, points, notes = counterexample_of(m, outcomes, subject)
            pictures.append(Page(f"generated/{name}.svg",
                                 layout_svg(drawn, title=title, subject=subject,
                                            highlight=points, notes=notes)))
            words = [f"{vocabulary(subject) or m.label}.", caption(drawn, subject),
                     folding(drawn), tile_numbering(subject)]
            if points:
                words.append(f"Outlined in red and numbered: the counterexample to "
                             f"{refuted.claim} ({refuted.reason}).")
            if note:
                words.append(f"The claims hold for every size; the picture is {note}, "
                             "sizes that meet the assumptions.")
            lines += ["## Picture", "", markup.text(" ".join(w for w in words if w)), "",
                      f"![{markup.one_line(found.spec.name)}]({name}.svg)", ""]
    return [Page(f"generated/{name}.md", "\n".join(lines), title=found.spec.name,
                 section=section)] + pictures


def tile_numbering(subject: object) -> str:
    """What an element of a channel layout's picture is (a tile), in words."""
    if not isinstance(subject, ChannelLayout):
        return ""
    return (f"An element is a tile, numbered as the seed numbers them: A's "
            f"{subject.m_tiles}×{subject.k_tiles} tiles row-major, then B's "
            f"{subject.k_tiles}×{subject.n_tiles}, then C's {subject.m_tiles}×{subject.n_tiles}; "
            "its offset is that of the tile's first byte.")


def counterexample_of(m: IndexMap, outcomes: Sequence[Outcome], subject: object = None):
    """The first REFUTED claim whose counterexample names elements of ``m``
    (concrete maps only: a parametric map is drawn at other sizes), those
    elements, and what to say of each (None: the picture says the element's
    image and what is out of bounds); ``(None, [], None)`` when there is none.
    A channel layout's claims name tiles by their own coordinates: its
    elements are the tiles that conflict, each with its channel
    (``channel_marks``)."""
    for outcome in outcomes:
        if outcome.status != "REFUTED":
            continue
        if isinstance(subject, ChannelLayout) and m.is_concrete:
            marks = conflict_marks(subject, outcome.claim, outcome.counterexample)
            if marks:
                return outcome, [p for p, _ in marks], [note for _, note in marks]
        points = counterexample_points(m, outcome.counterexample)
        if points:
            return outcome, points, None
    return None, [], None


def layout_section(m: IndexMap, subject: object = None) -> list[str]:
    """The map: its spaces, one line per image coordinate (plain text, then
    MathML), the valid predicate one conjunct per line. A Chain or a
    ``Stepped`` layout shows its steps first, then the whole map (whose
    formulas nest every step's floors into one)."""
    lines = ["## Layout", ""]
    words = vocabulary(subject)
    if words and words != m.label:
        lines += [f"**{markup.one_line(words)}**", ""]
    lines += [f"{markup.code(m.label)}: {markup.code(m.domain)} → {markup.code(m.codomain)}", ""]
    steps = steps_of(subject)
    if steps:
        lines += [*step_lines(steps), "### The whole map", "", "The steps composed into one map:",
                  ""]
    return lines + formula_lines(m)


def step_lines(steps: Sequence[IndexMap]) -> list[str]:
    """A layout as its steps (at least one), each with the coordinates it names."""
    lines = ["### Steps", "", f"The layout is a chain of {len(steps)} steps, each "
             "applied to the coordinates the step before names:", ""]
    for k, part in enumerate(steps, start=1):
        lines += [f"**Step {k}**, {markup.code(part.label)}: {markup.code(part.domain)} → "
                  f"{markup.code(part.codomain)}", ""] + formula_lines(part)
    return lines


def vocabulary(subject: object) -> str:
    """A family layout in its family's own words (``SinglePE of [1024, 1024]
    float32``, ``OS 128×768×768 in 128×128×192 tiles``): its ``str`` when it
    has one of its own, not a dataclass's field dump; "" otherwise."""
    if subject is None or isinstance(subject, (IndexMap, Chain)):
        return ""
    words = " ".join(str(subject).split())
    return "" if words.startswith(f"{type(subject).__name__}(") else words


def formula_lines(m: IndexMap) -> list[str]:
    """``m``'s images as ``name = expression``, one per line, in plain text
    and in MathML; its valid predicate one conjunct per line; its domain
    bounds and assumptions."""
    text = [f"({', '.join(m.domain.names)}) ↦"]
    text += [line for name, e in zip(m.codomain.names, m.exprs) for line in _image_lines(name, e)]
    conjuncts = _conjuncts(m.valid)
    if conjuncts:
        text.append("valid where")
        text += [f"  {'and ' if k else ''}{_show(c)}" for k, c in enumerate(conjuncts)]
    lines = ["```text", *text, "```", ""]
    for name, e in zip(m.codomain.names, m.exprs):
        lines += [mathml.block(f"{_latex(sympy.Symbol(name))} = {_latex(e)}"), ""]
    domain = ", ".join(f"{_latex(sympy.Symbol(n))} < {_latex(e)}" for n, e in m.domain.dims)
    lines += [f"for {mathml.inline(domain)}." if domain else "", ""]
    if conjuncts:
        lines += ["Slots hold data where all of these hold (the rest is padding):", ""]
        lines += [f"- {mathml.inline(_latex(c))}" for c in conjuncts] + [""]
    if m.assumptions:
        lines += ["Assuming " + ", ".join(mathml.inline(_latex(a))
                                          for a in m.assumptions) + ".", ""]
    return lines


def _latex(e) -> str:
    """``e`` in LaTeX, a name of several letters as one word (``\\mathit{pe\\_row}``,
    which ``mathml`` sets as one identifier), not a product of letters with
    a subscript (SymPy's ``pe_{row}``)."""
    if not isinstance(e, sympy.Basic):
        return sympy.latex(e)
    words = {s: mathml.word(s.name) for s in e.free_symbols
             if isinstance(s, sympy.Symbol) and len(s.name) > 1}
    return sympy.latex(e, symbol_names=words)


def _image_lines(name: str, e) -> list[str]:
    """``  name = expression``; a piecewise one a line per piece
    (``  address = 256*tile  if tile < 16``, ``          = …  otherwise``)."""
    if not isinstance(e, sympy.Piecewise):
        return [f"  {name} = {show(e)}"]
    pieces = [(show(value), "otherwise" if cond is sympy.true else f"if {_show(cond)}")
              for value, cond in e.args]
    width = max(len(value) for value, _ in pieces)
    lead = f"  {name} ="
    return [f"{lead if k == 0 else ' ' * (len(lead) - 1) + '='} {value.ljust(width)}  {when}"
            for k, (value, when) in enumerate(pieces)]


def _show(predicate) -> str:
    """A conjunct in plain text (``a = b`` rather than SymPy's ``Eq(a, b)``)."""
    if isinstance(predicate, sympy.Eq):
        return f"{show(predicate.lhs)} = {show(predicate.rhs)}"
    return show(predicate)


def _conjuncts(valid) -> list:
    """The conjuncts of a predicate (itself when it is not an And)."""
    if valid is None or valid is sympy.true:
        return []
    return list(valid.args) if isinstance(valid, sympy.And) else [valid]


def claims_section(outcomes: Sequence[Outcome]) -> list[str]:
    lines = ["## Claims", "", "| claim | expected | verdict | time |", "|---|---|---|---|"]
    for o in outcomes:
        lines.append(f"| {markup.code(o.claim)} | {o.expected} | {MARK.get(o.status, o.status)} "
                     f"| {o.seconds:.3f} s |")
    lines.append("")
    for o in outcomes:
        if o.status != "PROVED":
            kind = "note" if o.ok else "failure"
            title = markup.one_line(f"{o.claim}: {o.status}").replace('"', "&quot;")
            lines += [f"!!! {kind} \"{title}\"", markup.indented(o.reason), ""]
    return lines


def write_pages(pages: Sequence[Page], out: Path, option: str = "--out") -> None:
    """Write pages under ``out`` (``generated/...`` paths become ``out/...``).

    ``out`` must be new, empty or made by layoutalg, and every file stays
    inside it (``output_folder``); ``option`` names the argument in errors.
    """
    folder = output_folder.claim(Path(out), option)
    for page in pages:
        output_folder.write_text(folder, Path(page.path).relative_to("generated"), page.text,
                                 option)
