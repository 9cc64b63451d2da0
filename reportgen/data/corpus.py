"""The hostile corpus (tests/data/hostile/cases.yaml), counted for the credibility page.

The tests run every case of that file and assert its outcome; the page reports the same
file, so the count on the site is the count the test suite enforces.
"""
from collections import Counter
from pathlib import Path

import yaml

from reportgen.data import plainfile, safeyaml
from reportgen.errors import ReportError

PATH = Path("tests") / "data" / "hostile" / "cases.yaml"
OUTCOMES = ("refused", "text", "handled")
"""refused: an error naming the file; text: shown as inert text; handled: a fault cleaned up."""

def read(root):
    """The corpus's cases, each a mapping with an id, a class and an outcome: read as the project's
    other data files are (plainfile, safeyaml: a key given twice is refused, not the last one kept,
    which turned a published case into 'refused' on the page), its shape checked, naming the case."""
    path = Path(root) / PATH
    linked = plainfile.linked_folder_problem(path.parent, root, "the hostile corpus")
    if linked:
        raise ReportError(linked)
    try:
        data = safeyaml.loads(plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES))
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
        if case["outcome"] not in OUTCOMES or case["id"] in seen:
            raise ReportError(f"{path}: cases[{index}]: {case['id']!r:.60}: an outcome other than "
                              f"{', '.join(OUTCOMES)}, or an id given before")
        seen.add(case["id"])
    return cases


def counts(root):
    """tried / refused / text / handled / published (published: cases with no safe outcome)."""
    cases = read(root)
    by = Counter(c.get("outcome") for c in cases)
    return {"tried": str(len(cases)), **{o: str(by[o]) for o in OUTCOMES},
            "published": str(len(cases) - sum(by[o] for o in OUTCOMES)), "file": PATH.as_posix()}
