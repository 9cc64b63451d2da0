"""The one escaping point: every untrusted string (record, log, artifact, environment) is text.

Pages are Jinja templates rendered to Markdown with attr_list, md_in_html and superfences,
then to HTML. A string from a record must never become markup at any of those stages:
no raw HTML, no link (``[x](javascript:...)``), no attribute list (``{: onclick=...}``),
no code fence that closes early, no table cell that splits. Three shapes cover every use:

- ``text(s)``: inline text (table cell, sentence, admonition title, attribute value);
- ``code_span(s)``: inline code;
- ``code_block(s, lang, indent)``: a fenced block whose fence is longer than any
  backtick run inside, so the content cannot close it;
- ``pre_block(s)``: a block of plain text as escaped raw HTML (no highlighting).
"""
import html
import re

from study import schema as _schema

# Markdown (and attr_list / md_in_html) specials, as numeric character references: the
# Markdown parser passes entities through untouched and the browser shows the character.
# `[` `]` stop links and images (so a `(javascript:...)` after them is plain text), `{` `}`
# stop attribute lists, backticks stop code spans, `|` stops cell splits, `\` stops escapes.
# `_`, `(` and `)` stay literal: without `[` they make no link, and Python-Markdown does
# not emphasize inside words (ids like numpy_gemm read as they are, in HTML too).
_SPECIALS = {c: f"&#{ord(c)};" for c in "|[]`*{}\\"}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BACKTICKS = re.compile(r"`+")
# C1 controls, zero-width and bidi-override characters (the set schema refuses in environment
# strings): invisible, or they reorder what is around them, so a page or terminal shows them as
# escapes (\x85, \u202e), never raw
_INVISIBLE = re.compile("[" + _schema._INVISIBLE + "]")
_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f" + _schema._INVISIBLE + "]")


def _escape(match):
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(value, keep_c0=False):
    """``value`` with every control (but newline and tab), C1, zero-width and bidi character written
    as an escape (\x1b, \x85, \u202e): for a terminal (trace), or with ``keep_c0`` for the
    invisible class only (the page escapers below replace C0 characters themselves)."""
    return (_INVISIBLE if keep_c0 else _TERMINAL).sub(_escape, str(value))


def _clean(value):
    return visible(_CONTROL.sub("\ufffd", str(value)), keep_c0=True)


def text(value, multiline=False):
    """Plain text safe anywhere inline in Markdown or inside an HTML attribute value."""
    escaped = html.escape(_clean(value), quote=True)
    escaped = "".join(_SPECIALS.get(c, c) for c in escaped)
    lines = escaped.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return ("<br>" if multiline else " ").join(line.strip() for line in lines)


def code_span(value):
    """Inline code showing value verbatim: delimiter longer than any backtick run inside."""
    body = _clean(value).replace("\r", " ").replace("\n", " ")
    run = max((len(m.group(0)) for m in _BACKTICKS.finditer(body)), default=0)
    fence = "`" * (run + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def pre_block(value):
    """A preformatted block showing value verbatim, as raw HTML with every character escaped: it
    cannot hold a tag, and Markdown passes a raw block through untouched.  For the provenance
    entries' samples, cases, log lines and commands (thousands per site, where the highlighter
    cost more than the rest of the page), never for code meant to be read as code."""
    body = html.escape(_clean(value).replace("\r\n", "\n").replace("\r", "\n"), quote=False)
    # superfences reads the page before raw HTML is set aside: a log line of ``` or ~~~ opened a
    # fence inside the block (its lines highlighted, double-escaped, an {#id} put on the page); as
    # references the browser shows the same characters and no Markdown stage sees a fence
    body = body.replace("`", "&#96;").replace("~", "&#126;")
    return f'<pre class="verbatim"><code>{body}</code></pre>'


def fence_for(value):
    """A backtick fence that no line of value can close (at least three backticks)."""
    run = max((len(m.group(0)) for m in _BACKTICKS.finditer(str(value))), default=0)
    return "`" * max(3, run + 1)


def code_block(value, lang="", indent=""):
    """A fenced code block with value verbatim; every line indented by ``indent``."""
    body = _clean(value).replace("\r\n", "\n").replace("\r", "\n")
    fence = fence_for(body)
    lines = [f"{indent}{fence}{lang}"] + [f"{indent}{line}" for line in body.split("\n")] + [f"{indent}{fence}"]
    return "\n".join(lines)


def attr(value):
    """An HTML attribute value (href, title): HTML-escaped with quotes, Markdown specials too."""
    return text(value)


def href(value):
    """A relative link built from record data: refuse schemes (javascript:, data:) outright."""
    value = str(value)
    if re.match(r"^\s*[A-Za-z][A-Za-z0-9+.-]*:", value) or value.strip().startswith("//"):
        return "#"
    return html.escape(value, quote=True)


_SPAN = re.compile(r"(`+)(.+?)\1")


def text_with_code(value):
    """Text whose `backtick` spans stay inline code (archived seed prose); everything else is text()."""
    value, out, pos = str(value), [], 0
    for match in _SPAN.finditer(value):
        out += [text(value[pos:match.start()]), code_span(match.group(2).strip())]
        pos = match.end()
    out.append(text(value[pos:]))
    return "".join(out)
