"""The fifty-second round of the hostile corpus (issue #29).

Data set (6 of 9 failed): round 51 made an operator profile's row labels claims, but not the shapes of
ORT's nodes the per-convolution tables match kernels by (two nodes' shapes swapped made TVM 15.66x
slower on the stem), nor did anything type those shapes' dimensions (a 'x' stopped the build); a rule
record's vector lanes were untyped (a 0 divided by zero); a GEMM search's failures by category were its
word (61 numeric failures beside a log of 128 valid trials) and untyped; an operator profile's order
named its bottleneck (the rows reversed named a 3 % kernel).

Site set (4 of 14 failed): round 51's reference decoder read 8 digits where a browser reads all
('&#x000000008;' a backspace); '&#{{ n }};' made a reference of a placeholder's bare number after
every check of the source; a mkdocs.yml title's YAML escapes put controls in every page's navigation;
retest --rpc-tracker at a port that accepts and never answers waited forever with nothing printed.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import copy
import json
from pathlib import Path

from conftest import ROOT
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("profile_shapes", "profile_shape_types", "rule_lanes", "gemm_search_failures",
                                   "gemm_failures_types", "profile_order", "padded_reference", "assembled_reference",
                                   "config_escaped_controls", "tracker_silent")}


def _committed(run, test):
    for line in (ROOT / "results" / "runs" / run / "records.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if test(rec):
            return rec
    raise AssertionError(f"no such record in {run}")


def test_a_node_s_shapes_are_claims():
    from reportgen.data import claims
    rows = [{"node": "stem", "op": "Conv", "inputs": [[1, 3, 224, 224], [64, 3, 7, 7]], "outputs": [[1, 64, 112, 112]],
             "seconds": 5e-4},
            {"node": "c62", "op": "Conv", "inputs": [[1, 64, 28, 28], [128, 64, 1, 1]], "outputs": [[1, 128, 28, 28]],
             "seconds": 4e-5}]
    rec = {"id": "e2e/model=m/size=224/engine=ort/batch=1/threads=2", "case": {}, "extra": {"node_profile": rows}}
    swapped = copy.deepcopy(rows)
    for key in ("inputs", "outputs"):
        swapped[0][key], swapped[1][key] = swapped[1][key], swapped[0][key]
    moved = claims.jump(rec, dict(rec, extra={"node_profile": swapped}), 2.0)
    assert moved and "node_profile.#rows" in moved[1] and _expect("profile_shapes") in moved[1]


def test_profile_shapes_and_rule_lanes_are_typed():
    from study import work
    extra = {"node_profile": [{"node": "c", "op": "Conv", "seconds": 1e-4, "inputs": [[1, 64, 28, 28], ["x", 64, 1, 1]],
                               "outputs": [[1, 128, 28, 28]]}]}
    said = work._nested_problems(extra)
    assert said and said[0].startswith("extra.node_profile[0].inputs:") and _expect("profile_shape_types") in said[0]
    for rules in ({"lanes": "x"}, {"lanes": 0}, {"kernels": {"k": {"ic_lanes": "x"}}}):
        said = work._nested_problems({"rules": rules})
        assert said and _expect("rule_lanes") in said[0]
    assert work._nested_problems({"rules": {"lanes": 16, "kernels": {"k": {"ic_lanes": 16}}}}) == []


def test_a_gemm_search_s_failures_are_its_trial_log_s():
    from reportgen.data import searchfacts
    run = "20261129T171403Z-standard-f6ab9f827cfd"
    rec = _committed(run, lambda r: r["id"] == "gemm_tvm/impl=tvm/stage=autotuned/m=1024/n=1024/k=1024/threads=2")
    results = Path(ROOT / "results")
    assert searchfacts._search_problems(results, rec, rec["extra"]) == []
    forged = copy.deepcopy(rec)
    forged["extra"]["failures"]["numeric_check_failed"] = 61
    said = searchfacts._search_problems(results, forged, forged["extra"])
    assert said and said[0].startswith("failures:") and _expect("gemm_search_failures") in said[0]


def test_a_search_s_failures_are_counts_by_name():
    from study import work
    for failures in ({"timeout": "many"}, {"<b>": 1}):
        said = [p for p in work._nested_problems({"failures": failures}) if p]
        assert said and said[0].startswith(_expect("gemm_failures_types"))
    assert work.EXTRA_TYPES["failures"] == (dict,)   # ["timeout"] stopped the tuning table (AttributeError)


def test_an_operator_profile_is_ordered_slowest_first():
    from study import work
    rows = [{"op": f"k{i}", "kind": "kernel", "calls": 1, "seconds": s} for i, s in enumerate((3e-3, 2e-3, 1e-3))]
    assert work._profile_total_problems({"op_profile": rows, "op_profile_total_s": 1e-2}) == []
    said = work._profile_total_problems({"op_profile": rows[::-1], "op_profile_total_s": 1e-2})
    assert said and said[0].startswith("extra.op_profile:") and _expect("profile_order") in said[0]


def test_a_zero_padded_reference_is_read_as_a_browser_reads_it():
    from reportgen.data import plainfile
    for text in ("rm safe&#x000000008; evil", "&#00000000008;", "&#x0000000007f;"):
        said = plainfile.shown_controls_problem("docs/x.md", text)
        assert said and said.startswith("docs/x.md (character references decoded):1:"), text
    assert _expect("padded_reference") in plainfile.shown_controls_problem("docs/x.md", "&#x000000008;")
    assert plainfile.references_decoded("&#x" + "0" * 5000 + "41;&#" + "9" * 5000 + ";") == "A\ufffd"


def test_a_reference_a_placeholder_completes_is_read_as_rendered():
    from reportgen.data import plainfile
    from reportgen.publish import sandbox
    env = sandbox.sandbox()
    text = sandbox.render(env, env.parse("rm safe&#{{ n }}; evil"), {"n": "8"}, "docs/x.md")
    said = plainfile.shown_controls_problem("docs/x.md as rendered", text)
    assert said and _expect("assembled_reference") in said
    assert "shown_controls_problem(f\"docs/{page.file.src_uri} as rendered\", text)" in (
        ROOT / "reportgen" / "publish" / "plugin.py").read_text(encoding="utf-8")   # the build reads the page so


def test_mkdocs_yml_escapes_for_controls_are_refused(tmp_path):
    import pytest
    from reportgen.commands import build
    from reportgen.errors import ReportError
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    first, rest = config.split("\n", 1)
    assert first.startswith("site_name:")
    (tmp_path / "mkdocs.yml").write_text('site_name: "TVM\\b\\b\\x7f"\n' + rest, encoding="utf-8")
    with pytest.raises(ReportError) as err:
        build._config_problems(tmp_path)
    assert _expect("config_escaped_controls") in str(err.value)


def test_a_tracker_that_never_answers_is_reported_in_bounded_time():
    import socket
    import threading
    from experiments import remote
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    kept = []
    threading.Thread(target=lambda: kept.append(listener.accept()), daemon=True).start()
    try:
        remote.free_servers(f"127.0.0.1:{listener.getsockname()[1]}", "k", timeout_s=1)
    except remote.RemoteError as exc:
        assert _expect("tracker_silent") in str(exc)
    else:
        raise AssertionError("a silent tracker was taken for one")
    finally:
        listener.close()
