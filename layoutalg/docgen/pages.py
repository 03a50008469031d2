"""Markdown pages of verified layouts: one per spec and an index."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.printing import show
from layoutalg.docgen import markup, output_folder
from layoutalg.docgen.picture import (caption, drawn_instance, folding, layout_svg,
                                      memory_shares)
from layoutalg.prover import Found, Outcome, discover, prove

MARK = {"PROVED": "**PROVED**", "REFUTED": "**REFUTED**", "UNKNOWN": "**UNKNOWN**",
        "ERROR": "**ERROR**"}


@dataclass(frozen=True)
class Page:
    """A generated file: its path under the docs folder and its text."""

    path: str
    text: str


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
    """Prove the specs (reusing ``cache``) and render every page."""
    found = discover(paths)
    outcomes = prove(found, cache=cache, executor=executor)
    by_spec: dict[tuple[str, str], list[Outcome]] = {}
    for outcome in outcomes:
        by_spec.setdefault((outcome.path, outcome.spec), []).append(outcome)
    names = unique_slugs(found)
    pages = [spec_page(item, by_spec.get((str(item.path), item.spec.name), []), names[index])
             for index, item in enumerate(found)]
    return [index_page(found, by_spec, names)] + [p for page in pages for p in page]


def spec_page(found: Found, outcomes: Sequence[Outcome], name: str | None = None) -> list[Page]:
    """The page of one spec (named ``name``, default its slug), and its SVG
    picture when it has one. Everything from the spec is escaped (``markup``)."""
    name = slug(found) if name is None else name
    lines = [f"# {markup.one_line(found.spec.name)}", "", markup.text(found.spec.doc or ""), "",
             f"Source: {markup.code(source(found))}", ""]
    pictures: list[Page] = []
    try:
        subject, m = found.built()
    except Exception as exc:  # noqa: BLE001 - the page says so instead of failing the build
        subject = m = None
        lines += ["!!! failure \"The spec did not build\"", markup.indented(exc), ""]
    if m is not None:
        lines += layout_section(m)
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
            pictures.append(Page(f"generated/{name}.svg",
                                 layout_svg(drawn, title=title, subject=subject)))
            words = [caption(drawn, subject), folding(drawn)]
            if note:
                words.append(f"The claims hold for every size; the picture is {note}, "
                             "sizes that meet the assumptions.")
            lines += ["## Picture", "", markup.text(" ".join(w for w in words if w)), "",
                      f"![{markup.one_line(found.spec.name)}]({name}.svg)", ""]
    return [Page(f"generated/{name}.md", "\n".join(lines))] + pictures


def layout_section(m: IndexMap) -> list[str]:
    domain = ", ".join(f"{n} < {sympy.latex(e)}" for n, e in m.domain.dims).replace("_", r"\_")
    codomain = ", ".join(f"\\mathit{{{n}}}" for n in m.codomain.names).replace("_", "\\_")
    args = ", ".join(m.domain.names).replace("_", "\\_")
    images = ", ".join(sympy.latex(e) for e in m.exprs)
    lines = ["## Layout", "",
             f"{markup.code(m.label)}: {markup.code(m.domain)} → {markup.code(m.codomain)}", "",
             "```text", m.formula() + (f"\nvalid where {show(m.valid)}" if m.valid is not None
                                       else ""), "```", "", "In LaTeX:", "",
             "$$", f"({args}) \\mapsto ({codomain}) = \\left({images}\\right)", "$$", "",
             f"for ${domain}$."]
    if m.valid is not None:
        lines += ["", f"Slots hold data where ${sympy.latex(m.valid)}$; the rest is padding."]
    if m.assumptions:
        lines += ["", "Assuming " + ", ".join(f"${sympy.latex(a)}$" for a in m.assumptions) + "."]
    return lines + [""]


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


def index_page(found: Sequence[Found], by_spec, names: dict[int, str] | None = None) -> Page:
    lines = ["# Verified layouts", "",
             "Every spec and theorem found, proved when this site was built. "
             "A REFUTED verdict on a spec that expects it documents a known-bad design.", "",
             "| spec | source | claims | all as expected |", "|---|---|---|---|"]
    names = unique_slugs(found) if names is None else names
    for index, item in enumerate(found):
        outcomes = by_spec.get((str(item.path), item.spec.name), [])
        ok = all(o.ok for o in outcomes) and bool(outcomes)
        verdicts = ", ".join(f"{markup.code(o.claim)} {o.status}" for o in outcomes)
        lines.append(f"| [{markup.one_line(item.spec.name)}]({names[index]}.md) "
                     f"| {markup.code(source(item))} | {verdicts} "
                     f"| {'yes' if ok else '**no**'} |")
    return Page("generated/index.md", "\n".join(lines) + "\n")


def write_pages(pages: Sequence[Page], out: Path, option: str = "--out") -> None:
    """Write pages under ``out`` (``generated/...`` paths become ``out/...``).

    ``out`` must be new, empty or made by layoutalg, and every file stays
    inside it (``output_folder``); ``option`` names the argument in errors.
    """
    folder = output_folder.claim(Path(out), option)
    for page in pages:
        output_folder.write_text(folder, Path(page.path).relative_to("generated"), page.text,
                                 option)
