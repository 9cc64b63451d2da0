"""Small builders for valid runs; tests mutate them to make each defect."""
import hashlib
import json
from pathlib import Path

from study import cases, schema, stats

ENV = json.loads((Path(__file__).parent / "data" / "env.json").read_text(encoding="utf-8"))


def record(run_id="20260101T000000Z-quick-f6ab9f827cfd", case_id="numpy_gemm/dtype=float32/n=32/threads=1/blas=configured",
           samples=(0.001, 0.0011, 0.0012), **overrides):
    rec = {
        "schema_version": schema.SCHEMA_VERSION, "id": case_id, "run_id": run_id,
        "experiment": case_id.split("/")[0],
        "case": {"dtype": "float32", "m": 32, "n": 32, "k": 32, "threads": 1, "blas_env": "configured", "seed": 0},
        "metric": "time_per_call", "unit": "s", "samples": list(samples), "warmup": 1,
        "repeat": len(samples), "number": 1, "stats": stats.summarize(samples),
        "check": {"reference": "float64", "max_abs_err": 1e-6, "max_rel_err": 1e-7, "threshold": 1e-5,
                  "passed": True},
        "status": "ok", "error": None,
        "log": {"path": f"runs/{run_id}/logs/numpy_gemm.log", "lines": [1, 2], "sha256": "pending"},
        "fingerprint": "f" * 64, "reused_from": None,
        "extra": {"flops_per_call": 2 * 32 ** 3, "blas_kernel": {"architecture": "Haswell"}},
    }
    if "case" not in overrides:   # the case says what the id says (study.cases.case_problems)
        family, named = cases.fields(case_id)
        for name, value in named.items():
            keys = (name,) + cases.CASE_KEYS.get(name, ()) + cases.SQUARE.get(family, {}).get(name, ())
            for key in keys:
                if key in rec["case"] and value is not True:
                    rec["case"][key] = int(value) if isinstance(rec["case"][key], int) and value.isdigit() else value
            if value is not True and name != "scope" and not any(key in rec["case"] for key in keys):
                rec["case"][keys[-1] if name in cases.CASE_KEYS else name] = int(value) if value.isdigit() else value
        if "extra" not in overrides:   # and its work, 2*m*n*k (study.work)
            rec["extra"]["flops_per_call"] = 2 * rec["case"]["m"] * rec["case"]["n"] * rec["case"]["k"]
    rec.update(overrides)
    if "log" not in overrides:   # a record cites its own family's log
        rec["log"]["path"] = f"runs/{run_id}/logs/{rec['experiment']}.log"
    return rec


def _family_status(records, family):
    """status and exit code as retest writes them: ok and 0, or the family's own failure record's status."""
    failed = [r["status"] for r in records if r["experiment"] == family and r["case"].get("scope") == "family"]
    return {"status": failed[0], "exit_code": 1} if failed else {"status": "ok", "exit_code": 0}


def started_at(run_id):
    """The start time a run id names (its first field, 20260101T000000Z), as run.json writes it."""
    import re
    m = re.match(r"^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z", run_id)
    return f"{m[1]}-{m[2]}-{m[3]}T{m[4]}:{m[5]}:{m[6]}Z" if m else "2026-01-01T00:00:00Z"


def _later(when, seconds):
    import datetime
    t = datetime.datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ") + datetime.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_run(results_dir, run_id, records, profile="quick", log_text="line one\nline two\nline three\n",
              finished_at=None, environment=None, sealed=True):
    """A complete, valid run directory (log sha256 and file hashes filled in); started at the time
    its id names, finished ten minutes later unless ``finished_at`` says otherwise.  In a results
    folder with a list of the runs recorded before the citation rule (a copied project), a run dated
    before it is added to the list, as the commit of such a run would (``sealed=False``: not)."""
    from reportgen.data import archive, runfacts
    from study import citation
    run = Path(results_dir) / "runs" / run_id
    (run / "logs").mkdir(parents=True)
    logs = {}
    for rec in records:
        name = Path(rec["log"]["path"]).name
        path = run / "logs" / name
        if name not in logs:
            path.write_text(log_text, encoding="utf-8")
            logs[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        if rec["log"]["sha256"] == "pending":
            rec["log"]["sha256"] = logs[name]
    with open(run / "records.jsonl", "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(schema.dumps(rec) + "\n")
    manifest = {
        "schema_version": schema.SCHEMA_VERSION, "run_id": run_id, "profile": profile,
        "started_at": started_at(run_id), "finished_at": finished_at or _later(started_at(run_id), 600),
        "command": ["reportgen", "retest"], "git": {"commit": "0" * 40, "dirty": False},
        "environment": dict(environment or ENV),
        # one entry per family, counting its records as retest does (load checks the counts)
        "experiments": {family: {**_family_status(records, family), "duration_s": 1.0,
                                 "log": f"runs/{run_id}/logs/{family}.log",
                                 "records": sum(1 for r in records if r["experiment"] == family),
                                 "reused": sum(1 for r in records if r["experiment"] == family and r["reused_from"])}
                        for family in dict.fromkeys([r["experiment"] for r in records] or ["numpy_gemm"])},
        "files": {p.relative_to(run).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                  for p in sorted(run.rglob("*")) if p.is_file()},
    }
    (run / "run.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    listed = runfacts.sealed_list(results_dir)
    if sealed and listed.is_file() and not citation.bound(run_id):
        with open(listed, "a", encoding="utf-8") as fh:
            fh.write(f"{run_id} {runfacts.manifest_sha256(run)}\n")
        archive.reseal(listed.parent)   # as the commit adding such a run would, deliberately
    return run


def reseal_old_run(run):
    """After a test edits a run dated before the citation rule (in a copied project with the sealed list),
    its line of archive/runs-before-named.txt gives its run.json's new sha256, as a deliberate reseal would."""
    from reportgen.data import archive, runfacts
    listed = runfacts.sealed_list(Path(run).parents[1])
    if not listed.is_file():
        return
    name = Path(run).name
    lines = [f"{name} {runfacts.manifest_sha256(run)}" if line.split()[:1] == [name] else line
             for line in listed.read_text(encoding="utf-8").splitlines()]
    listed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    archive.reseal(listed.parent)


def conv_nhwc_reference(x, w_ohwi, stride, pad):
    """int64 NHWC conv (zero padding) in NumPy: the reference of the integer conv kernels."""
    import numpy as np
    n, h, w, _ = x.shape
    oc, kh, kw, _ = w_ohwi.shape
    top, left, bottom, right = pad
    xp = np.pad(x.astype(np.int64), ((0, 0), (top, bottom), (left, right), (0, 0)))
    oh, ow = (h + top + bottom - kh) // stride + 1, (w + left + right - kw) // stride + 1
    out = np.zeros((n, oh, ow, oc), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride, :]
            out += np.einsum("nhwc,oc->nhwo", patch, w_ohwi[:, i, j, :].astype(np.int64))
    return out


def wait_until(pg, expression, timeout_s=20.0):
    """Poll ``expression`` in the page from Python until it is truthy (AssertionError after ``timeout_s``).
    Playwright's wait_for_function polls by evaluating a string inside the page, which the site's
    content policy (script-src 'self', no eval) refuses whenever the first check is false."""
    import time
    deadline = time.monotonic() + timeout_s
    while not pg.evaluate(expression):
        assert time.monotonic() < deadline, f"not true after {timeout_s} s: {expression}"
        pg.wait_for_timeout(100)
