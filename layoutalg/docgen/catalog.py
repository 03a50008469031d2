"""The site's index and navigation: specs grouped by family and module (docs/site.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from layoutalg.docgen import markup

# key: (title, the seed document the family implements or None)
FAMILIES = {
    "mesh": ("Cerebras PE mesh", "PyFlame on the Cerebras WSE (seed 000)"),
    "spyre": ("IBM Spyre sticks", "IBM Spyre, torch-spyre (seed 001)"),
    "tt": ("Tenstorrent pages and shards", "Tenstorrent TT-Metalium / TTNN (seed 002)"),
    "channel": ("Memory channels and swizzles", "KPU memory channels (seed 003)"),
    "dataflow": ("Matmul dataflows", "KPU dataflows (seed 004)"),
    "dtensor": ("DTensor placements", None),
    "swizzle": ("Swizzles and shared-memory banks", None),
    "linear": ("Triton linear layouts", None),
    "cute": ("CuTe layouts", None),
    "core": ("Core layouts", None),
}

PROVED, AS_DESIGNED, UNEXPECTED = "proved", "refuted as designed", "unexpected"
VERDICTS = (PROVED, AS_DESIGNED, UNEXPECTED)


@dataclass(frozen=True)
class Entry:
    """One spec as the index lists it."""

    name: str
    page: str  # the page's name, without ``.md``
    source: str  # ``folder/module.py``
    family: str
    verdict: str
    claims: tuple[tuple[str, str], ...]  # (claim, status)
    doc: str = ""


def family_of(module_stem: str, subject: object) -> str:
    """The family key of a spec: the layoutalg family its layout comes from, else the
    one its module is named after, else the core algebra.

    >>> family_of("known_bad", None), family_of("cute_identities", None)
    ('core', 'cute')
    >>> family_of("swizzle", None)
    'swizzle'
    """
    parts = type(subject).__module__.split(".") if subject is not None else []
    if len(parts) > 1 and parts[0] == "layoutalg" and parts[1] in FAMILIES and parts[1] != "core":
        return parts[1]
    for key in FAMILIES:
        if module_stem == key or module_stem.startswith(key + "_"):
            return key
    return "core"


def verdict_of(outcomes: Sequence) -> str:
    """``proved`` when every claim is PROVED as expected, ``refuted as
    designed`` when all are as expected and one is an expected REFUTED,
    else ``unexpected`` (including a spec with no outcome: it did not build)."""
    if not outcomes or not all(o.ok for o in outcomes):
        return UNEXPECTED
    return AS_DESIGNED if any(o.status == "REFUTED" for o in outcomes) else PROVED


def ordered(entries: Sequence[Entry]) -> dict[str, dict[str, list[Entry]]]:
    """Entries by family (in ``FAMILIES`` order), then by source module
    (in the order found)."""
    groups: dict[str, dict[str, list[Entry]]] = {key: {} for key in FAMILIES}
    for entry in entries:
        groups[entry.family].setdefault(entry.source, []).append(entry)
    return {key: modules for key, modules in groups.items() if modules}


def summary(entries: Sequence[Entry]) -> str:
    """``12 specs: 9 proved, 3 refuted as designed`` (zero counts left out,
    but an unexpected count is always said when there is one)."""
    counts = {v: sum(e.verdict == v for e in entries) for v in VERDICTS}
    said = [f"**{n} {v}**" if v == UNEXPECTED else f"{n} {v}" for v, n in counts.items() if n]
    noun = "spec" if len(entries) == 1 else "specs"
    return f"{len(entries)} {noun}: " + ", ".join(said)


def index_text(entries: Sequence[Entry]) -> str:
    """The Markdown of the index page."""
    groups = ordered(entries)
    lines = ["# Verified layouts", "",
             "Every spec and theorem found, proved when this site was built, grouped by "
             "layout family and by the module that holds it. A spec **refuted as designed** "
             "expects REFUTED: it documents a known-bad design (its page shows the "
             "counterexample). **Unexpected** means a verdict other than the one the spec "
             "expects, or a spec that did not build.", "",
             f"All together, {summary(entries)}.", "",
             "| family | specs | proved | refuted as designed | unexpected |",
             "|---|---|---|---|---|"]
    sections = []
    for key, modules in groups.items():
        title, seed = FAMILIES[key]
        members = [e for group in modules.values() for e in group]
        counts = [sum(e.verdict == v for e in members) for v in VERDICTS]
        lines.append(f"| [{title}](#{key}) | {len(members)} | {counts[0]} "
                     f"| {counts[1]} | {'**%d**' % counts[2] if counts[2] else 0} |")
        sections += [f"## {title} {{#{key}}}", "", summary(members) + "."]
        if seed and any(catches_seed_flaw(e) for e in members):
            sections[-1] += f" Source document: {seed}; see [the flaws its specs catch]" \
                            f"(seed-{key}.md)."
        sections.append("")
        for source, group in modules.items():
            sections += [f"### {markup.code(source)}", "", summary(group) + ".", "",
                         "| spec | verdict | claims |", "|---|---|---|"]
            for e in group:
                claims = ", ".join(f"{markup.code(c)} {s}" for c, s in e.claims)
                verdict = f"**{e.verdict}**" if e.verdict == UNEXPECTED else e.verdict
                sections.append(f"| [{markup.one_line(e.name)}]({e.page}.md) | {verdict} "
                                f"| {claims} |")
            sections.append("")
    return "\n".join([*lines, "", *sections])


def catches_seed_flaw(entry: Entry) -> bool:
    """A spec refuted as designed whose docstring speaks of the seed document."""
    return entry.verdict == AS_DESIGNED and "seed" in entry.doc.lower()


def seed_pages(entries: Sequence[Entry]) -> dict[str, str]:
    """``{page name: Markdown}``: for each family with a seed document, the
    flaws of the document its specs catch (``catches_seed_flaw``)."""
    pages = {}
    for key, modules in ordered(entries).items():
        title, seed = FAMILIES[key]
        caught = [e for group in modules.values() for e in group if catches_seed_flaw(e)]
        if seed is None or not caught:
            continue
        lines = [f"# {seed}: flaws the specs catch", "",
                 f"The {title} family implements this design document. Each spec below "
                 "speaks of the document and expects REFUTED: it states a claim the "
                 "document makes or implies, and the proof finds a counterexample, which "
                 "its page shows.", "",
                 "| spec | source | refuted claims | what it shows |", "|---|---|---|---|"]
        for e in caught:
            refuted = ", ".join(markup.code(c) for c, s in e.claims if s == "REFUTED")
            first = e.doc.strip().split("\n\n")[0] if e.doc else ""
            lines.append(f"| [{markup.one_line(e.name)}]({e.page}.md) | {markup.code(e.source)} "
                         f"| {refuted} | {markup.one_line(first)} |")
        pages[f"seed-{key}"] = "\n".join(lines) + "\n"
    return pages


_NOT_TITLE = re.compile(r"[^\w./ (),:-]+")


def nav_title(text: str) -> str:
    """A title safe in the navigation whatever the theme does with HTML:
    letters, digits, ``_ . / -`` and spaces only."""
    return _NOT_TITLE.sub("-", text) or "spec"


def navigation(pages: Sequence, folder: str = "generated") -> list:
    """The MkDocs ``nav`` of generated pages, nested by each page's
    ``section`` in the order given; pages without a title (pictures) are left
    out. ``folder`` is where the pages lie under the docs folder."""
    nav: list = []
    for page in pages:
        if not page.title:
            continue
        path = page.path if folder else page.path.split("/", 1)[1]
        level = nav
        for name in page.section:
            name = nav_title(name)
            found = next((item[name] for item in level
                          if isinstance(item, dict) and isinstance(item.get(name), list)), None)
            if found is None:
                found = []
                level.append({name: found})
            level = found
        level.append({nav_title(page.title): path})
    return nav
