"""Text from a spec, made safe to put in a Markdown page of the site.

Names, docstrings, reasons and exception messages come from the user's code.
MkDocs passes raw HTML in Markdown through to the site, so each of them is
HTML-escaped before it is placed: ``<script>`` shows as text and never runs,
and "valid where i<j and j>k" keeps its ``<`` and ``>``. A ``|`` is escaped
too, so text in a table cell cannot end the cell.
"""

from __future__ import annotations

import html
import re

# A link target that would run code: a zero-width space before the colon
# leaves it a harmless relative link (an entity such as &#58; would not:
# browsers decode entities in attributes).
_SCRIPT_SCHEME = re.compile(r"\b(javascript|vbscript|data)(\s*):", re.IGNORECASE)


def text(value: object) -> str:
    """Prose from a spec: escaped, Markdown emphasis and links still work,
    but no link can run script (``javascript:``, ``vbscript:``, ``data:``)."""
    escaped = html.escape(str(value), quote=True).replace("|", "&#124;")
    return _SCRIPT_SCHEME.sub("\\1\\2\u200b:", escaped)


def code(value: object) -> str:
    """Inline code from a spec (a name, a source path). A backtick in the
    value cannot end the span: the span is HTML, its content escaped."""
    return f"<code>{text(value)}</code>"


def one_line(value: object) -> str:
    """``text`` on one line (admonition titles, table cells)."""
    return text(" ".join(str(value).split()))


def indented(value: object, indent: str = "    ") -> str:
    """``text`` kept inside an admonition: every line indented."""
    return "\n".join(indent + line for line in text(value).splitlines()) or indent


_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slug(*parts: str) -> str:
    """``[a-z0-9-]`` only: no ``/``, ``.`` or ``..`` can reach a file name."""
    joined = "-".join(_NOT_SLUG.sub("-", part.lower()).strip("-") for part in parts)
    return _NOT_SLUG.sub("-", joined).strip("-") or "spec"
