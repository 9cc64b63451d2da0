"""The hostile corpus (tests/data/hostile/cases.yaml), counted for the credibility page.

The tests run every case of that file and assert its outcome; the page reports the same
file, so the count on the site is the count the test suite enforces.
"""
import re
import unicodedata
from collections import Counter
from pathlib import Path

import yaml

from reportgen.data import plainfile, safeyaml
from reportgen.errors import ReportError

PATH = Path("tests") / "data" / "hostile" / "cases.yaml"
OUTCOMES = ("refused", "text", "handled")
KEYS = {"id", "class", "outcome", "expect", "field", "payload"}
_NAME = re.compile(r"[A-Za-z0-9_]+")
"""refused: an error naming the file; text: shown as inert text; handled: a fault cleaned up."""

def read(root):
    """The corpus's cases, each a mapping with an id, a class and an outcome: read as the project's
    other data files are (plainfile, safeyaml: a key given twice is refused, not the last one kept,
    which turned a published case into 'refused' on the page), its shape checked, naming the case."""
    path = Path(root) / PATH
    linked = plainfile.linked_folder_problem(path.parent, root, "the hostile corpus")
    if linked:
        raise ReportError(linked)
    try:   # one_name: a hard link is a second name of a file elsewhere
        data = safeyaml.loads(plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES, one_name=True), controls=True)
    except yaml.YAMLError as exc:
        raise ReportError(f"{path}: cannot read the hostile corpus: {safeyaml.describe(exc)}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read the hostile corpus: {type(exc).__name__}: {str(exc)[:200]}") from exc
    cases = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(cases, list):
        raise ReportError(f"{path}: cases: expected a list of cases")
    seen = set()
    for index, case in enumerate(cases):
        if not (isinstance(case, dict) and all(isinstance(case.get(k), str) for k in ("id", "class", "outcome"))):
            raise ReportError(f"{path}: cases[{index}]: expected a mapping with id, class and outcome as text")
        where = f"{path}: cases[{index}]"
        odd = set(case) - KEYS   # "outcome\u200b": published beside outcome: refused read as outcome twice
        hidden = next(filter(None, (plainfile.hidden_text_problem(where, str(text)) for text in
                                    (*case, case["id"], case["class"]))), None)
        if not hidden and not (_NAME.fullmatch(case["id"]) and _NAME.fullmatch(case["class"])):
            hidden = f"{where}: {case['id']!r:.60}: an id and a class are ASCII letters, digits and _"   # a Cyrillic o
        if odd or hidden:
            raise ReportError(hidden or f"{where}: {sorted(map(ascii, odd))[0]:.60}: not a field of a case "
                              f"({', '.join(sorted(KEYS))})")
        key = unicodedata.normalize("NFKC", case["id"]).casefold()
        if case["outcome"] not in OUTCOMES or key in seen:
            raise ReportError(f"{where}: {case['id']!r:.60}: an outcome other than {', '.join(OUTCOMES)}, or an "
                              "id given before")
        seen.add(key)
    return cases


def counts(root):
    """tried / refused / text / handled / published (published: cases with no safe outcome)."""
    cases = read(root)
    by = Counter(c.get("outcome") for c in cases)
    return {"tried": str(len(cases)), **{o: str(by[o]) for o in OUTCOMES},
            "published": str(len(cases) - sum(by[o] for o in OUTCOMES)), "file": PATH.as_posix()}
