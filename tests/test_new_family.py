"""The README's "Adding a family" recipe, followed to the letter in a copy of the project.

A family is one experiments module, one page template and one page module, plus its params in the
three profiles and its line in mkdocs.yml's nav.  This test writes exactly those (nothing else of
the project is touched), retests the new family alone and builds the site: the page shows the
measured figure, linked to the record's provenance entry.  Commands run as subprocesses from the
copy, so the copy's own code (its new modules included) is what runs.
"""
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

MODULE = '''\
"""A toy family for the recipe test: the sum of a vector, checked against math.fsum."""
import math

import numpy as np

from experiments import harness, targets
from study.family import Family

FAMILY = Family(name="vecsum", timeout_s={"quick": 300, "standard": 300, "full": 300})


def run(h):
    p = h.params
    for n in p["sizes"]:
        x = np.random.default_rng(p["seed"]).uniform(-1, 1, n)
        case = {"n": n, "threads": targets.threads(p), "seed": p["seed"]}

        def check(_):
            exact = math.fsum(x)
            err = abs(float(np.sum(x)) - exact)
            return {"reference": "math.fsum", "max_abs_err": err, "max_rel_err": err / abs(exact),
                    "threshold": 1e-9, "passed": err <= 1e-9}

        h.measure(f"vecsum/n={n}", case, check=check, call=lambda _: lambda: np.sum(x),
                  extra={"flops_per_call": n})


if __name__ == "__main__":
    harness.main(run)
'''

PAGE_MODULE = '''\
"""The vecsum page: one row per size, the median linked to its record."""
from reportgen.data import merge
from reportgen.render.markdown import markdown, ms_cell


def vecsum_table(book, current):
    rows = [[str(cur.record["case"]["n"]), ms_cell(book, cur, "p50", "p50_ms")]
            for cur in merge.family(current, "vecsum").values()]
    return markdown(["n", "p50"], rows)


def names(site):
    return {"vecsum_table": lambda: vecsum_table(site.book, site.data.current)}
'''

TEMPLATE = """\
# 向量求和

每个长度先与 `math.fsum` 比对，再计时：

{{ vecsum_table() }}
"""

PARAMS = {"sizes": [1000, 100000], "seed": 0, "warmup": 1, "repeat": 5, "min_repeat": 3,
          "min_sample_s": 0.001, "budget_s": 1}


def _run(root, *args):
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-m", "reportgen.cli", *args], cwd=root, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + out.stderr


@pytest.mark.slow   # a real retest of the new family, then a whole site build
def test_a_new_family_is_a_module_a_template_and_a_page_module(project):
    root = project
    # 1. the family module
    (root / "experiments" / "vecsum.py").write_text(MODULE, encoding="utf-8")
    # 2. its params in each profile (text appended under `families:`, the files' comments kept)
    for profile in ("quick", "standard", "full"):
        path = root / "experiments" / "configs" / f"{profile}.yaml"
        assert yaml.safe_load(path.read_text(encoding="utf-8"))["families"]   # the section the entry joins
        path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n"
                        + f"  vecsum: {json.dumps(PARAMS)}\n",   # JSON is YAML's flow style
                        encoding="utf-8")
    # 3. the page template and its nav line
    (root / "docs" / "vecsum.md").write_text(TEMPLATE, encoding="utf-8")
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    (root / "mkdocs.yml").write_text(config.replace("\nnav:\n", "\nnav:\n  - 向量求和: vecsum.md\n", 1), encoding="utf-8")
    # 4. the page module, found by the page registry by itself
    (root / "reportgen" / "pages" / "vecsum.py").write_text(PAGE_MODULE, encoding="utf-8")

    _run(root, "retest", "--profile", "standard", "--only", "vecsum")
    run_dir = max((root / "results" / "runs").glob("*-standard-*"), key=lambda p: p.stat().st_mtime)
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert [(r["id"], r["status"]) for r in records] == [("vecsum/n=1000", "ok"), ("vecsum/n=100000", "ok")]
    machine = json.loads((run_dir / "run.json").read_text())["run_id"].rsplit("-", 1)[1]

    _run(root, "build", "--machine", machine)
    page = (root / "site" / "vecsum.html").read_text(encoding="utf-8")
    numbers = [e for e in json.loads((root / "site" / "numbers.json").read_text()) if e["page"] == "vecsum.md"]
    assert sorted(e["record"] for e in numbers) == ["vecsum/n=1000", "vecsum/n=100000"]
    assert all(e["machine"] == machine and e["run"] == run_dir.name for e in numbers)
    links = re.findall(r'<a class="num cur"[^>]* href="([^"]+)"', page)
    assert len(links) == 2 and all("provenance/vecsum" in href for href in links)
    assert (root / "site" / "provenance" / "vecsum.html").is_file()
