"""The eighty-fifth round of the hostile corpus (issue #29), site set: attack only, then fixed.

10 probes, 4 failed (two weak): neighbours swapped beside an 'm' or an accented letter ('Gemm' / 'Gmem', 'Caf\u00e9' /
'Ca\u00e9f') were several changes apart once drawn ('m' as 'rn'); the CSV link's words had no bound, and the build writes
them after every table past the pages' size bounds (a 1 M label made a 3.5 KB page 100 M); a digit in them stopped
the build naming docs/index.md (weak); a docs page at coverage.md was replaced by the build's own, without a word
(weak).  Data set: 12 probes, 3 failed: an INT8 record's case.target_kind 'cuda' made the platforms page say the site
holds a GPU measurement; 5 stopped it in a sort; case.via 'rpc:pixel7-android' said a record was measured on a phone.

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_hostile_round4 import _expect

MUTATIONS = {}
SPECIAL = {case: None for case in ("title_swap_as_written", "csv_link_words_bounded", "generated_path_not_replaced",
                                   "case_device_checked")}


@pytest.mark.parametrize("a, b", [("Gemm", "Gmem"), ("Compiler", "Copmiler"), ("Tuning time", "Tuning tmie"),
                                  ("im2col", "mi2col"), ("Caf\u00e9", "Ca\u00e9f")])
def test_neighbours_swapped_as_written_read_as_one(a, b):
    from study import confusables
    names = confusables.Names(apart=True)
    assert names.seen(a, "first") is None and names.seen(b, "second") == _expect("title_swap_as_written")


@pytest.mark.parametrize("words", ["x" * 1_000_000, "\u4e0b\u8f7d\u672c\u8868 CSV (UTF-8)", "a\u0007b", "", "<b>CSV</b>"])
def test_the_csv_links_words_are_short_plain_text(words):
    from reportgen.publish import configcheck
    said = configcheck.csv_link_problem(words)
    assert said and _expect("csv_link_words_bounded") in said, said
    assert configcheck.csv_link_problem("\u4e0b\u8f7d\u672c\u8868 CSV") is None


def test_a_docs_file_at_a_path_the_build_writes_is_refused(tmp_path):
    from conftest import copy_project
    from reportgen.commands import build
    from reportgen.errors import ReportError
    project = copy_project(tmp_path / "project")
    (project / "docs" / "coverage.md").write_text("# \u8986\u76d6\n\nthe author's own text\n", encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        build.build(project, project / "site")
    assert "docs/coverage.md" in str(refused.value) and _expect("generated_path_not_replaced") in str(refused.value)


# Data set (3 of 12 failed): case fields the platforms page reads that nothing checked.

@pytest.mark.parametrize("case,env,refused", [
    ({"target_kind": "cuda"}, {}, True), ({"target_kind": 5}, {}, True), ({"target": {"kind": "opencl"}}, {}, True),
    ({"target": {"kind": "llvm", "mcpu": "znver4"}}, {}, False), ({"via": "rpc:pixel7-android"}, {}, True),
    ({"via": "rpc:pixel7-android"}, {"rpc": {"key": "pixel7-android"}}, False),
    ({"via": "rpc:pixel7-android"}, {"rpc": {"key": "rk3399"}}, True)])
def test_a_cases_device_is_one_the_study_and_its_run_name(case, env, refused):
    from study import targets
    rec = {"experiment": "int8", "case": {"model": "m", **case}}
    said = targets.device_problems(rec, env)
    assert bool(said) == refused and (not said or _expect("case_device_checked") in said[0]), said
    cuda = {"experiment": "gemm_tvm", "case": {"impl": "tvm_cuda", "target_kind": "cuda", "target": {"kind": "cuda"}}}
    assert targets.device_problems(cuda, {}) == []
