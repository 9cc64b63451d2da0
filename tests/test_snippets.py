"""The current equivalents of the seed's code (docs/snippets/*.py) run on today's TVM and print what
their closing comment promises; the pages include these very files (reportgen.pages.writeup.current_code)."""
import subprocess
import sys

import pytest
from conftest import ROOT

from reportgen.data import seed

SNIPPETS = sorted((ROOT / "docs" / "snippets").glob("*.py"))
MARKER = "# 期望输出（tests/test_snippets.py 逐行核对）："


def expected_lines(path):
    text = path.read_text(encoding="utf-8")
    assert MARKER in text, f"{path.name}: no expected-output block"
    tail = text.split(MARKER, 1)[1].strip().splitlines()
    return [line.removeprefix("# ").rstrip() for line in tail if line.startswith("# ")]


@pytest.mark.slow  # each snippet is a fresh process that imports TVM and most compile a module
@pytest.mark.parametrize("path", SNIPPETS, ids=[p.stem for p in SNIPPETS])
def test_snippet_runs_and_prints_what_it_promises(path):
    assert path.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").startswith(seed.LABELS)
    proc = subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"TVM_NUM_THREADS": "1", "PATH": "/usr/bin:/bin", "HOME": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    missing = [line for line in expected_lines(path) if line not in proc.stdout]
    assert missing == [], proc.stdout[-3000:]


def test_every_old_code_block_has_a_snippet_file():
    content = seed.read_content_map(ROOT / "archive")
    code = {s["id"] for s in seed.read_code(ROOT / "archive")["snippets"]}
    mapped = {p["snippet"]: p["today"] for p in content["passages"] if p["kind"] == "code" and "dropped" not in p}
    assert set(mapped) == code
    assert all((ROOT / rel).is_file() for rel in mapped.values())
    assert {ROOT / rel for rel in mapped.values()} == set(SNIPPETS)
