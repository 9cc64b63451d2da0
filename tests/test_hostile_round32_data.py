"""The thirty-second round of the hostile corpus (issue #29), data side, attack only, then fixed.

- A line naming a case of the record's family in two spellings at once (fields reordered and a
  status glued on, upper case and a field left out, n=04096, a Cyrillic e, the anchor form with a
  suffix, fields apart) or another case's line in the record's range passed: each check read one
  spelling.  Now any line of a record's range that names a case of its family, in any spelling
  (citation._mentions), is the record's own summary, status or note.
- Output without a line break (a progress bar's \\r) joined the harness's summary in the log, while
  the harness checked a clean copy: the run then refused itself at load.  The harness reads its
  lines back from the log.
- The harness checked without the case, and accepted an id spelled otherwise than its case, which
  load refuses in a bound run: it now refuses it at once.
- A word 'numpy_gemm/family=x' in a cited line crashed build, verify and trace (TypeError).

Each case id is an entry of tests/data/hostile/cases.yaml; test_hostile.py checks that every entry
has a test here or in the other rounds.
"""
import pytest
from test_harness import PASSED, _harness
from test_hostile_round4 import _expect

from study import cases, citation

MUTATIONS = {}
SPECIAL = {"harness_reads_its_log": None, "harness_spelling": None, "family_field_word": None}


def _say_to_log(h):
    def say(line):   # what retest does: the family's stdout is its log
        with h.log_file.open("a", encoding="utf-8") as fh:
            fh.write(f"[fam] {line}\n")
    h.say = say


@pytest.mark.parametrize("partial", ["progress 40%\r", "warning: no newline", "\r\r"])
def test_output_without_a_line_break_does_not_join_the_summary(tmp_path, partial):
    h = _harness(tmp_path)
    _say_to_log(h)

    def check(_):
        with h.log_file.open("a", encoding="utf-8") as fh:   # a library's output, no line break
            fh.write(partial)
        return PASSED

    rec = h.measure("fam/x=1", {"x": 1}, check=check, call=lambda _: lambda: None, time="fixed")
    first, last = rec["log"]["lines"]
    cited = h.log_file.read_bytes().decode("utf-8").split("\n")[first - 1:last]   # lines at "\n" only, as load counts
    assert citation.summary_problem(rec, cited[-1]) is None, (cited, _expect("harness_reads_its_log"))
    assert citation.statement_problems(rec, cited) == []


def test_the_harness_refuses_an_id_spelled_otherwise_than_its_case(tmp_path):
    h = _harness(tmp_path)
    _say_to_log(h)
    case = {"dtype": "float32", "n": 32, "threads": 1, "blas": "configured"}
    with pytest.raises(ValueError) as err:
        h.measure("numpy_gemm/n=32/dtype=float32/threads=1/blas=configured", case, check=lambda _: PASSED,
                  call=lambda _: lambda: None, time="fixed")
    assert _expect("harness_spelling") in str(err.value)


@pytest.mark.parametrize("word", ["numpy_gemm/family=x", "numpy_gemm/family", "gemm_tvm/family=1/impl=x"])
def test_a_family_field_word_is_read_without_raising(word):
    rec = {"id": "numpy_gemm/dtype=float32/n=32/threads=1/blas=configured", "experiment": "numpy_gemm",
           "status": "ok", "stats": {"p50": 1e-3}, "case": {"dtype": "float32", "n": 32, "threads": 1, "blas": "configured"}}
    assert cases.canonical_id(word, {"family": "x"}) == word, _expect("family_field_word")
    assert isinstance(citation.statement_problems(rec, [f"[numpy_gemm] {word}: FAILED"]), list)
