"""The eighty-sixth round of the hostile corpus (issue #29), site set: attack only, then fixed.

10 probes, 4 failed (one weak): an empty docs/snippets file, or one whose first line holds no label, stopped the build
with 'docs/migration.md: cannot be checked or shown (IndexError ...)'; a snippet of archive/code.yaml without 'today'
did the same; --site-dir X.tmp or X.old was another build's work folder (a build of X removed the site at X.tmp,
and moved X.old into X saying it restored it); U+2028, NBSP and other spaces passed the title rules (weak).  Data set: 12 probes, 8 failed: texts pages print that were only typed (the BLAS kernel's architecture, a
pass's Relax equivalent or null, a migration row's new API and era, the passes a demonstration ran, how the NumPy
peer was timed, the AVX2 target's mcpu) were forged over changed code unflagged; they are levels now.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("snippet_first_line_named", "snippet_today_required", "site_dir_not_a_work_folder",
                                   "title_spaces_plain", "printed_text_level",
                                   "printed_target_tied")}


@pytest.mark.parametrize("text", ["", "print(1)\n", "\n# \u5f53\u524d\n"])
def test_a_snippet_without_its_label_line_is_named(text, tmp_path):
    from reportgen.errors import ReportError
    from reportgen.pages import writeup
    (tmp_path / "docs" / "snippets").mkdir(parents=True)
    (tmp_path / "docs" / "snippets" / "x.py").write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        writeup.current_code(tmp_path, "docs/snippets/x.py", None)
    assert str(refused.value).startswith("docs/snippets/x.py:1: ") and _expect("snippet_first_line_named") in str(refused.value)


def test_a_code_snippet_names_its_today(tmp_path):
    import shutil
    from reportgen.data import seed
    from reportgen.errors import ReportError
    from conftest import ROOT
    shutil.copytree(ROOT / "archive", tmp_path / "archive")
    path = tmp_path / "archive" / "code.yaml"
    lines = path.read_text(encoding="utf-8").split("\n")
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("today:"))
    path.write_text("\n".join(lines[:first] + lines[first + 1:]), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        seed.read_code(tmp_path / "archive")
    assert _expect("snippet_today_required") in str(refused.value)


@pytest.mark.parametrize("name", ["site.tmp", "out.old"])
def test_a_site_dir_is_no_builds_work_folder(name, tmp_path):
    from conftest import copy_project
    from reportgen.commands import build
    from reportgen.errors import ReportError
    project = copy_project(tmp_path / "project")
    with pytest.raises(ReportError) as refused:
        build.check_site_dir(project, project / name)
    assert _expect("site_dir_not_a_work_folder") in str(refused.value)


@pytest.mark.parametrize("title", ["GEMM\u2028\u57fa\u7ebf", "GEMM\u00a0\u57fa\u7ebf", "GEMM\u2003\u57fa\u7ebf"])
def test_a_title_holds_plain_spaces(title):
    from reportgen.publish import configcheck
    assert _expect("title_spaces_plain") in configcheck.title_problem(title)
    assert configcheck.title_problem("GEMM \u57fa\u7ebf") is None and configcheck.title_problem("GEMM\u3000\u57fa\u7ebf") is None


# Data set (8 of 12 failed): printed texts only type-checked, now levels over changed code (claims.TEXT_LEVELS).

@pytest.mark.parametrize("field,before,after", [
    ("blas_kernel", {"architecture": "Haswell"}, {"architecture": "SkylakeX"}),
    ("relax_equivalent", "FoldScaleAxis", "FoldScaleAxisRelaxV2"), ("relax_equivalent", "FoldScaleAxis", None),
    ("new_api", "tvm.compile", "tvm.relay.build"), ("era", "TVM 0.27", "TVM 0.20"),
    ("passes", ["FoldConstant"], ["FuseOps", "FuseTIR"]), ("process", "own process", "same process"),
    ("avx2_target", {"mcpu": "haswell"}, {"mcpu": "sapphirerapids"})])
def test_a_printed_text_is_a_level_over_changed_code(field, before, after):
    from reportgen.data import claims
    earlier = {"id": "graph/x", "extra": {field: before}}
    later = {"id": "graph/x", "extra": {field: after} if after is not None else {}}
    moved = claims.level_jump(earlier, later, 2.0)
    assert moved and moved[1].startswith(f"extra.{field}"), (moved, _expect("printed_text_level"))
    assert claims.level_jump(earlier, {"id": "graph/x", "extra": {field: before}}, 2.0) is None


# Data set, the ties left over (findings P7 and P12): the texts are also tied to what the record says it ran.

@pytest.mark.parametrize("extra,refused", [
    ({"blas_kernel": {"architecture": ""}}, True), ({"blas_kernel": {"architecture": ["Haswell"]}}, True),
    ({"blas_kernel": {"architecture": "Quantum9"}}, True), ({"blas_kernel": {}}, True), ({"blas_kernel": {"architecture": "SkylakeX"}}, False),
    ({"avx2_target": {"mcpu": "sapphirerapids"}, "target": '{"kind": "llvm", "mcpu": "sapphirerapids"}'}, True),
    ({"avx2_target": {"mcpu": [1, {"a": None}]}, "target": '{"kind": "llvm", "mcpu": "znver3"}'}, True),
    ({"avx2_target": {"mcpu": "haswell"}, "target": '{"kind": "llvm", "mcpu": "znver3"}'}, True),
    ({"avx2_target": {"mcpu": "znver3"}}, True),
    ({"avx2_target": {"mcpu": "znver3"}, "target": '{"kind": "llvm", "mcpu": "znver3"}'}, False),
    ({"avx2_target": {"mcpu": "haswell"}, "target": "llvm -mcpu=haswell -num-cores=2"}, False)])
def test_a_printed_kernel_or_target_is_one_the_record_ran(extra, refused):
    from study import targets
    said = targets.extra_problems(extra)
    assert bool(said) == refused, said
    assert not refused or _expect("printed_target_tied") in said[0]
