"""Machines are first-class: ids from the hardware, one publication machine per site, a
cross-machine page, reuse that follows the real import closure."""
import copy
import datetime
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import copy_project

from helpers import ENV, record, write_run
from study import asm, identity
from study import stats as study_stats
from reportgen.data import load, merge
from reportgen.commands import retest
from reportgen.errors import ReportError

ROOT = Path(__file__).resolve().parents[1]
# a Zen 5 desktop part (family 26 model 68): not the Zen 5 server VM (26/2) whose runs are committed
ZEN5 = {"cpu_family_model": "26/68", "simd_flags": ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw",
                                                     "avx512vl", "avx512_vnni", "avx512_bf16", "avx_vnni"],
        "tvm_target": {"kind": "llvm", "mcpu": "znver5"}}


def test_machine_id_follows_the_hardware_not_the_uuid():
    base = dict(ENV)
    assert identity.machine_id(dict(base, machine_uuid="another-vm")) == identity.machine_id(base)
    assert identity.machine_id(dict(base, memory_bytes=base["memory_bytes"] + 2**20)) == identity.machine_id(base)
    for key, value in (("cpu_family_model", "26/2"), ("simd_flags", ["avx2"]), ("logical_cores", 64),
                       ("memory_bytes", base["memory_bytes"] * 4)):
        assert identity.machine_id(dict(base, **{key: value})) != identity.machine_id(base), key


@pytest.mark.parametrize("flags, level", [(["avx2", "fma"], "avx2"), (["avx2", "fma", "avx_vnni"], "avx2-vnni"),
                                          (["avx2", "fma", "avx512f"], "avx512"),
                                          (["avx512f", "avx512_vnni"], "avx512-vnni"), (["sse4_2"], "sse")])
def test_isa_level(flags, level):
    assert identity.isa_level({"simd_flags": flags}) == level


@pytest.mark.parametrize("extra, isa", [({"blas_kernel": {"architecture": "Haswell"}}, "avx2"),
                                        ({"blas_kernel": {"architecture": "SkylakeX"}}, "avx512"),
                                        ({"vector_fma_instructions": {"vfmadd231pd zmm": 4}}, "avx512"),
                                        ({"codegen": {"fma_packed": {"xmm": 0, "ymm": 3, "zmm": 0}}}, "avx2"),
                                        ({"isa": "avx512"}, "avx512"), ({}, None)])
def test_kernel_isa(extra, isa):
    assert identity.kernel_isa(extra) == isa


def _write(tmp_path, run_id, env, profile, n=32, finished="2026-01-01T00:10:00Z"):
    """A run of machine ``env``: its id ``run_id`` (time and profile) ends in that machine's id."""
    env = dict(env, machine_id=identity.machine_id(env))
    run_id = f"{run_id}-{env['machine_id']}"
    rec = record(run_id=run_id, case_id=f"numpy_gemm/dtype=float32/n={n}/threads=1/blas=configured")
    write_run(tmp_path, run_id, [rec], profile=profile, finished_at=finished)
    manifest_path = tmp_path / "runs" / run_id / "run.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["environment"] = env
    manifest_path.write_text(json.dumps(manifest))
    return run_id


def test_publication_machine_default_rule_and_quick_runs(tmp_path):
    zen5 = dict(ENV, **ZEN5)
    standard = _write(tmp_path, "20260101T000000Z-standard", ENV, "standard")
    _write(tmp_path, "20260102T000000Z-quick", zen5, "quick", finished="2026-01-02T00:10:00Z")
    _write(tmp_path, "20260102T010000Z-quick", zen5, "quick", n=64, finished="2026-01-02T01:10:00Z")
    runs = load.read_runs(tmp_path)
    machine, reason = merge.publication_machine(runs)
    # the newer machine has more cases, but only quick ones: the standard machine is published
    assert machine == identity.machine_id(ENV) and "default rule" in reason
    assert [r.run_id for r in merge.runs_of(runs, machine)] == [standard]
    other = identity.machine_id(zen5)
    assert merge.publication_machine(runs, other[:6]) == (other, "chosen with --machine")
    assert len(merge.runs_of(runs, other)) == 2   # a quick-only machine publishes its smoke tests
    with pytest.raises(ReportError, match="--machine: 'zz' matches no"):
        merge.publication_machine(runs, "zz")


def test_a_quick_run_never_displaces_standard_records_of_its_machine(tmp_path):
    _write(tmp_path, "20260101T000000Z-standard", ENV, "standard")
    _write(tmp_path, "20260102T000000Z-quick", ENV, "quick", n=64, finished="2026-01-02T00:10:00Z")
    runs = load.read_runs(tmp_path)
    current = merge.current_records(merge.runs_of(runs, identity.machine_id(ENV)))
    assert sorted(current) == ["numpy_gemm/dtype=float32/n=32/threads=1/blas=configured"]


def test_fingerprint_follows_the_import_closure():
    families = retest.read_profile(ROOT, "standard")
    files = retest.code_files(ROOT, families["e2e"])
    # e2e imports gemm/tvm_ladder.py through e2e/tuning.py: the hand-written lists had missed it
    assert "experiments/gemm/tvm_ladder.py" in files and "experiments/e2e/tuning.py" in files
    assert "experiments/kernels/fma_peak.c" in retest.code_files(ROOT, families["machine_peak"])
    assert "experiments/int8/quantize.py" in retest.code_files(ROOT, families["int8"])


def test_code_hash_changes_with_a_transitive_import(project):
    family = retest.read_profile(project, "standard")["e2e"]
    before = retest.code_hash(project, family)
    path = project / "experiments" / "gemm" / "tvm_ladder.py"
    path.write_text(path.read_text() + "\n# touched\n")
    assert retest.code_hash(project, family) != before


def _name_cited_lines(results, recs):
    """What today's harness does for a run dated after study.citation.NAMED_FROM: a record whose cited
    lines do not end with its summary or do not agree with it, cites its summary line appended to its
    log (the committed run copied here predates the rule)."""
    from study import citation
    touched = set()
    for rec in recs:
        log = results / rec["log"]["path"]
        lines = log.read_bytes().split(b"\n")
        first, last = rec["log"]["lines"]
        cited = b"\n".join(lines[first - 1:last]).decode("utf-8", "replace")
        timed = rec["status"] == "ok" and rec["samples"]
        if rec["reused_from"] is not None:
            continue
        if not (citation.statement_problems(rec, cited.split("\n"))
                or citation.summary_problem(rec, cited.split("\n")[-1])):
            continue
        said = citation.summary(rec["id"], rec["status"], rec["samples"],   # the new range is this line alone
                                rec["stats"]["p50"] if timed else None)
        with open(log, "ab") as fh:
            fh.write(f"[{rec['experiment']}] {said}\n".encode())
        rec["log"]["lines"] = [len(lines), len(lines)]   # the file ended with "\n": its last line is new
        touched.add(rec["log"]["path"])
    for rec in recs:
        if rec["log"]["path"] in touched:
            rec["log"]["sha256"] = hashlib.sha256((results / rec["log"]["path"]).read_bytes()).hexdigest()


def clone_run_as_machine(results, run_id, new_id, env_changes):
    """A copy of a committed run as if measured on another machine (ids, paths and hashes rewritten)."""
    src, dest = results / "runs" / run_id, results / "runs" / new_id
    shutil.copytree(src, dest)
    recs = []
    for line in (dest / "records.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec["run_id"] = new_id
        rec["log"]["path"] = rec["log"]["path"].replace(run_id, new_id)
        if rec.get("samples") and rec["reused_from"] is None:   # another machine's own timings, not a copy
            rec["samples"] = [x * 1.001 for x in rec["samples"]]
            rec["stats"] = study_stats.summarize(rec["samples"])
        # every file the record names (artifacts, its search's database) is the clone's own
        rec["extra"] = json.loads(json.dumps(rec["extra"]).replace(f"runs/{run_id}/", f"runs/{new_id}/"))
        if isinstance(rec["extra"].get("codegen"), dict) and "isa" not in rec["extra"]:   # as runs write it today
            rec["extra"]["isa"] = asm.fma_isa(rec["extra"]["codegen"].get("fma_packed"))
        recs.append(rec)
    _name_cited_lines(results, recs)
    lines = [json.dumps(rec, sort_keys=True) for rec in recs]
    (dest / "records.jsonl").write_text("\n".join(lines) + "\n")
    manifest = json.loads((dest / "run.json").read_text())
    manifest["run_id"] = new_id
    for entry in manifest["experiments"].values():   # each family's log of this run, as retest names it
        entry["log"] = entry["log"].replace(run_id, new_id)
    took = (datetime.datetime.fromisoformat(manifest["finished_at"].replace("Z", "+00:00"))
            - datetime.datetime.fromisoformat(manifest["started_at"].replace("Z", "+00:00")))
    manifest["started_at"] = CLONE_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")   # as long as the run it copies
    manifest["finished_at"] = (CLONE_TIME + took).strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest["environment"].update(copy.deepcopy(env_changes))
    manifest["environment"]["machine_id"] = identity.machine_id(manifest["environment"])
    manifest["files"] = {str(p.relative_to(dest)): hashlib.sha256(p.read_bytes()).hexdigest()
                         for p in sorted(dest.rglob("*")) if p.is_file() and p.name != "run.json"}
    (dest / "run.json").write_text(json.dumps(manifest, indent=1))
    return identity.machine_id(manifest["environment"])


GEMM_RUN = "20261129T171403Z-standard-f6ab9f827cfd"
# the clone is the newest run, but not in the future (load refuses a run dated, or finished, later than now
# plus schema.FUTURE_SLACK_S): it keeps the kernel run's 20 minutes, so it starts an hour ago
CLONE_TIME = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(hours=1)
CLONE_ENV = json.loads((ROOT / "results" / "runs" / GEMM_RUN / "run.json").read_text())["environment"]
CLONE_RUN = f"{CLONE_TIME:%Y%m%dT%H%M%SZ}-standard-{identity.machine_id(dict(CLONE_ENV, **ZEN5))}"


@pytest.fixture(scope="module")
def two_machines(tmp_path_factory):
    """The committed results plus the kernel run cloned as a second (Zen 5) machine, built twice."""
    from reportgen.commands import build
    dest = tmp_path_factory.mktemp("machines") / "project"
    copy_project(dest)
    for extra in (dest / "results" / "runs").iterdir():   # keep only committed runs
        if "-quick-" in extra.name:
            shutil.rmtree(extra)
    other = clone_run_as_machine(dest / "results", GEMM_RUN, CLONE_RUN, ZEN5)
    build.build(dest, dest / "site")
    build.build(dest, dest / "site-other", machine=other)
    return dest, other


def _numbers(site):
    return json.loads((site / "numbers.json").read_text())


def test_default_site_is_one_machine_and_the_machines_page_shows_both(two_machines):
    dest, other = two_machines
    site = dest / "site"
    chosen = json.loads((site / "machine.json").read_text())
    assert chosen["publication_machine"] != other and other in chosen["machines"]
    numbers = _numbers(site)
    current = [e for e in numbers if e["kind"] == "current"]
    assert current and all(e["machine"] for e in current)
    topics = [e for e in current if e["page"] != "machines.md"]
    assert {e["machine"] for e in topics if not _labelled(e)} == {chosen["publication_machine"]}
    _borrowed_are_said(site, topics, chosen["publication_machine"])
    on_machines = {e["machine"] for e in current if e["page"] == "machines.md"}
    assert {chosen["publication_machine"], other} <= on_machines <= set(chosen["machines"])
    html = (site / "machines.html").read_text()
    assert "znver5" in html and "znver3" in html and "跨越两台机器" in html
    assert (site / f"provenance/machine-{other}.html").exists()
    topic = (site / "gemm.html").read_text()
    assert f"另有 {len(chosen['machines']) - 1} 台机器的复测" in topic and "machines.html" in topic


def _labelled(entry):
    """A topic figure of another machine than the publication machine, its machine in its id."""
    return entry["id"].startswith(f"{entry['machine']}/")


def _borrowed_are_said(site, topics, publication):
    """Figures of another machine on a topic page (the rule sections of e2e.md and int8.md, when
    only another machine measured them): each labelled with its machine, linked to that machine's provenance page,
    and the page says which machine above them."""
    for e in topics:
        if e["machine"] == publication:
            continue
        # the two rule sections, and the home page's answers that quote them
        assert _labelled(e) and e["page"] in ("e2e.md", "int8.md", "index.md"), e["id"]
        assert e["provenance"] == f"provenance/machine-{e['machine']}.md"
        page = (site / e["page"].replace(".md", ".html")).read_text(encoding="utf-8")
        said = "这一节的数字来自机器" if e["page"] != "index.md" else "（机器"
        assert f"{said} <code>{e['machine']}</code>" in page
        assert (site / f"provenance/machine-{e['machine']}.html").exists()


def test_build_for_the_other_machine(two_machines):
    dest, other = two_machines
    site = dest / "site-other"
    assert json.loads((site / "machine.json").read_text())["publication_machine"] == other
    topics = [e for e in _numbers(site) if e["kind"] == "current" and e["page"] != "machines.md"]
    _borrowed_are_said(site, topics, other)
    current = [e for e in topics if not _labelled(e)]
    assert current and {e["machine"] for e in current} == {other}
    assert {e["run"] for e in current} == {CLONE_RUN}
    env_page = (site / "environment.html").read_text()
    assert "znver5" in env_page and "znver3" not in env_page
    # the §23 blocking conclusion's explanation reads the FMA registers from the blocking stage's own
    # assembly (this run: Zen 3, AVX2): the words name what the record counted, not a fixed "ymm"
    blocking = next(json.loads(line) for line in (dest / "results" / "runs" / GEMM_RUN / "records.jsonl").open()
                    if "/stage=blocking/" in line and "/impl=tvm/" in line and '"threads": 2' in line and "m=1024/n=1024/k=1024" in line)
    packed = {reg: n for reg, n in blocking["extra"]["codegen"]["fma_packed"].items() if n}
    ladder = (site / "gemm-ladder.html").read_text()
    # (on this run blocking gained more than the later steps, so the contradicting branch explains it)
    assert packed and f"已有 {sum(packed.values())} 条 {'、'.join(sorted(packed))} 向量 FMA" in ladder
    # the §23 stage table counts the vector FMAs of every register width the stage used
    assert "向量 FMA 指令（按寄存器）" in ladder
    # the e2e page of a machine without e2e records says so and keeps its anchors for other pages' links
    e2e = (site / "e2e.html").read_text()
    assert "待复测" in e2e and 'id="retest"' in e2e


def test_verify_refuses_a_topic_figure_of_another_machine(two_machines):
    from reportgen.publish import verify
    dest, other = two_machines
    site = dest / "site"
    numbers = _numbers(site)
    victim = next(e for e in numbers if e["kind"] == "current" and e["page"] == "gemm.md")
    victim["machine"] = other
    broken = dest / "site-broken"
    shutil.copytree(site, broken)
    (broken / "numbers.json").write_text(json.dumps(numbers))
    with pytest.raises(ReportError, match="is not the publication machine"):
        verify.verify(dest, broken)


def test_trace_resolves_machine_ids_and_refuses_an_ambiguous_one(two_machines):
    from reportgen.commands import trace
    dest, other = two_machines
    rec = json.loads((dest / "results" / "runs" / GEMM_RUN / "records.jsonl").open().readline())
    original = identity.machine_id(json.loads((dest / "results" / "runs" / GEMM_RUN / "run.json").read_text())["environment"])
    # the same record id on the original machine and on its clone: no silent choice
    with pytest.raises(ReportError) as err:
        trace.trace(dest, rec["id"], dest / "site-none")
    assert "machines:" in str(err.value) and other in str(err.value) and original in str(err.value)
    assert f"run      {CLONE_RUN}" in trace.trace(dest, rec["id"], machine=other[:8])
    out = trace.trace(dest, f"{original}/{rec['id']}#p50_ms")
    assert f"record   {rec['id']}" in out and CLONE_RUN.split("-")[0] not in out   # the original's run, not the clone's
    # every machine-prefixed figure of the machines page traces
    for entry in _numbers(dest / "site"):
        if entry["page"] == "machines.md" and entry["kind"] == "current":
            assert f"record   {entry['record']}" in trace.trace(dest, entry["id"], dest / "site")
