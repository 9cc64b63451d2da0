"""The site's words: every sentence, label and table header the code puts on a page.

They live in ``docs/words/<module>.yaml`` (one file per page or render module, grouped by the
function that uses them; ``exclude_docs`` in mkdocs.yml keeps the folder off the site), so a
writer changes the prose without touching Python. The code asks by key::

    W("conclusions.diff_text.better", label_b=label_b)

The first part of the key names the file, the rest is the path of mappings inside it. A text
may hold placeholders ``{name}`` or ``{name:spec}``; W fills them with ``format(value, spec)``,
exactly as the f-string they came from did, so figures are computed (and escaped through
reportgen/render/cells.py) by the code and only the words around them live in the file.
Every other character of a text, braces included, is verbatim. A missing file, a missing key or a
placeholder the code does not supply is a ReportError naming the file and the key.
Words are trusted repository text, like the templates.

Words about a fact a record carries (what a pass does, what a kernel optimizes, why an operator
stays in float) are filed under that fact: the record holds the key (a pass name, a kernel name,
a reason code), never the sentence, and the page asks ``W_for("graph.pass_map.note", relay_pass)``.
Such a key is taken whole (an API name like ``relay.expr.var`` keeps its dots), and a record
string is only ever a key, never text that reaches the page.
"""
import html
import re
from functools import lru_cache
from pathlib import Path

import yaml

from reportgen.errors import ReportError
from reportgen.data import plainfile, safeyaml

ROOT = Path(__file__).resolve().parents[2]
WORDS = ROOT / "docs" / "words"
PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)(?::([^{}]*))?\}")
BUILT_TAGS = frozenset({"a", "code", "small", "span", "br", "strong", "em", "b", "i", "sub", "sup", "p", "div",
                        "ol", "ul", "li", "h1", "h2", "h3", "h4", "section", "details", "summary", "pre",
                        "table", "thead", "tbody", "tr", "th", "td"})
"""The elements the code builds inside a value it fills in (a linked figure, an inline code span, the
print page's table of contents): text and structure, none that loads or runs anything."""
_TAG = re.compile(r"</?([A-Za-z][\w:-]*)([^>]*)>?")
_EVENT = re.compile(r"(?:^|[\s/\"'])on[a-z]+\s*=", re.I)
_URL_ATTR = r"(?:href|src|action|formaction|poster|background|data|xlink:href)"
# Browsers decode character references in attribute values and drop C0 controls, spaces, tabs
# and newlines inside or before a URL's scheme: the checks below read a value that way too
# (&#106;avascript:, java<TAB>script:, \x01javascript:, javascript&colon; are all javascript:).
_HIDDEN = re.compile(r"[\x00-\x20\x7f]+")
_BAD_SCHEME = r"<?(?:javascript|vbscript|data):"
_SCHEME = re.compile(_URL_ATTR + r"=[\"']?" + _BAD_SCHEME, re.I)
_MD_URL = re.compile(r"\](?:\(|:)(.{0,200})", re.S)
"""Where a Markdown link or image ``[x](javascript:...)`` or a reference definition ``[r]: data:...``
has its URL (Markdown keeps a character reference in it, the browser decodes it)."""
_BAD_URL = re.compile(_BAD_SCHEME, re.I)
_MD_ATTRS = re.compile(r"\{[^{}]*?(?:^|[\s:.#\"'])on[a-z]+\s*=", re.I)
"""An attribute list ``{: onclick=...}`` (attr_list turns it into an attribute of the element)."""
_MD_INERT = {c: f"&#{ord(c)};" for c in "[]{}"}
_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?[0-9]{0,3}[,_]?(?:\.[0-9]{1,3})?[bcdeEfFgGnosxX%]?\Z")
"""A placeholder's format spec as the words use them (.2f, .0%, g): a width or precision of at most
three digits (``{n:>300000000}`` would fill in 300 MB, ``{n:.999999999f}`` a gigabyte)."""


def _as_browsers_read(value):
    return _HIDDEN.sub("", html.unescape(value))


def markup_problem(value):
    """Why a value filled into a text is markup the code never builds (an element outside
    BUILT_TAGS, an event attribute, a script URL, a Markdown link to one or an attribute list with
    an event), or None.  W fills such a value in as text (HTML-escaped, Markdown brackets as
    character references): the last guard behind cells.py, so a record string that reached a text
    unescaped is shown as text, never run (a caller that escapes W's result as a whole shows it
    escaped twice: inert).  W also checks the filled text as a whole: markup split over two values
    (``<`` and ``img onerror=...>``) is no safer than in one."""
    for match in _TAG.finditer(value):
        if match.group(1).lower() not in BUILT_TAGS:
            return f"the element <{match.group(1)}>"
        attrs = html.unescape(match.group(2))
        if _EVENT.search(attrs) or _SCHEME.search(_HIDDEN.sub("", attrs)):
            return f"the attributes {match.group(2).strip()[:60]!r}"
    if any(_BAD_URL.match(_as_browsers_read(m.group(1))) for m in _MD_URL.finditer(value)):
        return "a Markdown link to a script or data URL"
    if _MD_ATTRS.search(value):
        return "a Markdown attribute list with an event attribute"
    return None


def _inert(value):
    """``value`` as text: HTML-escaped, and no Markdown link or attribute list either."""
    return "".join(_MD_INERT.get(c, c) for c in html.escape(value, quote=True))


@lru_cache(maxsize=None)
def _load(path, mtime_ns):
    where = path.relative_to(ROOT)
    try:   # a plain file of bounded size (a link, a FIFO or a 3 GB file is refused unread), UTF-8
        text = plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES)
    except ReportError as e:
        raise ReportError(f"{where}: {str(e).split(': ', 1)[-1]}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(f"{where}: cannot read the words: {e}") from None
    try:   # as data files are read: no alias, no key twice, one line naming the file
        data = safeyaml.loads(text, aliases=True)
    except yaml.YAMLError as e:
        raise ReportError(f"{where}: not valid YAML: {safeyaml.describe(e)}") from None
    # as written or as a YAML escape ("\u202e"): the loaded texts are what pages show
    hidden = plainfile.hidden_text_problem(where, text) or next(
        (f"{where}: {key}: {problem.split(': ', 1)[1]}" for key, value in _texts(data)
         if (problem := plainfile.hidden_text_problem(key, value))), None)
    if hidden:
        raise ReportError(hidden)
    return data or {}


def _texts(node, key=""):
    """(dotted key, text) of every string a words file holds, each container visited once, without
    recursion: an alias that holds itself (a: &x [*x]) was a RecursionError, and aliases of aliases
    (a "billion laughs" file) a walk of 10^9 strings."""
    seen, stack = set(), [(key, node)]
    while stack:
        key, node = stack.pop()
        if isinstance(node, str):
            yield key, node
        elif isinstance(node, (dict, list)) and id(node) not in seen:
            seen.add(id(node))
            if isinstance(node, dict):
                children = [(f"{key}.{k}" if key else str(k), v) for k, v in node.items()]
            else:
                children = [(f"{key}[{i}]", v) for i, v in enumerate(node)]
            stack.extend(reversed(children))


def use_root(root):
    """Read the words of the project at ``root`` (the CLI's --root) where it has them (docs/words/), not those of
    the checkout the package runs from: `--root OTHER build` filled OTHER's pages with this checkout's words.  A
    root without them (a project of results only) keeps the package's."""
    global ROOT, WORDS
    if (Path(root) / "docs" / "words").is_dir():
        ROOT = Path(root).resolve()
        WORDS = ROOT / "docs" / "words"


def catalog(name):
    """The parsed words file docs/words/<name>.yaml (re-read when it changes, e.g. under `serve`)."""
    path = WORDS / f"{name}.yaml"
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        raise ReportError(f"{path.relative_to(ROOT)}: no such words file (asked for key '{name}.…')") from None
    return path, _load(path, mtime)


def _walk(key, parts):
    """The node at ``parts`` of the words file the key names, with that file's path for errors."""
    path, node = catalog(key.split(".")[0])
    where = path.relative_to(ROOT)
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            raise ReportError(f"{where}: no text for the key '{key}'")
        node = node[part]
    return where, node


def _fill(where, key, text, values):
    if not isinstance(text, str):
        raise ReportError(f"{where}: the key '{key}' is not a text")

    def fill(m, guard=True):
        if m.group(1) not in values:
            raise ReportError(f"{where}: the text of '{key}' has the placeholder {m.group(0)}, "
                              f"but the code fills in only {sorted(values) or 'none'}")
        value, spec = values[m.group(1)], m.group(2) or ""
        if isinstance(value, str) and (not guard or markup_problem(value)):
            value = _inert(value)   # shown as text, never run (see markup_problem)
        try:
            if not _SPEC.match(spec):
                raise ValueError("not a format spec of the words (a width or precision of 1 to 3 digits, "
                                 "such as .2f, .0% or g)")
            shown = format(value, spec)
            filled.append((m.start(), m.end(), shown))
            return shown
        except (ValueError, TypeError) as e:   # {n:d} of a text, {n:zz}: the words' fault, named
            raise ReportError(f"{where}: the text of '{key}' has the placeholder {m.group(0)!r:.60}, which cannot "
                              f"format the {type(value).__name__} the code fills in: {e}") from None
    if not values and "{" not in text:
        return text
    filled = []
    out = PLACEHOLDER.sub(fill, text)
    if any(isinstance(v, str) for v in values.values()) and markup_problem(out) and not markup_problem(text):
        filled.clear()
        out = PLACEHOLDER.sub(lambda m: fill(m, guard=False), text)   # markup split over two values
    _glued(where, key, text, filled)
    return out


def _glued(where, key, text, filled):
    """Refuse a text that writes a figure against another or against a digit of its own, with nothing or one '.' or
    ',' between: '{logical_cores}{physical_cores} \u903b\u8f91\u6838' printed 2 and 2 cores as '22', '{value}{value} MHz' a
    clock of 2596.1222596.122, and no digit of either was typed."""
    pieces, at = [], 0   # (is a value, the text a reader sees) in order
    for start, end, shown in filled:
        pieces += [(False, text[at:start]), (True, re.sub(r"<[^<>]*>", "", shown))]
        at = end
    pieces.append((False, text[at:]))
    pieces = [p for p in pieces if p[0] or p[1]]
    for i, (value, seen) in enumerate(pieces[:-1]):
        nxt, joiner = pieces[i + 1], ""
        if not value and not nxt[0]:
            continue
        if not nxt[0] and re.fullmatch(r"[.,]", nxt[1]) and i + 2 < len(pieces) and pieces[i + 2][0]:
            joiner, nxt = nxt[1], pieces[i + 2]   # {a}.{b}
        left, right = seen, joiner + nxt[1]
        if re.search(r"\d[.,]?$", left) and re.match(r"[.,]?\d", right):
            raise ReportError(f"{where}: the text of '{key}' writes a figure against another figure or a digit "
                              f"({left[-12:]}|{right[:12]}), read as one number: put words between them")


def W(key, /, **values):
    """The text of a key with its placeholders filled in."""
    where, node = _walk(key, key.split(".")[1:])
    return _fill(where, key, node, values)


def W_fact(group, blame, /, *facts, **values):
    """W_for of facts a result record carries (a reason code, an engine, a pipeline and its pass): a
    fact the words file has no text for is the record's fault, so the error names ``blame`` (the
    record's file, id and field; a list names one per fact), not the words file."""
    where, node = _walk(group, group.split(".")[1:])
    for depth, one in enumerate(facts):
        if not isinstance(node, dict) or not isinstance(one, str) or one not in node:
            blame = blame[depth] if isinstance(blame, (list, tuple)) else blame
            known = ", ".join(sorted(node)) if isinstance(node, dict) else ""
            under = "".join(f"[{f}]" for f in facts[:depth])
            raise ReportError(f"{blame}: {one!r:.80} is not a known value (one of {known:.300}; {where} "
                              f"'{group}{under}' has text for these only)")
        node = node[one]
    return W_for(group, *facts, **values)


def W_for(group, /, *facts, **values):
    """The text filed under ``facts`` (keys a record carries, each one mapping key taken whole) in
    the group ``group`` (a dotted key, as for W): ``W_for("graph.step_diffs.step", "fold_bn", "FoldConstant")``."""
    where, node = _walk(group, group.split(".")[1:])
    for depth, fact in enumerate(facts):
        if not isinstance(node, dict) or not isinstance(fact, str) or fact not in node:
            under = "".join(f"[{f}]" for f in facts[:depth])
            raise ReportError(f"{where}: no text for {fact!r} in '{group}{under}' (add it to the words file)")
        node = node[fact]
    return _fill(where, group + "".join(f"[{f}]" for f in facts), node, values)
