"""What the repository says the site must carry: the seed's code (archive/code.yaml), the coverage
checklist (archive/coverage.yaml), the content map (archive/content_map.yaml) and the current
equivalents under docs/snippets/.  Read and validated here; evaluated by reportgen.publish.coverage."""
import re
from pathlib import Path

from reportgen.data import archive, plainfile
from reportgen.errors import ReportError
from reportgen.data.words import W

REQUIREMENTS = {"terms", "tables", "current", "elsewhere", "snippets", "formulas", "archived", "conclusions",
                "passages", "ratio"}


KINDS = {"prose": W("seed.kinds.prose"), "code": W("seed.kinds.code"), "formula": W("seed.kinds.formula"), "data": W("seed.kinds.data"), "conclusion": W("seed.kinds.conclusion")}
PASSAGE_KEYS = {"id", "kind", "page", "anchor", "facts", "figures", "snippet", "formula", "today", "dropped",
                "conclusion", "text", "label"}
LABELS = (W("seed.labels.today"), W("seed.labels.wrapper"))
_TODAY = re.compile(r"docs/snippets/[A-Za-z0-9_][A-Za-z0-9_.-]*\.py")


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
    ids = []
    for i, p in enumerate(data.get("passages", [])):
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


def read_code(archive_dir):
    """archive/code.yaml: the seed's code, commands and formulas, verbatim."""
    path = Path(archive_dir) / "code.yaml"
    if not path.exists():
        return {"snippets": [], "formulas": []}
    return _read(path, "seed code", ("snippets", "formulas"))


def read_items(archive_dir):
    path = Path(archive_dir) / "coverage.yaml"
    data = _read(path, "coverage checklist", ("items",))
    if "rules" not in data:
        raise ReportError(f"{path}: rules: missing")
    problems = []
    for i, item in enumerate(data.get("items", [])):
        for key in ("id", "article", "content", "seed_sections", "page", "anchor", "require"):
            if key not in item:
                problems.append(f"{path}: items[{i}].{key}: missing")
        for key in sorted(set(item.get("require") or {}) - REQUIREMENTS):
            problems.append(f"{path}: items[{i}].require.{key}: unknown requirement "
                            f"(known: {', '.join(sorted(REQUIREMENTS))})")
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
    hidden = plainfile.hidden_text_problem(rel, text)
    if hidden:
        raise ReportError(hidden)
    return text
