"""The hostile corpus (tests/data/hostile/cases.yaml), counted for the credibility page.

The tests run every case of that file and assert its outcome; the page reports the same
file, so the count on the site is the count the test suite enforces.
"""
from collections import Counter
from pathlib import Path

import yaml

from reportgen.errors import ReportError

PATH = Path("tests") / "data" / "hostile" / "cases.yaml"
OUTCOMES = ("refused", "text", "handled")
"""refused: an error naming the file; text: shown as inert text; handled: a fault cleaned up."""

def read(root):
    path = Path(root) / PATH
    try:
        cases = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: cannot read the hostile corpus: {exc}") from exc
    return cases


def counts(root):
    """tried / refused / text / handled / published (published: cases with no safe outcome)."""
    cases = read(root)
    by = Counter(c.get("outcome") for c in cases)
    return {"tried": str(len(cases)), **{o: str(by[o]) for o in OUTCOMES},
            "published": str(len(cases) - sum(by[o] for o in OUTCOMES)), "file": PATH.as_posix()}
