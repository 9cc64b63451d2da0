"""What the repository says the site must carry: the seed's code (archive/code.yaml), the coverage
checklist (archive/coverage.yaml), the content map (archive/content_map.yaml) and the current
equivalents under docs/snippets/.  Read and validated here; evaluated by reportgen.publish.coverage."""
import re
from pathlib import Path

from reportgen.data import archive, plainfile
from reportgen.errors import ReportError
from reportgen.data.words import W

TEXT, TEXTS, TEXT_OR_TEXTS, GROUPS = "a text", "a list of texts", "a text or a list of texts", "a mapping of lists of texts"
SHARE = "a share from 0 to 1"


MAX_TEXT_CHARS = 4000
"""The most characters one text of the archive's coverage, content map and seed files holds (the committed ones:
786): the coverage page prints them, and 64 000 '{ ' in one item's content took 25 s to convert (attr_list reads a
table cell's braces in quadratic time)."""


def _shape_problem(where, value, shape):
    """'where: expected SHAPE' when ``value`` is not of ``shape`` (the coverage check hashes, iterates and
    compares these values: a 5 ended the build in an internal TypeError naming nothing), else None."""
    long = next((v for v in ([value] if isinstance(value, str) else value.values() if isinstance(value, dict) else
                             value if isinstance(value, list) else [])
                 for v in ([v] if isinstance(v, str) else v if isinstance(v, list) else [])
                 if isinstance(v, str) and len(v) > MAX_TEXT_CHARS), None)
    if long is not None:
        return f"{where}: a text of {len(long)} characters, more than {MAX_TEXT_CHARS}"
    texts = isinstance(value, list) and all(isinstance(v, str) for v in value)
    ok = {TEXT: isinstance(value, str), TEXTS: texts, TEXT_OR_TEXTS: isinstance(value, str) or texts,
          GROUPS: isinstance(value, dict) and all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                                                  for v in value.values()),
          SHARE: isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1}[shape]
    return None if ok else f"{where}: expected {shape}, got {type(value).__name__}"


def _shapes_problems(where, obj, shapes, required=()):
    """Each field of ``obj`` (a mapping) of its shape in ``shapes``, and the ``required`` ones there: the one
    check every archive file's fields meet."""
    if not isinstance(obj, dict):
        return [f"{where}: expected a mapping, got {type(obj).__name__}"]
    return [p for k, shape in shapes.items() if (k in obj or k in required)
            and (p := _shape_problem(f"{where}.{k}", obj.get(k), shape))]


ITEM_SHAPES = {"id": TEXT, "article": TEXT, "content": TEXT, "seed_sections": TEXTS, "page": TEXT, "anchor": TEXT}
REQUIRE_SHAPES = {"terms": TEXTS, "tables": TEXTS, "passages": TEXTS, "current": TEXT_OR_TEXTS, "elsewhere": GROUPS,
                  "ratio": TEXT, "archived": TEXT, "formulas": TEXT, "snippets": TEXT, "conclusions": TEXT}
PASSAGE_SHAPES = {"id": TEXT, "kind": TEXT, "page": TEXT, "facts": TEXTS, "dropped": TEXT, "anchor": TEXT,
                  "figures": TEXTS, "snippet": TEXT, "formula": TEXT, "conclusion": TEXT_OR_TEXTS}   # today: its own check
RATIO_RULE_SHAPES = {"label": TEXT, "rule": TEXT, "min": SHARE, "max": SHARE}
COVERAGE_RULE_SHAPES = {"id": TEXT, "rule": TEXT, "check": TEXT}
FORMULA_SHAPES = {"id": TEXT, "seed_section": TEXT, "text": TEXT}
"""The shapes of the archive's coverage items and rules, their requirements, the content map's passages and
ratio rules, the seed's formulas (all the committed ones are of them; snippets: SNIPPET_SHAPES)."""

REQUIREMENTS = {"terms", "tables", "current", "elsewhere", "snippets", "formulas", "archived", "conclusions",
                "passages", "ratio"}


KINDS = {"prose": W("seed.kinds.prose"), "code": W("seed.kinds.code"), "formula": W("seed.kinds.formula"), "data": W("seed.kinds.data"), "conclusion": W("seed.kinds.conclusion")}
PASSAGE_KEYS = {"id", "kind", "page", "anchor", "facts", "figures", "snippet", "formula", "today", "dropped",
                "conclusion", "text", "label"}
LABELS = (W("seed.labels.today"), W("seed.labels.wrapper"))
_TODAY = re.compile(r"docs/snippets/[A-Za-z0-9_][A-Za-z0-9_.-]*\.py")
PAGE_LINK = re.compile(r"[a-z0-9][a-z0-9_-]*\.md(?:#[A-Za-z0-9_-]+)?")
"""Where a snippet's or checklist item's counterpart stands: a docs page and an optional anchor ('' and '#x'
stopped migration.md in a ValueError blamed on the page; a quote in it was written into an href)."""
_ANCHOR = re.compile(r"[A-Za-z0-9_-]+")
_BREAKS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
"""Line breaks other than '\n': Markdown reads a lone '\r' as a new line, and a snippet file's carried the text
after it out of its code block as live page Markdown (a heading, a typed figure, an outside link)."""


def _read(path, what, lists):
    """An archive YAML file as the archive's tables are read (no alias, bounded depth, one line naming
    the file on a parse error or a tag such as !!python/object): a mapping whose ``lists`` are lists
    of mappings (else one line, never an AttributeError)."""
    data = archive._load_yaml(path, what)
    if not isinstance(data, dict):
        raise ReportError(f"{path}: expected a mapping, got {type(data).__name__}")
    for name in lists:
        value = data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise ReportError(f"{path}: {name}: expected a list of mappings, got {type(value).__name__} {value!r:.40}")
    return data


def read_content_map(archive_dir):
    """archive/content_map.yaml: {rules, passages}; every passage names what proves it is kept."""
    path = Path(archive_dir) / "content_map.yaml"
    if not path.exists():
        return {"rules": {}, "passages": []}
    data = _read(path, "content map", ("passages",))
    problems = []
    rules = data.get("rules", {})
    for name, rule in (rules.items() if isinstance(rules, dict) else [("", None)]):
        # the share of passages kept, compared with min and max
        problems += _shapes_problems(f"{path}: rules.{name}" if name else f"{path}: rules", rule, RATIO_RULE_SHAPES,
                                     required=("label", "rule"))
    ids = []
    for i, p in enumerate(data.get("passages", [])):
        shaped = _shapes_problems(f"{path}: passages[{i}]", p, PASSAGE_SHAPES)
        if shaped:
            problems += shaped
            continue
        where = f"{path}: passages[{i}] ({p.get('id', '?')})"
        ids.append(p.get("id"))
        for key in sorted(set(p) - PASSAGE_KEYS):
            problems.append(f"{where}.{key}: unknown key")
        if p.get("kind") not in KINDS:
            problems.append(f"{where}.kind: {p.get('kind')!r} is not one of {', '.join(KINDS)}")
        if "dropped" in p:
            continue
        if "page" not in p:
            problems.append(f"{where}.page: missing (or say dropped: why)")
        if not any(k in p for k in ("facts", "figures", "snippet", "formula")):
            problems.append(f"{where}: nothing to check (facts, figures, snippet or formula)")
        if p.get("kind") == "code" and "today" not in p:
            problems.append(f"{where}.today: a code passage names its current equivalent (docs/snippets/...)")
        elif "today" in p and not (isinstance(p["today"], str) and _TODAY.fullmatch(p["today"])):
            # the build reads it: /dev/zero filled memory, ../../x read a file outside the project
            problems.append(f"{where}.today: {p['today']!r:.80} is not a file docs/snippets/<name>.py")
    problems += [f"{path}: passages: duplicate id {i!r}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    if problems:
        raise ReportError(problems)
    return data


FENCE_LANGUAGES = frozenset({"", "text", "bash", "python"})
"""The languages a docs page's code fences may name (the ones they do): Pygments highlights each, and
some of its lexers take quadratic time (16 KB of 'a a a' as java took 5.6 s, of blanks as autoit 34 s)."""
SNIPPET_TEXTS = ("id", "seed_section", "lang", "title", "text", "today")   # 'today' left out stopped migration.md
SNIPPET_SHAPES = {k: TEXT for k in SNIPPET_TEXTS + ("note",)}
"""The fields of an archive/code.yaml snippet the pages print, each a text (a 5 broke method.md)."""
MAX_SNIPPET_CHARS = 64 * 1024
"""The most characters one code block the pages show may hold (the longest holds 2 400)."""
_FENCE_LINE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})", re.M)


def code_problem(where, text, lang="python"):
    """Why the code a page shows in a fence cannot be shown so, or None: a language outside the pages'
    fences (Pygments' java lexer took 30 s on 32 KB), a line that closes the fence (what follows was page
    Markdown no check read), or more than MAX_SNIPPET_CHARS."""
    if lang not in FENCE_LANGUAGES:
        return f"{where}: lang: {str(lang)[:30]!r} is not one of the pages' fences ({', '.join(sorted(map(repr, FENCE_LANGUAGES)))})"
    if len(text) > MAX_SNIPPET_CHARS:
        return f"{where}: {len(text)} characters, more than the {MAX_SNIPPET_CHARS} a code block may hold"
    found = _BREAKS.search(text)
    if found:
        return (f"{where}:{text.count(chr(10), 0, found.start()) + 1}: holds the line break U+{ord(found.group()):04X}; "
                "code shown on a page breaks its lines with \\n only (LF line ends)")
    found = _FENCE_LINE.search(text)
    if found:
        return (f"{where}:{text.count(chr(10), 0, found.start()) + 1}: a line of ``` or ~~~ closes the code fence "
                "the page shows it in")
    return None


def read_code(archive_dir):
    """archive/code.yaml: the seed's code, commands and formulas, verbatim; each snippet's texts typed
    and its code one the pages' fences show (code_problem)."""
    path = Path(archive_dir) / "code.yaml"
    if not path.exists():
        return {"snippets": [], "formulas": []}
    data = _read(path, "seed code", ("snippets", "formulas"))
    problems = [p for i, f in enumerate(data.get("formulas") or [])
                for p in _shapes_problems(f"{path}: formulas[{i}]", f, FORMULA_SHAPES, required=("id", "text"))]
    for i, snip in enumerate(data.get("snippets") or []):
        where = f"{path}: snippets[{i}]"
        odd = _shapes_problems(where, snip, SNIPPET_SHAPES, required=SNIPPET_TEXTS)
        if odd:
            problems.append(odd[0])
            continue
        bad = code_problem(f"{where}.text", snip["text"], snip["lang"])
        if bad:
            problems.append(bad)
        docs = Path(archive_dir).parent / "docs"
        if not PAGE_LINK.fullmatch(snip["today"]):
            problems.append(f"{where}.today: {snip['today']!r:.80} is not a docs page with an optional anchor "
                            "(page.md or page.md#anchor)")
        elif docs.is_dir():   # a dead link, published (named on the built page only)
            problems += [f"{where}.today: {p}" for p in [_counterpart_problem(docs, snip["today"])] if p]
    if problems:
        raise ReportError(problems)
    return data


def _counterpart_problem(docs, link):
    """Why 'page.md#anchor' names no page of docs/ or no heading of it ('{#anchor}' or id="anchor"), or None."""
    page, _, anchor = link.partition("#")
    if not (docs / page).is_file():
        return f"{link!r:.80} is not a docs page (docs/ has no {page})"
    text = plainfile.read_text(docs / page, plainfile.MAX_ARCHIVE_FILE_BYTES)
    # as Markdown reads it: not inside a fence, a comment or a code span ('{#x}' in a code block is no heading)
    text = re.sub(r"`[^`\n]*`", "", re.sub(r"<!--.*?-->", "", re.sub(r"(?ms)^(```|~~~).*?^\1[ \t]*$", "", text), flags=re.S))
    heading = r"(?m)^#{1,6}[ \t].*\{:?\s*#" + re.escape(anchor) + r"[\s}]"
    if anchor and not re.search(heading + r"|<[A-Za-z][^<>]*\sid=\"" + re.escape(anchor) + '"', text):
        return f"{link!r:.80}: docs/{page} has no heading {{#{anchor}}}"
    return None


def read_items(archive_dir):
    path = Path(archive_dir) / "coverage.yaml"
    data = _read(path, "coverage checklist", ("items",))
    if "rules" not in data:
        raise ReportError(f"{path}: rules: missing")
    problems = []
    for i, item in enumerate(data.get("items", [])):
        shaped = _shapes_problems(f"{path}: items[{i}]", item, ITEM_SHAPES)
        if not shaped and not isinstance(item.get("require"), dict):
            shaped = [f"{path}: items[{i}].require: expected a mapping"]
        if shaped:
            problems += shaped
            continue
        problems += _shapes_problems(f"{path}: items[{i}].require", item["require"], REQUIRE_SHAPES)
        for key in ("id", "article", "content", "seed_sections", "page", "anchor", "require"):
            if key not in item:
                problems.append(f"{path}: items[{i}].{key}: missing")
        if not (PAGE_LINK.fullmatch(str(item.get("page", ""))) and "#" not in str(item.get("page", ""))
                and _ANCHOR.fullmatch(str(item.get("anchor", "")))):   # written into the page as a link
            problems.append(f"{path}: items[{i}].page/anchor: {item.get('page')!r:.60}#{item.get('anchor')!r:.60} is "
                            "not a docs page (name.md) and an anchor of letters, digits, '-' and '_'")
        for key in sorted(set(item.get("require") or {}) - REQUIREMENTS):
            problems.append(f"{path}: items[{i}].require.{key}: unknown requirement "
                            f"(known: {', '.join(sorted(REQUIREMENTS))})")
    rules = data["rules"] if isinstance(data["rules"], list) else []
    problems += [f"{path}: rules: expected a list" for _ in [0] if not isinstance(data["rules"], list)]
    for i, rule in enumerate(rules):   # the coverage page prints each rule and its check (a missing one: KeyError)
        problems += _shapes_problems(f"{path}: rules[{i}]", rule, COVERAGE_RULE_SHAPES, required=tuple(COVERAGE_RULE_SHAPES))
    ids = [item.get("id") for item in data.get("items", [])]
    problems += [f"{path}: items: duplicate id {i!r}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    if problems:
        raise ReportError(problems)
    return data["rules"], data["items"]


def snippet_file(root, rel):
    """The text of a current-equivalent file, as the page includes it: a plain file of bounded size
    (ReportError naming it otherwise; a missing one raises FileNotFoundError), with no zero-width or
    bidi character (the page shows it as today's code: a U+202E made it read otherwise than reviewed)."""
    text = plainfile.read_text(Path(root) / rel, plainfile.MAX_ARCHIVE_FILE_BYTES)
    hidden = plainfile.hidden_text_problem(rel, text, controls=True) or code_problem(rel, text)
    if hidden:
        raise ReportError(hidden)
    return text
