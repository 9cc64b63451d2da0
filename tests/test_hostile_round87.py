"""The eighty-seventh round of the hostile corpus (issue #29): attack only, then fixed.

Site set, 10 probes, 6 failed (two weak): a lone '\\r' in a docs/snippets file (or a YAML "\\r" in an archive
snippet or checklist text) ended its code block or table row, and what followed was published as live Markdown (a
heading, a typed figure, an outside link); the checklist row wrote archive words as Markdown; a snippet's 'today' of
'' stopped migration.md blamed on the page; a lone surrogate in a mkdocs.yml title stopped MkDocs naming an offset;
a --site-dir named like a build's lock (.X.lock) stopped every build of X; C0 controls in a snippet file were named
only on the rendered page.

Data set, 11 probes, 6 failed: texts the pages print that no level held or of odd kinds printed as Python text (the
search's cost model, the engine and version a scheme ran in the parity table, a migration row's old API), and the
INT8 hottest kernel's name, which the assembly it cites did not hold.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import types

import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("yaml_line_breaks_refused", "title_no_control_or_unassigned", "snippet_file_plain_code",
                                   "code_today_a_page_link", "checklist_row_text", "site_dir_not_a_lock",
                                   "engine_fields_typed_tied", "cost_model_label", "old_api_its_case",
                                   "hottest_kernel_its_assembly", "printed_text_level_87")}


@pytest.mark.parametrize("text", ['a: "x\\ry"', 'a: "x\\u2028y"', 'a: ["\\x85"]', '"k\\r": 1', 'a: "\\ud800"'])
def test_a_yaml_value_breaks_lines_with_lf_only(text):
    from reportgen.data import safeyaml
    for read in (safeyaml.loads, safeyaml.compose):   # compose: how the build walks mkdocs.yml
        with pytest.raises(safeyaml.Refused) as refused:
            read(text)
        assert str(refused.value).startswith("line 1: ") and (_expect("yaml_line_breaks_refused") in str(refused.value)
                                                             or "surrogate" in str(refused.value))
    assert safeyaml.loads('a: "x\\ny"') == {"a": "x\ny"}


@pytest.mark.parametrize("title", ["\u53c2\u8003\ud800", "\u53c2\u8003\r\u8d44\u6599", "GEMM \u57fa\u7ebf\u200b",
                                   "GEMM\ue000", "GEMM\u1cff"])
def test_a_title_holds_no_control_or_unassigned_character(title):
    from reportgen.publish import configcheck
    assert _expect("title_no_control_or_unassigned") in configcheck.title_problem(title)


@pytest.mark.parametrize("body", ["x = 1\r\r## h\r", "x = 1\r\n", "x = 1\x08\n", "x = 1\u2028\n"])
def test_a_snippet_file_is_plain_code_named_by_its_file(body, tmp_path):
    from reportgen.data import seed
    from reportgen.errors import ReportError
    (tmp_path / "docs" / "snippets").mkdir(parents=True)
    (tmp_path / "docs" / "snippets" / "x.py").write_bytes(("# \u5f53\u524d\n" + body).encode())
    with pytest.raises(ReportError) as refused:
        seed.snippet_file(tmp_path, "docs/snippets/x.py")
    said = str(refused.value)
    assert said.startswith("docs/snippets/x.py:") and any(w in said for w in (_expect("snippet_file_plain_code"), "invisible"))


@pytest.mark.parametrize("today", ["", "#inspect", 'method.md#x" title="y', "../../etc/passwd"])
def test_a_code_snippets_today_is_a_page_link(today, tmp_path):
    import shutil
    from conftest import ROOT
    from reportgen.data import safeyaml, seed
    from reportgen.errors import ReportError
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    path = tmp_path / "archive" / "code.yaml"
    data = safeyaml.loads(path.read_text(encoding="utf-8"))
    data["snippets"][0]["today"] = today
    import yaml
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_code(tmp_path / "archive")
    assert "snippets[0].today" in str(refused.value) and _expect("code_today_a_page_link") in str(refused.value)


def test_a_checklist_rows_archive_words_are_text():
    import markdown
    from reportgen.publish import coveragepage
    item = {"id": "x", "article": "*a* [x](https://evil.example/)", "content": "*\u5b89\u88c5* [d](https://evil.example/x) <b>b</b> | c",
            "seed_sections": ["1 **2**"], "page": "method.md", "anchor": "install"}
    result = types.SimpleNamespace(item=item, covered=True, reasons=[])
    text = coveragepage.coverage_markdown([result], {}, [], {})
    html = markdown.markdown(text, extensions=["tables"])
    assert "evil.example" not in html.replace("https://evil.example/", "") or "<a href=\"https://evil" not in html
    assert "<em>" not in html and "<strong>" not in html and "<b>" not in html and "<a " not in html, html
    assert _expect("checklist_row_text") in html   # the words shown as written


@pytest.mark.parametrize("page,anchor", [("method.md", "a b"), ("../x.md", "a"), ("method.md#x", "a"), ("m", "a")])
def test_a_checklist_items_page_and_anchor_are_a_link(page, anchor, tmp_path):
    import shutil
    import yaml
    from conftest import ROOT
    from reportgen.data import safeyaml, seed
    from reportgen.errors import ReportError
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    path = tmp_path / "archive" / "coverage.yaml"
    data = safeyaml.loads(path.read_text(encoding="utf-8"))
    data["items"][0].update(page=page, anchor=anchor)
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_items(tmp_path / "archive")
    assert "items[0].page/anchor" in str(refused.value)


def test_a_site_dir_is_not_named_as_a_lock(tmp_path):
    from conftest import copy_project
    from reportgen.commands import build
    from reportgen.errors import ReportError
    project = copy_project(tmp_path / "project")
    with pytest.raises(ReportError) as refused:
        build.check_site_dir(project, tmp_path / ".out.lock")
    assert _expect("site_dir_not_a_lock") in str(refused.value)


# Data set

ORT = {"engine": "onnxruntime", "graph_optimization": "ORT_ENABLE_ALL", "providers": ["CPUExecutionProvider"],
       "threads": 2, "version": "1.32.0"}


@pytest.mark.parametrize("engine,case_engine,refused", [
    (ORT, "ort", False), ({**ORT, "engine": "OpenVINO"}, "ort", True), ({**ORT, "engine": [1]}, "ort", True),
    ({**ORT, "version": {"a": None}}, "ort", True), ({**ORT, "inter_op_threads": [2]}, "ort", True),
    ({**ORT, "threads": 0}, "ort", True), ({**ORT, "version": ""}, "ort", True), ("onnxruntime", "ort", True),
    ({"engine": "tvm", "version": "0.27.0.post1", "threads": 2}, "tvm_c", False),
    ({"engine": "tvm", "version": "0.30.0", "threads": 2}, "tvm_c", True),
    ({"engine": "tensorflow", "version": "2.21.0", "threads": 2, "jit_compile": False}, "tf", False),
    ({"engine": "tensorflow", "version": "2.21.0", "threads": 2}, "tflite", True)])
def test_an_engines_fields_are_typed_and_its_cases(engine, case_engine, refused):
    from study import enginefields
    rec = {"experiment": "e2e", "case": {"engine": case_engine}, "extra": {"engine": engine}}
    said = enginefields.problems(rec, {"tvm_version": "0.27.0.post1"})
    assert bool(said) == refused, said
    assert not refused or said[0].startswith("extra.engine") and _expect("engine_fields_typed_tied") in said[0]


@pytest.mark.parametrize("value,refused", [("xgb", False), ("random", False), ("random (no cost model)", True),
                                           ([1], True), ({"a": None}, True), (None, True)])
def test_a_cost_model_is_one_metaschedule_names(value, refused):
    from study import work
    said = [p for p in work.extra_problems({"experiment": "gemm_tvm", "status": "ok", "case": {}, "samples": [],
                                            "extra": {"cost_model": value}}) if "cost_model" in p]
    assert bool(said) == refused, said
    assert not refused or _expect("cost_model_label") in said[0]


def test_a_migration_rows_old_api_is_its_cases():
    from conftest import ROOT
    from reportgen.data import load
    import json
    rec = next(r for f in sorted((ROOT / "results" / "runs").glob("*/records.jsonl"))
               for r in map(json.loads, f.read_text(encoding="utf-8").splitlines())
               if r["experiment"] == "graph" and "old_api" in (r.get("extra") or {}) and r["status"] == "ok")
    from study import work
    assert not [p for p in work.extra_problems(rec) if "old_api" in p]
    rec["extra"]["old_api"] = "tvm.compile"
    said = [p for p in work.extra_problems(rec) if "old_api" in p]
    assert said and _expect("old_api_its_case") in said[0]
    assert load is not None


def test_the_hottest_kernels_name_is_its_assemblys(tmp_path):
    import copy
    from test_hostile_round43 import _int8, _problems
    rec = _int8(tmp_path)
    assert _problems(tmp_path, rec) == []
    forged = copy.deepcopy(rec)
    forged["extra"]["asm"]["hottest_kernel"] = "fused_dense_pack_vnni_FAKE"
    said = _problems(tmp_path, forged)
    assert len(said) == 1 and "extra.asm.hottest_kernel" in said[0] and _expect("hottest_kernel_its_assembly") in said[0]


@pytest.mark.parametrize("field,before,after", [
    ("cost_model", "xgb", "random"), ("old_api", "tvm.build", "tvm.compile"),
    ("engine", {"engine": "onnxruntime", "version": "1.32.0"}, {"engine": "onnxruntime", "version": "1.99.0"}),
    ("engine", {"engine": "tflite", "delegate": "XNNPACK"}, {"engine": "tflite", "delegate": "GPU"}),
    ("quant", {"method": "percentile"}, {"method": "minmax"}), ("quant", {"method": "percentile"},
                                                                 {"method": "percentile", "rounding": "gptq"})])
def test_the_texts_of_round_87_are_levels_over_changed_code(field, before, after):
    from reportgen.data import claims
    earlier = {"id": "e2e/x", "extra": {field: before}}
    moved = claims.level_jump(earlier, {"id": "e2e/x", "extra": {field: after}}, 2.0)
    assert moved and moved[1].startswith(f"extra.{field}"), (moved, _expect("printed_text_level_87"))
