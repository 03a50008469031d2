"""Math rendered to MathML when the page is generated: no script, no network.

``latex2mathml`` (the ``docs`` extra) is imported only when a formula is
rendered; without it a formula stays LaTeX between ``$`` signs.
"""

from __future__ import annotations

import functools
import html
import re

# Characters Markdown would read inside the MathML's text (emphasis, links,
# table cells, escapes): written as character references, which it leaves alone.
_MARKDOWN_SIGNS = {c: f"&#{ord(c)};" for c in "*_`\\[]|{}$~^"}
_TEXT = re.compile(r">([^<]+)<")


# latex2mathml sets \mathit{offset} as six italic letters in a row (\mathit{dev2}:
# three letters and a number); a name is one identifier (drawn upright, as a word).
_WORD = re.compile(r'<mrow>((?:<m[in] mathvariant="italic">[^<]*</m[in]>){2,})</mrow>')
_LETTER = re.compile(r'<m[in] mathvariant="italic">([^<]*)</m[in]>')


def word(name: str) -> str:
    r"""A name of several letters as LaTeX that ``render`` sets as one identifier.

    >>> print(word("pe_row"))
    \mathit{pe\_row}
    """
    return r"\mathit{" + name.replace("_", r"\_") + "}"


def _converter():
    try:
        from latex2mathml.converter import convert  # noqa: PLC0415 - only when rendering
    except ImportError:
        return None
    return convert


def available() -> bool:
    """Whether formulas become MathML (``latex2mathml`` is installed)."""
    return _converter() is not None


def _render(latex: str, display: str) -> str | None:
    convert = _converter()
    return None if convert is None else _converted(convert, latex, display)


@functools.lru_cache(maxsize=4096)  # the same bounds and names recur on many pages
def _converted(convert, latex: str, display: str) -> str:
    try:
        rendered = convert(latex, display=display)
    except Exception:  # noqa: BLE001 - a formula latex2mathml cannot read: shown as code
        return f"<code>{html.escape(latex)}</code>"
    rendered = _WORD.sub(lambda m: f"<mi>{''.join(_LETTER.findall(m[1]))}</mi>", rendered)
    text = _TEXT.sub(lambda m: ">" + "".join(_MARKDOWN_SIGNS.get(c, c) for c in m[1]) + "<",
                     rendered)
    return text.replace("\n", " ")


def inline(latex: str) -> str:
    """``latex`` as inline MathML, on one line.

    >>> inline("i < 4").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML"')
    True
    """
    rendered = _render(latex, "inline")
    return f"${latex}$" if rendered is None else rendered


BLOCK_STYLE = "overflow-x: auto; overflow-y: hidden; line-height: normal; padding: 0.25em 0"


def block(latex: str) -> str:
    """``latex`` as display MathML: a paragraph of its own in Markdown, which
    scrolls sideways when it is wider than the page. Its own line height and
    a little padding: with the theme's, a fraction ran into the next line."""
    rendered = _render(latex, "block")
    if rendered is None:
        return f"$$\n{latex}\n$$"
    return f'<div class="formula" style="{BLOCK_STYLE}">{rendered}</div>'


_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$\w])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\w$])", re.S)
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)


def render(markdown: str) -> str:
    """Hand-written Markdown with its ``$$…$$`` and ``$…$`` formulas as MathML.

    Fenced code blocks and code spans are left as they are (``$ layoutalg``
    in a shell example, ``$XDG_CACHE_HOME``).

    >>> "<math" in render("Let $x_1$ be one.") and "$" not in render("Let $x_1$ be one.")
    True
    >>> render("`$HOME` and $5 or $ 6")
    '`$HOME` and $5 or $ 6'
    """
    if not available():
        return markdown
    out, prose, fence = [], [], None
    for line in markdown.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is None and opened:
            out.append(_render_prose("".join(prose)))
            prose, fence = [], opened[2][0] * len(opened[2])
            out.append(line)
        elif fence is not None:
            out.append(line)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
        else:
            prose.append(line)
    out.append(_render_prose("".join(prose)))
    return "".join(out)


def _render_prose(text: str) -> str:
    pieces, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        pieces.append(_render_math(text[last:span.start()]))
        pieces.append(span[0])
        last = span.end()
    pieces.append(_render_math(text[last:]))
    return "".join(pieces)


def _render_math(text: str) -> str:
    return _MATH.sub(lambda m: inline(m[2]) if m[1] is None else block(" ".join(m[1].split())),
                     text)
